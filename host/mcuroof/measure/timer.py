"""The timer check of a run (suites.timer), after the probe and the pace: its repeat spread and
tick, with the run's time basis, decide how every later suite is sized (suites.timing.Timer).

A resumed run reads the check its first run made (the unit is in raw.jsonl); a folder measured
before there was a check sizes what is left as it sized the rest: as noisy time (None).
"""

from __future__ import annotations

from mcuroof.analysis import timing_basis
from mcuroof.suites import timer as timer_suite
from mcuroof.suites.timing import Timer, read_timer


def counted(board: dict) -> bool:
    """Whether a board's time (results.board_info) counts QEMU's instructions or a cycle model's
    cycles (analysis.timing_basis), not real or host time."""
    basis = timing_basis.of(board)
    return basis.kind == timing_basis.INSTRUCTIONS or (basis.kind == timing_basis.CYCLES and basis.model is not None)


def for_run(collector, probe: dict, board: dict, entries: list[dict] | None) -> Timer | None:
    """The run's timer check: a resumed run's as its first run made it (None where that run
    sized its suites without one), a new run's made now."""
    if entries:
        done = {suite for suite, _ in collector.done} - {"probe", "pace"}
        if done and "timer" not in done:
            return None
    recs = [r for r in collector.run_suite("timer", timer_suite.config(probe)) if r.get("t") == "timer"]
    return read_timer(recs[0], probe.get("tick_us"), counted(board)) if recs else None
