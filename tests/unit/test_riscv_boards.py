"""The RISC-V board profiles (esp32-c3, esp32-c6, rp2350-riscv): their theory per cycle against a
hand computation, what a probe of each identifies, and the qemu-rv32 firmware renamed "esp32"
(firmware/port/boards/qemu-rv32-esp32) that tests a RISC-V board without a profile
(tests/board/test_qemu_rv32.py runs it)."""

from __future__ import annotations

import shutil

import pytest

from mcuroof.board import identity, profiles
from mcuroof.links import firmware_build, qemu
from mcuroof.suites import compute

MPY_RV32 = 11 << 10 | 6  # sys.implementation._mpy: architecture 11 (RV32IMC), .mpy version 6
# (profile, clock in Hz, MAC per cycle of int8/16/32, SRAM bytes per cycle, port, has asm_rv32)
BOARDS = [
    ("esp32-c3", 160_000_000, 0.5, 4, "esp32", False),
    ("esp32-c6", 160_000_000, 0.5, 4, "esp32", False),
    ("rp2350-riscv", 150_000_000, 0.5, 4, "rp2", True),
]


@pytest.mark.parametrize("name, hz, macs, bus, port, asm", BOARDS)
def test_the_theory_is_per_cycle_at_the_clock(name, hz, macs, bus, port, asm):
    board = profiles.load_board(name)
    assert board.port == port and board.connect == "auto" and board.clock_hz == hz
    assert ("asm_rv32" in board.run["emitters"]) == asm and "asm_thumb" not in board.run["emitters"]
    roofs = profiles.theoretical_roofs(board)
    peaks = {r["dtype"]: r["macs_per_s"] for r in roofs if r["kind"] == "compute"}
    # a MAC is MUL + ADD on RV32IM: 2 cycles, 0.5 MAC a cycle: 80 M MAC/s at 160 MHz, 75 M at 150 MHz
    assert peaks == {dt: macs * hz for dt in ("int32", "int16", "int8")}
    sram = [r["bytes_per_s"] for r in roofs if r["kind"] == "memory"]
    assert sram == [bus * hz]  # one 32-bit LW or SW a cycle; the caches and flash give no roof
    assert all(r["basis"] for r in roofs) and not board.features


def test_hazard3s_multiplier_is_cited_esp32s_is_not_published():
    hazard3 = profiles.load_board("rp2350-riscv").compute
    assert all("MUL_FASTER" in c.source for c in hazard3 if c.dtype == "int32")
    for name in ("esp32-c3", "esp32-c6"):
        c = next(c for c in profiles.load_board(name).compute if c.dtype == "int32")
        assert c.source.startswith("derived (upper bound)") and "not published" in c.source


def _probe(platform, emitters, misa=None):
    return {"platform": platform, "mpy": MPY_RV32, "misa": misa, "cpu": None, "emitters": emitters, "free": 200_000}


def test_an_esp32_c3_is_risc_v_without_misa():
    """The stock esp32 build has no asm_rv32 (micropython#16524): misa is not read, the core is
    what MicroPython's RV32 emitters need, and no asm_rv32 ceiling is asked for."""
    probe = _probe("esp32", ["bytecode", "native", "viper"])
    core = identity.describe(probe, profiles.load_board("esp32-c3"))
    assert core.name == "RISC-V RV32IMC" and core.source == "mpy" and "armv7m" not in core.isa
    cfg = compute.config(probe)
    assert cfg["emitters"] == ["bytecode", "native", "viper"]
    assert not [k for k in compute.compute_kernels(cfg) if "asm_rv32" in k.key]


def test_a_hazard3_with_asm_rv32_gets_its_mul_ceiling():
    """The RP2350 Hazard3's misa (pico-sdk hardware_regs/rvcsr.h, RVCSR_MISA_RESET): MXL 1, X
    (custom extensions), U, M, I, C, A; its B bit reads 0 although Zba, Zbb and Zbs are there
    (taped out before B was defined as their sum), so the core is named without B."""
    misa = 1 << 30 | sum(1 << (ord(c) - ord("A")) for c in "XUMICA")
    assert misa == 0x40901105
    probe = _probe("rp2", ["bytecode", "native", "viper", "asm_rv32"], misa)
    core = identity.describe(probe, profiles.load_board("rp2350-riscv"))
    assert core.name == "RISC-V RV32IMACX" and core.peak_kernels == ["mul", "lw16x"] and "rv32b" not in core.isa
    with_b = identity.describe(_probe("rp2", ["asm_rv32"], misa | 1 << 1), profiles.load_board("rp2350-riscv"))
    assert with_b.name == "RISC-V RV32IMACBX" and "rv32b" in with_b.isa  # a core whose misa says B
    keys = [k.key for k in compute.compute_kernels(compute.config(probe))]
    assert [k for k in keys if k.endswith("/mul")] == [f"compute/asm_rv32/{t}/mul" for t in ("int8", "int16", "int32")]
    assert "compute/asm_rv32/int8/lw16x" in keys  # the int8 dot product by LW and shifts (kernels.rv32.dot_lw)


def test_the_renamed_firmware_follows_qemu_rv32s_files(tmp_path, monkeypatch):
    """qemu-rv32-esp32 builds on qemu-rv32's folder: a change there rebuilds it; a change of its
    own leaves qemu-rv32's cached firmware alone."""
    port = tmp_path / "port"
    shutil.copytree(firmware_build.PORT_DIR, port, ignore=shutil.ignore_patterns("build*"))
    monkeypatch.setattr(firmware_build, "PORT_DIR", port)
    rv32, esp = firmware_build.port_digest("qemu-rv32"), firmware_build.port_digest("qemu-rv32-esp32")
    assert rv32 != esp
    own = port / "boards" / "qemu-rv32-esp32" / "mpconfigboard.h"
    own.write_text(own.read_text() + "\n")
    assert firmware_build.port_digest("qemu-rv32") == rv32 and firmware_build.port_digest("qemu-rv32-esp32") != esp
    esp = firmware_build.port_digest("qemu-rv32-esp32")
    hal = port / "boards" / "qemu-rv32" / "hal_rv32.c"
    hal.write_text(hal.read_text() + "\n")
    assert firmware_build.port_digest("qemu-rv32-esp32") != esp
    assert '#define MCUROOF_BOARD "esp32"' in own.read_text()


def test_qemu_runs_the_renamed_firmware_on_virt(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(firmware_build, "ensure", lambda board, on_progress=None: tmp_path / f"{board}.elf")
    cmd = qemu.QemuMicrobit(board="qemu-rv32", build="qemu-rv32-esp32").cmd
    assert cmd[0] == "/usr/bin/qemu-system-riscv32" and cmd[cmd.index("-M") + 1] == "virt"
    assert cmd[-2:] == ["-kernel", str(tmp_path / "qemu-rv32-esp32.elf")]
