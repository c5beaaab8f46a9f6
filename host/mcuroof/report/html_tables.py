"""report.html's tables: sortable tables of roofs, ridges, layers, the calibration and the whole
model, and the board's facts and checks; `table`, `num` and `esc` build any of them."""

from __future__ import annotations

import html
import re

from mcuroof.analysis import records, timing_basis
from mcuroof.analysis.records import Point
from mcuroof.board import cycle_counter
from mcuroof.model import names as layer_names
from mcuroof.published import mlperf
from mcuroof.report import advice_text, c_engines, calibrated, layer_tables, reference_marks
from mcuroof.report import tables as report
from mcuroof.report.grid import Grid
from mcuroof.suites import sizing
from mcuroof.units import duration, si


def table(
    headers: list[str],
    rows: list[list],
    css_class: str = "",
    row_classes: list[str] | None = None,
    table_class: str = "",
) -> str:
    """A sortable table; a cell is text or (text, sort value)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for i, row in enumerate(rows):
        cells = []
        for c in row:
            text, value = c if isinstance(c, tuple) else (c, None)
            attr = f" data-v='{value:.6g}'" if isinstance(value, (int, float)) else ""
            if attr and not isinstance(text, Raw):
                attr += " class='n'"
            cells.append(f"<td{attr}>{text if isinstance(text, Raw) else esc(text)}</td>")
        cls = " ".join(x for x in [css_class, (row_classes or [""] * len(rows))[i]] if x)
        body.append(f"<tr class='{cls}'>" + "".join(cells) + "</tr>")
    return f"<div class='wide'><table class='sortable {table_class}'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"


class Raw(str):
    """Cell HTML that is already escaped."""


def num(value, unit: str = "", fmt=None) -> tuple:
    if value is None:
        return ("-", None)
    return (fmt(value) if fmt else si(value, unit), value)


def roofs_table(result: dict) -> str:
    basis = timing_basis.of(result.get("board", {}))
    rows = []
    roofs = records.roofs(result)
    for r in roofs:
        unit = "B/s" if r.kind == "memory" else "MACC/s"
        per = [num(basis.per_step(r.rate), fmt=lambda v: f"{v:.3g}")] if basis.step else []
        rows.append(
            [
                r.kind,
                r.name,
                r.role or "-",
                r.emitter or "-",
                r.dtype or "-",
                r.source,
                num(r.rate, unit),
                *per,
                report.theory_ratio(r, roofs),
            ]
        )
    per_head = [f"per {basis.step} (B or MACC)"] if basis.step else []
    return (
        "<h2>Roofs</h2>"
        + f"<p class='note'>{esc(basis.sentence)}</p>"
        + table(["kind", "name", "role", "emitter", "dtype", "source", "value", *per_head, "/ theory"], rows)
    )


def ridges_table(result: dict) -> str:
    ridges = result.get("ridges") or []
    if not ridges:
        return ""
    rows = [[r["compute"], r["memory"], num(r["oi"], fmt=lambda v: f"{v:.3g}")] for r in ridges]
    note = timing_basis.of(result.get("board") or {}).bound_note
    why = f"<p class='note'>Where the roofs meet as counted here, not the chip's: {esc(note)}</p>" if note else ""
    return "<h2>Ridge points</h2>" + why + table(["compute ceiling", "memory roof", "OI (MACC/byte)"], rows)


def layers_table(result: dict, key: str = "r0") -> str:
    """One row per layer, dtype and emitter; the op and tensor name in the layer's tooltip, so
    that every column, advice included, fits 1280 px without scrolling."""
    pts = sorted(result.get("points") or [], key=lambda p: (p["index"], p["dtype"], p["emitter"]))
    if not pts:
        return ""
    rows, classes = [], []
    basis = timing_basis.of(result.get("board") or {})
    typed = records.points(pts)
    said = advice_text.ids(typed)  # each advice is said once, below the table: a row links to its own
    for q in typed:
        tip = f"{q.op or '-'}: {q.name or ''}"
        name = Raw(f"<span class='tensor' title='{esc(tip)}'>{esc(q.short_name)}</span>")
        shapes = ", ".join(layer_names.shape_text(s) for s in q.input_shapes or []) or "-"
        check = "ABOVE ROOF" if q.above_roof else ("ok" if q.verified else "FAILED CHECK")
        rows.append(
            [
                (name, q.index),
                f"{q.emitter} {q.dtype}",
                f"{shapes} → {layer_names.shape_text(q.output_shape)}",
                num(q.macc, ""),
                num(q.bytes, "B"),
                num(q.oi, fmt=lambda v: f"{v:.3g}"),
                num(q.macs_per_s, "MACC/s"),
                (layer_tables.roof_text(q, "MACC/s"), q.roof_macs_per_s),
                num(q.headroom, fmt=lambda v: f"{v:.3g}x"),
                layer_tables.fastest_text(q, typed),
                layer_tables.bound_text(q.bound, basis),
                num(q.seconds, fmt=duration),
                num(q.tile_fraction, fmt=lambda v: f"{v:.2g}"),
                check,
                _advice_link(q, said, key),
            ]
        )
        classes.append("" if check == "ok" else "bad")
    model = (result.get("model") or {}).get("name", "the model")
    basis = timing_basis.of(result.get("board", {}))
    return (
        f"<h2>Layers of {esc(model)}</h2>"
        + f"<p class='note'>Rates per second of the run's time ({esc(basis.sentence)}); hover a layer for its op "
        "and tensor name.</p>"
        + (f"<p class='note'>{esc(layer_tables.macc_note(result))}</p>" if layer_tables.macc_note(result) else "")
        + table(
            [
                "layer",
                "kernel",
                "in → out",
                "MACC",
                "bytes",
                "OI",
                "achieved",
                "roof",
                "headroom",
                "vs fastest",
                "bound",
                "time",
                "tile",
                "check",
                "advice",
            ],
            rows,
            "layer-row",
            classes,
            "layers",
        )
    )


def _advice_link(p: Point, said: dict[int, int], key: str):
    """A row's advice: its kind and a link to the advice's one statement ("below A2")."""
    if id(p) not in said:
        return "-"
    kind = layer_tables.ADVICE_KEYS.get(p.advice_kind, "-")
    i = said[id(p)]
    return (Raw(f"<a href='#{key}-advice-{i}'>{esc(kind)} A{i}</a>"), i)


def calibrated_table(result: dict) -> str:
    """Predicted from the calibration against measured (report.calibrated)."""
    body = calibrated.rows(result)
    if not body:
        return ""
    return f"<h2>Predicted from calibration</h2><p class='note'>{esc(calibrated.title(result))}</p>" + table(
        list(calibrated.HEADERS), body
    )


def grid_html(g: Grid, heading: str = "h2") -> str:
    """A report.grid table as a titled sortable table with its caption; its number columns sort
    by value (2.08 us before 24.8 us before 10 ms) and align right."""
    numeric = [h not in g.left for h in g.headers]
    rows = [[(c, cell_value(c)) if n else c for c, n in zip(row, numeric)] for row in g.rows]
    cap = f"<p class='note'>{esc(g.caption)}</p>" if g.caption else ""
    return f"<{heading}>{esc(g.title)}</{heading}>" + table(list(g.headers), rows) + cap


PREFIX = {"p": 1e-12, "n": 1e-9, "u": 1e-6, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def cell_value(text: str) -> float | None:
    """The value of a number as the tables write it: "26,185", "52.4 us", "4 GB/s", "191x"."""
    m = re.match(r"^\s*(-?[\d,]*\.?\d+(?:e-?\d+)?)\s*([pnumkMGT](?=[A-Za-z]|\s*$))?", text or "")
    if not m:
        return None
    return float(m.group(1).replace(",", "")) * PREFIX.get(m.group(2), 1.0)


def reference_table(result: dict) -> str:
    """The C engines of the run's core (MLPerf Tiny closed int8, MAC/cycle) beside the run's own
    whole-model figure in its unit; where those units differ (QEMU), the note says so."""
    core = reference_marks.run_core(result)
    if not core:
        return ""
    rows = mlperf.best_for(core)
    title = f"C engines on a {core}: best MLPerf Tiny closed int8 figure ({c_engines.EFFECTIVE})"
    if not rows:
        return f"<h2>{esc(title)}</h2><p class='note'>No published result on a {esc(core)}.</p>"
    lines = c_engines.run_lines(result) + [reference_marks.note(result) or ""]
    return grid_html(c_engines.rows_grid(rows, title)) + "".join(f"<p class='note'>{esc(x)}</p>" for x in lines if x)


def model_table(result: dict) -> str:
    m = result.get("model") or {}
    estimate = (m.get("fit") or {}).get("fits") is False  # a model that does not fit: speed from tiles
    rows = [
        [
            (c, v) if v is not None else c
            for c, v in zip(
                layer_tables.whole_model_cells(r, result, estimate),
                (
                    None,
                    None,
                    r["layers"],
                    r["predicted_seconds"],
                    r["measured_seconds"],
                    None,
                    r.get("estimated_inferences_per_s") if estimate else r.get("inferences_per_s"),
                    r.get("measured_over_predicted"),
                ),
            )
        ]
        for r in m.get("whole_model") or []
    ]
    if not rows:
        return ""
    fit = (m.get("fit") or {}).get("text")
    basis = timing_basis.of(result.get("board") or {})
    heads = layer_tables.whole_model_headers(estimate, basis)
    macs = [layer_tables.macc_note(result)] if layer_tables.macc_note(result) else []
    notes = "".join(f"<p class='note'>{esc(n)}</p>" for n in layer_tables.whole_model_notes(m, basis) + macs)
    return (
        f"<h2>Whole model: {esc(m.get('name'))} ({si(m.get('macc', 0), 'MACC')})</h2>"
        + (f"<p class='note'>{esc(fit)}</p>" if fit else "")
        + table(heads, rows)
        + notes
    )


def facts(result: dict) -> str:
    b = result.get("board", {})
    items = [
        ("board", b.get("name")),
        ("platform", b.get("platform")),
        ("firmware", b.get("firmware")),
        *_clock_facts(b),
        ("emitters", ", ".join(b.get("emitters") or [])),
        ("free heap", si(b.get("free_heap"), "B")),
        ("timer step", f"{b.get('tick_us')} us"),
        ("link", b.get("link")),
        ("run took", duration(b.get("wall_seconds")) if b.get("wall_seconds") else None),
        ("results", f"{result.get('tool', '')}, {result.get('created', '')}"),
    ]
    rows = "".join(f"<tr><td>{esc(k)}</td><td>{esc(v)}</td></tr>" for k, v in items if v)
    c = result.get("checks", {})
    checks = f"{c.get('verified', 0)} measurements verified, {c.get('failed', 0)} failed their check"
    if "points_verified" in c:
        checks += f"; {c['points_verified']} layer runs verified, {c.get('points_failed', 0)} failed"
    if c.get("noisy"):
        checks += "; timing noise" + report.noise_text(result)
    notes = [f"regions: {s.get('rg') or ''} skipped: {s['why']}" for s in result.get("skipped") or []]
    m = result.get("model") or {}
    notes += [
        f"not profiled: layer {s['index']} {s.get('name', '')} ({s.get('op', '')}"
        + (f", {s['emitter']} {s['dtype']}" if s.get("emitter") else "")
        + f"): {s['why']}"
        for s in m.get("not_profiled") or []
    ]
    if m:
        notes.append(
            f"peak memory (analytic): {m.get('peak_memory_bytes', 0):,} B at layer {m.get('peak_memory_layer')}; "
            f"largest heap a layer's buffers took on the board: {m.get('measured_peak_heap_bytes') or 0:,} B"
        )
    ref = result.get("reference") or {}
    notes += [
        f"{lv['level']}: {si(lv['roof_bytes_per_s'], 'B/s')} against {ref.get('kind')} "
        f"{si(lv['reference_bytes_per_s'], 'B/s')} (ratio {lv['ratio']:.2f})"
        for lv in ref.get("levels") or []
    ]
    bad = "bad" if c.get("failed") or c.get("points_failed") else ""
    return f"<table class='facts'>{rows}<tr class='{bad}'><td>checks</td><td>{esc(checks)}</td></tr></table>" + "".join(
        f"<p class='note'>{esc(n)}</p>" for n in notes
    )


def _clock_facts(board: dict) -> list[tuple]:
    """What time counts, and the clock the probe read: under QEMU that is its emulated timer's,
    not a CPU clock, and says so."""
    basis = timing_basis.of(board)
    rows = [("time counts", basis.sentence)]
    if basis.kind == timing_basis.INSTRUCTIONS and board.get("clock_hz"):
        rows.append(
            ("timer clock", f"{si(board['clock_hz'], 'Hz')} (machine.freq(): QEMU's emulated timer, not the time base)")
        )
    elif basis.kind == timing_basis.SUSPECT and board.get("clock_hz"):
        rows.append(("timer clock", f"{si(board['clock_hz'], 'Hz')} (machine.freq(): not a measured CPU clock)"))
    elif basis.modelled:
        rows.append(("clock", f"{basis.rate_text} (the modelled clock, which machine.freq() reports)"))
    elif board.get("clock_hz"):
        rows.append(("clock", f"{si(board['clock_hz'], 'Hz')} (machine.freq() at the probe)"))
    if board.get("cycle_counter"):
        qemu = basis.kind == timing_basis.INSTRUCTIONS or basis.modelled is not None
        rows.append(("cycle counter", cycle_counter.text(board["cycle_counter"], board.get("cycle_hz"), qemu)))
    if board.get("pace"):
        rows.append(("pace", sizing.fact(board["pace"])))
    if board.get("sizing"):
        rows.append(("sized as", board["sizing"]))
    rows += [("the emulator does not model", limit) for limit in board.get("limits") or []]
    return rows


def esc(value) -> str:
    return html.escape("" if value is None else str(value))
