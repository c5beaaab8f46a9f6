"""A prediction's interval where it extrapolates, and a whole model's. Pure computation.

Inside its family's shapes a layer's interval is the family's conformal quantile of held-out
errors (cost_model.Model.spread). Past them (Model.ratio: how far its MACs, channels or working
set lie beyond the shapes) that quantile says nothing, so the half-width grows with the log of
the ratio, at a slope calibrated on the board's own shapes: each family's largest shapes by
each extent are left out, predicted from the rest, and the slope is the conformal quantile of
what their errors needed past the rest's spread (`widening`). Past LIMIT no interval is given.

A whole model's interval combines its layers' half-widths with a correlation RHO: 1 is the sum
of the bounds (errors all of one sign), 0 adds them as independent (root of the sum of squares);
tools/prediction_error.py estimates it from leave-one-network-out errors (docs/prediction.md).
"""

from __future__ import annotations

import math

import numpy as np

from mcuroof.predict import cost_model
from mcuroof.predict.cost_model import EXTENTS, Model

# past this ratio to its family's shapes a layer gets no interval: the widening was calibrated
# on shapes 1-4x past the rest, and carrying it 16x further is a guess
LIMIT = 16.0
# an extrapolation is never surer than this: +-5 % at 4x past the shapes, growing with log(ratio)
# (a chosen floor, not a measured one: families whose held-out shapes are exact still meet
# layers whose cost grows in ways no shape showed)
FLOOR_AT_4X = math.log(1.05)
# the share of a family's shapes left out as its largest (at least one) to calibrate the widening
HOLD = 0.2
# widening's entry over every family of the board: an emitter/dtype with too few held-out shapes widens by it
POOLED = "all"
# the correlation of a whole model's layer errors: 0, as leave-one-network-out estimated it on
# qemu-m3, qemu-m7, qemu-m55, qemu-rv32 and the unix port (tools/prediction_error.py;
# docs/prediction.md): 109 whole-model intervals held 95 % at rho 0 (median ±6.1 %), 98 % at 1 (±11.1 %)
RHO = 0.0


def floor(ratio: float) -> float:
    """The least log half-width of a layer `ratio` past its family's shapes (0 inside them)."""
    return FLOOR_AT_4X * math.log(ratio) / math.log(4) if ratio > 1 else 0.0


def half_width(spread: float, ratio: float, slope: float) -> float:
    """log half-width of a layer `ratio` past its shapes: spread + slope x log(ratio), at least floor."""
    return max(spread + slope * math.log(max(ratio, 1.0)), spread, floor(ratio))


def held_largest(samples: list[tuple[dict, float]], extents: list[dict]) -> list[tuple[float, float, float]]:
    """(ratio past the rest, |log(predicted / timed)|, the rest's spread) of a family's largest
    shapes by each extent (HOLD of them; once where two extents hold out the same shapes), each
    predicted by the fit of the rest. A shape that lies within the rest's range on every extent
    is not an extrapolation and is left out."""
    samples = list(samples)
    n = len(samples)
    held = max(1, round(n * HOLD))
    if n - held < 2:
        return []
    order = sorted(range(n), key=lambda i: (tuple(samples[i][0].get(k, 0.0) for k in cost_model.TERMS), samples[i][1]))
    out, seen = [], set()
    for name in EXTENTS:
        by = sorted(order, key=lambda i: extents[i][name])
        rest, top = by[:-held], by[-held:]
        if frozenset(top) in seen:  # the same shapes are the largest by another extent too
            continue
        seen.add(frozenset(top))
        model = cost_model.fit("rest", [samples[i] for i in rest], [extents[i] for i in rest])
        q = model.spread if model.spread is not None else cost_model.CV_FLOOR
        for i in top:
            r = model.ratio(extents[i])
            if r <= 1.0:
                continue
            t, s = samples[i]
            pred = model.seconds(t)
            err = abs(math.log(pred / s)) if pred > 0 else math.log(100.0)
            out.append((r, err, q))
    return out


def slope(points: list[tuple[float, float, float]]) -> float | None:
    """The conformal quantile of (|error| - spread) / log(ratio) over held-out largest shapes,
    at least 0: the half-width per unit log-ratio that holds them (None: too few)."""
    need = [max(0.0, (e - q) / math.log(r)) for r, e, q in points if r > 1]
    return cost_model.conformal(need)


def widening(by_family: dict[str, list[tuple[dict, float, dict]]]) -> dict[str, dict]:
    """Per emitter/dtype, and POOLED over all: the slope calibrated from its families' largest
    shapes held out (None: fewer than cost_model.min_held_out of them), how many there were and
    their ratios' median. `by_family`: (term counts, seconds, extent) of each shape (suites.calibration.samples)."""
    groups: dict[str, list] = {}
    for fam, got in sorted(by_family.items()):
        pts = held_largest([(t, s) for t, s, _ in got], [e for _, _, e in got])
        groups.setdefault("/".join(fam.split("/")[:2]), []).extend(pts)
        groups.setdefault(POOLED, []).extend(pts)
    return {
        g: {
            "slope": slope(pts),
            "held_out": len(pts),
            "median_ratio": float(np.median([r for r, _, _ in pts])) if pts else None,
        }
        for g, pts in groups.items()
    }


def widening_of(widen: dict, emitter: str, dtype: str) -> dict | None:
    """The widening of an emitter and type: its own where it has a slope, else the board's pooled."""
    own = widen.get(f"{emitter}/{dtype}")
    return own if own and own.get("slope") is not None else widen.get(POOLED)


def layer_interval(
    model: Model, seconds: float, ratio: float, widen: dict | None, dtype: str
) -> tuple[tuple[float, float] | None, str]:
    """A layer's interval, and why it has none ('' where it has one): its family's spread,
    widened past the family's shapes by `widen` (widening's entry of its emitter/dtype)."""
    q = model.spread
    if q is None:
        n = len(model.cv_log_errors)
        return None, f"{n} held-out shapes: a {1 - cost_model.CV_ALPHA:.0%} interval needs {cost_model.min_held_out()}"
    if ratio <= 1.0:
        return (seconds * math.exp(-q), seconds * math.exp(q)), ""
    if dtype == "float32":
        return None, f"float32 {ratio:.1f}x past its shapes' work: its cost per MAC grows past them (not calibrated)"
    if ratio > LIMIT:
        return None, f"extrapolated {ratio:.1f}x past its family's shapes (over {LIMIT:g}x): no interval"
    if not widen or widen.get("slope") is None:
        return None, "extrapolated, and no widening calibrated (calibration from before it, or too few shapes)"
    w = half_width(q, ratio, widen["slope"])
    return (seconds * math.exp(-w), seconds * math.exp(w)), ""


def combine(parts: list[tuple[float, tuple[float, float]]], rho: float = RHO) -> tuple[float, float]:
    """The interval of a sum of predictions (seconds, (low, high)) whose errors correlate by rho:
    each side's half-width sqrt((1 - rho) sum d_i^2 + rho (sum d_i)^2)."""
    total = sum(s for s, _ in parts)
    out = []
    for side in (0, 1):
        d = [abs(iv[side] - s) for s, iv in parts]
        out.append(math.sqrt((1 - rho) * sum(x * x for x in d) + rho * sum(d) ** 2))
    return total - out[0], total + out[1]


def estimate_rho(networks: list[tuple[float, list[tuple[float, tuple[float, float]]]]], grid: int = 20) -> float:
    """The least rho (on a grid of 1/grid steps) whose combined intervals hold the measured whole
    time of at least 1 - CV_ALPHA of `networks` ((measured, [(predicted, interval) per layer])),
    1 where none does."""
    for k in range(grid + 1):
        rho = k / grid
        held = sum(1 for m, parts in networks if _inside(m, combine(parts, rho)))
        if networks and held >= (1 - cost_model.CV_ALPHA) * len(networks):
            return rho
    return 1.0


def _inside(x: float, iv: tuple[float, float]) -> bool:
    return iv[0] <= x <= iv[1]
