"""The stacked roofline of an npu.json: each NPU configuration's theoretical roofs (from Vela's
system config) with Vela's per-operator points, above the CPU's measured roofs and points.

x = MAC/byte, y = MAC/s, log-log. NPU points are estimates (Vela 5.2) and are drawn hollow;
measured CPU points are filled. The NPU's time counts its cycles, QEMU's counts instructions:
the title and the footnote say which line counts what.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

from mcuroof.report import plot as base
from mcuroof.report import reference_marks
from mcuroof.units import duration, si

plt = base.plt
CONFIG_COLORS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
MODEL_MARKERS = ["o", "s", "^", "D", "v", "P"]
CPU_COLOR = "#555555"
X_RANGE = (0.01, 1000.0)


def xs() -> list[float]:
    """The x values a roof is drawn through: 200 steps over X_RANGE, log-spaced."""
    lo, hi = X_RANGE
    return [lo * (hi / lo) ** (i / 200) for i in range(201)]


def _roof_line(ax, compute: float, bandwidth: float, color: str, style: str, label: str) -> None:
    x = xs()
    ax.plot(x, [min(compute, bandwidth * v) for v in x], color=color, linestyle=style, linewidth=1.4, label=label)


def _npu_roofs(ax, doc: dict, colors: dict) -> None:
    for config, color in colors.items():
        roofs = [r for r in doc["roofs"] if r["config"] == config]
        compute = max(r["macs_per_s"] for r in roofs if r["kind"] == "compute")
        mems = [r for r in roofs if r["kind"] == "memory"]
        for r, style in zip(mems, ("-", "--", "-.")):
            name = r["name"].split(" ", 1)[1]
            _roof_line(
                ax,
                compute,
                r["bytes_per_s"],
                color,
                style,
                f"{config} roof: {si(compute, 'MAC/s')}, {name} {si(r['bytes_per_s'], 'B/s')} (theory)",
            )
        if len(mems) > 1:  # the points' bound: every port at once
            total = sum(r["bytes_per_s"] for r in mems)
            _roof_line(
                ax,
                compute,
                total,
                color,
                ":",
                f"{config}: all memories at once, {si(total, 'B/s')} (the points' bound)",
            )


def cpu_roof(cpu: dict) -> tuple[float, float, str] | None:
    """The measured CPU run's top roof: compute, bandwidth and what it is; a run that measured no
    memory roof (e.g. --suite compute) gets its flat compute roof, said so (bandwidth infinite)."""
    comp = [r for r in cpu["roofs"] if r["kind"] == "compute"]
    mem = [r for r in cpu["roofs"] if r["kind"] == "memory"]
    if not comp:
        return None
    c = max(comp, key=lambda r: r["macs_per_s"])
    if not mem:
        return c["macs_per_s"], math.inf, f"{c['name']} {si(c['macs_per_s'], 'MAC/s')} (no memory roof measured)"
    m = max(mem, key=lambda r: r["bytes_per_s"])
    return (
        c["macs_per_s"],
        m["bytes_per_s"],
        f"{c['name']} {si(c['macs_per_s'], 'MAC/s')}, {m['name']} {si(m['bytes_per_s'], 'B/s')}",
    )


def _cpu_roofs(ax, cpu: dict) -> None:
    roof = cpu_roof(cpu)
    if roof:
        compute, bandwidth, what = roof
        _roof_line(ax, compute, bandwidth, CPU_COLOR, "-", f"{cpu['board']} measured roof: {what}")


def _points(ax, doc: dict, colors: dict, markers: dict) -> None:
    for p in doc["points"]:
        if not p.get("intensity") or not p["macs"]:
            continue
        color = colors[p["config"]] if p["target"] == "npu" else CPU_COLOR
        face = "none" if p["source"] == "vela" else color
        ax.scatter(
            p["intensity"],
            p["macs_per_s"],
            marker=markers[p["model"]],
            s=36,
            facecolors=face,
            edgecolors=color,
            zorder=3,
        )
    for p in doc["cpu_points"]:
        if p.get("oi") and p.get("macc") and p.get("macs_per_s"):
            ax.scatter(p["oi"], p["macs_per_s"], marker="x", s=30, color=CPU_COLOR, zorder=3)


def _reference(ax, doc: dict) -> None:
    """The best C engine of the CPU's core on each shown model's benchmark (MLPerf Tiny), drawn
    where the CPU run counts cycles (report.reference_marks: not on QEMU's instruction time)."""
    for m in reference_marks.npu_marks(doc):
        if m.macs_per_s is None:
            continue
        color = "#d62728" if m.flag else CPU_COLOR
        label = textwrap.fill(m.label + (f"; ABOVE THE CORE'S BOUND: {m.flag}" if m.flag else ""), 80)
        ax.axhline(m.macs_per_s, color=color, linestyle=(0, (1, 2)), linewidth=1.2, label=label)


def _key(ax, doc: dict, markers: dict) -> None:
    for model, marker in markers.items():
        ax.scatter(
            [],
            [],
            marker=marker,
            facecolors="none",
            edgecolors="black",
            label=f"{Path(model).stem}: Vela estimate per operator",
        )
    if doc["cpu_points"]:
        ax.scatter([], [], marker="x", color=CPU_COLOR, label=f"{doc['cpu']['board']}: measured layers")


def _footnote(doc: dict) -> str:
    lines = []
    for w in doc["whole_model"]:
        cpu = (
            "no CPU operators"
            if not w["cpu_operators"]
            else f"CPU {duration(w['cpu_seconds'])}"
            if w["cpu_seconds"] is not None
            else "CPU not measured"
        )
        total = duration(w["seconds"]) if w["seconds"] is not None else "-"
        lines.append(
            f"{Path(w['model']).stem} on {w['config']}: NPU {duration(w['npu_seconds'])} (estimated) + {cpu} = {total}"
        )
    note = reference_marks.note_for(doc["reference"]["core"], reference_marks.npu_marks(doc))
    return "\n".join(lines + textwrap.wrap(doc["units"], 180) + (note.splitlines() if note else []))


def figure(doc: dict):
    configs = list(dict.fromkeys(r["config"] for r in doc["roofs"]))
    colors = {c: CONFIG_COLORS[i % len(CONFIG_COLORS)] for i, c in enumerate(configs)}
    models = list(dict.fromkeys(r["model"] for r in doc["runs"]))
    markers = {m: MODEL_MARKERS[i % len(MODEL_MARKERS)] for i, m in enumerate(models)}
    fig, ax = plt.subplots(figsize=(15, 8.5))
    _npu_roofs(ax, doc, colors)
    if doc.get("cpu"):
        _cpu_roofs(ax, doc["cpu"])
    _points(ax, doc, colors, markers)
    _reference(ax, doc)
    _key(ax, doc, markers)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*X_RANGE)
    ax.set_xlabel("operational intensity (MAC/byte; NPU: Vela's access cycles per memory x its peak B/cycle)")
    cpu_unit = f"; CPU: {doc['cpu']['board']}'s time basis" if doc.get("cpu") else ""
    ax.set_ylabel(f"MAC/s (NPU: Vela's cycles at its clock{cpu_unit})")
    cpu = f" over {doc['cpu']['board']}'s measured CPU roofs" if doc.get("cpu") else ""
    ax.set_title(
        f"NPU roofs and operators{cpu}\nNPU points: {doc['estimated']} (hollow); measured CPU: filled / x", fontsize=10
    )
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.text(0.01, 0.01, _footnote(doc), fontsize=7, va="bottom", wrap=True)
    fig.subplots_adjust(bottom=0.2, left=0.07, right=0.66)
    return fig


def save(doc: dict, path: Path) -> Path:
    return base.save(figure(doc), path)
