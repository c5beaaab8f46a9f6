"""What a run does on a board whose time runs slower than the host's (suites.timing.slow), in
words: the terminal's line during a run (measure.pipeline) and report.html's board fact. Here, not
in measure.pace, so that the report imports no measuring code."""

from __future__ import annotations

from mcuroof.suites.memory import INTERPRETED_WS
from mcuroof.suites.timing import SLOW_PACE, SLOW_TRIALS, slow


def fact(pace: float) -> str:
    """The pace as report.html's board facts show it."""
    text = f"{pace:.3g} board seconds a host second"
    return text + (
        f" (under {SLOW_PACE}: an emulator slower than its chip; the run took {_SIZING})" if slow(pace) else ""
    )


def sizing_text(pace: float) -> str:
    """What a slow board's run does about its pace (suites.timing.slow), for the terminal."""
    return f"the board's time runs at {pace:.3g} s a host second (an emulator slower than its chip): {_SIZING}"


_SIZING = f"{SLOW_TRIALS} trials of 1000-tick windows, interpreted memory sweeps to {INTERPRETED_WS // 1024} KiB"
