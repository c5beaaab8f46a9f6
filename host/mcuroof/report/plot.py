"""The roofline plot: log-log, x = MACC/byte, y = MACC/s; roofs, ridges and layer points.

Each emitter's roofline has its own shape, min(its memory ceiling x OI, its compute ceiling),
and bends at its own ridge; the measured top roof (fastest memory level, fastest compute
ceiling) is drawn strongest; theoretical roofs meet at their own ridge. Every line is named
once, inline (memory on the left edge, compute on the right); lines closer than a label's
height share one label (report.labels places them). The legend holds only the point markers.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from mcuroof.analysis import records, timing_basis
from mcuroof.analysis import roofs as roofs_mod
from mcuroof.analysis.records import Point, Roof
from mcuroof.errors import UserError
from mcuroof.model import names as layer_names
from mcuroof.report import reference_marks
from mcuroof.report.labels import Line, place_labels, place_point_labels
from mcuroof.report.styles import (
    DTYPE_MARKERS,
    DTYPE_STYLES,
    EMITTER_COLORS,
    LEVEL_COLORS,
    REGION_COLORS,
    THEORY_COLOR,
    TOP_COLOR,
)
from mcuroof.units import si

MAX_NUMBERED = 150  # above this many point groups the numbers are left out (the key says so)
MAX_KEY_ROWS = 60


def roof_lines(roofs: list) -> list[Line]:
    """The segments to draw: pure geometry from the roofs (bends are ridge points, MACC/byte)."""
    roofs = records.roofs(roofs)
    measured = [r for r in roofs if r.source == "measured"]
    comps = sorted((r for r in measured if r.kind == "compute"), key=lambda r: -r.macs_per_s)
    top_mem = roofs_mod.top_memory(roofs)
    top_c = comps[0] if comps else None
    peak = top_c.macs_per_s if top_c else None
    lines = []
    for r in measured:
        if r.kind == "memory" and r.role in ("roof", "region"):
            top = r is top_mem and bool(top_c) and top_c.role == "roof"
            style = (
                dict(color=TOP_COLOR, ls="-", lw=3.2, zorder=3)
                if top
                else dict(color=REGION_COLORS.get(r.region, "#7b4173"), ls=(0, (8, 2, 1, 2, 1, 2)), lw=1.6)
                if r.role == "region"
                else dict(color=LEVEL_COLORS[min((r.level or 1) - 1, len(LEVEL_COLORS) - 1)], ls="-", lw=1.8)
            )
            lines.append(Line("memory", r.bytes_per_s, peak / r.bytes_per_s if peak else None, style, [r]))
    for em in dict.fromkeys(r.emitter for r in comps):
        own = [r for r in measured if r.kind == "memory" and r.role == "ceiling" and r.emitter == em]
        mem = max(own, key=lambda r: r.bytes_per_s) if own else top_mem
        em_comps = [r for r in comps if r.emitter == em]
        if own:
            lines.append(
                Line(
                    "memory",
                    mem.bytes_per_s,
                    em_comps[0].macs_per_s / mem.bytes_per_s,
                    dict(color=EMITTER_COLORS.get(em, "#555"), ls="-.", lw=1.3),
                    [mem],
                )
            )
        for c in em_comps:
            start = c.macs_per_s / mem.bytes_per_s if mem else None
            if c is top_c and c.role == "roof":
                start = min(start, c.macs_per_s / top_mem.bytes_per_s) if top_mem and start else start
                style = dict(color=TOP_COLOR, ls="-", lw=3.2, zorder=3)
            else:
                style = dict(color=EMITTER_COLORS.get(em, "#555"), ls=DTYPE_STYLES.get(c.dtype, "-"), lw=1.5)
            lines.append(Line("compute", c.macs_per_s, start, style, [c]))
    for r in measured:  # an emitter's other memory ceilings: up to its own top compute ceiling, else the top roof
        if r.kind == "memory" and r.role == "ceiling" and not any(r in ln.roofs for ln in lines):
            own_peak = next((c.macs_per_s for c in comps if c.emitter == r.emitter), peak)
            lines.append(
                Line(
                    "memory",
                    r.bytes_per_s,
                    own_peak / r.bytes_per_s if own_peak else None,
                    dict(color=EMITTER_COLORS.get(r.emitter, "#555"), ls="-.", lw=1.3),
                    [r],
                )
            )
    lines += _theory_lines(roofs)
    return lines


def _theory_lines(roofs: list[Roof]) -> list[Line]:
    mems = [r for r in roofs if r.source != "measured" and r.kind == "memory"]
    comps = [r for r in roofs if r.source != "measured" and r.kind == "compute"]
    peak = max((r.macs_per_s for r in comps), default=None)
    fastest = max((r.bytes_per_s for r in mems), default=None)
    style = dict(color=THEORY_COLOR, ls="--", lw=1.2)
    return [Line("memory", r.bytes_per_s, peak / r.bytes_per_s if peak else None, style, [r]) for r in mems] + [
        Line("compute", r.macs_per_s, r.macs_per_s / fastest if fastest else None, style, [r]) for r in comps
    ]


def select(result: dict, emitters: list[str] | None = None, dtypes: list[str] | None = None) -> dict:
    """The results with only these emitters' and element types' ceilings and points (memory
    roofs, regions and theoretical memory stay: they bound every emitter)."""
    if not emitters and not dtypes:
        return result
    roofs, points = records.roofs(result), result.get("points") or []
    for what, asked, have in (
        ("emitter", emitters, {r.emitter for r in roofs} | {p["emitter"] for p in points}),
        ("dtype", dtypes, {r.dtype for r in roofs if r.kind == "compute"} | {p["dtype"] for p in points}),
    ):
        unknown = [a for a in asked or [] if a not in have]
        if unknown:
            raise UserError(
                f"no {what} {', '.join(unknown)} in these results "
                f"(they have: {', '.join(sorted(h for h in have if h))})"
            )

    def keep(r: Roof) -> bool:
        if r.kind == "memory":
            return r.role != "ceiling" or not emitters or r.emitter in emitters
        if not r.measured:
            return not dtypes or r.dtype in dtypes
        return (not emitters or r.emitter in emitters) and (not dtypes or r.dtype in dtypes)

    return {
        **result,
        "roofs": [r.to_dict() for r in roofs if keep(r)],
        "points": [
            p for p in points if (not emitters or p["emitter"] in emitters) and (not dtypes or p["dtype"] in dtypes)
        ],
    }


def draw(
    result: dict,
    path: Path,
    title: str | None = None,
    emitters: list[str] | None = None,
    dtypes: list[str] | None = None,
    panels: bool = False,
) -> Path:
    """Write the roofline (format from the suffix; SVG keeps its text as text)."""
    return save(figure(result, title, emitters, dtypes, panels), path)


def figure(
    result: dict,
    title: str | None = None,
    emitters: list[str] | None = None,
    dtypes: list[str] | None = None,
    panels: bool = False,
):
    result = select(result, emitters, dtypes)
    _require_something(result)
    groups = _panel_emitters(result) if panels else [None]
    fig, axes = plt.subplots(
        1,
        len(groups),
        figsize=(5.2 * len(groups) + 3.2 if panels else 13, 7),
        dpi=110,
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    marks = reference_marks.marks(result)
    points = records.points(result)
    xlim, ylim = with_marks(limits(result["roofs"], points), marks)
    shown = [p for p in points if is_shown(p) or is_macfree(p)]
    for i, (ax, em) in enumerate(zip(axes[0], groups)):
        part = select(result, [em]) if em else result
        draw_axes(ax, part, xlim, ylim, label_points=False)
        draw_marks(ax, marks, labelled=i == 0, width=45 if panels else 110)
        if em:
            ax.set_title(em, fontsize=10)
    step_axis(axes[0][-1], timing_basis.of(result.get("board", {})))
    fig.suptitle(wrap_title(title or board_title(result.get("board", {})), fig.get_figwidth(), 11), fontsize=11)
    if shown:
        _key(fig, shown)
    note = foot_note(result, fig.get_figwidth())
    if note:
        fig.text(0.01, 0.01, note, fontsize=7.5, color="#444", va="bottom")
    fig.tight_layout(rect=(0, 0.018 * (note.count("\n") + 2) if note else 0, 0.8 if shown else 1, 1))
    for ax in axes[0]:  # after the layout: label placement works in display space
        place_labels(ax)
        place_point_labels(ax)
        clear_marks(ax)
    return fig


def foot_note(result: dict, width_inches: float) -> str:
    """The figure's foot note: the C-engine marks not drawn, and why no ridge is marked where the
    time does not tell memory- from compute-bound; wrapped to the figure's width."""
    bound = timing_basis.of(result.get("board") or {}).bound_note
    parts = [reference_marks.note(result), f"no ridge marked: {bound}" if bound else None]
    text = "; ".join(p for p in parts if p)
    return textwrap.fill(text, max(60, int(width_inches * 72 / (0.55 * 7.5)))) if text else ""


def draw_axes(ax, result: dict, xlim=None, ylim=None, label_points: bool = True):
    """The roofline on one matplotlib Axes (the notebook API's entry point); returns the Axes."""
    if xlim is None or ylim is None:
        xlim, ylim = limits(result["roofs"], records.points(result))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.mcuroof_labels = []
    ax.mcuroof_ridges = timing_basis.of(result.get("board") or {}).tells_bound  # no ridge dots where time cannot tell
    for ln in roof_lines(result["roofs"]):
        draw_line(ax, ln, xlim)
    points = records.points(result)
    ax.mcuroof_numbers = draw_points(ax, points)
    ax.mcuroof_numbers += draw_macfree(ax, points, xlim)
    ax.set_xlabel("operational intensity (MACC / byte)")
    ax.set_ylabel("attainable performance (MACC / s)")
    ax.grid(True, which="major", alpha=0.3)
    ax.grid(True, which="minor", alpha=0.08)
    plain_ticks(ax)
    if label_points:
        place_labels(ax)
        place_point_labels(ax)
    return ax


def with_marks(lims, marks: list, margin: float = 2.5):
    """The axis ranges widened to hold every drawn C-engine mark."""
    (x0, x1), (y0, y1) = lims
    ys = [m.macs_per_s for m in marks if m.macs_per_s]
    return (x0, x1), (min([y0] + [y / margin for y in ys]), max([y1] + [y * margin for y in ys]))


def draw_marks(ax, marks: list, labelled: bool = True, width: int = 110) -> None:
    """The C-engine reference (report.reference_marks): a dotted line with a diamond at each end
    and its label over it; a figure above the core's bound in red with its reason. A mark not
    drawn (the units do not compare) is named in the figure's foot note (figure)."""
    x0, x1 = ax.get_xlim()
    for m in marks:
        if m.macs_per_s is None:
            continue
        color = "#d62728" if m.flag else "#222222"
        ax.plot([x0, x1], [m.macs_per_s] * 2, color=color, ls=(0, (1, 1.5)), lw=1.4, zorder=5)
        ax.plot([x0, x1], [m.macs_per_s] * 2, "D", color=color, ms=6, zorder=6, clip_on=False)
        if not labelled:  # side-by-side panels: the first one names it
            continue
        text = textwrap.fill(m.label + (f"; ABOVE THE CORE'S BOUND: {m.flag}" if m.flag else ""), width)
        t = ax.text(x0 * (x1 / x0) ** 0.02, m.macs_per_s * 1.08, text, fontsize=7.5, color=color, va="bottom", zorder=6)
        t.mcuroof_mark = True


def clear_marks(ax) -> None:
    """A C-engine label that the roof labels placed since would cover moves right of them, on its
    own line (rp2040js: "C engine on a Cortex-M0+..." was written over "SRAM/flash (theory)")."""
    renderer = ax.figure.canvas.get_renderer()
    marks = [t for t in ax.texts if getattr(t, "mcuroof_mark", False)]
    others = [t for t in ax.texts if t not in marks and t.get_text()]
    for t in marks:
        box = t.get_window_extent(renderer)
        hit = [o.get_window_extent(renderer) for o in others if o.get_window_extent(renderer).overlaps(box)]
        if hit:
            right = max(b.x1 for b in hit) + 6
            x = ax.transData.inverted().transform((right, box.y0))[0]
            t.set_x(x)


def step_axis(ax, basis: timing_basis.Basis, unit: str = "MACC") -> None:
    """A right-hand axis in `unit` per instruction (QEMU) or per cycle (a real board's clock): the
    unit the time counts, beside the per-second one; none for host time."""
    if not basis.rate_hz:
        return
    rate = basis.rate_hz
    sec = ax.secondary_yaxis("right", functions=(lambda y: y / rate, lambda y: y * rate))
    sec.set_ylabel(f"{unit} / {basis.step} (at {basis.rate_text})", fontsize=9)
    sec.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    sec.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def plain_ticks(ax) -> None:
    """Decade ticks as plain text (0.01, 1, 100; 10k, 1M, 1G): readable, editable in SVG, and
    much faster to lay out than mathtext powers of ten."""
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: si(v, "").strip()))
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def draw_line(ax, ln: Line, xlim) -> None:
    if ln.kind == "memory":
        if ln.bend and ln.bend <= xlim[0]:
            return  # ends left of the axes (a panel of a slower emitter): neither drawn nor named
        x_end = min(ln.bend, xlim[1]) if ln.bend else xlim[1]
        ax.plot([xlim[0], x_end], [ln.value * xlim[0], ln.value * x_end], **ln.style)
        if ln.bend and ln.bend < xlim[1] and getattr(ax, "mcuroof_ridges", True):
            ax.plot([ln.bend], [ln.value * ln.bend], "o", color=ln.style["color"], ms=3.5, zorder=4)
    else:
        ax.plot([max(ln.bend or xlim[0], xlim[0]), xlim[1]], [ln.value, ln.value], **ln.style)
    ax.mcuroof_labels.append(ln)


def has_something(result: dict) -> bool:
    """A measured roof or a verified point to draw (a calibration-only run has neither)."""
    measured = [r for r in records.roofs(result) if r.measured]
    return bool(measured) or any(is_shown(p) for p in records.points(result))


def _require_something(result: dict) -> None:
    if not has_something(result):
        raise UserError("nothing to plot: the results hold no measured roof and no verified point")


def _panel_emitters(result: dict) -> list[str]:
    ems = [r.emitter for r in records.roofs(result) if r.kind == "compute" and r.measured]
    ems += [p.emitter for p in records.points(result)]
    return list(dict.fromkeys(e for e in ems if e)) or [None]


def save(fig, path: Path) -> Path:
    """Write the figure (format from the suffix) and free it; a one-line error if it cannot."""
    suffix = Path(path).suffix.lower()
    meta = {".svg": {"Date": None}, ".pdf": {"CreationDate": None}}.get(suffix)  # no timestamp: same input, same file
    try:
        with matplotlib.rc_context({"svg.fonttype": "none", "pdf.fonttype": 42, "svg.hashsalt": "mcuroof"}):
            fig.savefig(path, metadata=meta)
    except (OSError, ValueError) as e:
        raise UserError(f"{path}: cannot write the plot ({e})") from None
    finally:
        plt.close(fig)
    return path


def board_title(board: dict) -> str:
    parts = [f"Empirical roofline: {board.get('name', '?')}", board.get("firmware") or ""]
    return " | ".join(p for p in parts + [timing_basis.of(board).sentence] if p)


def wrap_title(text: str, width_inches: float, fontsize: float) -> str:
    """The title in lines that fit the figure's width (a long timing sentence was cut off on
    both sides): broken at its " | " parts first, then between words. A character is taken as
    0.6 of the font size, wider than most."""
    chars = max(20, int(width_inches * 72 / (0.6 * fontsize)))
    lines: list[str] = []
    for part in text.split(" | "):
        if lines and len(lines[-1]) + 3 + len(part) <= chars:
            lines[-1] += " | " + part
        else:
            lines += textwrap.wrap(part, chars, break_long_words=False) or [""]
    return "\n".join(lines)


def is_shown(p: Point) -> bool:
    return bool(p.verified and p.oi and p.macs_per_s)


def is_macfree(p: Point) -> bool:
    """A verified layer that moves bytes without MACs (AVERAGE_POOL, ADD): intensity 0, which a
    log axis cannot show; it is drawn at the left edge (draw_macfree)."""
    return bool(p.verified and not p.macc and p.bytes_per_s)


MACFREE_MARKER = "<"
MACFREE_LABEL = (
    "layers without MACs (intensity 0), at the left edge, labelled with their bytes/s:\n"
    "not on the MACC/s axis; their gap under the memory roofs is their headroom"
)


def macfree_text(p: Point) -> str:
    """A MAC-free layer's label: its number and its own unit's figure ("9: 4.91 MB/s")."""
    return f"{point_number(p)}: {si(p.bytes_per_s, 'B/s')}"


def draw_macfree(ax, points: list[Point], xlim, tag: str = "") -> list[tuple]:
    """MAC-free layers at the left edge, at their byte rate times that edge's intensity: their gap
    under the memory roofs there is their headroom (bytes/s against the memory roof's). Returns
    their number labels, as draw_points."""
    pts = [p for p in points if is_macfree(p)]
    x0 = xlim[0]
    if pts:  # one legend entry whatever the emitters (colour: emitter, as the other points)
        ax.scatter(
            [x0] * len(pts),
            [p.bytes_per_s * x0 for p in pts],
            marker=MACFREE_MARKER,
            s=46,
            color=[EMITTER_COLORS.get(p.emitter, "#555555") for p in pts],
            edgecolors="black",
            linewidths=0.4,
            zorder=7,
            clip_on=False,
            label=tag + MACFREE_LABEL,
        )
        ax.legend(loc="lower right", fontsize=7, framealpha=0.9, markerscale=0.9)
    return [
        (x0, p.bytes_per_s * x0, macfree_text(p), EMITTER_COLORS.get(p.emitter, "#555555"))
        for p in pts
        if isinstance(p.index, int)
    ]


def limits(roofs: list, points: list, margin: float = 2.5):
    """Axis ranges fitted to the data: every bend (ridge) and point with a small margin, room
    right of the last bend for the compute labels, and every drawn line's left end in view."""
    return fit(roof_lines(roofs), records.points(points), margin)


def fit(lines: list[Line], points: list[Point], margin: float = 2.5):
    pts = [p for p in points if is_shown(p)]
    bends = [ln.bend for ln in lines if ln.bend]
    xs = bends + [p.oi for p in pts] or [0.05, 20.0]  # compute ceilings alone: a few decades
    lo = min(xs) / margin
    hi = max(max(xs) * margin, max(bends, default=lo) * 8)
    comps = [ln.value for ln in lines if ln.kind == "compute"]
    ys = comps + [p.macs_per_s for p in pts]
    ys += [ln.value * lo for ln in lines if ln.kind == "memory"]
    ys += [p.bytes_per_s * lo for p in points if is_macfree(p)]  # drawn at the left edge
    top = max(comps + [p.macs_per_s for p in pts], default=None) or max(ln.value * hi for ln in lines)
    return (lo, hi), (min(ys) / margin, top * margin)


def draw_points(ax, points: list[Point], marker: str | None = None, tag: str = "") -> list[tuple]:
    """Verified layer points, one scatter per emitter and type (colour: emitter, marker: type);
    a point above its roof is a big red X. Returns the number labels to place, (oi, MACC/s,
    text, colour): points that coincide share one."""
    shown = [p for p in points if is_shown(p)]
    by_look: dict[tuple, list[Point]] = {}
    for p in shown:
        by_look.setdefault((p.emitter, p.dtype, bool(p.above_roof), bool(p.user)), []).append(p)
    for (em, dt, above, user), pts in sorted(by_look.items(), key=lambda kv: (kv[0][2:], str(kv[0][0]), str(kv[0][1]))):
        what = f"your kernels (U1, U2...): {em} {dt}" if user else f"layers: {em} {dt}"
        ax.scatter(
            [p.oi for p in pts],
            [p.macs_per_s for p in pts],
            marker="X" if above else USER_MARKER if user else marker or DTYPE_MARKERS.get(dt, "D"),
            s=70 if above or user else 28,
            color="#d62728" if above else EMITTER_COLORS.get(em, "#555555"),
            edgecolors="black",
            linewidths=0.4,
            zorder=7,
            label=f"{tag}point ABOVE its roof: an accounting error" if above else tag + what,
        )
    groups: dict[tuple, list[Point]] = {}
    for p in shown:
        color = "#d62728" if p.above_roof else EMITTER_COLORS.get(p.emitter, "#555555")
        spot = (round(math.log10(p.oi) * 20), round(math.log10(p.macs_per_s) * 20), color)
        groups.setdefault(spot, []).append(p)
    if shown:
        ax.legend(loc="lower right", fontsize=7, framealpha=0.9, markerscale=0.9)
    if len(groups) > MAX_NUMBERED:
        return []
    return [
        (pts[0].oi, pts[0].macs_per_s, ",".join(sorted({point_number(p) for p in pts}, key=number_order)), color)
        for (_, _, color), pts in groups.items()
        if all(isinstance(p.index, int) for p in pts)
    ]


def _key(fig, shown: list[Point]) -> None:
    """The layers beside the plot: short name, output shape and MACC (tensor names are in the
    hover text of the HTML report and in the exports)."""
    layers = {p.index: p for p in shown if isinstance(p.index, int) and not p.user}
    name_w = max([len(p.short_name) for p in layers.values()] + [len("layer")]) + 2  # a gap, always
    shape_w = max([len(layer_names.shape_text(p.output_shape)) for p in layers.values()] + [len("output")]) + 2
    rows = [
        f"{p.short_name:<{name_w}}{layer_names.shape_text(p.output_shape):<{shape_w}}{si(p.macc, 'MACC'):>10}"
        for _, p in sorted(layers.items())
    ]
    rows += [f"{'U%d' % p.index:<4}{p.name[:18]:<18}{si(p.macc, 'MACC'):>10}" for p in shown if p.user]
    more = len(rows) - MAX_KEY_ROWS
    if more > 0:
        rows = rows[:MAX_KEY_ROWS] + [f"... and {more} more layers (see the report)"]
    head = f"{'layer':<{name_w}}{'output':<{shape_w}}{'MACC':>10}"
    size = 7 if len(rows) <= 40 else max(4.5, 7 * 40 / len(rows))
    fig.text(0.805, 0.93, head + "\n" + "\n".join(rows), fontsize=size, va="top", ha="left", family="monospace")


USER_MARKER = "*"


def point_number(p: Point) -> str:
    return f"U{p.index}" if p.user else str(p.index)


def number_order(number: str) -> tuple:
    """Layers by index first, then the user's kernels U1, U2..."""
    return (number.startswith("U"), int(number.lstrip("U")))
