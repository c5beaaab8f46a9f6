"""The short summary `mcuroof run --model` prints: a measured figure first, the best emitter per
layer grouped by op kind, and each piece of advice once with the layers it concerns. The long
tables (every roof, ridge point and layer run) stay in `mcuroof report` and report.html. Pure:
builds rich renderables, prints nothing."""

from __future__ import annotations

import re

from rich.table import Table

from mcuroof.analysis import records, timing_basis
from mcuroof.analysis.records import Point
from mcuroof.model import names as layer_names
from mcuroof.report import advice_text
from mcuroof.report.layer_tables import layer_points
from mcuroof.units import duration, si

NUMBER_UNIT = re.compile(r"^([\d.]+)(\D*)$")  # "12.6 M": the number and its unit
NUMBER = advice_text.NUMBER


def best_per_layer(result: dict) -> list[Point]:
    """Per layer and element type, its verified run that took the least time."""
    best: dict[tuple, Point] = {}
    for p in records.points(layer_points(result)):
        key = (p.index, p.dtype)
        if p.verified and p.seconds and (key not in best or p.seconds < best[key].seconds):
            best[key] = p
    return [best[k] for k in sorted(best)]


def groups(best: list[Point]) -> list[list[Point]]:
    """The best runs grouped by op kind, emitter and type, in layer order of each group's first."""
    out: dict[tuple, list[Point]] = {}
    for p in best:
        out.setdefault((layer_names.op_short(p.op), p.emitter, p.dtype), []).append(p)
    return list(out.values())


def best_table(result: dict) -> Table | None:
    best = best_per_layer(result)
    if not best:
        return None
    total = sum(p.seconds for p in best)
    basis = timing_basis.of(result.get("board", {}))
    one = len({p.dtype for p in best}) == 1  # one element type: named once, in the title
    kind = f" ({best[0].dtype})" if one else ""
    t = Table(
        title=f"Best emitter per layer{kind}; time counts {basis.label}", title_justify="left", caption_justify="left"
    )
    for col in ("op", "layer #", "best", "time", "share", "MACC/s", "headroom"):
        t.add_column(col, justify="right" if col in ("time", "share", "MACC/s", "headroom") else "left")
    for g in groups(best):
        seconds = sum(p.seconds for p in g)
        t.add_row(
            layer_names.op_short(g[0].op),
            ",".join(str(p.index) for p in g),  # as the plot numbers them
            g[0].emitter if one else f"{g[0].emitter} {g[0].dtype}",
            duration(seconds),
            _share(seconds / total) if total else "-",
            _span([p.macs_per_s for p in g], lambda v: si(v, "")) if g[0].macc else "no MACs",
            _span([p.headroom for p in g if p.headroom], lambda v: f"{v:.3g}x"),
        )
    t.caption = "time: the layers' sum, each at its best; headroom: under its roof (bytes/s for a layer without MACs)"
    return t


def _share(x: float) -> str:
    return "<1%" if x < 0.005 else f"{x:.0%}"


def _span(values: list[float], fmt) -> str:
    """ "12.6-18 M", "1.63-2.34x", or one value where they print alike."""
    if not values:
        return "-"
    lo, hi = fmt(min(values)), fmt(max(values))
    if lo == hi:
        return lo
    a, b = NUMBER_UNIT.match(lo), NUMBER_UNIT.match(hi)
    if a and b and a[2] == b[2]:  # one unit for both ends
        return f"{a[1]}-{b[1]}{b[2]}"
    return f"{lo}-{hi}"


def advice_lines(result: dict) -> list[str]:
    """Each piece of advice to the best runs once, with the layers it concerns: texts that differ
    only in their numbers are one, the numbers given as a range."""
    return [
        f"advice ({advice_text.layer_names_text(runs)}): {text}"
        for _, text, runs in advice_text.merged(best_per_layer(result))
    ]


def lead_line(result: dict) -> str | None:
    """The first figure: a measured one. The whole model's time where every layer ran whole and
    the model fits the board; else the fastest measured compute ceiling, and why the model has
    no measured time."""
    m = result.get("model") or {}
    basis = timing_basis.of(result.get("board", {}))
    rows = [r for r in m.get("whole_model") or [] if r.get("inferences_per_s")]
    fits = (m.get("fit") or {}).get("fits") is not False
    best = min(rows, key=lambda r: r["measured_seconds"], default=None)
    if best and fits and not _tiled(result, best):
        return (
            f"measured: {m.get('name')} takes {_per_inference(best, basis)} with {best['emitter']} {best['dtype']}, "
            f"the sum of its {best['layers']} layers each run whole on the board{_left_out(m)}; "
            f"time counts {basis.label}"
        )
    top = max(
        (r for r in records.roofs(result) if r.kind == "compute" and r.measured),
        key=lambda r: r.macs_per_s,
        default=None,
    )
    if not top:
        return None
    why = (
        "does not fit this board: its layers ran one at a time, on tiles"
        if not fits
        else "ran some layers on tiles (memory or time budget)"
    )
    per = f" ({basis.per_text(top.macs_per_s, 'MACC')})" if basis.step else ""
    return (
        f"measured: the fastest compute ceiling here is {top.name}, {si(top.macs_per_s, 'MACC/s')}{per}; "
        f"{m.get('name', 'the model')} {why}: its whole-model time is projected from them, not measured; "
        f"time counts {basis.label}"
    )


def _per_inference(row: dict, basis: timing_basis.Basis) -> str:
    """One inference's time: instructions or modelled cycles first where that is what time counts
    (and seconds only at their rate), seconds and inferences/s where time is a chip's own."""
    seconds = row["measured_seconds"]
    if basis.real_time or not basis.step:
        rate = row.get("inferences_per_s")
        return f"{duration(seconds)} per inference" + (f" ({rate:.3g} inferences/s)" if rate else "")
    per_mac = f", {seconds * basis.rate_hz / row['macc']:.3g} {basis.step} a MAC" if row.get("macc") else ""
    at = f"{2**basis.icount_shift} ns an instruction" if basis.icount_shift is not None else basis.rate_text
    return f"{basis.steps_text(seconds)} per inference ({duration(seconds)} at {at}{per_mac})"


def _left_out(m: dict) -> str:
    """The layers a whole-model time leaves out (not profiled: no kernel), said where it is given."""
    out = [
        f"{s.get('op') or s.get('name', '?')} {s['index']}" for s in m.get("not_profiled") or [] if not s.get("emitter")
    ]
    return f" ({', '.join(out)} not profiled: left out)" if out else ""


def _tiled(result: dict, row: dict) -> bool:
    """Whether a whole-model row's layers include one run on a tile (its time projected)."""
    pts = records.points(layer_points(result))
    mine = [p for p in pts if (p.emitter, p.dtype) == (row["emitter"], row["dtype"])]
    lent = {(b["index"], b["emitter"]) for b in row.get("borrowed") or []}
    mine += [p for p in pts if (p.index, p.emitter) in lent and p.dtype == row["dtype"]]
    return any(p.tile_fraction is not None and p.tile_fraction < 1 for p in mine)


def renderables(result: dict, folder: str = "DIR") -> list:
    """The summary of a run with layers, and where the long tables are."""
    lead, table = lead_line(result), best_table(result)
    out = ([lead] if lead else []) + ([table] if table else []) + advice_lines(result)
    out.append(
        f"every roof, ridge point and layer run with its advice: mcuroof report {folder}/results.json, "
        f"or {folder}/report.html"
    )
    return out
