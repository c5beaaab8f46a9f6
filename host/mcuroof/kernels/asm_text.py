"""Hand-written asm_thumb text, one instruction a line, as the layer-op generators write it.

A block is written as MicroPython's inline-assembler tests are: one instruction a line, a
comment where an operand is not obvious. Given the P block's field offsets (the layer ops'
kernels.ops.asm_text passes kernels.ops.contract's), an operand `P.<field>` is the byte offset
of that field, written as its number and named in the line's comment (`ldr(r4,[r3,P.PT])`
becomes ` ldr(r4,[r3,40])  # P.PT`); the comments are the listing's and are stripped before
sending (kernels.listing). Pure computation.
"""

from __future__ import annotations

import re

from mcuroof.kernels.listing import note

_FIELD = re.compile(r"\bP\.([A-Z]+)\b")


def _line(text: str, offsets: dict[str, int]) -> str:
    code, _, comment = (s.strip() for s in text.partition("#"))
    if not code:
        return " # " + comment + "\n"

    def offset(m: re.Match) -> str:
        if m.group(1) not in offsets:
            raise ValueError(f"P.{m.group(1)}: P has no such field (kernels.ops.contract.PARAMS)")
        return str(offsets[m.group(1)])

    fields = ", ".join(m.group(0) for m in _FIELD.finditer(code))
    said = ": ".join(s for s in (fields, comment) if s)
    return " " + _FIELD.sub(offset, code) + (note(said) if said else "") + "\n"


def lines(block: str, offsets: dict[str, int] | None = None) -> str:
    """A block of instructions, one a line (blank lines dropped), each indented one space;
    `offsets`: the P block's field offsets by name."""
    return "".join(_line(t, offsets or {}) for t in block.splitlines() if t.strip())


def routine(name: str, block: str, offsets: dict[str, int] | None = None) -> str:
    """An asm_thumb function of four arguments, name(r0, r1, r2, r3), whose body is block."""
    return f"@micropython.asm_thumb\ndef {name}(r0,r1,r2,r3):\n" + lines(block, offsets)
