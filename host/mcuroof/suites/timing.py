"""How long each trial runs and how many trials a measurement takes, per board."""

from __future__ import annotations

SMALL_HEAP = 256 * 1024
MiB = 1 << 20
HOST_PLATFORMS = ("linux", "darwin", "windows")
# loop iterations per kernel call: enough that the call costs little beside the loop
ITERS = {"bytecode": 32, "native": 64, "viper": 1024, "asm_thumb": 1024}
# On big ports a call's own cost is not the only one: boxed floats made a 32-iteration float
# kernel run at half the rate of a 1000-iteration one on the unix port (allocation per call)
ITERS_LARGE = {"bytecode": 1024, "native": 1024, "viper": 4096, "asm_thumb": 4096}


def is_small(probe: dict) -> bool:
    return probe.get("free", 0) < SMALL_HEAP


# trials per measurement: the least is kept. On a host OS the others' processes preempt a trial
# now and then: KWS with viper on the unix port, machine under load 2.7 on 2 cores, 5 trials:
# measured/predicted 1.72-2.08 over three runs, identical layers 2.4-4.1x apart; 15 trials:
# 1.41-1.45, identical layers 2.3-2.5x (the same on a quiet machine: 1.46)
TRIALS, HOST_TRIALS = 5, 15


def timing(probe: dict) -> dict:
    """Window per trial: long enough that the timer tick is under 0.1 % of it."""
    win = 20000 if is_small(probe) else 5000
    trials = HOST_TRIALS if probe.get("platform") in HOST_PLATFORMS else TRIALS
    return {"win_us": max(win, 1000 * probe.get("tick_us", 1)), "trials": trials}
