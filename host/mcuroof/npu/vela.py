"""Run Arm's Vela (PyPI ethos-u-vela, pinned by the `npu` extra) on one .tflite and read its files.

Vela runs as its own command line (`python -m ethosu.vela`) in this Python, with --output-dir
and --verbose-performance (its per-layer CSV beside the summary CSV).
Its figures are estimates of its performance model: nothing runs on an NPU.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from mcuroof.errors import UserError
from mcuroof.npu import vela_output

VERSION = "5.2.0"
INSTALL = "pip install 'mcuroof[npu]'"
ESTIMATED = "estimated by Vela 5.2, not measured"
CONFIGS = ("ethos-u55-32", "ethos-u55-64", "ethos-u55-128", "ethos-u55-256", "ethos-u65-256", "ethos-u65-512")
DEFAULT_INI = "Arm/vela.ini"
# Vela's own Arm/vela.ini system config for each NPU family when none is given
DEFAULT_SYSTEMS = {"Ethos-U55": "Ethos_U55_High_End_Embedded", "Ethos-U65": "Ethos_U65_High_End"}


# Vendor system configs, not in Vela's own Arm/vela.ini: written into an ini beside Vela's output
# when named. Alif's RTSS configurations of the Ensemble E7 (as OpenMV ships them for its Alif
# boards, tools/vela.ini, and passes them to Vela for the AE3's HP and HE cores, ports/alif).
VENDOR_SOURCE = (
    "Alif's RTSS Vela system configs of the Ensemble (the ones OpenMV compiles its Alif models with: "
    "openmv/openmv tools/vela.ini, RTSS_HP_DTCM_MRAM on the HP core, RTSS_HE_SRAM_MRAM on the HE core)"
)
VENDOR_SYSTEMS = {
    # HP core: NPU at 400 MHz, tensor arena in the HP core's DTCM, weights in MRAM
    "RTSS_HP_DTCM_MRAM": {
        "core_clock": "400e6",
        "axi0_port": "Sram",
        "axi1_port": "OffChipFlash",
        "Sram_clock_scale": "0.889",
        "Sram_burst_length": "32",
        "Sram_read_latency": "5",
        "Sram_write_latency": "5",
        "OffChipFlash_clock_scale": "0.118",
        "OffChipFlash_burst_length": "64",
        "OffChipFlash_read_latency": "60",
        "OffChipFlash_write_latency": "60",
    },
    # HE core: NPU at 160 MHz, tensor arena in SRAM, weights in MRAM
    "RTSS_HE_SRAM_MRAM": {
        "core_clock": "160e6",
        "axi0_port": "Sram",
        "axi1_port": "OffChipFlash",
        "Sram_clock_scale": "1.0",
        "Sram_burst_length": "8",
        "Sram_read_latency": "13",
        "Sram_write_latency": "13",
        "OffChipFlash_clock_scale": "0.303",
        "OffChipFlash_burst_length": "16",
        "OffChipFlash_read_latency": "24",
        "OffChipFlash_write_latency": "24",
    },
}
# the memory modes a vendor system can name (Vela's Shared_Sram: arena and cache on AXI0, constants on AXI1)
VENDOR_MODES = {"Shared_Sram": {"const_mem_area": "Axi1", "arena_mem_area": "Axi0", "cache_mem_area": "Axi0"}}


def vendor_ini(system: str, out_dir: Path) -> Path:
    """An ini holding one vendor system config and the memory modes, for Vela's --config."""
    sections = {f"System_Config.{system}": VENDOR_SYSTEMS[system]}
    sections |= {f"Memory_Mode.{m}": v for m, v in VENDOR_MODES.items()}
    text = "".join(
        f"[{name}]\n" + "".join(f"{k}={v}\n" for k, v in body.items()) + "\n" for name, body in sections.items()
    )
    path = out_dir / f"{system}.ini"
    path.write_text(text, encoding="utf-8")
    return path


def default_system(config: str) -> str:
    """ "Ethos_U65_High_End" for "ethos-u65-256": an Ethos-U65 needs an arena in SRAM or DRAM."""
    return DEFAULT_SYSTEMS["Ethos-U65" if config.startswith("ethos-u65") else "Ethos-U55"]


@dataclass(frozen=True)
class Estimate:
    """Vela's estimate of one network on one NPU configuration."""

    model: str
    config: str
    summary: vela_output.Summary
    operations: list
    out_dir: Path
    cpu_note: str  # Vela's own reason lines for operators it leaves on the CPU ("" if none)


def require() -> str:
    """Vela's installed version; a one-line error naming the install command where it is missing."""
    try:
        version = importlib.metadata.version("ethos-u-vela")
    except importlib.metadata.PackageNotFoundError:
        raise UserError(f"npu: Arm's Vela is not installed: {INSTALL}") from None
    if version != VERSION:
        raise UserError(f"npu: Vela {version} is installed; mcuroof reads Vela {VERSION}'s files: {INSTALL}")
    return version


def command(model: Path, config: str, system: str, memory_mode: str | None, out_dir: Path) -> list[str]:
    """The Vela command line for one compile (a vendor system's ini written into out_dir)."""
    cmd = [sys.executable, "-m", "ethosu.vela", str(model), "--accelerator-config", config, "--system-config", system]
    if system in VENDOR_SYSTEMS:
        ini = vendor_ini(system, out_dir)
        return (
            cmd
            + ["--config", str(ini), "--memory-mode", memory_mode or "Shared_Sram", "--output-dir", str(out_dir)]
            + ["--verbose-performance"]
        )
    # Vela refuses --config with its default memory mode: the ini is named only with a mode
    cmd += ["--config", DEFAULT_INI, "--memory-mode", memory_mode] if memory_mode else []
    return cmd + ["--output-dir", str(out_dir), "--verbose-performance"]


def _reasons(stdout: str) -> str:
    """Vela's 'Warning (supported operators)' lines: why an operator stays on the CPU."""
    lines = [ln.strip() for ln in stdout.splitlines()]
    keep = [ln for ln in lines if ln.startswith(("Warning (supported operators)", "Reason:"))]
    return "\n".join(keep)


def _fail(model: Path, config: str, system: str, proc) -> UserError:
    text = (proc.stderr or proc.stdout or "").strip().splitlines()
    last = next((ln for ln in reversed(text) if ln.strip()), f"exit status {proc.returncode}").strip()
    if "arena_mem_area" in last and config.startswith("ethos-u65"):
        return UserError(
            f"npu: {config} cannot use system {system} (Vela: an Ethos-U65's arena must be in SRAM or DRAM): "
            f"give --system {DEFAULT_SYSTEMS['Ethos-U65']} or another Ethos-U65 system of Vela's {DEFAULT_INI}"
        )
    return UserError(f"npu: Vela could not compile {model} for {config} ({system}): {last}")


def compile_model(model: Path, config: str, system: str, memory_mode: str | None, out_dir: Path) -> Estimate:
    """Compile `model` with Vela into out_dir and read its per-layer and summary files."""
    require()
    if config not in CONFIGS:
        raise UserError(f"npu: --config {config}: not an Ethos-U55/U65 configuration ({', '.join(CONFIGS)})")
    out_dir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(command(model, config, system, memory_mode, out_dir), capture_output=True, text=True)
    if proc.returncode != 0:
        raise _fail(model, config, system, proc)
    stem = model.stem
    files = [out_dir / f"{stem}_per-layer.csv", out_dir / f"{stem}_summary_{system}.csv"]
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        raise UserError(f"npu: Vela wrote no {missing[0]} for {model} in {out_dir}")
    summary = vela_output.summary(files[1].read_text())
    ops = vela_output.operations(files[0].read_text())
    return Estimate(str(model), config, summary, ops, out_dir, _reasons(proc.stdout))
