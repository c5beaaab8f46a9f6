"""Several runs side by side as tables and a plot."""

from __future__ import annotations

from pathlib import Path

from mcuroof.analysis.compare import layer_comparison, measured, roof_rows, tag, variant
from mcuroof.errors import UserError
from mcuroof.report import plot as plot_mod
from mcuroof.units import duration, si

RUN_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
RUN_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


# ---------------------------------------------------------------- tables


def tables(runs: list[tuple[str, dict]], paths: list[Path] | None = None) -> list:
    from rich.table import Table

    out = []
    t = Table(title="Runs", title_justify="left")
    for col in ("run", "board", "firmware", "clock", "icount shift", "results"):
        t.add_column(col)
    for i, (label, data) in enumerate(runs):
        b = data.get("board", {})
        t.add_row(
            tag(i) + " " + label,
            str(b.get("name", "?")),
            str(b.get("firmware", "")),
            si(b.get("clock_hz"), "Hz"),
            str(b.get("icount_shift") if b.get("icount_shift") is not None else "-"),
            str(paths[i]) if paths else "-",
        )
    out.append(t)
    t = Table(title=f"Roofs (ratio: run / {tag(0)})", title_justify="left")
    for col in ("kind", "name", "emitter", "dtype"):
        t.add_column(col)
    for i, (label, _) in enumerate(runs):
        t.add_column(tag(i), justify="right")
        if i:
            t.add_column(f"{tag(i)}/{tag(0)}", justify="right")
    for row in roof_rows(runs):
        unit = "B/s" if row["kind"] == "memory" else "MACC/s"
        cells = []
        for i, v in enumerate(row["values"]):
            cells.append(si(v, unit))
            if i:
                cells.append(f"{row['ratios'][i]:.3g}" if row["ratios"][i] and row["values"][0] else "-")
        t.add_row(row["kind"], row["name"], row["emitter"] or "-", row["dtype"] or "-", *cells)
    out.append(t)
    lay = layer_comparison(runs)
    if lay is None:
        out.append("layers: no model layers that two of these runs share (results' points)")
    elif lay.get("note"):
        out.append(f"layers: not compared: {lay['note']}")
    else:
        out += _layer_tables(runs, lay)
    return out


def _layer_tables(runs, lay) -> list:
    from rich.table import Table

    t = Table(title=f"Layers: best time per run (speed-up over {tag(0)}) and the fastest target", title_justify="left")
    t.add_column("layer")
    for i, _ in enumerate(runs):
        t.add_column(tag(i), justify="right")
    t.add_column("fastest")
    for row in lay["layers"]:
        cells = []
        for b, s in zip(row["best"], row["speedup"]):
            cells.append(
                f"{duration(b['seconds'])} {b['dtype']} {b['emitter']}" + (f" (x{s:.3g})" if s else "") if b else "-"
            )
        f = row["fastest"]
        t.add_row(row["layer"], *cells, variant(f["run"], f["dtype"], f["emitter"]))
    out = [t]
    n = Table(title=f"Whole network ({lay['shared']} shared layers)", title_justify="left")
    for col in (
        "target / dtype / emitter",
        "time",
        "speed-up over the slowest",
        "missing layers (their time elsewhere)",
    ):
        n.add_column(col, justify="right" if col in ("time", "speed-up over the slowest") else "left")
    slowest = max((v["seconds"] for v in lay["network"] if v["seconds"]), default=None)
    for v in lay["network"]:
        missing = ", ".join(
            f"{m['layer']} ({duration(m['seconds'])} on {m['dtype']} {m['emitter']})"
            if m["seconds"]
            else f"{m['layer']} (not run in {tag(v['run'])})"
            for m in v["missing"]
        )
        time = duration(v["seconds"]) if v["seconds"] else f"{duration(v['measured_seconds'])} + ?"
        n.add_row(
            variant(v["run"], v["dtype"], v["emitter"]),
            time + ("" if v["complete"] else " *"),
            f"x{slowest / v['seconds']:.3g}" if v["seconds"] and slowest else "-",
            missing or "-",
        )
    if any(not v["complete"] for v in lay["network"]):
        n.caption = "* includes the missing layers at their time on another emitter or type of the same run"
        n.caption_justify = "left"
    out.append(n)
    if lay.get("match_note"):
        out.append(f"layers {lay['match_note']}")
    if lay["network"] and lay["network"][0]["seconds"]:
        f = lay["network"][0]
        out.append(
            f"fastest for the whole network: {tag(f['run'])} {runs[f['run']][0]}, {f['dtype']} {f['emitter']} "
            f"({duration(f['seconds'])}{'' if f['complete'] else ', with the missing layers elsewhere'})"
        )
    return out


# ---------------------------------------------------------------- plot


def draw(runs: list[tuple[str, dict]], path: Path) -> Path:
    """Every run's measured roofline on one log-log plot: a colour per run (line style by roof
    kind and dtype, labels carry the run's letter); layer points coloured by emitter, with a
    marker per run and their layer numbers; axes fitted to the data."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(13, 7.5), dpi=110)
    draw_axes(ax, runs)
    ax.legend(
        handles=ax.get_legend().legend_handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, framealpha=0.9
    )
    fig.tight_layout()
    plot_mod.place_labels(ax)
    plot_mod.place_point_labels(ax)
    return plot_mod.save(fig, path)


def draw_axes(ax, runs: list[tuple[str, dict]]):
    """The comparison on one Axes; roof labels and layer numbers are placed by the caller once
    the figure's layout is final (plot.place_labels, plot.label_points)."""
    from matplotlib.lines import Line2D

    if not any(measured(d) for _, d in runs):
        raise UserError("nothing to plot: the results hold no measured roof")
    lines = []
    for i, (_, data) in enumerate(runs):
        for ln in plot_mod.roof_lines(measured(data)):
            ln.style = {**ln.style, "color": RUN_COLORS[i % len(RUN_COLORS)]}
            ln.tag = tag(i)
            lines.append(ln)
    points = [p for _, d in runs for p in d.get("points") or []]
    xlim, ylim = plot_mod.fit(lines, points)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.mcuroof_labels = []
    for ln in lines:
        plot_mod.draw_line(ax, ln, xlim)
    numbers = []
    for i, (_, data) in enumerate(runs):
        numbers += [
            (x, y, f"{tag(i)}{text}", color)
            for x, y, text, color in plot_mod.draw_points(
                ax, data.get("points") or [], RUN_MARKERS[i % len(RUN_MARKERS)], f"{tag(i)} "
            )
        ]
    ax.mcuroof_numbers = numbers if len(numbers) <= plot_mod.MAX_NUMBERED else []
    handles = [
        Line2D(
            [],
            [],
            color=RUN_COLORS[i % len(RUN_COLORS)],
            lw=2.4,
            marker=RUN_MARKERS[i % len(RUN_MARKERS)],
            label=f"{tag(i)}: {label}",
        )
        for i, (label, _) in enumerate(runs)
    ]
    handles += ax.get_legend_handles_labels()[0]
    ax.legend(handles=handles, loc="lower right", fontsize=7, framealpha=0.9)
    title = "Empirical rooflines compared: " + ", ".join(f"{tag(i)} {lb}" for i, (lb, _) in enumerate(runs))
    if any(data.get("board", {}).get("icount_shift") is not None for _, data in runs):
        title += "\nQEMU runs (shift=K): time counts instructions (-icount), it is not cycle-accurate"
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("operational intensity (MACC / byte)")
    ax.set_ylabel("attainable performance (MACC / s)")
    ax.grid(True, which="major", alpha=0.3)
    ax.grid(True, which="minor", alpha=0.08)
    plot_mod.plain_ticks(ax)
    return ax
