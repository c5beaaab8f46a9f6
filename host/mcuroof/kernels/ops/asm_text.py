"""asm_thumb text of the layer ops: kernels.asm_text with the P block's field offsets
(kernels.ops.contract), so `ldr(r4,[r3,P.PT])` is written with its offset and named."""

from __future__ import annotations

from mcuroof.kernels import asm_text
from mcuroof.kernels.ops.contract import BIASES, P

OFFSETS = {**P._asdict(), "BIASES": BIASES}


def lines(block: str) -> str:
    """A block of instructions, one a line, P fields as their offsets (kernels.asm_text.lines)."""
    return asm_text.lines(block, OFFSETS)


def routine(name: str, block: str) -> str:
    """An asm_thumb function name(r0, r1, r2, r3) of the block (kernels.asm_text.routine)."""
    return asm_text.routine(name, block, OFFSETS)
