"""MLPerf Tiny closed-division results (int8 reference models, C engines: TFLite Micro with
CMSIS-NN, vendor compilers) as MACs per cycle of their core. Pure computation over the shipped
table (mlperf_tiny.csv, written by tools/mlperf_tiny_table.py from MLCommons' results
repositories tiny_results_v0.5 ... v1.3, Apache-2.0).

MAC/cycle = the reference model's MACs / (median latency x the core clock the system names).
The MACs are mcuroof's own analyzer's count (`mcuroof analyze`): the MLPerf Tiny .tflite files
where the project has them, else the built-in layer shapes. A figure above its core's int8 bound
(the core's board profile) is flagged with the likely reason found in the submission, never
ranked as the core's best.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from mcuroof.board import profiles

SOURCE = "MLCommons MLPerf Tiny results, closed division, performance mode (tiny_results_v0.5 to v1.3)"
# benchmark -> (MACs per inference, how mcuroof counted them); tests/unit/test_mlperf.py recounts them
MACS = {
    "kws": (2_656_768, "mcuroof analyze kws_ref_model.tflite (MLPerf Tiny DS-CNN, int8)"),
    "ad": (264_192, "mcuroof analyze ad01_int8.tflite (MLPerf Tiny FC autoencoder, int8)"),
    "vww": (7_489_664, "mcuroof analyze --model vww-mobilenet (built-in shapes: the .tflite was not available)"),
    "ic": (12_501_632, "mcuroof analyze --model ic-resnet8 (built-in shapes: the .tflite was not available)"),
}
BENCH_MODEL = {"kws": "kws-dscnn", "ad": "ad-autoencoder", "vww": "vww-mobilenet", "ic": "ic-resnet8"}
CORES = ("M0+", "M0", "M3", "M4", "M7", "M33", "M55", "M85")


@dataclass(frozen=True)
class Result:
    round: str
    submitter: str
    system: str
    bench: str
    latency_s: float
    core: str | None  # "Cortex-M4" or None (not an Arm Cortex-M core)
    clock_hz: float | None
    processor: str
    frequency: str
    accelerator: str
    framework: str
    path: str
    results_repo: str
    commit: str

    @property
    def macs_per_cycle(self) -> float | None:
        if not self.clock_hz:
            return None
        return MACS[self.bench][0] / (self.latency_s * self.clock_hz)


def core_of(processor: str) -> str | None:
    """ "Cortex-M4" from "32-bit Arm® Cortex®-M4 (DSP + FPU)"; None for other cores."""
    text = re.sub(r"[®™]", "", processor)
    m = re.search(r"cortex\s*-?\s*(m\d+\+?)", text, re.I)
    if not m:
        return None
    core = m.group(1).upper()
    return f"Cortex-{core}" if core in CORES else None


def clock_of(frequency: str) -> float | None:
    """The first clock in a free-form frequency ("96 MHz", "up to 480MHz", "1Ghz") in Hz."""
    m = re.search(r"(\d+(?:\.\d+)?)\s*([mg])", frequency, re.I)
    return float(m.group(1)) * (1e9 if m.group(2).lower() == "g" else 1e6) if m else None


@lru_cache(maxsize=1)
def results() -> tuple[Result, ...]:
    """Every shipped result row."""
    text = resources.files("mcuroof.published").joinpath("mlperf_tiny.csv").read_text(encoding="utf-8")
    return tuple(
        Result(
            r["round"],
            r["submitter"],
            r["system"],
            r["bench"],
            float(r["latency_ms"]) / 1e3,
            core_of(r["processor"]),
            clock_of(r["frequency"]),
            r["processor"],
            r["frequency"],
            r["accelerator"],
            r["framework"],
            r["path"],
            r["results_repo"],
            r["commit"],
        )
        for r in csv.DictReader(text.splitlines())
    )


def _same_core(profile_core: str, core: str) -> bool:
    return profile_core.rstrip("F") == core  # Cortex-M4F is a Cortex-M4 with an FPU


@lru_cache(maxsize=None)
def bound(core: str) -> tuple[float, str] | None:
    """The core's int8 MAC/cycle bound and the profile it comes from (a real board's: its
    cycles, not QEMU's instructions); None where no profile has one."""
    for b in profiles.list_boards():
        if b.connect == "qemu" or not _same_core(b.core_name, core):
            continue
        for c in b.compute:
            if c.dtype == "int8" and c.macs_per_cycle:
                return c.macs_per_cycle, f"boards/{b.name}.toml"
    return None


def flag(r: Result) -> str | None:
    """Why a figure is above its core's bound (the likely reason, from the submission), or None."""
    b = bound(r.core) if r.core else None
    mpc = r.macs_per_cycle
    if b is None or mpc is None or mpc <= b[0]:
        return None
    above = f"{mpc:.2f} MAC/cycle is above the {r.core} bound of {b[0]:g} ({b[1]})"
    if r.accelerator:
        return f"{above}: the system names an accelerator, {r.accelerator!r}, that the core's bound leaves out"
    if len(re.findall(r"\d+(?:\.\d+)?\s*[mg]", r.frequency, re.I)) > 1 or "up to" in r.frequency.lower():
        return f"{above}: the clock is given as {r.frequency!r}, so the clock used may differ"
    return f"{above}: no accelerator is named; a different clock, or a model with fewer MACs than the reference"


def per_core() -> list[dict]:
    """One row per (core, benchmark): the best MAC/cycle of the core alone (no accelerator named,
    not above its bound), with its source; beside it the flagged figures, and the best of the
    systems that name an accelerator (a C engine's figure is the core's only without one)."""
    rows: dict[tuple[str, str], dict] = {}
    for r in results():
        if r.core is None or r.macs_per_cycle is None:
            continue
        row = rows.setdefault(
            (r.core, r.bench), {"core": r.core, "bench": r.bench, "best": None, "flagged": [], "with_accelerator": None}
        )
        why = flag(r)
        key = "flagged" if why else "with_accelerator" if r.accelerator else "best"
        if why:
            row["flagged"].append(as_dict(r) | {"flag": why})
        elif row[key] is None or r.macs_per_cycle > row[key]["macs_per_cycle"]:
            row[key] = as_dict(r)
    order = {c: i for i, c in enumerate(CORES)}
    return sorted(rows.values(), key=lambda x: (order[x["core"].split("-")[1]], x["bench"]))


def as_dict(r: Result) -> dict:
    return {
        "round": r.round,
        "submitter": r.submitter,
        "system": r.system,
        "bench": r.bench,
        "latency_s": r.latency_s,
        "core": r.core,
        "clock_hz": r.clock_hz,
        "macs": MACS[r.bench][0],
        "macs_per_cycle": r.macs_per_cycle,
        "accelerator": r.accelerator or None,
        "framework": r.framework,
        "source": f"{r.results_repo} {r.commit[:12]} {r.path}",
    }


RV32IM_BOUND = 0.5  # MUL then ADD, a cycle each, with no packed SIMD: the RV32IM int8 MAC/cycle bound


def riscv_results(bench: str = "kws") -> list[Result]:
    """The published results on RISC-V RV32 cores (their processor names an RV32 ISA), best first."""
    rows = [r for r in results() if r.bench == bench and re.search(r"RV\s*32", r.processor) and r.macs_per_cycle]
    return sorted(rows, key=lambda r: -r.macs_per_cycle)


def no_result_text(core: str) -> str:
    """What the reference says for a core with no published figure; on a RISC-V core, the RV32
    results there are, and why they can exceed the RV32IM bound (the P extension's SIMD)."""
    text = f"C-engine reference (MLPerf Tiny closed, int8): no published result on a {core}"
    rv = riscv_results() if core.startswith("RISC-V") else []
    if not rv:
        return text
    each = ", ".join(
        f"{re.sub(r'[®™]', '', r.processor).split(',')[0]} ({_isa(r.processor)}, {r.frequency}) "
        f"{r.macs_per_cycle:.3g} MAC/cycle"
        for r in rv
    )
    over = [r for r in rv if r.macs_per_cycle > RV32IM_BOUND and "P" in _isa(r.processor)]
    why = (
        f": above the {RV32IM_BOUND} MAC/cycle that RV32IM allows (MUL then ADD, no SIMD) because their P "
        "extension's packed-SIMD instructions do several 8-bit MACs each"
        + (
            "; a dual-issue core also issues two instructions a cycle"
            if any("dual-issue" in r.processor for r in over)
            else ""
        )
        if over
        else ""
    )
    return f"{text}; on other RV32 cores, KWS: {each}{why}"


def _isa(processor: str) -> str:
    m = re.search(r"RV\s*32\s*([A-Z]+)", processor)
    return f"RV32{m.group(1)}" if m else "RV32"


def bench_of(macs: int | None) -> str | None:
    """The benchmark whose reference model has exactly these MACs (mcuroof's count), if any."""
    return next((b for b, (m, _) in MACS.items() if m == macs), None)


def best_for(core: str | None) -> list[dict]:
    """The per-core rows of one core ("Cortex-M4F" counts as Cortex-M4); [] where none."""
    if not core:
        return []
    return [row for row in per_core() if _same_core(core, row["core"])]
