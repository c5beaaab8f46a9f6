"""The roofline plot: log-log, x = MACC/byte, y = MACC/s; roofs, ridges and layer points."""
from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import roofs as roofs_mod  # noqa: E402
from .errors import UserError  # noqa: E402
from .units import si  # noqa: E402

EMITTER_COLORS = {"c": "#1f3b73", "asm_thumb": "#d62728", "viper": "#9467bd", "native": "#2ca02c",
                  "bytecode": "#ff7f0e", None: "#555555"}
DTYPE_STYLES = {"int8": "-", "int16": (0, (6, 2)), "int32": (0, (3, 1, 1, 1)), "float32": ":"}
LEVEL_COLORS = ["#08306b", "#2171b5", "#6baed6", "#9ecae1", "#c6dbef"]


def draw(result: dict, path: Path, title: str | None = None) -> Path:
    roofs = result["roofs"]
    top_mem = roofs_mod.top_memory(roofs)
    measured_c = [r for r in roofs if r["kind"] == "compute" and r["source"] == "measured"]
    if not top_mem and not measured_c:
        raise UserError("nothing to plot: the results hold no measured roof")
    fig, ax = plt.subplots(figsize=(11, 7), dpi=110)
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
    _draw_points(ax, result.get("points", []))
    board = result.get("board", {})
    ax.set_title(title or _title(board), fontsize=11)
    ax.set_xlabel("operational intensity (MACC / byte)")
    ax.set_ylabel("attainable performance (MACC / s)")
    ax.grid(True, which="major", alpha=0.3)
    ax.grid(True, which="minor", alpha=0.08)
    ax.legend(loc="lower right", fontsize=7, ncol=2, framealpha=0.9)
    fig.tight_layout()
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
    xmax = 10 ** math.ceil(math.log10(max(ois) * 10))
    ys = comps + [m * xmin for m in mems] + [p["macs_per_s"] for p in points if p.get("macs_per_s")]
    ymin = 10 ** math.floor(math.log10(min(ys) / 3))
    top = max(comps) if comps else max(mems) * xmax  # memory roofs alone rise to the right edge
    ymax = 10 ** math.ceil(math.log10(top * 3))
    return (xmin, xmax), (ymin, ymax)


def _memory_style(r: dict):
    if r["source"] != "measured":
        return dict(color="#7f7f7f", ls="--", lw=1.2)
    if r.get("role") == "roof":
        return dict(color=LEVEL_COLORS[min(r.get("level", 1) - 1, len(LEVEL_COLORS) - 1)], ls="-", lw=2.6)
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


def _place_labels(ax, labels, ylim):
    """Labels sit just above their line, spread downwards from the top so that no two overlap
    and none leaves the axes: compute labels on the right edge, memory labels on the left."""
    span = math.log10(ylim[1] / ylim[0])
    gap = span * 0.032
    for side in ("right", "left"):
        group = sorted([lb for lb in labels if lb[4] == side], key=lambda lb: -lb[1])
        last = math.log10(ylim[1]) - gap * 0.2
        for x, y, text, color, ha, _ in group:
            ly = min(math.log10(y) + gap * 0.15, last - gap)
            last = ly
            ax.text(x, 10 ** ly, text, color=color, fontsize=7, ha=ha, va="bottom",
                    bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.7))


def _draw_points(ax, points: list[dict]):
    shown = [p for p in points if p.get("verified") and p.get("oi") and p.get("macs_per_s")]
    for i, p in enumerate(shown, 1):
        color = "#d62728" if p.get("above_roof") else ("#1f77b4" if p.get("bound") == "memory" else "#2ca02c")
        ax.plot([p["oi"]], [p["macs_per_s"]], "s", color=color, ms=5, zorder=5)
        ax.annotate(str(p.get("index", i)), (p["oi"], p["macs_per_s"]), textcoords="offset points",
                    xytext=(3, 3), fontsize=6, color=color)
