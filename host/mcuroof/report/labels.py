"""The roofline plot's labels: the text that names a roof or a group of roofs, and where the labels
go. Roof labels sit on the axes' edges (compute on the right, memory on the left) as close as they
can to their lines, none overlapping (least-squares positions under a minimum spacing: `spread`);
point numbers sit beside their markers at the first free offset. Works on a drawn matplotlib Axes
(the lines plot.draw_line left in `ax.mcuroof_labels`, the numbers in `ax.mcuroof_numbers`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from matplotlib.transforms import Bbox

from mcuroof.analysis.records import Roof
from mcuroof.report.styles import DTYPE_STYLES
from mcuroof.units import si

LABEL_PT = 7.5  # roof label font size (points); a label's slot is its line height


@dataclass
class Line:
    """One drawn roof segment: a memory slope (bytes/s, from the left edge up to x_end) or a
    compute flat (MACC/s, from x_start to the right edge); `roofs` are the results' roofs it
    stands for (a label names them all)."""

    kind: str
    value: float
    bend: float | None
    style: dict
    roofs: list = field(default_factory=list)
    tag: str = ""  # the run's letter on a comparison plot


def roof_label(r: Roof) -> str:
    value = si(r.bytes_per_s, "B/s") if r.kind == "memory" else si(r.macs_per_s, "MACC/s")
    tag = "" if r.source == "measured" else " (theory)"
    return f"{r.name}{tag}: {value}"


def group_label(roofs: list[Roof]) -> str:
    """One label for roofs drawn closer than a label's height: names that differ in one word
    share the rest ("int8/int16 asm_thumb"), values that share a unit share it."""
    if len(roofs) == 1:
        return roof_label(roofs[0])
    words = [r.name.split() for r in roofs]
    sources = {r.source == "measured" for r in roofs}
    if len({len(w) for w in words}) == 1 and len(sources) == 1:
        diff = [i for i in range(len(words[0])) if len({w[i] for w in words}) > 1]
        if not diff:
            return f"{roofs[0].name}{'' if True in sources else ' (theory)'}: {_values(roofs)}"
        if len(diff) == 1:
            i = diff[0]
            name = " ".join(words[0][:i] + ["/".join(dict.fromkeys(w[i] for w in words))] + words[0][i + 1 :])
            return f"{name}{'' if True in sources else ' (theory)'}: {_values(roofs)}"
    return _by_kernel(roofs)


def _by_kernel(roofs: list[Roof]) -> str:
    """Roofs of several kernels at one height: each kernel's element types joined, then the value
    once where they share it ("int8/int16/int32 asm_thumb mla, float32 asm_thumb vfma: 14.7 MMACC/s")."""
    kernels: dict[tuple, list[Roof]] = {}
    for r in roofs:
        kernels.setdefault((r.source, tuple(r.name.split()[1:])), []).append(r)
    if len(kernels) == len(roofs):
        return "; ".join(roof_label(r) for r in roofs)
    values = {roof_label(r).rsplit(": ", 1)[1] for r in roofs}
    if len(values) > 1 or len({r.source for r in roofs}) > 1:
        return "; ".join(group_label(g) for g in kernels.values())
    names = [group_label(g).rsplit(": ", 1)[0] for g in kernels.values()]
    return f"{', '.join(names)}: {values.pop()}"


def _values(roofs: list[Roof]) -> str:
    texts = [roof_label(r).rsplit(": ", 1)[1] for r in roofs]
    units = {t.split(" ", 1)[1] for t in texts}
    if len(set(texts)) == 1:
        return texts[0]
    if len(units) == 1:
        return "/".join(dict.fromkeys(t.split(" ", 1)[0] for t in texts)) + " " + units.pop()
    return "/".join(texts)


def place_labels(ax) -> None:
    """Every line gets its label once, none overlaps another or leaves the axes: compute labels
    on the right edge, memory labels on the left, each as close as it can be to just above its
    own line (least-squares positions under a minimum spacing); lines closer than a label's
    height share one label; a label pushed away from its line is tied to it by a leader."""
    lines = getattr(ax, "mcuroof_labels", [])
    xlim, ylim = ax.get_xlim(), ax.get_ylim()
    lo_y, hi_y = math.log10(ylim[0]), math.log10(ylim[1])
    span = hi_y - lo_y
    fig = ax.figure
    axes_px = ax.get_position().height * fig.get_figheight() * fig.dpi
    slot = span * (LABEL_PT * fig.dpi / 72 * 1.3) / axes_px  # one text line, in decades
    cx, cha = _compute_side(ax, lines, slot)
    for kind, x, ha in (("compute", cx, cha), ("memory", xlim[0] * 1.12, "left")):
        ys = [(math.log10(ln.value * (x if kind == "memory" else 1)), ln) for ln in lines if ln.kind == kind]
        ys = [(y, ln) for y, ln in ys if lo_y <= y <= hi_y]
        groups = [part for g in _group(sorted(ys, key=lambda t: t[0]), slot) for part in _by_run(g)]
        if not groups:
            continue
        gap = min(slot, span / (len(groups) + 0.5))
        size = LABEL_PT * min(1.0, gap / slot)
        want = [g[0][0] + gap * 0.55 for g in groups]
        for g, ly in zip(groups, spread(want, gap, lo_y + gap / 2, hi_y - gap / 2)):
            g = sorted(g, key=lambda t: (t[1].tag, [_roof_order(r) for r in t[1].roofs]))
            named = [r for _, ln in g for r in ln.roofs]
            y, roofs = g[0][0], _distinct(named)
            colors = {ln.style["color"] for _, ln in g}
            color = colors.pop() if len(colors) == 1 else "#333333"
            moved = abs(ly - y - gap * 0.55) > gap * 0.6
            tip = x * 1.1 if ha == "right" else x / 1.1
            tags = "/".join(dict.fromkeys(ln.tag for _, ln in g if ln.tag))
            text = f"{tags} {group_label(roofs)}" if tags else group_label(roofs)
            t = ax.annotate(
                text,
                xy=(tip, 10**y),
                xytext=(x, 10**ly),
                color=color,
                fontsize=size,
                ha=ha,
                va="center",
                zorder=6,
                bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.65),
                arrowprops=dict(arrowstyle="-", color=color, lw=0.6, alpha=0.8) if moved else None,
            )
            t.mcuroof_roofs = named


def _compute_side(ax, lines: list[Line], slot: float) -> tuple[float, str]:
    """Where the compute labels go: at the right edge (ha "right", as before), or left-aligned at
    the first place right of the last ridge (in quarter decades) where fewer layer points lie
    under the labels, which sit just above their lines."""
    xlim, fig = ax.get_xlim(), ax.figure
    right = (xlim[1] / 1.12, "right")
    comps = [ln for ln in lines if ln.kind == "compute"]
    bends = [ln.bend for ln in comps if ln.bend and xlim[0] < ln.bend < xlim[1]]
    if not comps or not bends:
        return right
    chars = max(len(group_label(ln.roofs)) + len(ln.tag or "") + 1 for ln in comps)
    axes_px = ax.get_position().width * fig.get_figwidth() * fig.dpi
    wide = math.log10(xlim[1] / xlim[0]) * chars * 0.6 * LABEL_PT * fig.dpi / 72 / axes_px  # decades
    pts = [(math.log10(x), math.log10(y)) for c in ax.collections for x, y in c.get_offsets() if x > 0 and y > 0]
    levels = [math.log10(ln.value) for ln in comps]

    def under(x0: float) -> int:
        return sum(x0 <= x <= x0 + wide and any(-0.2 * slot <= y - y0 <= 1.6 * slot for y0 in levels) for x, y in pts)

    best, hits = right, under(math.log10(right[0]) - wide)
    x0 = math.log10(max(bends) * 1.12)
    while x0 + wide < math.log10(xlim[1]) and hits:
        if under(x0) < hits:
            best, hits = (10**x0, "left"), under(x0)
        x0 += 0.25
    return best


def _distinct(roofs: list[dict]) -> list[dict]:
    """Roofs of several runs that read the same (name and value as shown) are named once."""
    seen: dict[str, Roof] = {}
    for r in roofs:
        seen.setdefault(roof_label(r), r)
    return list(seen.values())


def _roof_order(r: Roof) -> tuple:
    dtypes = list(DTYPE_STYLES)
    return (
        r.source != "measured",
        str(r.emitter),
        dtypes.index(r.dtype) if r.dtype in dtypes else len(dtypes),
        r.name,
    )


def _group(items: list[tuple[float, Line]], slot: float) -> list[list[tuple[float, Line]]]:
    """Consecutive lines (sorted by height) closer than one label slot form one group when one
    label can name them all: the same emitter's measured roofs, or theoretical ones."""
    groups: list[list] = []
    for y, ln in items:
        if groups and y - groups[-1][0][0] < slot and _family(groups[-1][0][1]) == _family(ln):
            groups[-1].append((y, ln))
        else:
            groups.append([(y, ln)])
    return groups


def _by_run(group: list[tuple[float, Line]]) -> list[list[tuple[float, Line]]]:
    """A group of several runs' lines shares one label only where every run's lines read the
    same; otherwise each run gets its own label."""
    runs: dict[str, list] = {}
    for item in group:
        runs.setdefault(item[1].tag, []).append(item)
    texts = {tag: sorted(roof_label(r) for _, ln in items for r in ln.roofs) for tag, items in runs.items()}
    if len(runs) == 1 or len({tuple(t) for t in texts.values()}) == 1:
        return [group]
    return list(runs.values())


def _family(ln: Line) -> tuple:
    r = ln.roofs[0]
    return ("measured", r.emitter, r.role == "region") if r.measured else ("theory",)


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


# where a point's number may go, in points from the marker: beside it first, then further out
LABEL_OFFSETS = [
    (4, 2),
    (4, -9),
    (-4, 2),
    (-4, -9),
    (4, 9),
    (-4, 9),
    (4, -16),
    (-4, -16),
    (12, 16),
    (-12, 16),
    (12, -23),
    (-12, -23),
    (20, 2),
    (-20, 2),
    (4, 16),
    (-4, 16),
    (20, -9),
    (-20, -9),
    (12, -30),
    (-12, -30),
    (12, 23),
    (-12, 23),
]


def place_point_labels(ax) -> None:
    """Each number at the first offset where it overlaps no other text (roof labels included),
    no marker and stays inside the axes; where none is free, at the least crowded one."""
    labels = getattr(ax, "mcuroof_numbers", [])
    if not labels:
        return
    renderer = ax.figure.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    taken = [t.get_window_extent(renderer) for t in ax.texts]
    legend = ax.get_legend()
    if legend:
        taken.append(legend.get_window_extent(renderer))
    for coll in ax.collections:  # the point markers
        for x, y in ax.transData.transform(coll.get_offsets()):
            taken.append(Bbox.from_bounds(x - 3, y - 3, 6, 6))
    for oi, y, text, color in sorted(labels, key=lambda lb: (lb[0], lb[1])):
        best = None
        for dx, dy in LABEL_OFFSETS:
            t = ax.annotate(
                text,
                (oi, y),
                textcoords="offset points",
                xytext=(dx, dy),
                fontsize=6.5,
                color=color,
                zorder=6,
                ha="left" if dx > 0 else "right",
            )
            box = t.get_window_extent(renderer)
            crowd = sum(box.overlaps(o) for o in taken) + (
                0 if frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1) else 100
            )
            if best is None or crowd < best[0]:
                if best:
                    best[1].remove()
                best = (crowd, t, box)
            else:
                t.remove()
            if crowd == 0:
                break
        taken.append(best[2])
