"""The pace in words, for report.html's board facts. Here, not in measure.pace, so that the
report imports no measuring code. The pace sizes nothing (suites.timing.slow: a slow emulator is
sized by its profile); the sizing the run took is results.json's board.sizing."""

from __future__ import annotations


def fact(pace: float) -> str:
    """The pace as report.html's board facts show it."""
    return f"{pace:.3g} board seconds a host second"
