"""Modelled boards (qemu-m4, qemu-m33 and --as): their profiles' [cycle_model], the cycle model's
setup for a board timed as another, the timing basis their results carry, and the refusals of
options they cannot serve. No QEMU runs here (tests/board/test_modelled_boards.py runs them)."""

from __future__ import annotations

import pytest

from mcuroof.analysis import timing_basis
from mcuroof.board import profiles
from mcuroof.cli import main
from mcuroof.errors import UserError
from mcuroof.links import cycle_model


def test_emulator_profiles_time_by_the_model_not_icount():
    for name, core, mark in (("qemu-m4", "cortex-m4", 0x20000000), ("qemu-m33", "cortex-m33", 0x38000000)):
        board = profiles.load_board(name)
        assert board.cycle_model["core"] == core and board.cycle_model["mark_at"] == mark
        assert "icount_shift" not in board.run
        # theory per cycle at the modelled clock (25 MHz), not per instruction
        roofs = profiles.theoretical_roofs(board)
        assert all("/cycle" in r["basis"] for r in roofs)
        mla = next(r for r in roofs if r["dtype"] == "int32")
        assert mla["macs_per_s"] == 25e6


def test_setup_as_pyboard_charges_its_flash_and_art():
    s = cycle_model.setup(profiles.load_board("qemu-m4"), profiles.load_board("pyboard"))
    assert (s.board, s.emulator, s.clock_hz, s.heap_bytes) == ("pyboard", "qemu-m4", 168_000_000, 102400)
    text = cycle_model.regions_text(s.regions, (s.buffer,))
    assert "0x00000000 0x00400000 5 5 flash" in text  # the firmware's code is the pyboard's flash
    assert "0x20000000 0x20400000 0 0 sram" in text
    assert "accel flash 64 16 1" in text  # the ART: 64 lines of 128 bits, prefetch on
    assert s.label == "modelled cycles (Cortex-M4 TRM timings; 5 flash wait states, a 64 x 16 B line buffer on fetch)"
    assert s.text.startswith("pyboard emulated: ")
    rec = s.record()
    assert rec["board"] == "pyboard" and rec["clock_hz"] == 168_000_000 and rec["line_buffer"]["lines"] == 64


def test_setup_as_itself_and_the_m33_label_says_what_is_assumed():
    s = cycle_model.setup(profiles.load_board("qemu-m33"))
    assert not s.as_other and s.clock_hz == 25_000_000
    assert "assumed for the M33" in s.label


@pytest.mark.parametrize(
    "emulator, board, fragment",
    [
        (
            "qemu-m4",
            "pico2",
            "--as pico2: a Cortex-M33 board; --board qemu-m4 models a Cortex-M4 (use --board qemu-m33)",
        ),
        ("qemu-m4", "stm32h743", "--as stm32h743: its profile gives no [cycle_model]"),
        ("qemu-m3", None, "--board qemu-m3: its time is not modelled"),
    ],
)
def test_setup_refuses_what_the_model_cannot_time(emulator, board, fragment):
    with pytest.raises(UserError, match=fragment.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        cycle_model.setup(profiles.load_board(emulator), profiles.load_board(board) if board else None)


def test_a_cycle_model_profile_is_validated(tmp_path):
    text = profiles.PROFILE_DIR.joinpath("qemu-m4.toml").read_text()
    bad = tmp_path / "qemu-m4.toml"
    bad.write_text(text.replace('core = "cortex-m4"', 'core = "cortex-m9"'))
    with pytest.raises(UserError, match=r"\[cycle_model\]\.core"):
        profiles.load_path(bad)
    bad.write_text(text.replace("mark_at = 0x20000000\n", ""))
    with pytest.raises(UserError, match="mark_at, code and ram together"):
        profiles.load_path(bad)
    bad.write_text(text.replace('wait_states_source = "Arm AN386', 'wait_source = "Arm AN386'))
    with pytest.raises(UserError, match="wait_states_source is missing"):
        profiles.load_path(bad)


def test_timing_basis_of_a_modelled_board():
    rec = cycle_model.setup(profiles.load_board("qemu-m4"), profiles.load_board("nrf52840")).record()
    basis = timing_basis.of({"name": "nrf52840", "cycle_model": rec, "clock_hz": 64_000_000})
    assert basis.kind == timing_basis.CYCLES and basis.rate_hz == 64e6 and basis.step == "cycle"
    assert basis.label == "modelled cycles (Cortex-M4 TRM timings; 0 flash wait states) at 64 MHz"
    assert basis.sentence.startswith("nrf52840 emulated: time counts modelled cycles")
    # two modelled boards compare in seconds of their chips; never with QEMU's instructions
    other = timing_basis.of(
        {"name": "qemu-m33", "cycle_model": cycle_model.setup(profiles.load_board("qemu-m33")).record()}
    )
    assert timing_basis.ratio_word([basis, other]) == "modelled speed-up"
    icount = timing_basis.of({"name": "qemu-m3", "icount_shift": 6})
    assert timing_basis.why_not(basis, icount) is not None


def one_line_error(capsys, argv: list[str], fragment: str) -> None:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert fragment in err, err


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["run", "--board", "qemu-m3", "--as", "pyboard"], "--as pyboard: --board qemu-m3 has no cycle model"),
        (["run", "--board", "qemu-m4", "--as", "pico2"], "--as pico2: a Cortex-M33 board"),
        (["run", "--port", "/dev/null", "--as", "pyboard"], "--as pyboard: a real board is itself"),
        (
            ["run", "--board", "qemu-m4", "--icount-shift", "6"],
            "--icount-shift: --board qemu-m4 counts modelled cycles",
        ),
    ],
)
def test_options_a_modelled_board_cannot_serve(capsys, tmp_path, argv, fragment):
    one_line_error(capsys, argv + ["-o", str(tmp_path / "out")], fragment)
    assert not (tmp_path / "out" / "results.json").exists()
