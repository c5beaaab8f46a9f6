"""Advice said once: runs whose advice differs only in its numbers share one line, the numbers
given as a range and the runs named compactly ("bytecode 0-3, 5; native 7"). Every number that
varies across a line's runs is a figure of the layer table (its headroom, "vs fastest"), so the
merge loses none. Pure: texts from points."""

from __future__ import annotations

import re

from mcuroof.analysis.records import Point

# a number standing alone in an advice text (2.85x, 79%, 987x), not part of a name (int8, SXTB16)
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?=x\b|%|[^\w.]|$)")


def merged(points: list[Point]) -> list[tuple[str, str, list[Point]]]:
    """(advice kind, text with its numbers as ranges, the runs) per distinct advice, in the order
    of each one's first run."""
    groups: dict[str, list[tuple[Point, list[str]]]] = {}
    for p in points:
        text = p.advice or ""
        if text:
            groups.setdefault(NUMBER.sub("#", text), []).append((p, NUMBER.findall(text)))
    out = []
    for template, runs in groups.items():
        text = template
        for values in zip(*(nums for _, nums in runs)):
            text = text.replace("#", number_span(values), 1)
        out.append((runs[0][0].advice_kind or "-", text, [p for p, _ in runs]))
    return out


def ids(points: list[Point]) -> dict[int, int]:
    """id(point) -> the number of its advice among merged(points) (1-based, in the same order)."""
    return {id(p): i for i, (_, _, runs) in enumerate(merged(points), 1) for p in runs}


def number_span(values: tuple[str, ...]) -> str:
    nums = sorted(set(values), key=float)
    return nums[0] if len(nums) == 1 else f"{nums[0]}-{nums[-1]}"


def runs_text(points: list[Point]) -> str:
    """The runs of a line by emitter, their layers as index ranges: "bytecode 0-3, 5; viper 9"."""
    by_em: dict[str, list[int]] = {}
    for p in points:
        by_em.setdefault(p.emitter, []).append(p.index)
    return "; ".join(f"{em} {index_ranges(ix)}" for em, ix in by_em.items())


def index_ranges(indices: list[int]) -> str:
    """Layer indices as ranges of consecutive ones: [0, 1, 2, 5] -> "0-2, 5"."""
    ix = sorted(set(indices))
    spans, start = [], None
    for i, v in enumerate(ix):
        start = v if start is None else start
        if i + 1 == len(ix) or ix[i + 1] != v + 1:
            spans.append(str(start) if start == v else f"{start}-{v}")
            start = None
    return ", ".join(spans)


def layer_names_text(points: list[Point]) -> str:
    """The runs of a line by their layers' short names ("CONV 0, DW 1") and emitters."""
    who = ", ".join(dict.fromkeys(p.short_name for p in points))
    ems = ", ".join(dict.fromkeys(p.emitter for p in points))
    return f"{who}; {ems}"


def fastest_peer(p: Point, points: list[Point]) -> tuple[str, float] | None:
    """The emitter that ran this layer at this type in the least time, and how many times less
    (None where this run is the fastest, or has no time)."""
    same = [
        q
        for q in points
        if q.index == p.index and q.dtype == p.dtype and q.emitter != p.emitter and q.verified and q.seconds
    ]
    best = min(same, key=lambda q: q.seconds, default=None)
    if not best or not p.seconds or best.seconds >= p.seconds:
        return None
    return best.emitter, p.seconds / best.seconds
