"""`mcuroof predict`'s table of one model's layers on one board: a row per layer and kernel with
its predicted time, the spread of its family's held-out errors, its roofline bound and how."""

from __future__ import annotations

from rich.table import Table

from mcuroof.analysis.records import LayerPrediction
from mcuroof.report import calibrated
from mcuroof.units import duration

CAPTION = (
    "CV: the 90 % interval from the calibration shapes left out of their family's fit (the "
    "family's median held-out error times the 90 % quantile of held-out errors pooled over its "
    "emitter, type and shape class; n: --json's pool_held_out); 'macs 2.7x': the layer's MACs "
    "(channels, working set) are 2.7x the most its family's shapes had, an extrapolation: its interval is "
    "widened (docs/prediction.md), and past 16x it has none"
)


def layer_table(doc: dict, rows: list[LayerPrediction], basis) -> Table:
    """One row per layer and kernel; layers by their short name ("DW 3": the points' index)."""
    one_type = len({r.dtype for r in rows}) == 1
    kind = f"{rows[0].dtype} " if one_type and rows else ""
    t = Table(title=f"Predicted {kind}layers of {doc['model']} on {doc['board']} ({basis.sentence})")
    for h in ("layer", "kernel", "predicted", "CV", "roofline", "how"):
        t.add_column(h, justify="right" if h in ("predicted", "CV", "roofline") else "left")
    for r in rows:
        t.add_row(
            r.short_name,
            r.emitter if one_type else f"{r.emitter} {r.dtype}",
            duration(r.seconds),
            calibrated.spread(r.interval, r.seconds),
            duration(r.bound_seconds),
            calibrated.how_text(r.status, r.family, r.why or "", r.outside or [])
            + (f"; no interval: {r.interval_why}" if r.interval_why else ""),
        )
    t.caption = CAPTION
    return t
