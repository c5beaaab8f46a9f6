"""Impossible requests are refused before anything runs: one line naming what the board has."""

from __future__ import annotations

from mcuroof.board import capability


def test_dtypes_per_emitter_and_op():
    ops = ["CONV_2D", "MAX_POOL_2D"]
    assert capability.dtypes_by_op("asm_thumb", ops) == {"CONV_2D": ["int8"], "MAX_POOL_2D": []}
    assert capability.dtypes_by_op("viper", ops) == {"CONV_2D": ["int8"], "MAX_POOL_2D": ["int8"]}
    assert capability.describe("bytecode", ops) == "bytecode: int8, float32 (all ops)"
    assert capability.describe("asm_thumb", ops) == "asm_thumb: int8 (CONV_2D)"
    assert capability.describe("asm_thumb", ops + ["AVERAGE_POOL_2D"]) == "asm_thumb: int8 (CONV_2D, AVERAGE_POOL_2D)"
