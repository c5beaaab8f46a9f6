"""Several runs side by side as tables and a plot."""

from __future__ import annotations

import math
from pathlib import Path

from mcuroof.analysis import records, timing_basis
from mcuroof.analysis.compare import layer_comparison, measured, not_compared, roof_rows, tag, variant
from mcuroof.analysis.records import Point
from mcuroof.errors import UserError
from mcuroof.report import labels, styles
from mcuroof.report import plot as plot_mod
from mcuroof.units import duration, si

RUN_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
RUN_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


# ---------------------------------------------------------------- tables


def tables(runs: list[tuple[str, dict]], paths: list[Path] | None = None) -> list:
    from rich.table import Table

    bases = bases_of(runs)
    word = timing_basis.ratio_word(bases)
    out = []
    t = Table(title="Runs", title_justify="left")
    for col in ("run", "board", "firmware", "time counts", "results"):
        t.add_column(col)
    for i, (label, data) in enumerate(runs):
        b = data.get("board", {})
        t.add_row(
            tag(i) + " " + label,
            str(b.get("name", "?")),
            str(b.get("firmware", "")),
            bases[i].label,
            str(paths[i]) if paths else "-",
        )
    out.append(t)
    t = Table(title=f"Roofs per second of each run's time, per {steps(bases)} in brackets", title_justify="left")
    t.title += f" ({word}: run / {tag(0)})" if word else ""
    why = not_compared(runs)
    if why:
        t.title = "Roofs of each run in its own unit: per " + steps(bases) + " where its time counts steps"
        t.caption, t.caption_justify = f"no ratio and no rate per second side by side where {why}", "left"
    ratio = [bool(i) and not timing_basis.why_not(bases[0], b) for i, b in enumerate(bases)]
    for col in ("kind", "name", "emitter", "dtype"):
        t.add_column(col)
    for i, (label, _) in enumerate(runs):
        t.add_column(tag(i), justify="right")
        if ratio[i]:
            t.add_column(f"{tag(i)}/{tag(0)}", justify="right")
    for row in roof_rows(runs):
        cells = []
        for i, v in enumerate(row["values"]):
            cells.append(roof_value(v, row["kind"], bases[i], apart=bool(why)))
            if ratio[i]:
                cells.append(f"{row['ratios'][i]:.3g}" if row["ratios"][i] else "-")
        t.add_row(row["kind"], row["name"], row["emitter"] or "-", row["dtype"] or "-", *cells)
    out.append(t)
    lay = layer_comparison(runs)
    if lay is None:
        out.append("layers: no model layers that two of these runs share (results' points)")
    elif lay.get("note"):
        out.append(f"layers: not compared: {lay['note']}")
    else:
        out += _layer_tables(runs, lay, bases)
    return out


def bases_of(runs: list[tuple[str, dict]]) -> list[timing_basis.Basis]:
    return [timing_basis.of(d.get("board", {})) for _, d in runs]


def steps(bases: list[timing_basis.Basis], plural: bool = False) -> str:
    """What the runs' per-step figures are per: "instruction", "cycle", "instruction or cycle"."""
    names = list(dict.fromkeys({"instr": "instruction", "cycle": "cycle"}[b.step] for b in bases if b.step))
    names = [n + "s" for n in names] if plural else names
    return " or ".join(names) if names else "step (none: host time)"


def roof_value(value: float | None, kind: str, basis: timing_basis.Basis, apart: bool = False) -> str:
    """A roof's rate and, where the run's time counts steps, its rate per step: "29.4 MMACC/s (1.88/instr)".
    `apart` (runs whose times do not compare): the rate per step alone ("1.88 MACC/instr"), or per
    second of what the time counts ("29.4 MMACC/s of host time")."""
    if value is None:
        return "-"
    unit = "B/s" if kind == "memory" else "MACC/s"
    per = basis.per_step(value)
    if apart:
        return f"{per:.3g} {unit[:-2]}/{basis.step}" if per is not None else f"{si(value, unit)} of {basis.kind}"
    return si(value, unit) + (f" ({per:.3g}/{basis.step})" if per is not None else "")


def own_unit(seconds: float | None, basis: timing_basis.Basis, apart: bool) -> str:
    """A time as people compare it: "504 ms" among runs whose times compare; apart, in what the
    run's time counts ("7.88 M instr", "79.8 M cycles", "504 ms of host time")."""
    if seconds is None or not apart:
        return duration(seconds)
    return basis.steps_text(seconds) if basis.step else f"{duration(seconds)} of {basis.kind}"


def _layer_tables(runs, lay, bases) -> list:
    from rich.table import Table

    word = timing_basis.ratio_word(bases)
    least = timing_basis.least_time_word(bases)
    short = timing_basis.least_time_word(bases, short=True)
    why = not_compared(runs)
    title = "Layers: best time per run"
    if word:
        target = "the fastest target" if short == "fastest" else f"the target with the {short}"
        title += f" ({word} over {tag(0)}) and {target}"
    t = Table(title=title, title_justify="left")
    if why:
        t.caption, t.caption_justify = f"no ratio and no fastest target where {why}", "left"
    t.add_column("layer")
    for i, _ in enumerate(runs):
        t.add_column(tag(i), justify="right")
    if word:
        t.add_column(short)
    for row in lay["layers"]:
        cells = []
        ratios = row["ratio"] if any(row["ratio"][1:]) else [None] * len(row["ratio"])  # no lone "x1"
        for b, s, basis in zip(row["best"], ratios, bases):
            cells.append(
                f"{own_unit(b['seconds'], basis, bool(why))} {b['dtype']} {b['emitter']}"
                + (f" (x{s:.3g})" if s else "")
                if b
                else "-"
            )
        f = row["fastest"]
        t.add_row(row["layer"], *cells, *([variant(f["run"], f["dtype"], f["emitter"])] if f else []))
    out = [t]
    n = Table(title=f"Whole network ({lay['shared']} shared layers)", title_justify="left")
    over = f"{word} over the slowest" if word else None
    counts = steps(bases, plural=True) if any(b.step for b in bases) and not why else None
    time_col = "time in its own unit" if why else "time"
    for col in ("target / dtype / emitter", time_col, counts, over, "missing layers (their time elsewhere)"):
        if col:
            n.add_column(col, justify="right" if col in (time_col, counts, over) else "left")
    for v in lay["network"]:
        basis = bases[v["run"]]
        missing = ", ".join(
            f"{m['layer']} ({own_unit(m['seconds'], basis, bool(why))} on {m['dtype']} {m['emitter']})"
            if m["seconds"]
            else f"{m['layer']} (not run in {tag(v['run'])})"
            for m in v["missing"]
        )
        time = (
            own_unit(v["seconds"], basis, bool(why))
            if v["seconds"]
            else f"{own_unit(v['measured_seconds'], basis, bool(why))} + ?"
        )
        n.add_row(
            variant(v["run"], v["dtype"], v["emitter"]),
            time + ("" if v["complete"] else " *"),
            *([bases[v["run"]].steps_text(v["seconds"])] if counts else []),
            *([f"x{v['over_slowest']:.3g}" if v["over_slowest"] else "-"] if over else []),
            missing or "-",
        )
    if any(not v["complete"] for v in lay["network"]):
        n.caption = "* includes the missing layers at their time on another emitter or type of the same run"
        n.caption_justify = "left"
    out.append(n)
    if lay.get("match_note"):
        out.append(f"layers {lay['match_note']}")
    if why:
        out.append(f"no fastest run: {why}")
    elif lay["network"] and lay["network"][0]["seconds"]:
        f = lay["network"][0]
        out.append(
            f"{least} for the whole network: {tag(f['run'])} {runs[f['run']][0]}, {f['dtype']} {f['emitter']} "
            f"({duration(f['seconds'])}{'' if f['complete'] else ', with the missing layers elsewhere'})"
        )
    return out


# ---------------------------------------------------------------- plot


MANY = 3  # from this many runs on, a table of the roofs beside the plot instead of labels on it
EMITTER_MARKERS = styles.EMITTER_MARKERS


def draw(runs: list[tuple[str, dict]], path: Path) -> Path:
    """Every run's measured roofline on one log-log plot, a colour per run (lines and points;
    line style by roof kind and dtype, point marker by emitter). Two runs: each line named on
    the plot, tagged with its run's letter. MANY runs or more: each run's top roofs only (its
    memory levels and each emitter's fastest ceiling), named in a table beside the plot."""
    import matplotlib.pyplot as plt

    many = len(runs) >= MANY
    fig, ax = plt.subplots(figsize=(15, 8) if many else (13, 7.5), dpi=110)
    draw_axes(ax, runs)
    if many:
        ax.mcuroof_labels = []  # named in the table beside the plot
        roof_table(ax, runs)
    else:
        ax.legend(
            handles=ax.get_legend().legend_handles,
            loc="upper left",
            bbox_to_anchor=(1.08, 1.0),
            fontsize=8,
            framealpha=0.9,
        )
    fig.tight_layout(rect=(0, 0, 0.74, 1) if many else (0, 0, 1, 1))
    plot_mod.place_labels(ax)
    plot_mod.place_point_labels(ax)
    return plot_mod.save(fig, path)


def _run_lines(runs: list[tuple[str, dict]], many: bool) -> list:
    """The roof segments of every run in its colour; with many runs only the top ones."""
    lines = []
    for i, (_, data) in enumerate(runs):
        own = plot_mod.roof_lines(measured(data))
        if many:
            own = _top_lines(own)
        for ln in own:
            ln.style = {**ln.style, "color": run_color(i)}
            ln.tag = tag(i)
            lines.append(ln)
    return lines


def _top_lines(lines: list) -> list:
    """A run's memory levels and the fastest compute ceiling of each emitter."""
    best: dict = {}
    for ln in lines:
        if ln.kind == "compute":
            em = ln.roofs[0].emitter
            if em not in best or ln.value > best[em].value:
                best[em] = ln
    mem = [ln for ln in lines if ln.kind == "memory" and ln.roofs[0].role == "roof"]
    return mem + sorted(best.values(), key=lambda ln: -ln.value)


def run_color(i: int) -> str:
    return RUN_COLORS[i % len(RUN_COLORS)]


def roof_table(ax, runs: list[tuple[str, dict]]) -> None:
    """The lines drawn, named beside the plot: one block per run (its letter, board and what its
    time counts), a row per line with its style, name and value."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    bases = [timing_basis.of(data.get("board", {})) for _, data in runs]
    one_basis = len({b.label for b in bases}) == 1  # then the title says it once
    handles = []
    for i, (label, data) in enumerate(runs):
        head = f"{tag(i)}: {label}" + ("" if one_basis else f", time counts {bases[i].label}")
        handles.append(Patch(color="none", label=head))
        for ln in [ln for ln in ax.mcuroof_drawn if ln.tag == tag(i)]:
            style = {k: v for k, v in ln.style.items() if k in ("color", "ls", "lw")}
            handles.append(Line2D([], [], **style, label="   " + labels.group_label(ln.roofs)))
    points = ax.get_legend().legend_handles if ax.get_legend() else []
    table = ax.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(1.09, 1.0),
        fontsize=7,
        framealpha=0.9,
        handlelength=2.6,
        title="roofs drawn (per second of each run's time)",
        title_fontsize=7.5,
    )
    ax.add_artist(table)
    ax.legend(handles=points, loc="lower left", fontsize=7, framealpha=0.9)


def draw_axes(ax, runs: list[tuple[str, dict]]):
    """The comparison on one Axes; roof labels and layer numbers are placed by the caller once
    the figure's layout is final (plot.place_labels, plot.label_points)."""
    from matplotlib.lines import Line2D

    if not any(measured(d) for _, d in runs):
        raise UserError("nothing to plot: the results hold no measured roof")
    many = len(runs) >= MANY
    lines = _run_lines(runs, many)
    points = [p for _, d in runs for p in records.points(d)]
    xlim, ylim = plot_mod.fit(lines, points)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.mcuroof_labels = []
    for ln in lines:
        plot_mod.draw_line(ax, ln, xlim)
    ax.mcuroof_drawn = list(ax.mcuroof_labels)
    numbers = []
    for i, (_, data) in enumerate(runs):
        numbers += _draw_run_points(ax, records.points(data), i)
    ax.mcuroof_numbers = numbers if len(numbers) <= plot_mod.MAX_NUMBERED else []
    if many:  # the runs' points of a layer share its intensity: its numbers once, over the column
        ax.mcuroof_numbers = []
        column_numbers(ax, [p for p in points if plot_mod.is_shown(p)])
    bases = [timing_basis.of(d.get("board", {})) for _, d in runs]
    handles = [
        Line2D([], [], color=run_color(i), lw=2.4, label=f"{tag(i)}: {label}") for i, (label, _) in enumerate(runs)
    ]
    ems = list(dict.fromkeys(p.emitter for p in points if plot_mod.is_shown(p)))
    handles += [
        Line2D([], [], ls="", marker=EMITTER_MARKERS.get(em, "D"), color="#777777", mec="black", label=f"layers: {em}")
        for em in ems
    ]
    if any(p.above_roof for p in points if plot_mod.is_shown(p)):
        handles.append(Line2D([], [], ls="", marker="X", color="#d62728", ms=9, label="point ABOVE its roof"))
    ax.legend(handles=handles, loc="lower right", fontsize=7, framealpha=0.9)
    title = "Empirical rooflines compared: " + ", ".join(f"{tag(i)} {lb}" for i, (lb, _) in enumerate(runs))
    title += "\n" + _bases_line(bases)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("operational intensity (MACC / byte)")
    ax.set_ylabel("attainable performance (MACC / s)")
    ax.grid(True, which="major", alpha=0.3)
    ax.grid(True, which="minor", alpha=0.08)
    plot_mod.plain_ticks(ax)
    if len({(b.kind, b.rate_hz) for b in bases}) == 1:  # one step for all: its axis on the right
        plot_mod.step_axis(ax, bases[0])
    return ax


def column_numbers(ax, points: list[Point]) -> None:
    """Layer numbers once per intensity (points within 12 % of each other's OI share a column),
    along the top of the axes; columns too close for their text are staggered downwards."""
    columns: dict[int, list[Point]] = {}
    for p in points:
        if isinstance(p.index, int):
            columns.setdefault(round(math.log10(p.oi) * 20), []).append(p)
    placed: list[float] = []
    for key in sorted(columns):
        pts = columns[key]
        oi = sorted(p.oi for p in pts)[len(pts) // 2]
        text = ",".join(sorted({plot_mod.point_number(p) for p in pts}, key=plot_mod.number_order))
        row = sum(1 for x in placed if abs(math.log10(oi / x)) < 0.12)
        placed.append(oi)
        ax.annotate(
            text,
            (oi, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(0, -10 - 9 * row),
            textcoords="offset points",
            ha="center",
            fontsize=7,
            color="#333333",
            zorder=6,
        )
        ax.axvline(oi, color="#999999", lw=0.5, ls=(0, (1, 3)), zorder=1)


def _bases_line(bases: list[timing_basis.Basis]) -> str:
    """What each run's time counts, runs of one basis named together: "A-D: QEMU -icount ..."."""
    groups: dict[str, list[str]] = {}
    for i, b in enumerate(bases):
        groups.setdefault(b.sentence, []).append(tag(i))
    return "; ".join(f"{'/'.join(t)}: {text}" for text, t in groups.items())


def _draw_run_points(ax, points: list[Point], run: int) -> list[tuple]:
    """A run's verified points in its colour, a marker per emitter (a point above its roof: a red
    X); returns the number labels to place (run letter and layer numbers)."""
    shown = [p for p in points if plot_mod.is_shown(p)]
    looks: dict[tuple, list[Point]] = {}
    for p in shown:
        looks.setdefault((str(p.emitter), bool(p.above_roof)), []).append(p)
    color = run_color(run)
    for (em, above), pts in sorted(looks.items()):
        ax.scatter(
            [p.oi for p in pts],
            [p.macs_per_s for p in pts],
            marker="X" if above else EMITTER_MARKERS.get(em, "D"),
            s=70 if above else 30,
            color="#d62728" if above else color,
            edgecolors="black",
            linewidths=0.4,
            zorder=7,
        )
    groups: dict[tuple, list[Point]] = {}
    for p in shown:
        spot = (round(math.log10(p.oi) * 20), round(math.log10(p.macs_per_s) * 20))
        groups.setdefault(spot, []).append(p)
    return [
        (
            pts[0].oi,
            pts[0].macs_per_s,
            tag(run) + ",".join(sorted({plot_mod.point_number(p) for p in pts}, key=plot_mod.number_order)),
            color,
        )
        for _, pts in sorted(groups.items())
        if all(isinstance(p.index, int) for p in pts)
    ]
