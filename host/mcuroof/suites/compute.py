"""The compute suite: peak multiply-accumulate loops per emitter and type, and the asm_thumb
peaks of the instruction sets the core has (kernels.compute)."""

from __future__ import annotations

import copy

from mcuroof.board import identity
from mcuroof.kernels import emitters
from mcuroof.kernels.compute import compute_kernels
from mcuroof.kernels.contract import unit_key, unit_parts
from mcuroof.suites.base import Context, Suite
from mcuroof.suites.timing import ITERS, ITERS_LARGE, for_context, is_small

MULS_HEAP = 32 * 1024  # a heap under this (the micro:bit's 8 KB) cannot compile the MULS kernel


def peak_kernels(probe: dict, ctx: Context | None = None) -> list[str]:
    """The ISA peak kernels (and their movers) of the board's core (board.identity). A heap as
    small as the micro:bit's cannot compile the MULS kernel (MemoryError allocating 952 B on its
    Cortex-M0): it keeps the generic asm_thumb ceilings."""
    isa = identity.describe(probe, ctx.profile if ctx else None).peak_kernels
    return [k for k in isa if not (k == "muls" and probe.get("free", 0) < MULS_HEAP)]


def config(probe: dict, ctx: Context | None = None) -> dict:
    ems = emitters.present(probe, "compute")
    types = ["b", "h", "i"] + (["f"] if probe.get("float") else [])
    # the micro:bit's parser cannot hold a longer unrolled kernel in its 8 KB heap
    unroll, unroll_asm = (8, 4) if is_small(probe) else (16, 16)
    return {
        **for_context(probe, ctx),
        "emitters": ems,
        "types": types,
        "iters": ITERS if is_small(probe) else ITERS_LARGE,
        "unroll": unroll,
        "unroll_asm": unroll_asm,
        "isa": peak_kernels(probe, ctx),
    }


def shrink(cfg: dict, key: str) -> tuple[dict, str, int] | None:
    """The config with half the unroll of unit key's emitter (after a MemoryError)."""
    new = copy.deepcopy(cfg)
    field = "unroll_asm" if emitters.is_assembler(unit_parts(key)[1]) else "unroll"
    value = new.get(field, 0) // 2
    if value < 1:
        return None
    new[field] = value
    return new, field, value


def key(rec: dict) -> str | None:
    if rec.get("t") != "mac":
        return None
    return unit_key("compute", rec["em"], rec["ty"], *([rec["k"]] if rec.get("k") else []))


SUITE = Suite(
    "compute",
    compute_kernels,
    key,
    {"mac": ("em", "ty", "macs", "r", "us", "med", "ovh", "chk", "u", "n")},
    config,
    shrink=shrink,
)
