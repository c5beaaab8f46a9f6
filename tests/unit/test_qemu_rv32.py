"""qemu-rv32's host side without QEMU: the build's toolchain check, QEMU's command line, the
profile's per-instruction theory and the regions plan (tests/board/test_qemu_rv32.py runs it)."""

import shutil

import pytest

from mcuroof.board import profiles
from mcuroof.errors import UserError
from mcuroof.kernels import rv32
from mcuroof.links import firmware_build, qemu
from mcuroof.suites import registry


def test_missing_riscv_toolchain_names_the_apt_command(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(UserError) as e:
        firmware_build.check_toolchain("qemu-rv32")
    msg = str(e.value)
    assert "apt-get install gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc" in msg
    assert "\n" not in msg


def test_missing_qemu_names_its_package(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(UserError, match="qemu-system-riscv32 not found: apt-get install qemu-system-misc"):
        qemu.QemuMicrobit(board="qemu-rv32")


def test_the_command_line_runs_virt_without_firmware_of_its_own(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(firmware_build, "ensure", lambda board, on_progress=None: tmp_path / f"{board}.elf")
    cmd = qemu.QemuMicrobit(board="qemu-rv32").cmd
    assert cmd[0] == "/usr/bin/qemu-system-riscv32" and cmd[cmd.index("-M") + 1] == "virt"
    assert cmd[cmd.index("-bios") + 1] == "none" and cmd[cmd.index("-cpu") + 1] == "rv32,f=false,d=false"
    assert cmd[cmd.index("-icount") + 1] == "shift=6" and cmd[-2:] == ["-kernel", str(tmp_path / "qemu-rv32.elf")]
    arm = qemu.QemuMicrobit(board="qemu-m3").cmd
    assert arm[0] == "/usr/bin/qemu-system-arm" and "-bios" not in arm and "-cpu" not in arm


def test_the_profile_bounds_a_mac_by_mul_and_add():
    board = profiles.load_board("qemu-rv32")
    assert board.connect == "qemu" and board.run["icount_shift"] == 6
    assert "asm_rv32" in board.run["emitters"]
    # RV32IM has no multiply-accumulate: MUL then ADD, 0.5 MAC an instruction at 2^6 ns each
    peaks = {r["dtype"]: r["macs_per_s"] for r in profiles.theoretical_roofs(board) if r["kind"] == "compute"}
    assert peaks == {"int32": 7_812_500.0, "int16": 7_812_500.0, "int8": 7_812_500.0}
    assert "qemu-rv32" in firmware_build.BOARDS and qemu.is_qemu_board("qemu-rv32")


def test_regions_are_read_by_viper_where_there_is_no_asm_thumb():
    probe = {"platform": "qemu-rv32", "emitters": ["bytecode", "native", "viper", "asm_rv32"], "free": 300_000}
    cfg = registry.suite_config("regions", {**probe, "tick_us": 1})
    assert cfg["emitter"] == "viper" and [r["name"] for r in cfg["regions"]] == ["code", "SRAM"]
    assert cfg["regions"][0]["wa"] == 0x80000000 >> 2
    # firmware/port has no uctypes: the buffer's address comes from viper's ptr8 (ESP32 keeps uctypes)
    assert all("ptr8(b)" in k.source and "uctypes" not in k.source for k in registry.for_suite("regions", cfg))
    # a platform with no memory map and no asm_thumb has no reader
    other = registry.suite_config("regions", {**probe, "platform": "someboard", "tick_us": 1})
    assert other["skip"] == "no-reader"


def _loop(src: str) -> list[str]:
    """The instructions from label(L) to the loop's branch back, one a line."""
    lines = [ln.strip() for ln in src.splitlines()]
    return lines[lines.index("label(L)") + 1 : lines.index("bne(a3,zero,L)") + 1]


def test_the_mul_add_peak_loop_by_hand():
    """32 MACs (16 dot products of u = 2) in 4 x 16 + 2 = 66 instructions: 0.485 MAC/instr,
    0.97 of the 0.5 bound (qemu-rv32 measured 0.485)."""
    u, reps, src = rv32.peak_mul("i", 16)
    loop = _loop(src)
    assert (u, reps, len(loop)) == (2, 16, 66)
    assert sum(ins.startswith("mul(") for ins in loop) == 32 == u * reps
    assert not any(ins.startswith(("lw(", "lb(", "lh(")) for ins in loop)  # operands stay in registers
    assert u * reps / len(loop) == pytest.approx(0.485, abs=0.001)


def test_the_dot_product_and_the_copy_mover_by_hand():
    # the dot product: 2 loads, MUL, ADD a MAC and the loop's ADDI + BNE: 16 MACs in 66 instructions
    loop = _loop(rv32.dot("b", 16))
    assert len(loop) == 66 and sum(ins.startswith("lb(") for ins in loop) == 32
    # the LW/SW mover: 32 bytes (16 read, 16 written) in 12 instructions, 2.67 B/instr
    loop = _loop(rv32.COPY_LW)
    assert len(loop) == 12 and [ins[:3] for ins in loop[:8]] == ["lw("] * 4 + ["sw("] * 4
    assert rv32.dot("f", 16) is None and rv32.peak_mul("f", 16) is None and rv32.stream("copy", "f") is None


_PROBE = {
    "platform": "qemu-rv32",
    "emitters": ["bytecode", "native", "viper", "asm_rv32"],
    "free": 300_000,
    "tick_us": 1,
    "float": True,
    "mpy": 11 << 10,
}


def test_the_suites_run_asm_rv32_on_a_core_with_m():
    probe = _PROBE
    keys = [k.key for k in registry.for_suite("compute", registry.suite_config("compute", probe))]
    assert {"compute/asm_rv32/int8", "compute/asm_rv32/int32/mul", "compute/asm_rv32/int16/mul"} <= set(keys)
    assert not any("asm_thumb" in k for k in keys) and "compute/asm_rv32/float32" not in keys
    mem = [k.key for k in registry.for_suite("memory", registry.suite_config("memory", probe))]
    assert "memory/asm_rv32/int32/copy-lw" in mem and "memory/asm_rv32/int8/add" in mem


def test_the_lw_dot_product_by_hand():
    """int8 by LW and shifts: per word 1 LW each for x and w, per byte SLLI + SRAI (SRAI alone for
    the top byte): 7 a word; per 4 MACs 2 + 14 + 4 MUL + 4 ADD = 24 instructions; u = 16 with ADDI
    + BNE: 16 MACs in 98 instructions, 0.163 MAC/instr (qemu-rv32 measured 0.163: the LB loop's
    0.242 is faster, so the layer kernels load bytes)."""
    loop = _loop(rv32.dot_lw(16))
    assert len(loop) == 98 and sum(ins.startswith("lw(") for ins in loop) == 8
    assert sum(ins.startswith("slli(") for ins in loop) == 24 and sum(ins.startswith("srai(") for ins in loop) == 32
    assert sum(ins.startswith("mul(") for ins in loop) == 16
    assert 16 / len(loop) == pytest.approx(0.163, abs=0.001)
    keys = [k.key for k in registry.for_suite("compute", registry.suite_config("compute", _PROBE))]
    assert "compute/asm_rv32/int8/lw16x" in keys and "compute/asm_rv32/int16/lw16x" not in keys
