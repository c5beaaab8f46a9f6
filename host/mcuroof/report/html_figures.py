"""report.html's plotly figures: the roofline, with a hover per layer point and roofs that toggle
per emitter and dtype (one run, or several in a colour each), and the cache cliff."""

from __future__ import annotations

import html

from mcuroof.analysis import compare, records, timing_basis
from mcuroof.analysis.records import Point, Roof
from mcuroof.model import names as layer_names
from mcuroof.report import cliff, labels, plot, reference_marks, styles
from mcuroof.report import compare as report_compare
from mcuroof.units import duration, si

EMITTER_SYMBOLS = styles.EMITTER_SYMBOLS
DASHES = {"-": "solid", "--": "dash", "-.": "dashdot", ":": "dot"}


def figure_div(fig, div_id: str) -> str:
    """A figure as a div of the page (the page inlines plotly.js once: html.page)."""
    return fig.to_html(
        full_html=False,
        include_plotlyjs=False,
        div_id=div_id,
        config={"displaylogo": False, "toImageButtonOptions": {"format": "svg"}},
    )


def roofline_figure(result: dict, runs: list[tuple[str, dict]] | None = None):
    """The roofline of one run (or of several, a colour per run): plot.roof_lines' segments,
    then one trace of layer points per emitter and dtype (one marker per point)."""
    import plotly.graph_objects as go

    sets = runs or [("", result)]
    tagged = [(compare.tag(i) if runs else "", data) for i, (_, data) in enumerate(sets)]
    all_lines, all_points = [], []
    bases = {t: timing_basis.of(data.get("board", {})) for t, data in tagged}
    for i, (tag, data) in enumerate(tagged):
        roofs = [r for r in records.roofs(data) if r.measured] if runs else records.roofs(data)
        for ln in plot.roof_lines(roofs):
            if runs:
                ln.style = {**ln.style, "color": report_compare.RUN_COLORS[i % len(report_compare.RUN_COLORS)]}
                ln.tag = tag
            all_lines.append(ln)
        all_points += [(i, tag, p) for p in records.points(data) if plot.is_shown(p)]
    marks = [] if runs else reference_marks.marks(result)
    macfree = [p for _, data in tagged for p in records.points(data) if plot.is_macfree(p)]
    (x0, x1), (y0, y1) = plot.with_marks(plot.fit(all_lines, [p for _, _, p in all_points] + macfree), marks)
    fig = go.Figure()
    for ln in all_lines:
        r = ln.roofs[0]
        if ln.kind == "memory":
            xe = min(ln.bend, x1) if ln.bend else x1
            xs, ys = [x0, xe], [ln.value * x0, ln.value * xe]
        else:
            xs, ys = [max(ln.bend or x0, x0), x1], [ln.value, ln.value]
        name = (f"{ln.tag} " if ln.tag else "") + labels.roof_label(r) + _per_step(r, bases[ln.tag])
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
        looks.setdefault((i, tag, p.emitter, p.dtype, bool(p.above_roof)), []).append(p)
    for (i, tag, em, dt, above), pts in sorted(looks.items(), key=lambda kv: tuple(str(k) for k in kv[0])):
        # one run: colour by emitter, marker by dtype; several: colour by run (as its lines), marker by emitter
        color = report_compare.run_color(i) if runs else styles.EMITTER_COLORS.get(em, "#555")
        fig.add_trace(
            go.Scatter(
                x=[p.oi for p in pts],
                y=[p.macs_per_s for p in pts],
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
    _macfree_traces(fig, tagged, bases, x0, bool(runs))
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
    draw_marks(fig, marks, (x0, x1), None if runs else reference_marks.note(result))
    return fig


def draw_marks(fig, marks: list, xr, note: str | None) -> None:
    """The C-engine reference (report.reference_marks): a dotted line with diamond ends per drawn
    mark, red with its reason where above the core's bound; the note under the axes otherwise."""
    import math

    import plotly.graph_objects as go

    for m in (m for m in marks if m.macs_per_s):
        color = "#d62728" if m.flag else "#222222"
        text = m.label + (f"<br>ABOVE THE CORE'S BOUND: {html.escape(m.flag)}" if m.flag else "")
        fig.add_trace(
            go.Scatter(
                x=list(xr),
                y=[m.macs_per_s] * 2,
                mode="lines+markers",
                marker=dict(symbol="diamond", size=10, color=color),
                line=dict(color=color, dash="dot", width=2),
                name=("flagged: " if m.flag else "") + m.label,
                hovertext=text,
                hoverinfo="text",
                legendgroup="C engine",
                legendgrouptitle_text="C engine (MLPerf Tiny)",
            )
        )
        fig.add_annotation(
            text=m.label + (" (ABOVE THE CORE'S BOUND: hover)" if m.flag else ""),
            xref="paper",
            x=0.01,
            y=math.log10(m.macs_per_s),  # a log axis places annotations by the exponent
            yanchor="bottom",
            xanchor="left",
            showarrow=False,
            font=dict(size=10, color=color),
        )
    if note:
        fig.add_annotation(
            text=html.escape(note).replace("\n", "<br>"),
            xref="paper",
            yref="paper",
            x=0,
            y=-0.16,
            showarrow=False,
            align="left",
            xanchor="left",
            font=dict(size=11, color="#444"),
        )
        fig.update_layout(margin=dict(b=110))


def _macfree_traces(fig, tagged: list[tuple[str, dict]], bases: dict, x0: float, several: bool) -> None:
    """MAC-free layers (intensity 0) at the left edge, as the PNG draws them (plot.draw_macfree)."""
    import plotly.graph_objects as go

    for i, (tag, data) in enumerate(tagged):
        pts = [p for p in records.points(data) if plot.is_macfree(p)]
        for em in dict.fromkeys(p.emitter for p in pts):
            mine = [p for p in pts if p.emitter == em]
            color = report_compare.run_color(i) if several else styles.EMITTER_COLORS.get(em, "#555")
            fig.add_trace(
                go.Scatter(
                    x=[x0] * len(mine),
                    y=[p.bytes_per_s * x0 for p in mine],
                    meta="layers",
                    mode="markers+text",
                    text=[plot.macfree_text(p) for p in mine],
                    textposition="top right",
                    textfont=dict(size=9, color=color),
                    name=(f"{tag} " if tag else "")
                    + f"{em}: MAC-free layers (intensity 0), left edge, bytes/s (not MACC/s)",
                    legendgroup=f"points {tag or em}",
                    legendgrouptitle_text=f"points {tag}" if tag else f"points {em}",
                    marker=dict(symbol="triangle-left", size=10, color=color, line=dict(width=0.6, color="black")),
                    cliponaxis=False,
                    hovertext=[hover(p, bases[tag]) for p in mine],
                    hoverinfo="text",
                )
            )


def _per_step(roof: Roof, basis: timing_basis.Basis) -> str:
    """A roof's rate per instruction or cycle, for its name: " (1.88 MACC/instr)"; "" for host time."""
    if not basis.step:
        return ""
    return f" ({basis.per_text(roof.rate, 'B' if roof.kind == 'memory' else 'MACC')})"


def _numbers(pts: list[Point], tag: str) -> list[str]:
    """Each point's layer number; points drawn on one spot share one label ("1,3,5,7")."""
    import math

    spots: dict[tuple, list[int]] = {}
    for i, p in enumerate(pts):
        spots.setdefault((round(math.log10(p.oi) * 20), round(math.log10(p.macs_per_s) * 20)), []).append(i)
    text = [""] * len(pts)
    for members in spots.values():
        text[members[0]] = tag + ",".join(str(i) for i in sorted({_index(pts[m]) for m in members}, key=str))
    return text


def _index(p: Point):
    """A point's index for its label ("" where it has none)."""
    return p.index if p.has("index") else ""


def _group(r: Roof) -> str:
    if not r.measured:
        return "theoretical"
    if r.kind == "memory" and r.role in ("roof", "region"):
        return "memory"
    return f"{r.emitter}"


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


def hover(p: Point, basis: timing_basis.Basis | None = None) -> str:
    """The text shown when a layer point is hovered (rates per step too, where time counts steps)."""
    per = f" ({basis.per_text(p.macs_per_s, 'MACC')})" if basis and basis.step else ""
    shapes = ", ".join(layer_names.shape_text(s) for s in p.input_shapes or []) or "-"
    name = html.escape(p.name or "")
    name = "<br>".join(name[i : i + 70] for i in range(0, len(name), 70))
    lines = [
        f"<b>{p.short_name}</b> ({html.escape(p.op or '?')})",
        name,
        f"in {shapes} → out {layer_names.shape_text(p.output_shape)}",
        f"{p.dtype} on {p.emitter}"
        + (f", tile {p.tile_fraction:.2g}" if p.tile_fraction is not None and p.tile_fraction < 1 else ""),
        f"MACC {si(p.macc, '')}, bytes {si(p.bytes, 'B')}, OI {p.oi:.3g} MACC/B",
        _achieved(p, per),
        f"bound: {p.bound}, time {duration(p.seconds)}",
        "advice: " + "<br>".join(_wrap(html.escape(p.advice or "-"), 80)),
    ]
    return "<br>".join(x for x in lines if x)


def _achieved(p: Point, per: str) -> str:
    """Achieved against the roof, as the headroom counts it: bytes/s for a MAC-free layer."""
    if plot.is_macfree(p) and p.memory_share:
        roof = p.bytes_per_s / p.memory_share
        return (
            f"no MACs: achieved {si(p.bytes_per_s, 'B/s')}, memory roof {si(roof, 'B/s')}, headroom {p.headroom:.3g}x"
        )
    if p.headroom:
        return (
            f"achieved {si(p.macs_per_s, 'MACC/s')}{per}, roof {si(p.roof_macs_per_s, 'MACC/s')}, "
            f"headroom {p.headroom:.3g}x"
        )
    return f"achieved {si(p.macs_per_s, 'MACC/s')}{per}"


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
                fillcolor=styles.LEVEL_COLORS[i % len(styles.LEVEL_COLORS)],
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
                    color="black" if ref else styles.EMITTER_COLORS.get(s["emitter"], "#555"),
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
