"""The memory suite: STREAM-like sweeps per emitter and type over growing working sets, and the
fastest movers the memory roof is taken from (kernels.memory)."""

from __future__ import annotations

import copy

from mcuroof.kernels import emitters
from mcuroof.kernels.contract import unit_key, unit_parts
from mcuroof.kernels.emitters import HOST_PLATFORMS
from mcuroof.kernels.memory import memory_kernels
from mcuroof.suites import compute
from mcuroof.suites.base import Context, Suite
from mcuroof.suites.timing import INTERPRETED_WS, for_context, is_small, slow

INTERPRETED = emitters.INTERPRETED  # bytecode, native


def config(probe: dict, ctx: Context | None = None) -> dict:
    ems = emitters.present(probe, "memory")  # and "c" (a memoryview copy) where the port has memoryview
    types = ["b", "i"] + (["f"] if probe.get("float") else [])
    return {
        **for_context(probe, ctx),
        "emitters": ems,
        "types": types,
        "max_ws": working_sets(probe, ems, ctx is not None and slow(ctx.profile)),
        "min_n": 16,
        "isa": compute.peak_kernels(probe, ctx),
    }


def working_sets(probe: dict, ems: list[str], slow_board: bool = False) -> dict[str, int]:
    """The largest working set each emitter's sweep goes to (its three buffers together); slow_board:
    a slow emulator's (suites.timing.slow)."""
    if is_small(probe) and not slow_board:
        return {em: probe["free"] for em in ems}
    if probe.get("platform") not in HOST_PLATFORMS:
        # a microcontroller with a big heap, or a slow emulator:
        # interpreter loops there take seconds per 16 KB and show nothing new past it (rp2040js:
        # bytecode int8 copy 8.65 us an element at 1 KiB, 8.63 at 16 KiB, a call 141 ms there and
        # 1.7 s of host time); the fast movers sweep the heap
        return {em: min(INTERPRETED_WS, probe["free"]) if em in INTERPRETED else probe["free"] for em in ems}
    # interpreter loops are flat past the caches; the C copy goes out to DRAM (bytecode and native
    # 1 MiB, viper 16 MiB, c 192 MiB: kernels.emitters)
    return dict(emitters.HOST_WORKING_SETS)


MIN_WS = 3 * 16 * 4  # below this a memory kernel has no sweep left to run


def shrink(cfg: dict, key: str) -> tuple[dict, str, int] | None:
    """The config with half the working set of unit key's emitter (after a MemoryError)."""
    new = copy.deepcopy(cfg)
    em = unit_parts(key)[1]
    if em not in new.get("max_ws", {}):
        return None
    value = new["max_ws"][em] // 2
    if value < MIN_WS:
        return None
    new["max_ws"][em] = value
    return new, "max_ws", value


def key(rec: dict) -> str | None:
    """mem records and the sweep's notes (skip, halved) name their kernel, emitter and type."""
    if {"k", "em", "ty"} <= rec.keys():
        return unit_key("memory", rec["em"], rec["ty"], rec["k"])
    return None


SUITE = Suite(
    "memory",
    memory_kernels,
    key,
    {"mem": ("k", "em", "ty", "n", "isz", "bytes", "r", "us", "med", "ovh", "chk", "f")},
    config,
    shrink=shrink,
)
