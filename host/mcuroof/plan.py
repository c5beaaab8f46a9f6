"""What each suite measures on a given board, decided from the board's probe record."""
from __future__ import annotations

SMALL_HEAP = 256 * 1024
MiB = 1 << 20
# loop iterations per kernel call: enough that the call costs little beside the loop
ITERS = {"bytecode": 32, "native": 64, "viper": 1024, "asm_thumb": 1024}


def is_small(probe: dict) -> bool:
    return probe.get("free", 0) < SMALL_HEAP


def timing(probe: dict) -> dict:
    """Window per trial: long enough that the timer tick is under 0.1 % of it."""
    win = 20000 if is_small(probe) else 5000
    return {"win_us": max(win, 1000 * probe.get("tick_us", 1)), "trials": 5}


def memory_config(probe: dict) -> dict:
    ems = [e for e in probe["emitters"] if e in ("bytecode", "native", "viper", "asm_thumb")]
    if probe.get("memoryview"):
        ems.append("c")
    types = ["b", "i"] + (["f"] if probe.get("float") else [])
    if is_small(probe):
        max_ws = {em: probe["free"] for em in ems}
    else:  # interpreter loops are flat past the caches; the C copy goes out to DRAM
        max_ws = {"bytecode": 1 * MiB, "native": 1 * MiB, "viper": 16 * MiB, "c": 192 * MiB}
    return {**timing(probe), "emitters": ems, "types": types, "max_ws": max_ws, "min_n": 16}


def compute_config(probe: dict) -> dict:
    ems = [e for e in probe["emitters"] if e in ("bytecode", "native", "viper", "asm_thumb")]
    types = ["b", "h", "i"] + (["f"] if probe.get("float") else [])
    # the micro:bit's parser cannot hold a longer unrolled kernel in its 8 KB heap
    unroll, unroll_asm = (8, 4) if is_small(probe) else (16, 16)
    return {**timing(probe), "emitters": ems, "types": types, "iters": ITERS, "unroll": unroll,
            "unroll_asm": unroll_asm}


CONFIGS = {"memory": memory_config, "compute": compute_config}


def suite_config(suite: str, probe: dict) -> dict:
    return CONFIGS[suite](probe)
