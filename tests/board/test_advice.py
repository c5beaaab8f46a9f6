"""Advice that knows the board: each piece only where the board has what it needs, and tested
on boards that lack it (constructed points and roofs; the profiles' declared features)."""

from __future__ import annotations

from mcuroof.analysis import advice
from mcuroof.board import profiles as boards

# micro:bit-like ceilings: no SIMD, so int8 = int16 = int32; floats in software


def test_shipped_profiles_declare_their_features():
    mb = boards.load_board("qemu-microbit")
    assert mb.features == () and advice.features(mb, ["bytecode"]).has("cache") is False
    assert "cache" in boards.load_board("unix").features
