"""A mistyped board name gets one message in every command, the nearest names first, exit 2,
before anything runs or is written."""

from __future__ import annotations

import pytest

from mcuroof.board import profiles
from mcuroof.cli import main

TYPOS = {"esp32-s3": "esp32s3", "pico-2": "pico2", "qemu-m77": "qemu-m7"}


@pytest.mark.parametrize("typo,meant", sorted(TYPOS.items()))
def test_nearest_name_first(typo, meant):
    text = profiles.unknown(typo)
    assert text.startswith(f"unknown board {typo!r}; did you mean {meant}")
    assert "mcuroof boards lists all" in text and "\n" not in text


def test_no_guess_for_a_name_like_none():
    assert "did you mean" not in profiles.unknown("zzzzzz")


COMMANDS = [
    ["run", "--board", "{b}", "-o", "{out}"],
    ["run", "--board", "unix", "--profile", "{b}", "-o", "{out}"],
    ["run", "--board", "{b}", "--port", "/dev/null", "-o", "{out}"],
    ["predict", "kws-dscnn", "--board", "{b}"],
    ["analyze", "kws-dscnn", "--board", "{b}"],
    ["boards", "--show", "{b}"],
    ["npu", "kws-dscnn", "--board", "{b}", "-o", "{out}"],
    ["listing", "kws-dscnn", "--board", "{b}"],
    ["choose", "kws-dscnn", "--board", "pico2,{b}"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[:3]))
def test_every_command_gives_the_same_line(argv, tmp_path, capsys):
    out = tmp_path / "out"
    args = [a.format(b="pico-2", out=out) for a in argv]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err == "mcuroof: " + profiles.unknown("pico-2")
    assert not out.exists()
