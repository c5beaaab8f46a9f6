"""The roofline plot: log-log, x = MACC/byte, y = MACC/s; roofs, ridges and layer points."""
from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402

from . import roofs as roofs_mod  # noqa: E402
from .errors import UserError  # noqa: E402
from .units import si  # noqa: E402

EMITTER_COLORS = {"c": "#1f3b73", "asm_thumb": "#d62728", "viper": "#9467bd", "native": "#2ca02c",
                  "bytecode": "#ff7f0e", None: "#555555"}
DTYPE_STYLES = {"int8": "-", "int16": (0, (6, 2)), "int32": (0, (3, 1, 1, 1)), "float32": ":"}
LEVEL_COLORS = ["#08306b", "#2171b5", "#6baed6", "#9ecae1", "#c6dbef"]
REGION_COLORS = {"flash": "#8c564b", "SRAM": "#17becf", "PSRAM": "#e377c2"}


def draw(result: dict, path: Path, title: str | None = None) -> Path:
    roofs = result["roofs"]
    top_mem = roofs_mod.top_memory(roofs)
    measured_c = [r for r in roofs if r["kind"] == "compute" and r["source"] == "measured"]
    if not top_mem and not measured_c and not any(p.get("verified") for p in result.get("points", [])):
        raise UserError("nothing to plot: the results hold no measured roof and no verified point")
    fig, ax = plt.subplots(figsize=(13, 7), dpi=110)
    xlim, ylim = _limits(roofs, result.get("points", []))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    peak = max((r["macs_per_s"] for r in measured_c), default=ylim[1])
    labels = []
    for r in roofs:
        if r["kind"] == "memory":
            labels.append(_draw_memory(ax, r, peak, xlim))
    for r in roofs:
        if r["kind"] == "compute":
            labels.append(_draw_compute(ax, r, top_mem, xlim))
    _place_labels(ax, [lb for lb in labels if lb], ylim)
    if top_mem:
        for r in measured_c:
            oi = r["macs_per_s"] / top_mem["bytes_per_s"]
            ax.plot([oi], [r["macs_per_s"]], "o", color=EMITTER_COLORS.get(r["emitter"], "#555"), ms=5, zorder=4)
    point_labels = _draw_points(ax, result.get("points", []))
    with_points = bool(point_labels)
    board = result.get("board", {})
    ax.set_title(title or _title(board), fontsize=11)
    ax.set_xlabel("operational intensity (MACC / byte)")
    ax.set_ylabel("attainable performance (MACC / s)")
    ax.grid(True, which="major", alpha=0.3)
    ax.grid(True, which="minor", alpha=0.08)
    if with_points:  # the key of layer numbers takes the right margin's top, the legend its bottom
        ax.legend(loc="lower left", bbox_to_anchor=(1.01, 0.0), fontsize=6, ncol=1, framealpha=0.9)
    else:
        ax.legend(loc="lower right", fontsize=7, ncol=2, framealpha=0.9)
    fig.tight_layout()
    if with_points:
        fig.subplots_adjust(right=0.78)
        _label_points(ax, point_labels)  # after the layout: placement works in display space
    return save(fig, path)


def save(fig, path: Path) -> Path:
    """Write the figure (format from the suffix) and free it; a one-line error if it cannot."""
    try:
        fig.savefig(path)
    except (OSError, ValueError) as e:
        raise UserError(f"{path}: cannot write the plot ({e})") from None
    finally:
        plt.close(fig)
    return path


def _title(board: dict) -> str:
    parts = [f"Empirical roofline: {board.get('name', '?')}", board.get("firmware") or ""]
    if board.get("icount_shift") is not None:
        parts.append(f"QEMU -icount shift={board['icount_shift']}")
    return " | ".join(p for p in parts if p)


def _limits(roofs: list[dict], points: list[dict]):
    mems = [r["bytes_per_s"] for r in roofs if r["kind"] == "memory"]
    comps = [r["macs_per_s"] for r in roofs if r["kind"] == "compute"]
    ridges = [c / m for c in comps for m in mems] or [1.0]
    ois = [p["oi"] for p in points if p.get("oi")] + ridges
    xmin = 10 ** math.floor(math.log10(min(ois) / 10))
    # room right of the layer points for the ceilings' labels, which end at the right edge
    xmax = 10 ** math.ceil(math.log10(max([o * 10 for o in ois] + [p["oi"] * 300 for p in points if p.get("oi")])))
    ys = comps + [m * xmin for m in mems] + [p["macs_per_s"] for p in points if p.get("macs_per_s")]
    ymin = 10 ** math.floor(math.log10(min(ys) / 3))
    top = max(comps) if comps else max(mems) * xmax if mems else max(ys)  # memory roofs rise to the right edge
    ymax = 10 ** math.ceil(math.log10(top * 3))
    return (xmin, xmax), (ymin, ymax)


def _memory_style(r: dict):
    if r["source"] != "measured":
        return dict(color="#7f7f7f", ls="--", lw=1.2)
    if r.get("role") == "roof":
        return dict(color=LEVEL_COLORS[min(r.get("level", 1) - 1, len(LEVEL_COLORS) - 1)], ls="-", lw=2.6)
    if r.get("role") == "region":  # a region read (regions suite): its own colour, dash-dot-dot
        return dict(color=REGION_COLORS.get(r.get("region"), "#7b4173"), ls=(0, (8, 2, 1, 2, 1, 2)), lw=1.8)
    return dict(color=EMITTER_COLORS.get(r["emitter"], "#555"), ls="-.", lw=1.3)


def _draw_memory(ax, r: dict, peak: float, xlim):
    bw = r["bytes_per_s"]
    x_end = min(peak / bw, xlim[1])
    name = _label(r)
    ax.plot([xlim[0], x_end], [bw * xlim[0], bw * x_end], label=name, **_memory_style(r))
    x_lab = xlim[0] * 1.6
    return (x_lab, bw * x_lab, name, _memory_style(r)["color"], "left", bw)


def _draw_compute(ax, r: dict, top_mem: dict | None, xlim):
    y = r["macs_per_s"]
    x0 = y / top_mem["bytes_per_s"] if top_mem else xlim[0]
    style = dict(color=EMITTER_COLORS.get(r["emitter"], "#555"), ls=DTYPE_STYLES.get(r["dtype"], "-"),
                 lw=2.2 if r.get("role") == "roof" else 1.4)
    if r["source"] != "measured":
        style.update(color="#7f7f7f", ls="--", lw=1.2)
    name = _label(r)
    ax.plot([max(x0, xlim[0]), xlim[1]], [y, y], label=name, **style)
    return (xlim[1] / 1.15, y, name, style["color"], "right", None)


def _label(r: dict) -> str:
    value = si(r["bytes_per_s"], "B/s") if r["kind"] == "memory" else si(r["macs_per_s"], "MACC/s")
    tag = "" if r["source"] == "measured" else " (theory)"
    return f"{r['name']}{tag}: {value}"


LABEL_PT = 7  # label font size (points); a label's slot is its line height


def _place_labels(ax, labels, ylim):
    """Every roof gets its label, none overlaps another or leaves the axes: compute labels on
    the right edge, memory labels on the left, each as close as it can be to just above its own
    line (least-squares positions under a minimum spacing, found by pool-adjacent-violators);
    a label pushed away from its line is tied to it by a thin leader line."""
    lo_y, hi_y = math.log10(ylim[0]), math.log10(ylim[1])
    span = hi_y - lo_y
    fig = ax.figure
    axes_px = ax.get_position().height * fig.get_figheight() * fig.dpi
    slot = span * (LABEL_PT * fig.dpi / 72 * 1.35) / axes_px  # one text line, in decades
    for side in ("right", "left"):
        group = sorted([lb for lb in labels if lb[4] == side], key=lambda lb: lb[1])
        if not group:
            continue
        gap = min(slot, span / (len(group) + 0.5))
        size = LABEL_PT * min(1.0, gap / slot)
        want = [math.log10(lb[1]) + gap * 0.55 for lb in group]
        for (x, y, text, color, ha, _), ly in zip(group, spread(want, gap, lo_y + gap / 2, hi_y - gap / 2)):
            moved = abs(ly - math.log10(y) - gap * 0.55) > gap * 0.6
            # the leader ends on the line just outside the text's end, in the margin beside the labels
            tip = x * 1.1 if ha == "right" else x / 1.25
            ax.annotate(text, xy=(tip, y), xytext=(x, 10 ** ly), color=color, fontsize=size, ha=ha, va="center",
                        bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.75), zorder=4,
                        arrowprops=dict(arrowstyle="-", color=color, lw=0.6, alpha=0.8) if moved else None)


def spread(want: list[float], gap: float, lo: float, hi: float) -> list[float]:
    """Positions closest to `want` (sorted ascending) in the least-squares sense with every two
    at least `gap` apart, then kept within [lo, hi] (assumes len(want) * gap fits)."""
    blocks: list[list[float]] = []  # [sum, count] of z = want[i] - i * gap, merged while decreasing
    for i, w in enumerate(want):
        blocks.append([w - i * gap, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    q = [b[0] / b[1] for b in blocks for _ in range(b[1])]
    pos = [qi + i * gap for i, qi in enumerate(q)]
    n = len(pos)
    pos = [max(p, lo + i * gap) for i, p in enumerate(pos)]
    return [min(p, hi - (n - 1 - i) * gap) for i, p in enumerate(pos)]


DTYPE_MARKERS = {"int8": "s", "float32": "o"}


def _draw_points(ax, points: list[dict]) -> list[tuple]:
    """Verified layer points: colour by emitter, marker by type, with a key of the layer numbers
    beside the plot. A point above its roof is drawn as a big red X with a legend entry of its
    own. Returns the number labels to place, (oi, MACC/s, text, colour): points that coincide
    share one."""
    shown = [p for p in points if p.get("verified") and p.get("oi") and p.get("macs_per_s")]
    groups: dict[tuple, list[dict]] = {}
    for p in shown:
        above = p.get("above_roof")
        color = "#d62728" if above else EMITTER_COLORS.get(p.get("emitter"), "#555555")
        ax.plot([p["oi"]], [p["macs_per_s"]], "X" if above else DTYPE_MARKERS.get(p.get("dtype"), "D"),
                color=color, ms=8 if above else 5, zorder=5, mec="black", mew=0.4)
        spot = (round(math.log10(p["oi"]) * 20), round(math.log10(p["macs_per_s"]) * 20), color)
        groups.setdefault(spot, []).append(p)
    labels = [(pts[0]["oi"], pts[0]["macs_per_s"], ",".join(str(i) for i in sorted({p["index"] for p in pts})), color)
              for (_, _, color), pts in groups.items()]
    for dtype, marker in DTYPE_MARKERS.items():
        for em in sorted({p["emitter"] for p in shown if p.get("dtype") == dtype}):
            ax.plot([], [], marker, color=EMITTER_COLORS.get(em, "#555555"), mec="black", mew=0.4,
                    label=f"layers: {em} {dtype}")
    if any(p.get("above_roof") for p in shown):
        ax.plot([], [], "X", color="#d62728", ms=8, mec="black", mew=0.4,
                label="layer ABOVE its roof: an accounting error")
    names = {p["index"]: (p["op"], p["name"]) for p in shown}
    if names:
        key = "\n".join(f"{i:>3} {op[:14]:<14} {_short(n)}" for i, (op, n) in sorted(names.items()))
        ax.text(1.01, 1.0, "layers\n" + key, transform=ax.transAxes, fontsize=5.5, va="top", ha="left",
                family="monospace")
    return labels


# where a point's number may go, in points from the marker: beside it first, then further out
LABEL_OFFSETS = [(4, 2), (4, -9), (-4, 2), (-4, -9), (4, 9), (-4, 9), (4, -16), (-4, -16),
                 (12, 16), (-12, 16), (12, -23), (-12, -23), (20, 2), (-20, 2)]


def _label_points(ax, labels: list[tuple]) -> None:
    """Each number at the first offset where it overlaps no other text (roof labels included),
    no marker and stays inside the axes; where none is free, at the least crowded one."""
    renderer = ax.figure.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    taken = [t.get_window_extent(renderer) for t in ax.texts]
    for line in ax.lines:  # markers of the points (lines with one vertex)
        xy = line.get_xydata()
        if len(xy) == 1 and line.get_marker() not in ("None", None, ""):
            x, y = ax.transData.transform(xy[0])
            taken.append(Bbox.from_bounds(x - 3, y - 3, 6, 6))
    for oi, y, text, color in sorted(labels, key=lambda lb: (lb[0], lb[1])):
        best = None
        for dx, dy in LABEL_OFFSETS:
            t = ax.annotate(text, (oi, y), textcoords="offset points", xytext=(dx, dy), fontsize=6,
                            color=color, zorder=6, ha="left" if dx > 0 else "right")
            box = t.get_window_extent(renderer)
            crowd = sum(box.overlaps(o) for o in taken) + (0 if frame.contains(box.x0, box.y0)
                                                             and frame.contains(box.x1, box.y1) else 100)
            if best is None or crowd < best[0]:
                if best:
                    best[1].remove()
                best = (crowd, t, box)
            else:
                t.remove()
            if crowd == 0:
                break
        taken.append(best[2])


def _short(name: str, width: int = 18) -> str:
    """A layer name's tail: tflite names are paths such as functional_1/activation_3/Relu."""
    return name if len(name) <= width else "…" + name[-(width - 1):]
