"""Summary tables of a profiled model (results.json `points` and `model`), as rich renderables."""

from __future__ import annotations

from rich.table import Table

from mcuroof.analysis import records, timing_basis
from mcuroof.analysis.records import Point
from mcuroof.report import advice_text, calibrated
from mcuroof.units import duration, duration_span, si

ADVICE_KEYS = {
    "above": "ABOVE ROOF",
    "software": "software",
    "below": "below",
    "memory": "slope",
    "compute": "ceiling",
    "roof": "at roof",
    "nomac": "fuse",
}


def layer_points(result: dict) -> list[dict]:
    """The network's layer points (the user's own kernels have a table of their own)."""
    return [p for p in result.get("points") or [] if not p.get("user")]


def layers_table(result: dict) -> Table | None:
    pts = layer_points(result)
    if not pts:
        return None
    basis = timing_basis.of(result.get("board") or {})
    t = Table(
        title=f"Layers of {result.get('model', {}).get('name', 'the model')} on the board",
        title_justify="left",
        caption="; ".join(
            [layers_note(basis)]
            + ([f"bound -: {basis.bound_note}"] if basis.bound_note else [])
            + ([macc_note(result)] if macc_note(result) else [])
        ),
        caption_justify="left",
    )
    cols = ("layer", "kernel", "tile", "OI", "MACC/s", "bytes/s (of roof)", "roof", "headroom", "vs fastest", "bound")
    for col in cols + ("advice",):
        t.add_column(col, justify="right" if col in ("tile", "OI", "MACC/s", "roof", "headroom") else "left")
    typed = records.points(pts)
    for p in sorted(typed, key=lambda p: (p.index, p.dtype, p.emitter)):
        share = f" ({p.memory_share:.0%})" if p.memory_share else ""
        name = p.short_name if p.verified else f"{p.short_name} [bold red]FAILED CHECK[/]"
        t.add_row(
            name,
            f"{p.emitter} {p.dtype}",
            f"{p.tile_fraction:.2g}",
            f"{p.oi:.3g}",
            si(p.macs_per_s, ""),
            si(p.bytes_per_s, "B/s") + share,
            roof_text(p),
            _headroom(p),
            fastest_text(p, typed),
            bound_text(p.bound, basis),
            ADVICE_KEYS.get(p.advice_kind, "-"),
            style="bold red" if p.above_roof else None,
        )
    return t


def _least(basis: timing_basis.Basis) -> str:
    return "instructions" if basis.kind == timing_basis.INSTRUCTIONS else "time"


def macc_note(result: dict) -> str | None:
    """Which MAC count each figure uses, where the kernels execute fewer than the nominal count
    (padded taps skipped); None where the two agree."""
    layers = {p["index"]: p for p in layer_points(result) if p.get("macc")}
    nominal = sum(p["macc"] for p in layers.values())
    executed = sum(p.get("macc_executed", p["macc"]) for p in layers.values())
    if executed == nominal:
        return None
    return (
        f"MACs: MACC/s, OI and the roofline bound count the MACs the kernels execute ({executed:,}: padded taps "
        f"skipped); a layer's MACC and the model's title count the nominal ones ({nominal:,})"
    )


def layers_note(basis: timing_basis.Basis) -> str:
    """What the layer table's "vs fastest" is, and how the advice below it is said once."""
    least = "instructions" if basis.kind == timing_basis.INSTRUCTIONS else "time"
    return (
        f"vs fastest: the emitter that ran the layer in the least {least}, and how many times less; advice: "
        "each text said once below, its numbers as ranges over the runs it names (each run's own: headroom, vs fastest)"
    )


def fastest_text(p: Point, points: list[Point]) -> str:
    """The emitter that ran this layer in the least time and how many times less ("viper 24.2x"
    faster, or in fewer instructions under QEMU); "-" for the fastest run itself."""
    peer = advice_text.fastest_peer(p, points)
    return f"{peer[0]} {peer[1]:.3g}x" if peer else "-"


def bound_text(bound: str | None, basis: timing_basis.Basis) -> str:
    """A point's bound (memory or compute) where its time tells one from the other, else "-"."""
    return bound or "-" if basis.tells_bound else "-"


def roof_text(p: Point, macc_unit: str = "") -> str:
    """The roof the headroom is measured against: MACC/s, or for a MAC-free layer (intensity 0,
    headroom in bytes/s) its memory roof in B/s."""
    if p.roof_macs_per_s:
        return si(p.roof_macs_per_s, macc_unit)
    if not p.macc and p.memory_share:
        return si(p.bytes_per_s / p.memory_share, "B/s")
    return "-"


def _headroom(p: Point) -> str:
    """Headroom under the point's roof, and under the ceiling its op kind can use where that
    differs (a depthwise layer on MVE: "16.1x (4.03x vmla)")."""
    if not p.headroom:
        return "-"
    op = f" ({p.op_headroom:.3g}x {p.op_roof.rsplit(' ', 1)[-1]})" if p.op_roof else ""
    return f"{p.headroom:.3g}x{op}"


# the whole-model table's columns (terminal and report.html): a roofline bound is no prediction,
# and the layers' time is a sum of measured and (on tiles) projected times: it says how many were projected
BOUND, MEASURED, PROJECTED, OVER = "roofline bound", "layers' time", "projected from tiles", "time / bound"


def speed_header(basis: timing_basis.Basis, estimate: bool) -> str:
    """The speed column: inferences/s where time is a chip's (a real board, the host), else the
    steps one inference took (QEMU's instructions, a cycle model's cycles): no rate in seconds."""
    if not basis.real_time:
        return f"{basis.step}/inference" if basis.step else "per inference"
    return "inferences/s (estimate from tiles)" if estimate else "inferences/s"


def whole_model_headers(estimate: bool, basis: timing_basis.Basis | None = None) -> list[str]:
    basis = basis or timing_basis.Basis(timing_basis.HOST, None, None)
    return ["emitter", "dtype", "layers", BOUND, MEASURED, PROJECTED, speed_header(basis, estimate), OVER]


def whole_model_cells(r: dict, result: dict, estimate: bool) -> list[str]:
    """One whole-model row as text, each figure with its unit."""
    basis = timing_basis.of(result.get("board") or {})
    ratio = r.get("measured_over_predicted")
    rate = r.get("estimated_inferences_per_s") if estimate else r.get("inferences_per_s")
    if not basis.real_time:
        speed = ("~" if estimate else "") + basis.steps_text(r["measured_seconds"]) if rate else "-"
    else:
        speed = (f"~{rate:.3g}/s" if estimate else f"{rate:.3g}/s") if rate else "-"
    return [
        r["emitter"],
        r["dtype"],
        str(r["layers"]),
        duration(r["predicted_seconds"]),
        duration(r["measured_seconds"]),
        f"{len(projected(r, result))} of {r['layers']}",
        speed,
        f"{ratio:.3g}x" if ratio else "-",
    ]


def projected(r: dict, result: dict) -> list[int]:
    """The layers of a whole-model row whose time was projected from a tile (results written
    before rows carried `projected`: from the row's own points)."""
    if "projected" in r:
        return r["projected"]
    return sorted(
        p["index"]
        for p in layer_points(result)
        if (p["dtype"], p["emitter"]) == (r["dtype"], r["emitter"])
        and p.get("verified")
        and p.get("tile_fraction", 1) < 1
        and p.get("projection") != "tile"
    )


def whole_model_notes(m: dict, basis: timing_basis.Basis | None = None) -> list[str]:
    """What the whole-model columns are, and the layers its sums leave out."""
    notes = [
        f"{MEASURED}: the layers' times summed, each measured or, run on a tile (a part of the layer), projected "
        f"to the whole ({PROJECTED}: how many); {BOUND}: every layer at its roof, the least time the roofs allow "
        f"(a bound, not a prediction); {OVER}: the layers' time over the bound"
    ]
    if basis is not None and not basis.real_time and basis.step:
        notes.append(f"times count {basis.label}: seconds at that rate, not a chip's time")
    out = [
        f"layer {s['index']} {s.get('name', '')} {s.get('op', '')} ({s['why']})".replace("  ", " ")
        for s in m.get("not_profiled") or []
        if not s.get("emitter")
    ]
    if out:
        notes.append(f"{MEASURED} leaves out, not profiled: {', '.join(out)}")
    return notes


def model_table(result: dict) -> Table | None:
    m = result.get("model") or {}
    rows = m.get("whole_model") or []
    if not rows:
        return None
    fit = m.get("fit") or {}
    estimate = fit.get("fits") is False
    basis = timing_basis.of(result.get("board") or {})
    title = f"Whole model: {m.get('name')} ({si(m.get('macc', 0), 'MACC')})"
    if fit:
        title += f": {fit['text'].split(':')[0]}"
    notes = "; ".join(whole_model_notes(m, basis) + ([macc_note(result)] if macc_note(result) else []))
    t = Table(title=title, title_justify="left", caption=notes, caption_justify="left")
    for col in whole_model_headers(estimate, basis):
        t.add_column(col, justify="left" if col in ("emitter", "dtype") else "right")
    for r in rows:
        t.add_row(*whole_model_cells(r, result, estimate))
    return t


def layer_set_lines(m: dict) -> list[str]:
    """What each whole-model row borrowed from another emitter, or lacks (points.whole_model)."""
    lines = []
    for r in m.get("whole_model") or []:
        lent: dict[str, list[str]] = {}
        for b in r.get("borrowed", []):
            lent.setdefault(b["emitter"], []).append(str(b["index"]))
        for em, idx in lent.items():
            lines.append(
                f"whole model {r['emitter']} {r['dtype']}: layer(s) {', '.join(idx)} timed with {em} "
                f"(no verified {r['emitter']} time)"
            )
        if r.get("missing"):
            lines.append(
                f"whole model {r['emitter']} {r['dtype']}: PARTIAL, layer(s) "
                f"{', '.join(str(i) for i in r['missing'])} have no whole-layer time from any emitter (a lone "
                "tile's time is shown per layer, not summed); no inferences/s"
            )
    return lines


def fit_line(m: dict) -> str | None:
    """The model's fit verdict on the board, and what its speed is when it does not fit."""
    fit = m.get("fit")
    if not fit:
        return None
    if fit["fits"] is False:
        return (
            f"[bold red]{fit['text']}[/]. The whole-model speed is an estimate from layers run one "
            "at a time (tiles), not inferences/s this board can do"
        )
    return fit["text"]


def model_lines(result: dict, advice: bool = True) -> list[str]:
    m = result.get("model") or {}
    if not m:
        return []
    lines = [
        f"peak memory (analytic, weights + live activations): {m['peak_memory_bytes']:,} B at layer "
        f"{m['peak_memory_layer']}; largest heap one layer's (tile's) buffers took on the board: "
        f"{m['measured_peak_heap_bytes'] or 0:,} B (gc.mem_alloc)"
    ]
    if fit_line(m):
        lines.insert(0, fit_line(m))
    lines += layer_set_lines(m)
    for s in [s for s in m.get("not_profiled", []) if s.get("emitter") or not m.get("whole_model")]:
        where = f" ({s['emitter']}, {s['dtype']})" if s.get("emitter") else ""
        lines.append(f"not profiled: layer {s['index']} {s.get('name', '')} {s.get('op', '')}{where}: {s['why']}")
    lines += advice_lines(result) if advice else []
    above = [p for p in layer_points(result) if p.get("above_roof")]
    if above:
        lines.append(
            f"[bold red]{len(above)} point(s) ABOVE their roof: an accounting error "
            f"(layers {', '.join(str(p['index']) for p in above)}); do not trust them[/]"
        )
    tiled = [p for p in layer_points(result) if p["tile_fraction"] < 1]
    if tiled:
        fit = sum(p.get("projection") == "fit" for p in tiled)
        rows = sum(p.get("projection") == "rows" for p in tiled)
        lone = [p for p in tiled if p.get("projection") == "tile"]
        lines.append(
            f"{len(tiled)} of {len(layer_points(result))} layer runs ran on a tile (memory or time budget); "
            f"their time is projected to the whole layer by executed MACs, {fit} of them by a per-pixel "
            f"+ per-MAC fit over two channel counts, {rows} by a per-row + per-MAC fit over two widths or row counts"
        )
        spans = [
            f"{w['emitter']} {w['dtype']} {duration_span(*w['measured_interval'])}"
            for w in (result.get("model") or {}).get("whole_model", [])
            if w.get("measured_interval")
        ]
        if spans:
            lines.append(
                f"whole model within (the spread each kind of tile showed against whole layers, docs/tiles.md): "
                f"{'; '.join(spans)}"
            )
        if lone:
            names = ", ".join(f"{p['index']} {p['emitter']}" for p in lone)
            lines.append(f"{len(lone)} lone tile(s) without a fit (layers {names}): left out of whole-model totals")
    return lines


def advice_lines(result: dict) -> list[str]:
    """Every layer run's advice, said once: runs whose advice differs only in its numbers on one
    line, the numbers as ranges (each run's own are the table's headroom and "vs fastest")."""
    return [
        f"advice [bold]{ADVICE_KEYS.get(kind, '-')}[/] ({advice_text.runs_text(runs)}): {text}"
        for kind, text, runs in advice_text.merged(records.points(layer_points(result)))
    ]


def renderables(result: dict) -> list:
    tables = (layers_table(result), model_table(result), calibrated.terminal_table(result))
    return [x for x in tables if x is not None] + model_lines(result)
