"""The RISC-V board (qemu-rv32: QEMU virt, RV32IMAC): the firmware built from the same sdist with
Debian's RISC-V toolchain, the serial link (raw-paste, soft reboot, Ctrl-C through the PLIC), the
probe that knows RISC-V without CPUID, the default suites end to end, and the same firmware reached
with --port and no profile. The firmware is built once and cached (~/.cache/mcuroof/firmware)."""

import json
import shutil

import pytest

from mcuroof.board import identity
from mcuroof.cli import main
from mcuroof.kernels.firmware import prefix, source
from mcuroof.links.base import BoardReset, BoardStalled
from mcuroof.measure.protocol import parse_line
from mcuroof.results import document as results

pytestmark = [
    pytest.mark.skipif(
        not shutil.which("qemu-system-riscv32") or not shutil.which("riscv64-unknown-elf-gcc"),
        reason="needs qemu-system-riscv32 and gcc-riscv64-unknown-elf: "
        "apt-get install gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc",
    ),
    pytest.mark.slow,
]


def _link():
    from mcuroof.links.qemu import QemuLink

    return QemuLink(6, board="qemu-rv32")


def test_link_raw_paste_soft_reboot_and_ctrl_c():
    link = _link()
    pasted = []
    write = link._paste
    link._paste = lambda code: (pasted.append(code), write(code))[1]
    try:
        out = []
        link.run(["print(6 * 7)\n"], out.append)
        assert "42\r" in out and pasted == [b"print(6 * 7)\n"]
        with pytest.raises(BoardReset, match="soft reboot"):
            link.run(["import machine\nmachine.soft_reset()\n", "print('lost')\n"], out.append)
        link.recover()
        with pytest.raises(BoardStalled):  # a hung kernel
            link.run(["while True:\n pass\n"], out.append, timeout=2)
        link.recover()  # the next run interrupts it with Ctrl-C (the UART's interrupt, PLIC source 10)
        out = []
        link.run(["print('goes on')\n"], out.append)
        assert "goes on\r" in out
    finally:
        link.close()


def test_the_probe_knows_risc_v_without_cpuid():
    """The probe finds the emitters, reads no Arm register (cpu, dwt: None), reports _mpy's
    architecture (11: RV32IMC) and misa, from which identity names the core."""
    link = _link()
    try:
        out = []
        link.run(prefix([], {"win_us": 2000, "trials": 1}) + source("probe"), out.append)
        probe = [parse_line(ln).data for ln in out if ln.startswith("@mcr")][0]
    finally:
        link.close()
    assert probe["platform"] == "qemu-rv32" and probe["version"][:2] == [1, 29]
    assert probe["emitters"] == ["bytecode", "native", "viper", "asm_rv32"]
    assert probe["cpu"] is None and probe["dwt"] is None
    assert identity.mpy_arch(probe) == identity.MPY_ARCH_RV32IMC
    assert probe["misa"] >> 30 == 1  # MXL: 32-bit
    core = identity.describe(probe)
    # QEMU's hart runs with f=false,d=false (links.qemu): the extensions the firmware is built for
    assert core.name == "RISC-V RV32IMAC" and core.source == "misa" and core.peak_kernels == ["mul", "lw16x"]


def test_default_suites_end_to_end(tmp_path, capsys):
    """memory, compute and regions with bytecode, native, viper and asm_rv32; every record checked
    (the host's references), the regions read by viper, the theory per instruction. The
    calibration suite (the fourth default, about 1,000 shapes: minutes of QEMU) is left to the
    unit tests of its design and the unix port's board test."""
    out = tmp_path / "out"
    assert main(["run", "--board", "qemu-rv32", "--suite", "memory,compute,regions", "-o", str(out)]) == 0
    data = results.load(out / "results.json")
    board = data["board"]
    assert board["platform"] == "qemu-rv32" and board["icount_shift"] == 6
    assert board["core"]["name"] == "RISC-V RV32IMAC" and board["cpu"] is None
    measured = [r for r in data["roofs"] if r["source"] == "measured"]
    for kind in ("compute", "memory"):
        ems = {r["emitter"] for r in measured if r["kind"] == kind}
        assert {"bytecode", "native", "viper", "asm_rv32"} <= ems, (kind, ems)
    # the asm_rv32 ceilings against their loops' bounds (kernels.rv32; -icount: instructions, exact)
    instr_per_s = 1e9 / 2**6
    mul = [r["macs_per_s"] / instr_per_s for r in measured if r.get("kernel") == "mul"]
    assert len(mul) == 3 and all(0.45 <= m <= 32 / 66 * 1.01 for m in mul)  # 32 MACs in 66 instructions
    (copy,) = [r["bytes_per_s"] / instr_per_s for r in measured if r.get("kernel") == "copy-lw"]
    assert 0.9 * 32 / 12 <= copy <= 32 / 12 * 1.01  # 32 bytes moved in 12 instructions
    # the int8 dot products: LB loads (16 MACs in 66 instructions), LW loads and shifts (16 in 98)
    (lb,) = [r["macs_per_s"] / instr_per_s for r in measured if r["name"] == "int8 asm_rv32 16x"]
    (lw,) = [r["macs_per_s"] / instr_per_s for r in measured if r["name"] == "int8 asm_rv32 lw16x"]
    assert 0.97 * 16 / 66 <= lb <= 16 / 66 * 1.01 and 0.97 * 16 / 98 <= lw <= 16 / 98 * 1.01
    assert {r.get("region") for r in measured if r.get("region")} == {"code", "SRAM"}
    assert data["checks"]["failed"] == 0 and data["checks"]["verified"] > 200
    theory = {
        r["dtype"]: r["macs_per_s"] for r in data["roofs"] if r["source"] == "theoretical" and r["kind"] == "compute"
    }
    assert theory["int32"] == 0.5 * 1e9 / 2**6  # MUL+ADD: 0.5 MAC an instruction, 2^6 ns each
    assert "RISC-V RV32IMAC" in capsys.readouterr().out


def test_without_a_profile_over_its_port(tmp_path, capsys):
    """The same firmware over --port, no --board: measured for what it is (RISC-V, by its probe)."""
    from mcuroof.links.qemu import QemuMicrobit

    qemu = QemuMicrobit(board="qemu-rv32")
    pty = qemu.start()
    try:
        out = tmp_path / "out"
        assert main(["run", "--port", pty, "--suite", "compute", "-o", str(out)]) == 0
    finally:
        qemu.stop()
    data = results.load(out / "results.json")
    assert data["board"]["name"] == f"RISC-V RV32IMAC (qemu-rv32) on {pty}"
    assert data["board"]["core"]["isa"] == ["rv32a", "rv32c", "rv32i", "rv32imc", "rv32m"]
    assert data["checks"]["failed"] == 0
    assert {r["emitter"] for r in data["roofs"] if r["source"] == "measured"} >= {"bytecode", "native", "viper"}


def test_a_risc_v_board_named_esp32_without_a_profile(tmp_path, capsys):
    """qemu-rv32's firmware with sys.platform "esp32" (firmware/port/boards/qemu-rv32-esp32), the
    name an ESP32-C3 or -C6 gives, over --port and no profile: RISC-V is identified from _mpy and
    misa, the asm_rv32 ceilings are measured, and the raw log's probe record shows no Arm register
    read (cpu and dwt None: the probe reads CPUID and the DWT only on a Thumb core)."""
    from mcuroof.links.qemu import QemuMicrobit

    qemu = QemuMicrobit(board="qemu-rv32", build="qemu-rv32-esp32")
    pty = qemu.start()
    try:
        out = tmp_path / "out"
        assert main(["run", "--port", pty, "--suite", "compute", "-o", str(out)]) == 0
    finally:
        qemu.stop()
    lines = [json.loads(ln) for ln in (out / "raw.jsonl").read_text().splitlines()]
    (probe,) = [ln["rec"] for ln in lines if ln["kind"] == "record" and ln["rec"].get("t") == "probe"]
    assert probe["platform"] == "esp32" and identity.mpy_arch(probe) == identity.MPY_ARCH_RV32IMC
    assert probe["cpu"] is None and probe["dwt"] is None and probe["misa"] >> 30 == 1
    data = results.load(out / "results.json")
    assert data["board"]["name"] == f"RISC-V RV32IMAC (esp32) on {pty}"
    assert "armv7m" not in data["board"]["core"]["isa"] and "rv32m" in data["board"]["core"]["isa"]
    mul = [r for r in data["roofs"] if r["source"] == "measured" and r.get("kernel") == "mul"]
    assert sorted(r["dtype"] for r in mul) == ["int16", "int32", "int8"] and {r["emitter"] for r in mul} == {"asm_rv32"}
    # under -icount shift=6 (QEMU's default here): 15.625 M instructions a second; 32 MACs in 66
    assert all(0.45 <= r["macs_per_s"] / (1e9 / 2**6) <= 32 / 66 * 1.01 for r in mul)
    assert data["checks"]["failed"] == 0
