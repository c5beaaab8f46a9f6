"""The user's own kernels (results.json points marked `user`) as a table and lines of advice."""

from __future__ import annotations

from rich.table import Table

from mcuroof.analysis import records
from mcuroof.analysis.records import Point
from mcuroof.report.layer_tables import ADVICE_KEYS
from mcuroof.units import duration, si


def user_points(result: dict) -> list[Point]:
    """The points of the user's own kernels (`mcuroof kernel`)."""
    return [p for p in records.points(result) if p.user]


def kernels_table(result: dict) -> Table | None:
    pts = user_points(result)
    if not pts:
        return None
    files = ", ".join(sorted({p.file for p in pts}))
    t = Table(title=f"Your kernels ({files}) on the board", title_justify="left")
    for col in ("#", "kernel", "roofs of", "OI", "MACC/s", "bytes/s (of roof)", "roof", "headroom", "bound", "advice"):
        t.add_column(col, justify="right" if col in ("#", "OI", "MACC/s", "roof", "headroom") else "left")
    for p in pts:
        share = f" ({p.memory_share:.0%})" if p.memory_share else ""
        roofs = f"{p.emitter} {p.dtype}" if p.emitter != "top" else "top roofs"
        t.add_row(
            f"U{p.index}",
            p.name,
            roofs,
            f"{p.oi:.3g}",
            si(p.macs_per_s, ""),
            si(p.bytes_per_s, "B/s") + share,
            si(p.roof_macs_per_s, "") if p.roof_macs_per_s else "-",
            f"{p.headroom:.3g}x" if p.headroom else "-",
            p.bound,
            ADVICE_KEYS.get(p.advice_kind, "-"),
            style="bold red" if p.above_roof else None,
        )
    return t


def kernel_lines(result: dict) -> list[str]:
    lines = [
        f"U{p.index} {p.name}: {duration(p.seconds, 4)} per call, {p.macc:,} MACC, {p.bytes:,} B; {p.advice}"
        for p in user_points(result)
    ]
    uk = result.get("user_kernels") or {}
    if uk.get("roofs_from"):
        lines.append(f"roofs from {uk['roofs_from']} (not measured again); kernels measured {uk.get('measured')}")
    return lines + [f"[bold red]{e}[/]" for e in uk.get("errors", [])]


def renderables(result: dict) -> list:
    table = kernels_table(result)
    return ([table] if table else []) + kernel_lines(result)
