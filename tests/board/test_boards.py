"""Board profiles: every shipped profile validates, roofs follow from the numbers, bad profiles are refused."""

from __future__ import annotations

import pytest

from mcuroof.board import profiles as boards
from mcuroof.cli import main
from unit.test_boards import GOOD, refused

# ---------------------------------------------------------------- shipped profiles


def test_qemu_roofs_follow_icount():
    b = boards.load_board("qemu-microbit")
    shift = b.run["icount_shift"]
    roofs = {r["name"]: r for r in boards.theoretical_roofs(b)}
    assert roofs["Cortex-M0 int32"]["macs_per_s"] == pytest.approx(0.5 * 1e9 / 2**shift)
    roofs = {r["name"]: r for r in boards.theoretical_roofs(b, icount_shift=6)}
    assert roofs["SRAM"]["bytes_per_s"] == pytest.approx(4 * 1e9 / 64)


# ---------------------------------------------------------------- malformed profiles


@pytest.mark.parametrize(
    "old, new, field",
    [
        ('title = "Test board"\n', "", "title is missing"),
        ('clock_hz = 100000000', 'clock_hz = "100 MHz"', "[core].clock_hz must be a positive integer"),
        ('clock_hz = 100000000', 'clock_hz = -5', "[core].clock_hz must be a positive integer"),
        ('clock_hz = 100000000', 'clock_hz = 1.5e8', "[core].clock_hz must be a positive integer"),
        ('dtype = "int32"', 'dtype = "int4"', "[[compute]][1].dtype must be one of"),
        (
            'macs_per_cycle = 0.5',
            'macs_per_cycle = "not published"',
            "[[compute]][1].macs_per_cycle must be a positive number",
        ),
        ('kind = "sram"', 'kind = "ram"', "[[memory]][1].kind must be one of"),
        ('size_bytes = 1024', 'size_bytes = 0', "[[memory]][1].size_bytes must be a positive integer"),
        ('bus_source = "derived: test"\n', "", "[[memory]][1].bus_source is missing"),
        ('note = "not published"\n', "", "[[compute]][2].note is missing"),
        ('schema = 1', 'schema = 2', "schema 2 is newer than this mcuroof reads (1)"),
        ('schema = 1\n', "", "schema is missing"),
        ('connect = "auto"', 'connect = "wifi"', "connect must be one of auto, qemu, rp2040js, unix"),
        ('count = 2', 'count = 2\nclok_hz = 5', "unknown field [core].clok_hz"),
        ('name = "{name}"', 'name = "other"', "name 'other' must match the file name 'tb'"),
        ('clock_source = "test"\n', "", "[core].clock_source is missing"),
    ],
)
def test_malformed_profile_is_refused(tmp_path, old, new, field):
    assert old in GOOD
    msg = refused(tmp_path, GOOD.replace(old, new, 1))
    assert field in msg


def test_qemu_needs_icount_shift(tmp_path):
    text = GOOD.replace('connect = "auto"', 'connect = "qemu"')
    assert "[run].icount_shift is missing" in refused(tmp_path, text)


# ---------------------------------------------------------------- subcommand


# ---------------------------------------------------------------- through the CLI


def test_cli_boards(capsys):
    assert main(["boards"]) == 0
    assert "qemu-microbit" in capsys.readouterr().out
