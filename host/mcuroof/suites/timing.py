"""How long each trial runs and how many trials a measurement takes, per board."""

from __future__ import annotations

from dataclasses import dataclass

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


# Where time is exact (on a board whose time counts QEMU's instructions or a cycle model's cycles:
# analysis.timing_basis, the timer check's repeats within EXACT_SPREAD of its window of each
# other) a measurement is a warm-up and one timed call of at least EXACT_WINDOW_TICKS ticks: its
# error is the tick and the spread over the window. The spread allowed is a timer interrupt's
# cost: qemu-m3 under -icount repeated a 10 ms run to 14,667-14,683 us (0.11 %; the tick its
# probe reads is 10 us, the cost of a ticks_us() call, the timer's own step 1 us)
EXACT_SPREAD = 0.005
EXACT_WINDOW_TICKS = 1000
EXACT, NOISY = "exact", "noisy"
# Two timed calls, the least kept, where time is exact: a call that allocates (boxed floats) may
# meet a garbage collection in one. Telling it apart on the board took gc.mem_alloc(), a heap scan
# (16 ms of qemu-m3's 110 KB, more than the window), or a longer measure(), which left the
# micro:bit's 8 KB heap no room to assemble its region readers.
EXACT_TRIALS = 2


@dataclass(frozen=True)
class Timer:
    """The timer check (suites.timer) as the run read it: the probe's tick, the spread of REPEATS
    equal timed runs, and whether the run's time basis counts steps (instructions, a cycle model's
    cycles) rather than real or host time."""

    tick_us: float
    spread_us: float
    repeats: int
    window_us: float
    counted: bool

    @property
    def exact(self) -> bool:
        return self.counted and self.spread_us <= max(self.tick_us, EXACT_SPREAD * self.window_us)

    @property
    def rule(self) -> str:
        return EXACT if self.exact else NOISY


def read_timer(rec: dict, tick_us: float | None, counted: bool) -> Timer:
    """A Timer from the timer check's record (suites.timer)."""
    us = rec["us"]
    return Timer(float(tick_us or 1), float(max(us) - min(us)), len(us), float(rec["win"]), counted)


# Exact time's window: 1000 of the probe's tick taken down to 1, 2 or 5 x 10^k us. Under -icount,
# on rp2040js and the cycle models the tick a probe reads is a ticks_us() call's cost (10-14 us
# on QEMU, 2 us on rp2040js), the timer's own step 1 us, so the window is still over 1000 steps.
# Not 1000 ticks as read: the reading moves between runs of one board (10 or 11 us on qemu-m3),
# and windows that moved with it gave two runs different repeat counts and figures 3 % apart.
def exact_window(probe: dict) -> int:
    tick = max(1, int(probe.get("tick_us") or 1))
    step = 10 ** (len(str(tick)) - 1)
    return EXACT_WINDOW_TICKS * step * max(m for m in (1, 2, 5) if m * step <= tick)


def precision(cfg: dict, timer: Timer | None, probe: dict) -> float:
    """The error bound of one timed window as a fraction of it: the tick plus, where time is
    exact, the repeat spread the timer check saw (noisy time: the tick alone; the trials' least
    is what noise leaves, checks.noisy counts those that spread)."""
    tick = float(probe.get("tick_us") or 1)
    spread = timer.spread_us if timer is not None and timer.exact else 0.0
    return (tick + spread) / cfg["win_us"]


def record(timer: Timer, probe: dict, suites: dict, calibration: dict) -> dict:
    """results.json's board.timer: the check, the rule it chose, and the windows, trials and
    precision of the suites (memory, compute, regions, layers, user) and of the calibration."""

    def sized(cfg: dict) -> dict:
        out = {"win_us": cfg["win_us"], "trials": cfg["trials"], "precision": round(precision(cfg, timer, probe), 6)}
        return {**out, "alloc_trials": cfg["alloc_trials"]} if "alloc_trials" in cfg else out

    return {
        "rule": timer.rule,
        "counted": timer.counted,
        "tick_us": timer.tick_us,
        "spread_us": timer.spread_us,
        "repeats": timer.repeats,
        "check_us": timer.window_us,
        "suites": sized(suites),
        "calibration": sized(calibration),
    }


def timing(probe: dict, slow_board: bool = False, timer: Timer | None = None) -> dict:
    """Window per trial: where time is exact (timer.exact) EXACT_TRIALS timed calls of 1000 ticks
    after a warm-up; else long enough that the timer tick is under 0.1 % of it; on a slow
    emulator (slow()) 1000 ticks, and 3 trials. No timer (a run resumed from a folder measured
    before the timer check): sized as a noisy one."""
    if timer is not None and timer.exact:
        return {"win_us": exact_window(probe), "trials": EXACT_TRIALS}
    win = 20000 if is_small(probe) else 5000
    trials = HOST_TRIALS if probe.get("platform") in HOST_PLATFORMS else TRIALS
    least = 1000 * probe.get("tick_us", 1)
    if slow_board:
        win, trials = least, min(trials, SLOW_TRIALS)
    return {"win_us": max(win, least), "trials": trials}


def for_context(probe: dict, ctx) -> dict:
    """timing() for a suite's Context (suites.base: its profile decides slow(), its timer exact time)."""
    return timing(probe, ctx is not None and slow(ctx.profile), ctx.timer if ctx is not None else None)


def sizing(profile, timer: Timer | None = None) -> str | None:
    """What a slow emulator's run does about it, for the terminal and report.html; None elsewhere."""
    if not slow(profile):
        return None
    trials = (
        f"{EXACT_TRIALS} timed calls (exact time)" if timer is not None and timer.exact else f"{SLOW_TRIALS} trials"
    )
    return (
        f"an emulator slower than its chip (profile [run].slow_emulator): {trials} of "
        f"1000-tick windows, interpreted memory sweeps to {INTERPRETED_WS // 1024} KiB"
    )
