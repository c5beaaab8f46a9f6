"""One model on many boards: a table of board x kernel with each row's time, what its time counts,
the fit and the best row among those whose times compare (report for `mcuroof predict --roofs A B
...`). QEMU's instruction time, real time, a cycle model's (rp2040js) cycles, a host's time and Vela's NPU
estimate are scales that never compare; a theoretical bound or an estimate is never 'best'."""

from __future__ import annotations

from rich.table import Table

from mcuroof.analysis import timing_basis
from mcuroof.units import duration


def scale(basis: timing_basis.Basis, board: str) -> str:
    """The scale a board's times are on: rows compare only within one."""
    if basis.kind == timing_basis.INSTRUCTIONS:
        return f"QEMU instruction time (shift {basis.icount_shift})"
    if basis.modelled:
        return "modelled time (the cycle model: ms of each modelled chip)"
    if basis.kind == timing_basis.CYCLES and basis.model:
        return f"{basis.model}'s modelled {basis.core or 'core'} cycles"
    if basis.kind == timing_basis.CYCLES:
        return "real time (cycles at each board's clock)"
    if basis.kind == timing_basis.HOST:
        return "host time"
    return f"{board}: {basis.kind}"


def mark_best(rows: list[dict]) -> None:
    """best: the least-time prediction of each model and scale (bounds and rows without a time aside)."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        r["best"] = False
        if r["kind"] == "prediction" and r["seconds"] is not None and r["complete"]:
            groups.setdefault((r["model"], r["scale"]), []).append(r)
    for group in groups.values():
        min(group, key=lambda r: r["seconds"])["best"] = True


def table(model: str, rows: list[dict]) -> Table:
    """One row a board and kernel; what each time counts is a footnote ([1], [2], ...) spelled
    out once in the caption, so a row stays one line at 80 columns."""
    t = Table(title=f"{model} on each board: predicted from each board's calibration; 'bound': a profile's roofs")
    for h in ("board", "kernel", "time", "counts", "fit", "best"):
        t.add_column(h, justify="right" if h == "time" else "left")
    scales, units = [], []
    for r in rows:
        if r["scale"] not in scales:
            scales.append(r["scale"])
        if r["unit"] not in units:
            units.append(r["unit"])
        what = f"[{units.index(r['unit']) + 1}]" + ("; a bound, not a prediction" if r["kind"] == "bound" else "")
        if r["kind"] == "prediction" and not r["complete"]:
            what += "; not every layer predicted"
        fit = r["fit"].split(":")[0]
        t.add_row(r["board"], r["kernel"], duration(r["seconds"]), what, fit, "best" if r["best"] else "")
    t.caption = "; ".join(f"[{i}] {unit}" for i, unit in enumerate(units, 1))
    t.caption += ". best is marked within each scale, never across: " + "; ".join(scales)
    t.caption += ". fit: `mcuroof analyze MODEL --board B` says why"
    return t
