"""report.html of an npu.json (`mcuroof npu`): the stacked roofline as an interactive figure (the
NPU's theoretical roofs and Vela's per-operator estimates over the CPU run's measured roofs and
layers, a hover per point) and the tables of report.npu_tables. Every NPU figure says it is
estimated by Vela; where NPU cycles and QEMU instructions meet, the page says which counts what."""

from __future__ import annotations

from pathlib import Path

from mcuroof.report import html, npu_plot, reference_marks
from mcuroof.report.grid import Grid
from mcuroof.report.html_figures import draw_marks, figure_div
from mcuroof.report.html_tables import esc, grid_html
from mcuroof.report.npu_tables import grids
from mcuroof.units import duration, si

DASHES = ["solid", "dash", "dashdot"]


def _xs() -> list[float]:
    return npu_plot.xs()


def _roof(fig, compute: float, bandwidth: float, color: str, dash: str, name: str, group: str) -> None:
    import plotly.graph_objects as go

    xs = _xs()
    ys = [min(compute, bandwidth * x) for x in xs]
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines",
            name=name,
            line=dict(color=color, dash=dash, width=1.6),
            hoverinfo="name",
            legendgroup=group,
            legendgrouptitle_text=group,
        )
    )


def _npu_roofs(fig, doc: dict, colors: dict) -> None:
    for config, color in colors.items():
        roofs = [r for r in doc["roofs"] if r["config"] == config]
        compute = max(r["macs_per_s"] for r in roofs if r["kind"] == "compute")
        mems = [r for r in roofs if r["kind"] == "memory"]
        group = f"{config} roofs (theory)"
        for r, dash in zip(mems, DASHES):
            name = f"{r['name']} {si(r['bytes_per_s'], 'B/s')}, {si(compute, 'MAC/s')}"
            _roof(fig, compute, r["bytes_per_s"], color, dash, name, group)
        if len(mems) > 1:
            total = sum(r["bytes_per_s"] for r in mems)
            _roof(
                fig, compute, total, color, "dot", f"all memories at once {si(total, 'B/s')} (the points' bound)", group
            )


def _cpu_roof(fig, cpu: dict) -> None:
    roof = npu_plot.cpu_roof(cpu)
    if roof:
        compute, bandwidth, what = roof
        _roof(fig, compute, bandwidth, npu_plot.CPU_COLOR, "solid", what, f"{cpu['board']} (measured)")


def _hover(p: dict) -> str:
    memories = ", ".join(f"{m} {si(b, 'B')}" for m, b in (p.get("bytes_by_memory") or {}).items())
    return "<br>".join(
        [
            f"<b>{esc(p['tflite_op'])}</b> on {esc(p['config'])}: {p['source']} ({esc(p['note'])})",
            esc(p["name"][-90:]),
            f"MACs {p['macs']:,}; "
            + (f"NPU cycles {p['cycles']:,}; " if p.get("cycles") else "")
            + f"time {duration(p['seconds'])}",
            f"{si(p['macs_per_s'], 'MAC/s')} at {p['intensity']:.3g} MAC/B ({memories or '-'})",
            f"roof {si(p['roof_macs_per_s'], 'MAC/s')}" if p.get("roof_macs_per_s") else "",
        ]
    )


def _points(fig, doc: dict, colors: dict) -> None:
    import plotly.graph_objects as go

    symbols = ["circle-open", "square-open", "triangle-up-open", "diamond-open", "triangle-down-open"]
    models = list(dict.fromkeys(r["model"] for r in doc["runs"]))
    looks: dict[tuple, list] = {}
    for p in doc["points"]:
        if p.get("intensity") and p["macs"]:
            looks.setdefault((p["model"], p["config"], p["target"]), []).append(p)
    for (model, config, target), pts in looks.items():
        npu = target == "npu"
        fig.add_trace(
            go.Scatter(
                x=[p["intensity"] for p in pts],
                y=[p["macs_per_s"] for p in pts],
                mode="markers",
                name=f"{Path(model).stem} on {config}: "
                + ("Vela estimate per operator" if npu else "CPU-fallback operators, measured"),
                marker=dict(
                    symbol=symbols[models.index(model) % len(symbols)] if npu else "x",
                    size=10,
                    color=colors[config] if npu else npu_plot.CPU_COLOR,
                    line=dict(width=1.6),
                ),
                hovertext=[_hover(p) for p in pts],
                hoverinfo="text",
                legendgroup="points",
                legendgrouptitle_text="points (NPU: estimated by Vela, not measured)",
            )
        )
    cpu = [p for p in doc["cpu_points"] if p.get("oi") and p.get("macc") and p.get("macs_per_s")]
    if cpu:
        fig.add_trace(
            go.Scatter(
                x=[p["oi"] for p in cpu],
                y=[p["macs_per_s"] for p in cpu],
                mode="markers",
                name=f"{doc['cpu']['board']}: measured layers",
                marker=dict(symbol="x", size=8, color=npu_plot.CPU_COLOR),
                hovertext=[f"{esc(p['op'])} {p['emitter']} {p['dtype']}: {duration(p['seconds'])}" for p in cpu],
                hoverinfo="text",
                legendgroup="points",
            )
        )


def _marks(fig, doc: dict, xr) -> None:
    """The C-engine reference of the CPU's core, by report.reference_marks' rule (drawn only on a
    CPU run that counts cycles), and its note under the axes otherwise, as a run's figure has them."""
    ms = reference_marks.npu_marks(doc)
    draw_marks(fig, ms, xr, reference_marks.note_for(doc["reference"]["core"], ms))


def figure(doc: dict):
    import math

    import plotly.graph_objects as go

    configs = list(dict.fromkeys(r["config"] for r in doc["roofs"]))
    colors = {c: npu_plot.CONFIG_COLORS[i % len(npu_plot.CONFIG_COLORS)] for i, c in enumerate(configs)}
    fig = go.Figure()
    _npu_roofs(fig, doc, colors)
    if doc.get("cpu"):
        _cpu_roof(fig, doc["cpu"])
    _points(fig, doc, colors)
    lo, hi = npu_plot.X_RANGE
    _marks(fig, doc, (lo, hi))
    cpu = f" over {doc['cpu']['board']}'s measured CPU roofs" if doc.get("cpu") else ""
    fig.update_layout(
        title=dict(
            text=f"NPU roofs and operators{cpu}<br><sup>NPU points: {doc['estimated']}</sup>", font=dict(size=14)
        ),
        template="plotly_white",
        xaxis=dict(type="log", title="operational intensity (MAC / byte)", range=[math.log10(lo), math.log10(hi)]),
        yaxis=dict(type="log", title="MAC / s (NPU: Vela's cycles at its clock; CPU: its run's time basis)"),
        legend=dict(groupclick="toggleitem", font=dict(size=10)),
        height=680,
        margin=dict(l=70, r=20, t=70, b=110),
    )
    return fig


def page(doc: dict) -> str:
    parts = [
        f"<p class='note'>{esc(doc['units'])}</p>",
        figure_div(figure(doc), "npu-roofline"),
    ]
    for item in grids(doc)[1:]:  # the first is the units line, above
        parts.append(grid_html(item) if isinstance(item, Grid) else f"<p class='note'>{esc(item)}</p>")
    models = ", ".join(dict.fromkeys(Path(r["model"]).stem for r in doc["runs"]))
    return html.page(parts, f"mcuroof npu: {models} (NPU {doc['estimated']})")


def write(doc: dict, path: Path) -> Path:
    return html.save_page(page(doc), path)
