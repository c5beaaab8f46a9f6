"""qemu-rv32's host side without QEMU: the build's toolchain check, QEMU's command line, the
profile's per-instruction theory and the regions plan (tests/board/test_qemu_rv32.py runs it)."""

import shutil

import pytest

from mcuroof.board import profiles
from mcuroof.errors import UserError
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
    # a platform with no memory map and no asm_thumb has no reader
    other = registry.suite_config("regions", {**probe, "platform": "someboard", "tick_us": 1})
    assert other["skip"] == "no-reader"
