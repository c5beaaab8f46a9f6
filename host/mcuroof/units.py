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
