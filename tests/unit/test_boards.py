"""Board profiles: every shipped profile validates, roofs follow from the numbers, bad profiles are refused."""

from __future__ import annotations

import argparse

import pytest
from rich.console import Console

from mcuroof.board import profiles as boards
from mcuroof.cli import main
from mcuroof.commands import boards as cmd_boards
from mcuroof.errors import UserError

NAMES = boards.board_names()
EXPECTED = {
    "qemu-microbit",
    "qemu-rv32",
    "microbit",
    "unix",
    "pico",
    "pico2",
    "esp32",
    "esp32s3",
    "pyboard",
    "stm32h743",
    "nrf52840",
    "samd51",
    "teensy4",
}

GOOD = """\
schema = 1
name = "{name}"
title = "Test board"
port = "rp2"
connect = "auto"

[core]
name = "Cortex-M0+"
count = 2
clock_hz = 100000000
clock_source = "test"

[[memory]]
name = "SRAM"
kind = "sram"
size_bytes = 1024
source = "test"
bus_bytes_per_cycle = 4
bus_source = "derived: test"

[[compute]]
dtype = "int32"
macs_per_cycle = 0.5
source = "derived: test"

[[compute]]
dtype = "float32"
note = "not published"
"""


def write(tmp_path, text, name="tb"):
    path = tmp_path / f"{name}.toml"
    path.write_text(text.replace("{name}", name))
    return path


def refused(tmp_path, text) -> str:
    with pytest.raises(UserError) as e:
        boards.load_board(write(tmp_path, text))
    msg = str(e.value)
    assert "tb.toml" in msg and "\n" not in msg
    return msg


# ---------------------------------------------------------------- shipped profiles


def test_all_expected_profiles_exist():
    assert EXPECTED <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_profile_loads_and_validates(name):
    b = boards.load_board(name)
    assert b.name == name and b.title and b.port and b.core_name
    assert b.source_path == boards.PROFILE_DIR / f"{name}.toml"
    for m in b.memories:
        assert m.source or m.note
        assert (m.bus_bytes_per_cycle is None) == (m.bus_source is None)
    for c in b.compute + b.accelerators:
        assert (c.macs_per_cycle is not None and c.source) or c.note
    for r in boards.theoretical_roofs(b):
        assert r["source"] == "theoretical" and r["emitter"] is None and r["basis"]
        assert (r.get("bytes_per_s") or r.get("macs_per_s")) > 0


def test_list_boards_matches_files():
    assert [b.name for b in boards.list_boards()] == NAMES


def test_derived_figures_say_so():
    for b in boards.list_boards():
        for c in b.compute + b.accelerators:
            if c.macs_per_cycle:
                assert c.source.startswith("derived"), (b.name, c.dtype)


def test_pyboard_roofs_by_hand():
    roofs = {r["name"]: r for r in boards.theoretical_roofs(boards.load_board("pyboard"))}
    assert roofs["Cortex-M4F int32"]["macs_per_s"] == pytest.approx(1 * 168e6)
    assert roofs["Cortex-M4F int16"]["macs_per_s"] == pytest.approx(2 * 168e6)
    # VMUL.F32 + VADD.F32, 1 cycle each (VFMA.F32 3): Cortex-M4 TRM Table 7-1
    assert roofs["Cortex-M4F float32"]["macs_per_s"] == pytest.approx(0.5 * 168e6)
    assert "Table 7-1" in roofs["Cortex-M4F float32"]["basis"]
    assert roofs["SRAM"]["bytes_per_s"] == pytest.approx(4 * 168e6)
    assert roofs["Flash"]["bytes_per_s"] == pytest.approx(16 / 6 * 168e6)
    assert roofs["SRAM"]["kind"] == "memory" and roofs["SRAM"]["dtype"] is None
    assert roofs["SRAM"]["role"] == "roof" and roofs["Cortex-M4F int16"]["role"] == "ceiling"
    assert roofs["Cortex-M4F int16"]["dtype"] == "int16"


def test_clock_override_and_bus_divider():
    b = boards.load_board("stm32h743")
    roofs = {r["name"]: r for r in boards.theoretical_roofs(b, clock_hz=480e6)}
    assert roofs["Cortex-M7 int32"]["macs_per_s"] == pytest.approx(480e6)
    assert roofs["AXI SRAM"]["bytes_per_s"] == pytest.approx(8 * 240e6)
    assert roofs["DTCM"]["bytes_per_s"] == pytest.approx(8 * 480e6)


def test_unix_is_host_dependent():
    b = boards.load_board("unix")
    assert b.clock_hz is None and b.connect == "unix"
    assert boards.theoretical_roofs(b) == []


def test_all_cores_is_a_separate_roof():
    b = boards.load_board("pico")
    per_core = boards.theoretical_roofs(b)
    both = boards.theoretical_roofs(b, all_cores=True)
    extra = [r for r in both if r not in per_core]
    assert extra and all(r["kind"] == "compute" and "x2 cores" in r["name"] for r in extra)
    assert extra[0]["macs_per_s"] == pytest.approx(2 * 0.5 * 125e6)


def test_numbers_not_published_have_no_roof():
    b = boards.load_board("esp32s3")
    assert b.accelerators and all(a.macs_per_cycle is None and a.note for a in b.accelerators)
    assert all(r["kind"] == "memory" for r in boards.theoretical_roofs(b))


def test_unknown_name():
    with pytest.raises(UserError, match=r"unknown board 'nosuch' \(mcuroof boards lists all \d+: .*pico.*\)"):
        boards.load_board("nosuch")


# ---------------------------------------------------------------- malformed profiles


def test_good_template_loads(tmp_path):
    b = boards.load_board(write(tmp_path, GOOD))
    assert b.cores == 2 and b.clock_hz == 100000000
    assert [r["name"] for r in boards.theoretical_roofs(b)] == ["SRAM", "Cortex-M0+ int32"]


def test_missing_core_table(tmp_path):
    text = GOOD.split("[core]")[0]
    assert "[core] is missing" in refused(tmp_path, text)


def test_per_cycle_figures_need_a_clock(tmp_path):
    text = GOOD.replace("clock_hz = 100000000\nclock_source = \"test\"\n", "")
    assert "[core].clock_hz is missing" in refused(tmp_path, text)


def test_run_section_is_checked(tmp_path):
    assert "[run].emitters must be a list of" in refused(tmp_path, GOOD + '\n[run]\nemitters = ["turbo"]\n')
    assert "[run].heap_bytes must be a positive integer" in refused(tmp_path, GOOD + "\n[run]\nheap_bytes = 0\n")
    assert "unknown field [run].trials" in refused(tmp_path, GOOD + "\n[run]\ntrials = 5\n")  # the run picks it
    # a slow emulator is a fact of the board, with its source
    assert "[run].slow_emulator must be true or false" in refused(tmp_path, GOOD + '\n[run]\nslow_emulator = "yes"\n')
    assert "[run].slow_emulator_source is missing" in refused(tmp_path, GOOD + "\n[run]\nslow_emulator = true\n")
    assert "[core].features must be a list of" in refused(
        tmp_path, GOOD.replace("[core]\n", '[core]\nfeatures = ["npu"]\n')
    )
    assert "[core].features_source is missing" in refused(tmp_path, GOOD.replace("[core]\n", "[core]\nfeatures = []\n"))


def test_toml_syntax_error_names_file_and_line(tmp_path):
    text = GOOD.replace('port = "rp2"', 'port = rp2')
    msg = refused(tmp_path, text)
    assert "tb.toml:4: invalid TOML" in msg


# ---------------------------------------------------------------- subcommand


def render(show=None) -> str:
    console = Console(width=160, record=True, color_system=None, file=open("/dev/null", "w"))
    assert cmd_boards.run(argparse.Namespace(show=show), console) == 0
    return console.export_text()


def test_run_lists_all_profiles():
    text = render()
    for name in NAMES:
        assert name in text
    assert "Raspberry Pi Pico (RP2040)" in text and "125 MHz" in text


def test_run_show_prints_roofs_and_sources():
    text = render("pyboard")
    assert "Theoretical roofs" in text and "336.0 MMAC/s" in text and "672.0 MB/s" in text
    assert "SMLAD" in text and "ST STM32F405 datasheet" in text


def test_run_show_unknown_raises():
    with pytest.raises(UserError, match="unknown board"):
        cmd_boards.run(argparse.Namespace(show="nosuch"), Console(file=open("/dev/null", "w")))


def test_configure_adds_show():
    parser = argparse.ArgumentParser()
    cmd_boards.configure(parser)
    assert parser.parse_args(["--show", "pico"]).show == "pico"


# ---------------------------------------------------------------- through the CLI


def test_cli_boards_show(capsys):
    assert main(["boards", "--show", "pico"]) == 0
    out = capsys.readouterr().out
    assert "RP2040" in out and "Theoretical roofs" in out


def test_cli_boards_unknown(capsys):
    assert main(["boards", "--show", "nosuch"]) == 2
    assert "mcuroof: unknown board 'nosuch'" in capsys.readouterr().err


def test_a_port_is_never_read_as_a_profile():
    """A serial device is no profile: reading /dev/ttyACM0 as TOML blocked a run for good."""
    with pytest.raises(UserError, match="^/dev/null: not a profile"):
        boards.load_board("/dev/null")
    assert boards.find("/dev/null") is None and boards.find(None) is None
    assert boards.find("qemu-m7").name == "qemu-m7"


def test_a_board_without_profile_is_named_by_its_probe():
    from mcuroof.board import identity

    assert identity.board_name({"platform": "microbit"}, "/dev/pts/3") == "microbit on /dev/pts/3"
    assert identity.board_name({}, "/dev/ttyACM0") == "MicroPython on /dev/ttyACM0"


def test_m7_float32_and_the_m33_roof_from_llvms_scheduling_models():
    """Cortex-M7 float32 (stm32h743, teensy4): one VFP pipe, one VFMA.F32 a cycle
    (ARMScheduleM7.td); the pico2's Cortex-M33, scheduled by LLVM with its Cortex-M4 model
    (ARMProcessors.td, ARMScheduleM4.td): MLA, SMLAD and VFMA one a cycle each."""
    for name, mhz in (("stm32h743", 400), ("teensy4", 600)):
        f32 = [r for r in boards.theoretical_roofs(boards.load_board(name)) if r["dtype"] == "float32"]
        assert [r["macs_per_s"] for r in f32] == [pytest.approx(mhz * 1e6)], name
        assert "ARMScheduleM7.td" in f32[0]["basis"], name
    th = {r["dtype"]: r for r in boards.theoretical_roofs(boards.load_board("pico2")) if r["kind"] == "compute"}
    assert {d: r["macs_per_s"] / 150e6 for d, r in th.items()} == pytest.approx(
        {"int32": 1, "int16": 2, "int8": 2, "float32": 1}
    )
    assert all("CortexM4Model" in th[d]["basis"] for d in ("int32", "int16", "float32"))
