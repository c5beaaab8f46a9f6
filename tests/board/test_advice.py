"""Advice that knows the board: each piece only where the board has what it needs, and tested
on boards that lack it (constructed points and roofs; the profiles' declared features)."""

from __future__ import annotations

from mcuroof.analysis import advice
from mcuroof.board import profiles as boards

M0 = advice.Features(frozenset(), ("bytecode", "asm_thumb"))  # micro:bit: nothing
M4 = advice.Features(frozenset({"fpu", "dsp"}), ("bytecode", "native", "viper", "asm_thumb"))
M4_NO_ASM = advice.Features(frozenset({"fpu", "dsp"}), ("bytecode", "native", "viper"))
HOST = advice.Features(frozenset({"fpu", "fpu64", "simd", "cache"}), ("bytecode", "native", "viper"))
UNKNOWN = advice.Features(None, ("bytecode",))


def ceiling(em, dt, rate):
    return {
        "kind": "compute",
        "role": "ceiling",
        "source": "measured",
        "name": f"{dt} {em}",
        "emitter": em,
        "dtype": dt,
        "macs_per_s": rate,
    }


def region(rg, rate):
    return {
        "kind": "memory",
        "role": "region",
        "source": "measured",
        "name": f"{rg} read",
        "region": rg,
        "emitter": "asm_thumb",
        "dtype": "int32",
        "bytes_per_s": rate,
    }


def pt(headroom=1.2, bound="compute", dtype="int8", emitter="bytecode", op="CONV_2D", macc=1000, **kw):
    return {
        "index": 0,
        "op": op,
        "dtype": dtype,
        "emitter": emitter,
        "macc": macc,
        "bound": bound,
        "headroom": headroom,
        "above_roof": False,
        "macs_per_s": 100.0,
        "seconds": 10.0,
        "verified": True,
        **kw,
    }


# micro:bit-like ceilings: no SIMD, so int8 = int16 = int32; floats in software
FLAT = [
    ceiling("bytecode", "int8", 1e4),
    ceiling("bytecode", "int16", 1e4),
    ceiling("bytecode", "int32", 1e4),
    ceiling("bytecode", "float32", 3e3),
    ceiling("asm_thumb", "int8", 2e6),
]


def test_shipped_profiles_declare_their_features():
    mb = boards.load_board("qemu-microbit")
    assert mb.features == () and advice.features(mb, ["bytecode"]).has("cache") is False
    assert "cache" in boards.load_board("unix").features
