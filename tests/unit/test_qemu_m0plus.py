"""qemu-m0plus's host side without QEMU: its profile, the cycle model's setup and QEMU's command line
(tests/board/test_qemu_m0plus.py runs it)."""

import shutil

from mcuroof.board import profiles
from mcuroof.links import cycle_model, firmware_build, qemu


def test_the_profile_times_a_cortex_m0plus_at_an_rp2040s_clock():
    board = profiles.load_board("qemu-m0plus")
    assert board.connect == "qemu" and "icount_shift" not in board.run and board.run["slow_emulator"]
    setup = cycle_model.setup(board)
    assert (setup.core, setup.clock_hz, setup.heap_bytes) == ("cortex-m0plus", 125_000_000, 196_608)
    assert setup.label == "modelled cycles (Cortex-M0+ TRM timings; 0 flash wait states)"
    text = cycle_model.regions_text(setup.regions)
    assert "0x00000000 0x00040000 0 0 flash" in text  # the nRF51822's 256 KB of flash
    assert "0x20000000 0x20042000 0 0 sram" in text  # the SRAM raised to 264 KB
    # MULS + ADDS: 0.5 MAC a cycle at 125 MHz
    int8 = next(r for r in profiles.theoretical_roofs(board) if r["dtype"] == "int8")
    assert int8["macs_per_s"] == 62.5e6


def test_the_command_line_raises_the_sram_and_names_the_core_an_m0plus(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(firmware_build, "ensure", lambda board, on_progress=None: tmp_path / f"{board}.elf")
    cmd = qemu.QemuMicrobit(board="qemu-m0plus", plugin=["-plugin", "cycles.so,core=cortex-m0plus"]).cmd
    assert cmd[cmd.index("-M") + 1] == "microbit" and "-icount" not in cmd
    globals_ = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-global"]
    assert globals_ == ["nrf51-soc.sram-size=270336", "cortex-m0-arm-cpu.midr=0x410cc601"]
    ram = profiles.load_board("qemu-m0plus").cycle_model["ram"]
    assert ram[1] - ram[0] == 270336  # the RAM the model times is the SRAM QEMU maps
    assert cmd[-2:] == ["-kernel", str(tmp_path / "qemu-m0plus.elf")]
    # the micro:bit board of Debian's firmware keeps its own machine as it was
    monkeypatch.setattr(qemu, "FIRMWARE", tmp_path / "firmware.hex")
    (tmp_path / "firmware.hex").write_text("")
    assert "-global" not in qemu.QemuMicrobit(board="qemu-microbit").cmd
