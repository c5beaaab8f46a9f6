"""Display of base SI units: files hold bytes/s and MACC/s, people read kB/s and MMACC/s."""

from __future__ import annotations

PREFIXES = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")]


def si(value: float | None, unit: str, digits: int = 3) -> str:
    if value is None:
        return "-"
    for scale, prefix in PREFIXES:
        if abs(value) >= scale:
            return f"{value / scale:.{digits}g} {prefix}{unit}"
    return f"{value:.{digits}g} {unit}"


def duration(seconds: float | None, digits: int = 3) -> str:
    """A time people read: 850 us, 12.3 ms, 4.5 s, 5.7 min, 2.1 h."""
    if seconds is None:
        return "-"
    for limit, scale, unit in ((1e-3, 1e6, "us"), (1.0, 1e3, "ms"), (120.0, 1.0, "s"), (7200.0, 1 / 60, "min")):
        if abs(seconds) < limit:
            return f"{seconds * scale:.{digits}g} {unit}"
    return f"{seconds / 3600:.{digits}g} h"


def duration_span(lo: float, hi: float) -> str:
    """An interval of times whose ends read apart: "15.96 s to 16.04 s", not "16 s to 16 s"
    (one more digit at a time, up to six); one time where they are equal."""
    for digits in range(3, 7):
        a, b = duration(lo, digits), duration(hi, digits)
        if a != b:
            return f"{a} to {b}"
    return duration(lo)
