"""Predicted from the calibration against measured, per layer and for the whole model
(results.json's calibrated_seconds and calibrated_error: suites.layers.calibrated), for the
terminal and report.html: every `mcuroof run --model` checks the predictor."""

from __future__ import annotations

import statistics

from rich.table import Table

from mcuroof.analysis import timing_basis
from mcuroof.model import names as layer_names
from mcuroof.units import duration

HEADERS = ("layer", "kernel", "measured", "predicted (calibration)", "error", "dominant term")


def _pct(e: float | None) -> str:
    return "-" if e is None else f"{e:+.1%}"


def rows(result: dict) -> list[list[str]]:
    """Per layer (points with a calibrated time), then per whole-model row, as text cells."""
    pts = [p for p in result.get("points") or [] if not p.get("user") and p.get("calibrated_seconds") is not None]
    out = [
        [
            layer_names.short(p),
            f"{p['emitter']} {p['dtype']}",
            duration(p["seconds"]),
            duration(p["calibrated_seconds"]),
            _pct(p.get("calibrated_error")),
            p.get("calibrated_dominant") or "-",
        ]
        for p in sorted(pts, key=lambda p: (p["index"], p["dtype"], p["emitter"]))
    ]
    for r in (result.get("model") or {}).get("whole_model") or []:
        if r.get("calibrated_seconds") is None:
            continue
        errs = [abs(p["calibrated_error"]) for p in pts if (p["emitter"], p["dtype"]) == (r["emitter"], r["dtype"])]
        spread = f"layers: median {statistics.median(errs):.1%}, worst {max(errs):.1%}" if errs else "-"
        out.append(
            [
                "whole model",
                f"{r['emitter']} {r['dtype']}",
                duration(r["measured_seconds"]),
                duration(r["calibrated_seconds"]),
                _pct(r.get("calibrated_error")),
                spread,
            ]
        )
    return out


def title(result: dict) -> str:
    basis = timing_basis.of(result.get("board", {}))
    return (
        "Predicted from the board's calibration alone (no layer of the model measured) against measured; "
        f"{basis.sentence}"
    )


def terminal_table(result: dict) -> Table | None:
    body = rows(result)
    if not body:
        return None
    t = Table(title=title(result), title_justify="left")
    for h in HEADERS:
        t.add_column(h, justify="right" if h in ("measured", "predicted (calibration)", "error") else "left")
    for r in body:
        t.add_row(*r, style="bold" if r[0] == "whole model" else None)
    return t
