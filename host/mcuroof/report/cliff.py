"""The cache cliff: bandwidth against working set from the recorded sweeps (one line per emitter,
kernel and type), the detected memory levels shaded, the known cache sizes marked, and the C memcpy
reference (unix port):
the performance cliff when data leaves a faster memory."""

from __future__ import annotations

import textwrap
from pathlib import Path

from mcuroof.analysis import records, timing_basis
from mcuroof.errors import UserError
from mcuroof.units import si

KERNEL_STYLES = {
    "copy": "-",
    "scale": "--",
    "add": "-.",
    "triad": ":",
    "copy4": (0, (5, 1)),
    "copy4x": (0, (5, 1)),
    "copy-ldm": (0, (3, 1)),
    "slice": "-",
}


def series(result: dict) -> list[dict]:
    """One line per emitter and kernel ({label, emitter, kernel, dtypes, bytes, bytes_per_s}: the
    best over its element types at each working set), then the reference."""
    best: dict[tuple, dict[int, float]] = {}
    dtypes: dict[tuple, list] = {}
    for s in result.get("sweeps") or []:
        key = (s["emitter"], s["kernel"])
        dtypes.setdefault(key, []).append(s["dtype"])
        by_ws = best.setdefault(key, {})
        for ws, bw in s.get("points") or []:
            by_ws[ws] = max(by_ws.get(ws, 0.0), bw)
    out = [
        {
            "label": f"{em} {k}",
            "emitter": em,
            "kernel": k,
            "dtypes": dtypes[(em, k)],
            "bytes": sorted(by_ws),
            "bytes_per_s": [by_ws[ws] for ws in sorted(by_ws)],
        }
        for (em, k), by_ws in best.items()
        if by_ws
    ]
    ref = result.get("reference") or {}
    pts = sorted(ref.get("points") or [], key=lambda p: p["bytes"])
    if pts:
        out.append(
            {
                "label": "C memcpy reference (host)",
                "emitter": "reference",
                "kernel": "memcpy",
                "dtypes": [],
                "bytes": [p["bytes"] for p in pts],
                "bytes_per_s": [p["bytes_per_s"] for p in pts],
            }
        )
    return out


def levels(result: dict) -> list[dict]:
    """The memory roof's detected levels to shade: name, working-set range (bytes) and bandwidth.
    None where the sweep found one level and the board knows no cache (cacheless QEMU): a lone
    level is no cliff, and shading it would suggest a cache that is not there."""
    found = [
        {"name": r.name, "lo": r.ws_range[0], "hi": r.ws_range[1], "bytes_per_s": r.bytes_per_s}
        for r in records.roofs(result)
        if r.kind == "memory" and r.role == "roof" and r.measured and r.ws_range
    ]
    return found if len(found) > 1 or known_sizes(result) else []


def heading(result: dict) -> tuple[str, str | None]:
    """The panel's title, and a note where the board has no cache to fall off: "Cache cliff" only
    where there is one (known cache sizes, or more than one level found)."""
    if known_sizes(result) or len(levels(result)) > 1:
        return "Cache cliff: bandwidth against working set", None
    emulated = timing_basis.of(result.get("board") or {}).kind == timing_basis.INSTRUCTIONS
    why = "QEMU models no cache" if emulated else "the sweep found one memory level and the board names no cache"
    return "Bandwidth against working set", (
        f"no cache cliff here ({why}): a rate that rises with the working set comes from the kernel's fixed costs "
        "per call (the call, loop set-up, an unrolled loop's remainder) spread over more bytes, not from a cache"
    )


def known_sizes(result: dict) -> list[dict]:
    """The cache sizes the levels were named after (board.caches: the host's from sysfs, or the
    profile's): [{"name", "bytes"}], smallest first; what lies past the last cache has no size."""
    return [
        {"name": c["name"], "bytes": c["bytes"]} for c in result.get("board", {}).get("caches") or [] if c.get("bytes")
    ]


def binary(n: float) -> str:
    """A size in B, KiB, MiB or GiB: 64 KiB."""
    for scale, unit in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if n >= scale:
            return f"{n / scale:g} {unit}"
    return f"{n:g} B"


def draw(result: dict, path: Path) -> Path:
    from mcuroof.report import plot

    lines = series(result)
    if not lines:
        raise UserError("no cache cliff to draw: the results hold no memory sweep (run the memory suite)")
    fig, ax = plot.plt.subplots(figsize=(11, 6.5), dpi=110)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    for i, lv in enumerate(levels(result)):
        ax.axvspan(
            lv["lo"] / 1.1, lv["hi"] * 1.1, color=plot.LEVEL_COLORS[i % len(plot.LEVEL_COLORS)], alpha=0.12, lw=0
        )
        ax.text(
            (lv["lo"] * lv["hi"]) ** 0.5,
            1.0,
            f"{lv['name']}\n{si(lv['bytes_per_s'], 'B/s')}",
            transform=ax.get_xaxis_transform(),
            ha="center",
            va="bottom",
            fontsize=7.5,
            color="#08306b",
        )
    for c in known_sizes(result):
        ax.axvline(c["bytes"], color="#444", ls=(0, (4, 3)), lw=0.9)
        ax.text(
            c["bytes"],
            0.02,
            f" {c['name']} {binary(c['bytes'])}",
            transform=ax.get_xaxis_transform(),
            rotation=90,
            ha="right",
            va="bottom",
            fontsize=7.5,
            color="#444",
        )
    for s in lines:
        ref = s["emitter"] == "reference"
        ax.plot(
            s["bytes"],
            s["bytes_per_s"],
            color="black" if ref else plot.EMITTER_COLORS.get(s["emitter"], "#555"),
            ls=(0, (1, 1)) if ref else KERNEL_STYLES.get(s["kernel"], "-"),
            lw=2 if ref else 1.2,
            marker=None if ref else "o",
            ms=2.5,
            label=s["label"],
        )
    ax.xaxis.set_major_formatter(plot.matplotlib.ticker.FuncFormatter(lambda v, _: binary(v)))
    ax.yaxis.set_major_formatter(plot.matplotlib.ticker.FuncFormatter(lambda v, _: si(v, "B/s")))
    ax.set_xlabel("working set (bytes)")
    ax.set_ylabel("bandwidth (bytes / s)")
    plot.step_axis(ax, timing_basis.of(result.get("board", {})), "B")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(
        loc="upper left",
        bbox_to_anchor=(1.1, 1.0),
        fontsize=7.5,
        title="emitter kernel (best type)",
        title_fontsize=7.5,
    )
    board = result.get("board", {})
    head, note = heading(result)
    title = f"{head.split(':')[0]}: {board.get('name', '?')} | {board.get('firmware', '')}\n{timing_basis.of(board).sentence}"
    ax.set_title(title, fontsize=10, pad=24)
    if note:
        fig.text(0.01, 0.01, textwrap.fill(note, 150), fontsize=7.5, color="#444", va="bottom")
    fig.tight_layout(rect=(0, 0.05 if note else 0, 1, 1))
    return plot.save(fig, path)
