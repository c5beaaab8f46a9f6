"""What every kernel script is: a key and its source, split where it compiles in pieces."""

from __future__ import annotations

from dataclasses import dataclass

from mcuroof.kernels.listing import sent

TYPE_NAMES = {"b": "int8", "h": "int16", "i": "int32", "f": "float32"}
# The fastest movers, from which the memory roof is taken. copy4x copies A to B in passes until
# COPY4_ELEMENTS elements are copied, so a small buffer's call outweighs the harness's own cost
# (records named "copy4", in raw logs from before, made one pass per call);
# it keeps its pointers in the unused C, not on the stack: no new names (push, pop, labels) to
# intern, which on the micro:bit costs the 1 KB working set.
COPY4_ELEMENTS = 2048


# copies that repeat until COPY4_ELEMENTS are moved (asm_thumb's: no other mover has these names)
REPEATED_MOVERS = ("copy4x", "copy-ldm")


def passes(rec: dict) -> int:
    """Times one call runs over its buffers: ceil(COPY4_ELEMENTS / n) for copy4x and copy-ldm (its
    LDM/STM twin), else 1 (also for the one-pass "copy4" of raw logs written before copy4x)."""
    repeated = rec.get("k") in REPEATED_MOVERS
    return -(-COPY4_ELEMENTS // rec["n"]) if repeated else 1


SPLIT = "#--\n"


def unit_key(*parts) -> str:
    """The key of a unit (one kernel's script and its records): suite/emitter/type/name, e.g.
    memory/bytecode/int8/copy. Built here only, and taken apart by unit_parts."""
    return "/".join(str(p) for p in parts)


def unit_parts(key: str) -> list[str]:
    return key.split("/")


@dataclass(frozen=True)
class Kernel:
    key: str  # unique within a run: suite/emitter/type/name
    source: str  # what is sent to the board: one script, or several split at `#--` lines
    listing: str = ""  # the source with its reader's comments (kernels.listing), where generated

    @classmethod
    def listed(cls, key: str, listing: str) -> Kernel:
        """A generated kernel: its listing kept, its comments stripped from what is sent."""
        return cls(key, sent(listing), listing)

    def scripts(self, tail: str = "") -> list[str]:
        """The scripts in order, `tail` appended to the last. A kernel too big to compile in
        one go with its call (the micro:bit's 8 KB heap) is sent as its def, then the call."""
        parts = [p for p in self.source.split(SPLIT) if p.strip()]
        return parts[:-1] + [parts[-1] + tail]
