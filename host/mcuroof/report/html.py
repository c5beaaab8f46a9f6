"""The interactive report: one self-contained HTML file (plotly.js inlined: works offline).

The roofline with a hover per layer point (layer, op, shapes, dtype, emitter, MACC, bytes, OI,
achieved, roof, headroom, bound, advice) and roofs that toggle per emitter and dtype; the cache
cliff; sortable tables of roofs, ridges, layers and the whole model; the board, the checks and
what was not profiled. Several runs (compare) go in one report.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from mcuroof.analysis import compare, timing_basis
from mcuroof.board import cycle_counter
from mcuroof.errors import UserError
from mcuroof.measure import pace as board_pace
from mcuroof.model import names as layer_names
from mcuroof.report import calibrated, cliff, plot
from mcuroof.report import compare as report_compare
from mcuroof.report import tables as report
from mcuroof.units import duration, si

EMITTER_SYMBOLS = {
    "asm_thumb": "square",
    "viper": "triangle-up",
    "native": "diamond",
    "bytecode": "circle",
    "top": "star",
}
DASHES = {"-": "solid", "--": "dash", "-.": "dashdot", ":": "dot"}
CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1880px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th{background:#f3f3f3;cursor:pointer;user-select:none;white-space:nowrap}
th.sorted-asc::after{content:" \\25B2"}th.sorted-desc::after{content:" \\25BC"}
tr.bad td{color:#b00;font-weight:bold}.tensor{text-decoration:underline dotted;cursor:help}
.facts td:first-child{font-weight:bold}.wide{overflow-x:auto}
table.layers td:last-child{min-width:18em}.note{color:#555;font-size:.9em}
"""
# glue: sort a table by the clicked column (numbers by their data-v value, else by text)
SORT_JS = """
document.querySelectorAll('table.sortable th').forEach(function(th){th.addEventListener('click', function(){
 var i=th.cellIndex, tb=th.closest('table').tBodies[0], rows=Array.from(tb.rows), asc=!th.classList.contains('sorted-asc');
 th.parentNode.querySelectorAll('th').forEach(function(h){h.classList.remove('sorted-asc','sorted-desc')});
 th.classList.add(asc?'sorted-asc':'sorted-desc');
 function key(r){var c=r.cells[i], v=c.getAttribute('data-v'); return v!==null&&v!==''?parseFloat(v):c.textContent}
 rows.sort(function(a,b){var x=key(a),y=key(b); var c=(typeof x==='number'&&typeof y==='number')?x-y:String(x).localeCompare(String(y)); return asc?c:-c});
 rows.forEach(function(r){tb.appendChild(r)});});});
"""


def write(result: dict, path: Path, title: str | None = None) -> Path:
    """One run's report."""
    return _save(page([section(result, "r0")], title or _title(result)), path)


def write_compare(runs: list[tuple[str, dict]], path: Path, paths: list[Path] | None = None) -> Path:
    """Several runs in one report: the comparison first, then each run's own section."""
    parts = [compare_section(runs, paths)]
    parts += [section(data, f"r{i}", f"{compare.tag(i)}: {label}") for i, (label, data) in enumerate(runs)]
    return _save(page(parts, "mcuroof comparison: " + ", ".join(label for label, _ in runs)), path)


def page(parts: list[str], title: str) -> str:
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{_e(title)}</title>"
        f"<style>{CSS}</style><script>{plotly_js()}</script></head><body><h1>{_e(title)}</h1>"
        + "".join(parts)
        + f"<script>{SORT_JS}</script></body></html>"
    )


BASIC_BUNDLE = Path(__file__).with_name("plotly_basic") / "plotly-basic.min.js"


def plotly_js() -> str:
    """plotly.js once per file: its basic bundle (scatter traces, all the report draws; 1.2 MB)
    where it is the version the plotly package writes figures for, else the package's full one."""
    from plotly.offline import get_plotlyjs, get_plotlyjs_version

    try:
        text = BASIC_BUNDLE.read_text(encoding="utf-8")
    except OSError:
        return get_plotlyjs()
    m = re.search(r"plotly\.js \(basic - minified\) v(\d+\.\d+\.\d+)", text[:300])
    return text if m and m.group(1) == get_plotlyjs_version() else get_plotlyjs()


def _save(text: str, path: Path) -> Path:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise UserError(f"{path}: cannot write the report ({e.strerror})") from None
    return Path(path)


def _title(result: dict) -> str:
    b = result.get("board", {})
    model = (result.get("model") or {}).get("name")
    return f"mcuroof: {b.get('name', '?')} ({b.get('firmware', '')})" + (f", {model}" if model else "")


def section(result: dict, key: str, heading: str | None = None) -> str:
    out = [
        f"<h2>{_e(heading)}</h2>" if heading else "",
        "<h2>Roofline</h2>",
        "<p class='note'>Hover a point for its layer; click a legend entry to hide or show it.</p>",
        _figure(roofline_figure(result), f"{key}-roofline"),
    ]
    cl = cliff_figure(result)
    if cl is not None:
        out += ["<h2>Cache cliff: bandwidth against working set</h2>", _figure(cl, f"{key}-cliff")]
    out += [
        model_table(result),
        calibrated_table(result),
        layers_table(result, key),
        "<h2>Board, probe and checks</h2>",
        facts(result),
        roofs_table(result),
        ridges_table(result),
    ]
    return "".join(x for x in out if x)


def _figure(fig, div_id: str) -> str:
    return fig.to_html(
        full_html=False,
        include_plotlyjs=False,
        div_id=div_id,
        config={"displaylogo": False, "toImageButtonOptions": {"format": "svg"}},
    )


# ---------------------------------------------------------------- figures


def roofline_figure(result: dict, runs: list[tuple[str, dict]] | None = None):
    """The roofline of one run (or of several, a colour per run): plot.roof_lines' segments,
    then one trace of layer points per emitter and dtype (one marker per point)."""
    import plotly.graph_objects as go

    sets = runs or [("", result)]
    tagged = [(compare.tag(i) if runs else "", data) for i, (_, data) in enumerate(sets)]
    all_lines, all_points = [], []
    bases = {t: timing_basis.of(data.get("board", {})) for t, data in tagged}
    for i, (tag, data) in enumerate(tagged):
        roofs = [r for r in data["roofs"] if r["source"] == "measured"] if runs else data["roofs"]
        for ln in plot.roof_lines(roofs):
            if runs:
                ln.style = {**ln.style, "color": report_compare.RUN_COLORS[i % len(report_compare.RUN_COLORS)]}
                ln.tag = tag
            all_lines.append(ln)
        all_points += [(i, tag, p) for p in data.get("points") or [] if plot.is_shown(p)]
    (x0, x1), (y0, y1) = plot.fit(all_lines, [p for _, _, p in all_points])
    fig = go.Figure()
    for ln in all_lines:
        r = ln.roofs[0]
        if ln.kind == "memory":
            xe = min(ln.bend, x1) if ln.bend else x1
            xs, ys = [x0, xe], [ln.value * x0, ln.value * xe]
        else:
            xs, ys = [max(ln.bend or x0, x0), x1], [ln.value, ln.value]
        name = (f"{ln.tag} " if ln.tag else "") + plot.roof_label(r) + _per_step(r, bases[ln.tag])
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                name=name,
                hoverinfo="name",
                legendgroup=_group(r),
                legendgrouptitle_text=_group(r),
                line=dict(
                    color=ln.style["color"],
                    width=ln.style.get("lw", 1.5) * 1.1,
                    dash=DASHES.get(ln.style.get("ls"), "dash")
                    if isinstance(ln.style.get("ls"), str)
                    else "longdashdot",
                ),
            )
        )
    looks: dict[tuple, list] = {}
    for i, tag, p in all_points:
        looks.setdefault((i, tag, p["emitter"], p["dtype"], bool(p.get("above_roof"))), []).append(p)
    for (i, tag, em, dt, above), pts in sorted(looks.items(), key=lambda kv: tuple(str(k) for k in kv[0])):
        # one run: colour by emitter, marker by dtype; several: colour by run (as its lines), marker by emitter
        color = report_compare.run_color(i) if runs else plot.EMITTER_COLORS.get(em, "#555")
        fig.add_trace(
            go.Scatter(
                x=[p["oi"] for p in pts],
                y=[p["macs_per_s"] for p in pts],
                meta="layers",
                mode="markers+text" if len(all_points) <= plot.MAX_NUMBERED else "markers",
                text=_numbers(pts, tag),
                textposition="top right",
                textfont=dict(size=9, color="#d62728" if above else color),
                name=(f"{tag} " if tag else "") + (f"{em} {dt} ABOVE ROOF" if above else f"layers {em} {dt}"),
                legendgroup=f"points {tag or em}",
                legendgrouptitle_text=f"points {tag}" if tag else f"points {em}",
                marker=dict(
                    symbol="x" if above else (EMITTER_SYMBOLS.get(em, "diamond") if tag else _symbol(dt)),
                    size=12 if above else 9,
                    color="#d62728" if above else color,
                    line=dict(width=0.6, color="black"),
                ),
                hovertext=[hover(p, bases[tag]) for p in pts],
                hoverinfo="text",
            )
        )
    fig.update_layout(
        _layout(
            "operational intensity (MACC / byte)",
            "attainable performance (MACC / s)",
            (x0, x1),
            (y0, y1),
            _plot_title(result if not runs else None),
        ),
        legend=dict(groupclick="toggleitem", font=dict(size=10)),
        height=620,
    )
    return fig


def _per_step(roof: dict, basis: timing_basis.Basis) -> str:
    """A roof's rate per instruction or cycle, for its name: " (1.88 MACC/instr)"; "" for host time."""
    if not basis.step:
        return ""
    memory = roof["kind"] == "memory"
    return f" ({basis.per_text(roof['bytes_per_s'] if memory else roof['macs_per_s'], 'B' if memory else 'MACC')})"


def _numbers(pts: list[dict], tag: str) -> list[str]:
    """Each point's layer number; points drawn on one spot share one label ("1,3,5,7")."""
    import math

    spots: dict[tuple, list[int]] = {}
    for i, p in enumerate(pts):
        spots.setdefault((round(math.log10(p["oi"]) * 20), round(math.log10(p["macs_per_s"]) * 20)), []).append(i)
    text = [""] * len(pts)
    for members in spots.values():
        text[members[0]] = tag + ",".join(str(i) for i in sorted({pts[m].get("index", "") for m in members}, key=str))
    return text


def _group(r: dict) -> str:
    if r["source"] != "measured":
        return "theoretical"
    if r["kind"] == "memory" and r.get("role") in ("roof", "region"):
        return "memory"
    return f"{r.get('emitter')}"


def _symbol(dtype: str) -> str:
    return {"int8": "square", "int16": "triangle-up", "int32": "diamond", "float32": "circle"}.get(dtype, "diamond")


def _plot_title(result: dict | None) -> str:
    if not result:
        return ""
    b = result.get("board", {})
    return f"{b.get('name', '?')} | {b.get('firmware', '')} | {timing_basis.of(b).sentence}"


def _layout(xtitle: str, ytitle: str, xr, yr, title: str) -> dict:
    import math

    return dict(
        title=dict(text=title, font=dict(size=13)),
        template="plotly_white",
        xaxis=dict(type="log", title=xtitle, range=[math.log10(xr[0]), math.log10(xr[1])]),
        yaxis=dict(type="log", title=ytitle, range=[math.log10(yr[0]), math.log10(yr[1])]),
        margin=dict(l=70, r=20, t=50, b=60),
        hoverlabel=dict(align="left"),
    )


def hover(p: dict, basis: timing_basis.Basis | None = None) -> str:
    """The text shown when a layer point is hovered (rates per step too, where time counts steps)."""
    per = f" ({basis.per_text(p['macs_per_s'], 'MACC')})" if basis and basis.step else ""
    shapes = ", ".join(layer_names.shape_text(s) for s in p.get("input_shapes") or []) or "-"
    name = html.escape(p.get("name") or "")
    name = "<br>".join(name[i : i + 70] for i in range(0, len(name), 70))
    lines = [
        f"<b>{layer_names.short(p)}</b> ({html.escape(p.get('op') or '?')})",
        name,
        f"in {shapes} → out {layer_names.shape_text(p.get('output_shape'))}",
        f"{p['dtype']} on {p['emitter']}"
        + (f", tile {p['tile_fraction']:.2g}" if p.get("tile_fraction", 1) < 1 else ""),
        f"MACC {si(p.get('macc'), '')}, bytes {si(p.get('bytes'), 'B')}, OI {p['oi']:.3g} MACC/B",
        f"achieved {si(p['macs_per_s'], 'MACC/s')}{per}, roof {si(p.get('roof_macs_per_s'), 'MACC/s')}, "
        f"headroom {p['headroom']:.3g}x"
        if p.get("headroom")
        else f"achieved {si(p['macs_per_s'], 'MACC/s')}{per}",
        f"bound: {p.get('bound')}, time {duration(p.get('seconds'))}",
        "advice: " + "<br>".join(_wrap(html.escape(p.get("advice") or "-"), 80)),
    ]
    return "<br>".join(x for x in lines if x)


def _wrap(text: str, width: int) -> list[str]:
    out, line = [], ""
    for word in text.split():
        if line and len(line) + len(word) > width:
            out.append(line)
            line = ""
        line = f"{line} {word}".strip()
    return out + [line]


def cliff_figure(result: dict):
    import math

    import plotly.graph_objects as go

    lines = cliff.series(result)
    if not lines:
        return None
    fig = go.Figure()
    bws = [b for s in lines for b in s["bytes_per_s"] if b > 0]
    lo, hi = min(bws) / 1.5, max(bws) * 1.5
    for i, lv in enumerate(cliff.levels(result)):
        a, b = lv["lo"] / 1.1, lv["hi"] * 1.1
        fig.add_trace(
            go.Scatter(
                x=[a, b, b, a, a],
                y=[lo, lo, hi, hi, lo],
                fill="toself",
                mode="lines",
                line=dict(width=0),
                fillcolor=plot.LEVEL_COLORS[i % len(plot.LEVEL_COLORS)],
                opacity=0.15,
                name=f"{lv['name']}: {si(lv['bytes_per_s'], 'B/s')}",
                hoverinfo="name",
                legendgroup="levels",
                legendgrouptitle_text="detected levels",
            )
        )
    for c in cliff.known_sizes(result):
        fig.add_trace(
            go.Scatter(
                x=[c["bytes"], c["bytes"]],
                y=[lo, hi],
                mode="lines",
                line=dict(color="#444", dash="dash", width=1),
                name=f"{c['name']} {cliff.binary(c['bytes'])}",
                hoverinfo="name",
                legendgroup="caches",
                legendgrouptitle_text="known cache sizes",
            )
        )
    basis = timing_basis.of(result.get("board", {}))
    step = f" (%{{customdata:.3g}} B/{basis.step})" if basis.step else ""
    for s in lines:
        ref = s["emitter"] == "reference"
        fig.add_trace(
            go.Scatter(
                x=s["bytes"],
                y=s["bytes_per_s"],
                mode="lines" if ref else "lines+markers",
                name=s["label"],
                line=dict(
                    color="black" if ref else plot.EMITTER_COLORS.get(s["emitter"], "#555"),
                    dash="dot"
                    if ref
                    else {"copy": "solid", "scale": "dash", "add": "dashdot", "triad": "dot"}.get(
                        s["kernel"], "longdash"
                    ),
                    width=2.5 if ref else 1.5,
                ),
                marker=dict(size=4),
                customdata=[basis.per_step(b) for b in s["bytes_per_s"]] if basis.step else None,
                legendgroup=s["emitter"],
                legendgrouptitle_text=s["emitter"],
                hovertemplate=f"{s['label']}<br>%{{x:,}} B: %{{y:.3s}}B/s{step}<extra></extra>",
            )
        )
    xs = [x for s in lines for x in s["bytes"]]
    fig.update_layout(
        _layout(
            "working set (bytes)",
            "bandwidth (bytes / s)",
            (min(xs) / 1.5, max(xs) * 1.5),
            (lo, hi),
            _plot_title(result),
        ),
        legend=dict(groupclick="toggleitem"),
        height=520,
    )
    ticks = [4**k for k in range(int(math.log(min(xs), 4)), int(math.log(max(xs), 4)) + 2)]
    fig.update_xaxes(tickvals=ticks, ticktext=[cliff.binary(t) for t in ticks])
    fig.update_yaxes(ticksuffix="B/s", exponentformat="SI")
    return fig


# ---------------------------------------------------------------- tables


def table(
    headers: list[str],
    rows: list[list],
    css_class: str = "",
    row_classes: list[str] | None = None,
    table_class: str = "",
) -> str:
    """A sortable table; a cell is text or (text, sort value)."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = []
    for i, row in enumerate(rows):
        cells = []
        for c in row:
            text, value = c if isinstance(c, tuple) else (c, None)
            attr = f" data-v='{value:.6g}'" if isinstance(value, (int, float)) else ""
            if attr and not isinstance(text, _Raw):
                attr += " class='n'"
            cells.append(f"<td{attr}>{text if isinstance(text, _Raw) else _e(text)}</td>")
        cls = " ".join(x for x in [css_class, (row_classes or [""] * len(rows))[i]] if x)
        body.append(f"<tr class='{cls}'>" + "".join(cells) + "</tr>")
    return f"<div class='wide'><table class='sortable {table_class}'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"


class _Raw(str):
    """Cell HTML that is already escaped."""


def _num(value, unit: str = "", fmt=None) -> tuple:
    if value is None:
        return ("-", None)
    return (fmt(value) if fmt else si(value, unit), value)


def roofs_table(result: dict) -> str:
    basis = timing_basis.of(result.get("board", {}))
    rows = []
    for r in result["roofs"]:
        unit = "B/s" if r["kind"] == "memory" else "MACC/s"
        value = r["bytes_per_s"] if r["kind"] == "memory" else r["macs_per_s"]
        per = [_num(basis.per_step(value), fmt=lambda v: f"{v:.3g}")] if basis.step else []
        rows.append(
            [
                r["kind"],
                r["name"],
                r.get("role", "-"),
                r.get("emitter") or "-",
                r.get("dtype") or "-",
                r["source"],
                _num(value, unit),
                *per,
                report.theory_ratio(r, result["roofs"]),
            ]
        )
    per_head = [f"per {basis.step} (B or MACC)"] if basis.step else []
    return (
        "<h2>Roofs</h2>"
        + f"<p class='note'>{_e(basis.sentence)}</p>"
        + table(["kind", "name", "role", "emitter", "dtype", "source", "value", *per_head, "/ theory"], rows)
    )


def ridges_table(result: dict) -> str:
    ridges = result.get("ridges") or []
    if not ridges:
        return ""
    rows = [[r["compute"], r["memory"], _num(r["oi"], fmt=lambda v: f"{v:.3g}")] for r in ridges]
    return "<h2>Ridge points</h2>" + table(["compute ceiling", "memory roof", "OI (MACC/byte)"], rows)


def layers_table(result: dict, key: str = "r0") -> str:
    """One row per layer, dtype and emitter; the op and tensor name in the layer's tooltip, so
    that every column, advice included, fits 1280 px without scrolling."""
    pts = sorted(result.get("points") or [], key=lambda p: (p["index"], p["dtype"], p["emitter"]))
    if not pts:
        return ""
    rows, classes = [], []
    for p in pts:
        tip = f"{p.get('op', '-')}: {p.get('name') or ''}"
        name = _Raw(f"<span class='tensor' title='{_e(tip)}'>{_e(layer_names.short(p))}</span>")
        shapes = ", ".join(layer_names.shape_text(s) for s in p.get("input_shapes") or []) or "-"
        check = "ABOVE ROOF" if p.get("above_roof") else ("ok" if p.get("verified") else "FAILED CHECK")
        rows.append(
            [
                (name, p["index"]),
                f"{p['emitter']} {p['dtype']}",
                f"{shapes} → {layer_names.shape_text(p.get('output_shape'))}",
                _num(p.get("macc"), ""),
                _num(p.get("bytes"), "B"),
                _num(p.get("oi"), fmt=lambda v: f"{v:.3g}"),
                _num(p.get("macs_per_s"), "MACC/s"),
                _num(p.get("roof_macs_per_s") or None, "MACC/s"),
                _num(p.get("headroom"), fmt=lambda v: f"{v:.3g}x"),
                p.get("bound", "-"),
                _num(p.get("seconds"), fmt=duration),
                _num(p.get("tile_fraction"), fmt=lambda v: f"{v:.2g}"),
                check,
                p.get("advice", "-"),
            ]
        )
        classes.append("" if check == "ok" else "bad")
    model = (result.get("model") or {}).get("name", "the model")
    basis = timing_basis.of(result.get("board", {}))
    return (
        f"<h2>Layers of {_e(model)}</h2>"
        + f"<p class='note'>Rates per second of the run's time ({_e(basis.sentence)}); hover a layer for its op "
        "and tensor name.</p>"
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


def calibrated_table(result: dict) -> str:
    """Predicted from the calibration against measured (report.calibrated)."""
    body = calibrated.rows(result)
    if not body:
        return ""
    return f"<h2>Predicted from calibration</h2><p class='note'>{_e(calibrated.title(result))}</p>" + table(
        list(calibrated.HEADERS), body
    )


def model_table(result: dict) -> str:
    m = result.get("model") or {}
    estimate = (m.get("fit") or {}).get("fits") is False  # a model that does not fit: speed from tiles
    rows = [
        [
            r["emitter"],
            r["dtype"],
            _num(r["layers"], fmt=str),
            _num(r["predicted_seconds"], fmt=duration),
            _num(r["measured_seconds"], fmt=duration),
            _num(r.get("measured_over_predicted"), fmt=lambda v: f"{v:.3g}"),
            _num(
                r.get("estimated_inferences_per_s") if estimate else r.get("inferences_per_s"),
                fmt=(lambda v: f"~{v:.3g}") if estimate else (lambda v: f"{v:.3g}"),
            ),
        ]
        for r in m.get("whole_model") or []
    ]
    if not rows:
        return ""
    fit = (m.get("fit") or {}).get("text")
    return (
        f"<h2>Whole model: {_e(m.get('name'))} ({si(m.get('macc', 0), 'MACC')})</h2>"
        + (f"<p class='note'>{_e(fit)}</p>" if fit else "")
        + table(
            [
                "emitter",
                "dtype",
                "layers",
                "predicted (roofline)",
                "measured",
                "measured / predicted",
                "estimate/s from tiles (does not fit)" if estimate else "inferences/s",
            ],
            rows,
        )
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
    rows = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in items if v)
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
    return f"<table class='facts'>{rows}<tr class='{bad}'><td>checks</td><td>{_e(checks)}</td></tr></table>" + "".join(
        f"<p class='note'>{_e(n)}</p>" for n in notes
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
    elif board.get("clock_hz"):
        rows.append(("clock", f"{si(board['clock_hz'], 'Hz')} (machine.freq() at the probe)"))
    if board.get("cycle_counter"):
        qemu = basis.kind == timing_basis.INSTRUCTIONS
        rows.append(("cycle counter", cycle_counter.text(board["cycle_counter"], board.get("cycle_hz"), qemu)))
    if board.get("pace"):
        rows.append(("pace", board_pace.fact(board["pace"])))
    if board.get("sizing"):
        rows.append(("sized as", board["sizing"]))
    rows += [("the emulator does not model", limit) for limit in board.get("limits") or []]
    return rows


def compare_bases(bases: list[timing_basis.Basis]) -> str:
    """What each run's time counts, runs of one basis together: "A/B: QEMU -icount shift=6: ..."."""
    groups: dict[str, list[str]] = {}
    for i, b in enumerate(bases):
        groups.setdefault(b.sentence, []).append(compare.tag(i))
    return "; ".join(f"{'/'.join(t)}: {text}" for text, t in groups.items())


def compare_section(runs: list[tuple[str, dict]], paths: list[Path] | None = None) -> str:
    bases = compare.bases(runs)
    tags = [compare.tag(i) for i in range(len(runs))]
    out = [_runs_table(runs, bases, paths), _roofs_compared(runs, bases, tags)]
    lay = compare.layer_comparison(runs)
    if lay and lay.get("layers"):
        out += [_layers_compared(lay, bases, tags), _network_compared(lay, bases, tags)]
        if lay.get("match_note"):
            out.append(f"<p class='note'>layers {_e(lay['match_note'])}</p>")
    elif lay and lay.get("note"):
        out.append(f"<p class='note'>layers not compared: {_e(lay['note'])}</p>")
    out += ["<h2>Rooflines compared</h2>", _figure(roofline_figure(runs[0][1], runs), "compare-roofline")]
    return "".join(out)


def _runs_table(runs, bases, paths) -> str:
    rows = [
        [
            f"{compare.tag(i)}: {label}",
            d.get("board", {}).get("name", "?"),
            d.get("board", {}).get("firmware", ""),
            bases[i].label,
            str(paths[i]) if paths else "-",
        ]
        for i, (label, d) in enumerate(runs)
    ]
    return "<h2>Runs</h2>" + table(["run", "board", "firmware", "time counts", "results"], rows)


def _roofs_compared(runs, bases, tags) -> str:
    word = timing_basis.ratio_word(bases)
    rows = []
    for row in compare.roof_rows(runs):
        cells = [row["kind"], row["name"], row["emitter"] or "-", row["dtype"] or "-"]
        for i, v in enumerate(row["values"]):
            cells.append((report_compare.roof_value(v, row["kind"], bases[i]), v))
            if i:
                cells.append(_num(row["ratios"][i], fmt=lambda x: f"{x:.3g}"))
        rows.append(cells)
    heads = ["kind", "name", "emitter", "dtype"]
    for i, t in enumerate(tags):
        heads += [t] + ([f"{t}/{tags[0]}"] if i else [])
    return (
        "<h2>Roofs compared</h2>"
        f"<p class='note'>Per second of each run's time, per {_e(report_compare.steps(bases))} in brackets; "
        f"{_e(word)}s: run / {tags[0]} (\"-\" where {tags[0]} lacks the roof). "
        + _e(compare_bases(bases))
        + "</p>"
        + table(heads, rows)
    )


def _layers_compared(lay: dict, bases, tags) -> str:
    rows = []
    for row in lay["layers"]:
        cells = [row["layer"]]
        for b, s in zip(row["best"], row["ratio"]):
            cells.append(
                _num(
                    b["seconds"],
                    fmt=lambda v, b=b, s=s: (
                        f"{duration(v)} {b['dtype']} {b['emitter']}" + (f" (x{s:.3g})" if s else "")
                    ),
                )
                if b
                else "-"
            )
        f = row["fastest"]
        cells.append(f"{tags[f['run']]} {f['dtype']} {f['emitter']}")
        rows.append(cells)
    word = timing_basis.ratio_word(bases)
    least = timing_basis.least_time_word(bases, short=True)
    return f"<h2>Layers: best time per run ({_e(word)} over {tags[0]})</h2>" + table(["layer"] + tags + [least], rows)


def _network_compared(lay: dict, bases, tags) -> str:
    rows = [
        [
            f"{tags[v['run']]} {v['dtype']} {v['emitter']}",
            _num(v["seconds"], fmt=lambda x, v=v: duration(x) + ("" if v["complete"] else " *")),
            (bases[v["run"]].steps_text(v["seconds"]), v["seconds"]),
            _num(v["layers"], fmt=str),
            "; ".join(
                f"{m['layer']} ({duration(m['seconds'])} on {m['dtype']} {m['emitter']})"
                if m["seconds"]
                else f"{m['layer']} (not run)"
                for m in v["missing"]
            )
            or "-",
        ]
        for v in lay["network"]
    ]
    heads = [
        "target / dtype / emitter",
        "time",
        report_compare.steps(bases, plural=True),
        "layers run",
        "missing (time elsewhere, included *)",
    ]
    return f"<h2>Whole network ({lay['shared']} shared layers)</h2>" + table(heads, rows)


def _e(value) -> str:
    return html.escape("" if value is None else str(value))
