"""How long each trial runs and how many trials a measurement takes, per board."""

from __future__ import annotations

from mcuroof.kernels import emitters
from mcuroof.kernels.emitters import HOST_PLATFORMS
from mcuroof.kernels.ops.layer_plan import SMALL_HEAP

MiB = 1 << 20
# loop iterations per kernel call: enough that the call costs little beside the loop
ITERS = emitters.iters(large=False)  # bytecode 32, native 64, viper and the assemblers 1024
# On big ports a call's own cost is not the only one: boxed floats made a 32-iteration float
# kernel run at half the rate of a 1000-iteration one on the unix port (allocation per call)
ITERS_LARGE = emitters.iters(large=True)  # bytecode, native 1024, viper and the assemblers 4096


def is_small(probe: dict) -> bool:
    return probe.get("free", 0) < SMALL_HEAP


# trials per measurement: the least is kept. On a host OS the others' processes preempt a trial
# now and then: KWS with viper on the unix port, machine under load 2.7 on 2 cores, 5 trials:
# measured/predicted 1.72-2.08 over three runs, identical layers 2.4-4.1x apart; 15 trials:
# 1.41-1.45, identical layers 2.3-2.5x (the same on a quiet machine: 1.46)
TRIALS, HOST_TRIALS = 5, 15
# A board whose profile says it is a slow emulator ([run].slow_emulator: rp2040js-pico, whose
# timer follows the Cortex-M0+ cycles it emulates at 0.035-0.52 of the chip's speed, by the
# host's load): the host's load does not enter its time, so 3 trials give the least and the
# median (rp2040js: two compute runs equal to 0.06 %; the calibration's rule for emulated boards),
# and a window needs only 1000 ticks (the tick under 0.1 % of it). Decided by what the board is,
# never by its measured pace (measure.pace): a pace threshold sized rp2040js one way at 0.349 and
# the other at 0.520, and the two runs' float32 ceilings differed by 0.7-1.0 %
SLOW_TRIALS = 3
# there, interpreted memory sweeps stop at 16 KiB (suites.memory.working_sets)
INTERPRETED_WS = 16 * 1024


def slow(profile) -> bool:
    """Whether a board of this profile (board.profiles.Board; None: no profile) is sized as a slow
    emulator."""
    return profile is not None and bool(profile.run.get("slow_emulator"))


def timing(probe: dict, slow_board: bool = False) -> dict:
    """Window per trial: long enough that the timer tick is under 0.1 % of it; on a slow emulator
    (slow()) 1000 ticks, and 3 trials."""
    win = 20000 if is_small(probe) else 5000
    trials = HOST_TRIALS if probe.get("platform") in HOST_PLATFORMS else TRIALS
    least = 1000 * probe.get("tick_us", 1)
    if slow_board:
        win, trials = least, min(trials, SLOW_TRIALS)
    return {"win_us": max(win, least), "trials": trials}


def for_context(probe: dict, ctx) -> dict:
    """timing() for a suite's Context (suites.base: its profile decides slow())."""
    return timing(probe, ctx is not None and slow(ctx.profile))


def sizing(profile) -> str | None:
    """What a slow emulator's run does about it, for the terminal and report.html; None elsewhere."""
    if not slow(profile):
        return None
    return (
        f"an emulator slower than its chip (profile [run].slow_emulator): {SLOW_TRIALS} trials of "
        f"1000-tick windows, interpreted memory sweeps to {INTERPRETED_WS // 1024} KiB"
    )
