"""How long each trial runs and how many trials a measurement takes, per board."""

from __future__ import annotations

from mcuroof.kernels.contract import HOST_PLATFORMS
from mcuroof.kernels.ops.layer_plan import SMALL_HEAP

MiB = 1 << 20
# loop iterations per kernel call: enough that the call costs little beside the loop
ITERS = {"bytecode": 32, "native": 64, "viper": 1024, "asm_thumb": 1024, "asm_rv32": 1024}
# On big ports a call's own cost is not the only one: boxed floats made a 32-iteration float
# kernel run at half the rate of a 1000-iteration one on the unix port (allocation per call)
ITERS_LARGE = {"bytecode": 1024, "native": 1024, "viper": 4096, "asm_thumb": 4096, "asm_rv32": 4096}


def is_small(probe: dict) -> bool:
    return probe.get("free", 0) < SMALL_HEAP


# trials per measurement: the least is kept. On a host OS the others' processes preempt a trial
# now and then: KWS with viper on the unix port, machine under load 2.7 on 2 cores, 5 trials:
# measured/predicted 1.72-2.08 over three runs, identical layers 2.4-4.1x apart; 15 trials:
# 1.41-1.45, identical layers 2.3-2.5x (the same on a quiet machine: 1.46)
TRIALS, HOST_TRIALS = 5, 15
# A board whose time runs at under half the host's (pace: board seconds per host second,
# measure.pace) is an emulator slower than its chip whose timer follows the work it emulates
# (rp2040js: 0.035-0.29 here, by the host's load; a real board's time is real time, 1; QEMU
# -icount's runs ahead, over 1). There the host's load does not enter the board's time: 3 trials
# give the least and the median (rp2040js: two compute runs equal to 0.06 %; the calibration's
# rule for emulated boards), and a window needs only 1000 ticks (the tick under 0.1 % of it),
# whatever the pace, so runs under any load send the same kernels
SLOW_PACE, SLOW_TRIALS = 0.5, 3


def slow(pace: float | None) -> bool:
    return pace is not None and pace < SLOW_PACE


def timing(probe: dict, pace: float | None = None) -> dict:
    """Window per trial: long enough that the timer tick is under 0.1 % of it; on a slow board
    (slow()) 1000 ticks, and 3 trials."""
    win = 20000 if is_small(probe) else 5000
    host = probe.get("platform") in HOST_PLATFORMS
    trials = HOST_TRIALS if host else TRIALS
    least = 1000 * probe.get("tick_us", 1)
    if slow(pace) and not host:  # a host OS's time is the host's: it measures no pace
        win, trials = least, min(trials, SLOW_TRIALS)
    return {"win_us": max(win, least), "trials": trials}
