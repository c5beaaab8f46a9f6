"""Predicted from the calibration against measured, per layer and for the whole model
(results.json's calibrated_* fields: suites.layers.calibrated), for the terminal and report.html:
every `mcuroof run --model` checks the predictor. Every measured layer has a row: predicted by
its family's fit, by another family's (and why), or not predicted (and why)."""

from __future__ import annotations

import statistics

from rich.table import Table

from mcuroof.analysis import records, timing_basis
from mcuroof.analysis.records import Point
from mcuroof.units import duration

HEADERS = ("layer", "kernel", "measured", "predicted", "error", "CV", "how")


def _pct(e: float | None) -> str:
    return "-" if e is None else f"{e:+.1%}"


def spread(iv, seconds: float | None) -> str:
    """The cross-validated interval as a relative half-width: '±4%' (its upper side; '-' without)."""
    if not iv or not seconds:
        return "-"
    return f"±{iv[1] / seconds - 1:.0%}" if iv[1] / seconds - 1 >= 0.01 else f"±{iv[1] / seconds - 1:.1%}"


def interval_text(iv, measured: float | None = None) -> str:
    """'1.2 s-1.4 s', and ' MISS' where the measured time lies outside it."""
    if not iv:
        return "-"
    text = f"{duration(iv[0])}-{duration(iv[1])}"
    if measured is not None:
        text += "" if iv[0] <= measured <= iv[1] else " MISS"
    return text


def beyond(outside: list[str]) -> str:
    """'macs 2.7x' (past the most its family's shapes had) from cost_model.Model.outside's
    'macs 512,000 > 188,188'; '0.5x' under the least."""
    out = []
    for o in outside:
        name, value, op, limit = o.split()
        v, lim = float(value.replace(",", "")), float(limit.replace(",", ""))
        label = {"work_bytes": "ws"}.get(name, name)
        out.append(f"{label} {v / lim:.1f}x" if op == ">" else f"{label} {v / lim:.2f}x")
    return ", ".join(out)


def how_text(status: str, family: str | None, why: str, outside: list[str]) -> str:
    """'own', 'by viper/int8/generic/dw3: the same kernel ...' or 'not: why', and the range flag."""
    if status == "none":
        return f"not: {why}"
    text = "own" if status == "own" else f"by {(family or '').split('/', 2)[-1]} ({why.split('; ')[-1]})"
    return text + (f"; {beyond(outside)}" if outside else "")


def how(p: Point) -> str:
    if p.calibrated_seconds is None:
        return f"not: {p.calibrated_why or 'no calibration'}"
    return how_text(p.calibrated_status or "own", p.calibrated_family, p.calibrated_why or "",
                    p.calibrated_outside or [])  # fmt: skip


def _held(iv, seconds: float | None, measured: float) -> str:
    """The interval's half-width, and 'miss' where the measured time lies outside it."""
    text = spread(iv, seconds)
    return text if not iv or iv[0] <= measured <= iv[1] else text + " miss"


def _layer_points(result: dict) -> list[Point]:
    return [p for p in records.points(result) if not p.user and p.has("calibrated_seconds")]


def _tiled(p: Point) -> bool:
    """Measured on a tile and projected to the whole layer."""
    return p.tile_fraction is not None and p.tile_fraction < 1


def held(pts: list[Point]) -> tuple[int, int]:
    """How many verified layers' measured times lie in their predicted interval, of those with one."""
    with_iv = [p for p in pts if p.calibrated_interval and p.verified is not False]
    inside = sum(1 for p in with_iv if p.calibrated_interval[0] <= p.seconds <= p.calibrated_interval[1])
    return inside, len(with_iv)


def rows(result: dict) -> list[list[str]]:
    """Per layer (every point the calibration saw), then per whole-model row, as text cells."""
    pts = _layer_points(result)
    one_type = len({p.dtype for p in pts}) == 1
    out = [
        [
            p.short_name,
            p.emitter if one_type else f"{p.emitter} {p.dtype}",
            duration(p.seconds) + (" *" if _tiled(p) else ""),
            duration(p.calibrated_seconds),
            _pct(p.calibrated_error),
            _held(p.calibrated_interval, p.calibrated_seconds, p.seconds),
            how(p),
        ]
        for p in sorted(pts, key=lambda p: (p.index, p.dtype, p.emitter))
    ]
    for r in (result.get("model") or {}).get("whole_model") or []:
        if r.get("calibrated_seconds") is None and not r.get("calibrated_not_predicted"):
            continue
        mine = [p for p in pts if (p.emitter, p.dtype) == (r["emitter"], r["dtype"])]
        errs = [abs(p.calibrated_error) for p in mine if p.calibrated_error is not None]
        inside, n = held(mine)
        spread = f"layers: median {statistics.median(errs):.1%}, worst {max(errs):.1%}" if errs else "-"
        spread += f"; {inside} of {n} in their interval" if n else ""
        missing = r.get("calibrated_not_predicted") or []
        if missing:
            spread += "; NOT PREDICTED: " + ", ".join(f"layer {m['index']} ({m['why']})" for m in missing)
        out.append(
            [
                "whole model",
                f"{r['emitter']} {r['dtype']}",
                duration(r["measured_seconds"]) + (" *" if any(_tiled(m) for m in mine) else ""),
                duration(r.get("calibrated_seconds")),
                _pct(r.get("calibrated_error")),
                _held(r.get("calibrated_interval"), r.get("calibrated_seconds"), r["measured_seconds"]),
                spread,
            ]
        )
    return out


def title(result: dict) -> str:
    basis = timing_basis.of(result.get("board", {}))
    return (
        "Predicted from the board's calibration alone (no layer of the model measured) against measured; "
        "CV: where 90 % of the calibration shapes left out of their family's fit fell ('miss': the "
        "measured time lies outside); 'macs 2.1x': the layer's MACs (channels, working set) are 2.1x "
        f"the most its family's shapes had, an extrapolation; '*': measured on a tile and projected to the "
        f"whole layer (or a sum with such layers); {basis.sentence}"
    )


def terminal_table(result: dict) -> Table | None:
    body = rows(result)
    if not body:
        return None
    t = Table(title=title(result), title_justify="left")
    for h in HEADERS:
        t.add_column(h, justify="right" if h in ("measured", "predicted", "error", "CV") else "left")
    for r in body:
        t.add_row(*r, style="bold" if r[0] == "whole model" else None)
    return t
