"""A prediction's interval in its family's range, where it extrapolates, and a whole model's.
Pure computation.

In range a layer's log half-width is its family's scale (the median of its held-out errors,
cost_model.Model.scale) times the conformal quantile of the held-out errors of every family of
its emitter and type, each over its own family's scale, among the shapes of the layer's class
(`classes`: small or large for their family, channels in whole groups of 8 or not)
(`spread_quantiles`, `spread`): a scale-free error pooled over some 30-300 shapes, where a
family's own 20 put the 90 % rank at its largest but one, and the small, odd shapes the terms
fit worst no longer set the width of the large, aligned layers networks are made of.

Past the shapes (Model.ratio: how far its MACs, channels or working set lie beyond them) the
half-width grows with the log of the ratio, at a slope calibrated on the board's own shapes:
each family's largest shapes by each extent are left out, predicted from the rest, and the
slope is the conformal quantile of what their errors needed past the rest's spread (`widening`). Past TESTED x, further than those held-out shapes reached, it is at least
+-5 %; past LIMIT no interval is given.

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
# the held-out largest shapes lie up to about this far past the rest (`widening`'s median_ratio
# is 1.4-2.7 on the five boards of docs/prediction.md): past it the slope was never tested
TESTED = 4.0
# an extrapolation past TESTED is never surer than +-5 % (a chosen floor, not a measured one:
# families whose held-out shapes are exact still meet layers whose cost grows in ways no shape showed)
FLOOR_AT_4X = math.log(1.05)
# no interval is narrower than the calibration's timing resolution: suites.calibration times each
# shape over a window of at least 1000 ticks of the board's timer, so a time is known to 1 in 1000
RESOLUTION = math.log(1.001)
# the share of a family's shapes left out as its largest (at least one) to calibrate the widening
HOLD = 0.2
# the entry over every family of the board: an emitter/dtype with too few held-out shapes uses it
POOLED = "all"
# the correlation of a whole model's layer errors: 0, as leave-one-network-out estimated it on
# qemu-m3, qemu-m7, qemu-m55, qemu-rv32 and the unix port (tools/prediction_error.py;
# docs/prediction.md): 109 whole-model intervals held 94 % at rho 0 (median +-3.0 %), 98 % at 1 (+-5.0 %)
RHO = 0.0


def group(family: str) -> str:
    """The emitter/dtype of a family ('viper/int8/generic/dw3' -> 'viper/int8')."""
    return "/".join(family.split("/")[:2])


def size(model: Model, seconds: float | None) -> str:
    """'large' where a call of `seconds` takes at least the median time of the family's shapes,
    'small' where less ('' where the calibration kept no shape times, or no time is given)."""
    mid = model.median_seconds
    if mid is None or seconds is None:
        return ""
    return "large" if seconds >= mid else "small"


def classes(model: Model, seconds: float | None, channels: float | None = None) -> list[str]:
    """The shapes of its family a call is compared with, finest first: its size, then whether
    its widest channel count fills whole groups of cost_model.GROUP ('aligned') or leaves a
    tail ('odd'): ['large aligned', 'large']; [] where the calibration kept no shape times."""
    z = size(model, seconds)
    if not z:
        return []
    if channels is None or not model.cv_channels:
        return [z]
    return [f"{z} {'aligned' if channels % cost_model.GROUP == 0 else 'odd'}", z]


def spread_quantiles(models) -> dict[str, dict]:
    """Per emitter/dtype, and POOLED over all, and each of those per class of shape
    ('viper/int8 large aligned', 'viper/int8 large': `classes`): the conformal quantile of its
    families' held-out |errors|, each divided by its own family's scale (families with no scale,
    or an exact one, left out), and how many errors it is of. A small shape's time is more the
    call's, and an odd channel count's more its tails', which the terms fit worst: on QEMU those
    shapes' errors are 2-3x the others', and a network's layers are mostly large and aligned."""
    pools: dict[str, list[float]] = {}
    for m in sorted(models, key=lambda m: m.family):
        s = m.scale
        if not s:
            continue
        n = len(m.cv_log_errors)
        secs = m.cv_seconds or (None,) * n
        chans = m.cv_channels or (None,) * n
        for e, t, c in zip(m.cv_log_errors, secs, chans):
            for g in (group(m.family), POOLED):
                for key in [g] + [f"{g} {k}" for k in classes(m, t, c)]:
                    pools.setdefault(key, []).append(abs(e) / s)
    return {g: {"quantile": cost_model.conformal(v), "held_out": len(v)} for g, v in sorted(pools.items())}


def pool(
    model: Model, quantiles: dict[str, dict], seconds: float | None = None, channels: float | None = None
) -> tuple[str, dict] | None:
    """The pool whose quantile a call of `seconds` on `channels` takes, and its entry: its
    emitter/dtype's finest class that has a quantile, else its emitter/dtype's, else the
    board's POOLED alike (None: no pool has one)."""
    cls = classes(model, seconds, channels)
    for g in (group(model.family), POOLED):
        for key in [f"{g} {k}" for k in cls] + [g]:
            q = quantiles.get(key)
            if q and q.get("quantile") is not None:
                return key, q
    return None


def spread(
    model: Model, quantiles: dict[str, dict], seconds: float | None = None, channels: float | None = None
) -> float | None:
    """A family's log half-width in range for a call of `seconds` on `channels`: its scale x
    its `pool`'s quantile, at least RESOLUTION (None: the family has no scale, or no pool a quantile)."""
    s = model.scale
    got = pool(model, quantiles, seconds, channels)
    return None if s is None or got is None else max(RESOLUTION, s * got[1]["quantile"])


def floor(ratio: float) -> float:
    """The least log half-width of a layer `ratio` past its family's shapes: +-5 % past TESTED, else 0."""
    return FLOOR_AT_4X if ratio > TESTED else 0.0


def half_width(spread: float, ratio: float, slope: float) -> float:
    """log half-width of a layer `ratio` past its shapes: spread + slope x log(ratio), at least floor."""
    return max(spread + slope * math.log(max(ratio, 1.0)), spread, floor(ratio))


def held_largest(
    samples: list[tuple[dict, float]], extents: list[dict], quantiles: dict[str, dict] | None = None
) -> list[tuple[float, float, float]]:
    """(ratio past the rest, |log(predicted / timed)|, the rest's spread) of a family's largest
    shapes by each extent (HOLD of them; once where two extents hold out the same shapes), each
    predicted by the fit of the rest; the rest's spread as `spread` gives it with the board's
    `quantiles` (RESOLUTION where the rest has too few shapes). A shape that lies within the
    rest's range on every extent is not an extrapolation and is left out."""
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
        for i in top:
            r = model.ratio(extents[i])
            if r <= 1.0:
                continue
            t, s = samples[i]
            pred = model.seconds(t)
            err = abs(math.log(pred / s)) if pred > 0 else math.log(100.0)
            out.append((r, err, spread(model, quantiles or {}, pred, extents[i]["channels"]) or RESOLUTION))
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
    whole = [
        cost_model.fit(f, [(t, s) for t, s, _ in got], [e for _, _, e in got]) for f, got in sorted(by_family.items())
    ]
    quantiles = spread_quantiles(whole)
    groups: dict[str, list] = {}
    for fam, got in sorted(by_family.items()):
        pts = held_largest([(t, s) for t, s, _ in got], [e for _, _, e in got], _scoped(quantiles, fam))
        groups.setdefault(group(fam), []).extend(pts)
        groups.setdefault(POOLED, []).extend(pts)
    return {
        g: {
            "slope": slope(pts),
            "held_out": len(pts),
            "median_ratio": float(np.median([r for r, _, _ in pts])) if pts else None,
        }
        for g, pts in groups.items()
    }


def _scoped(quantiles: dict[str, dict], family: str) -> dict[str, dict]:
    """The quantiles as a fit of part of `family` (named 'rest') finds them: its group's as POOLED."""
    g = group(family)
    return {k.replace(g, POOLED, 1): v for k, v in quantiles.items() if k.split(" ")[0] == g} or {
        k: v for k, v in quantiles.items() if k.split(" ")[0] == POOLED
    }


def widening_of(widen: dict, emitter: str, dtype: str) -> dict | None:
    """The widening of an emitter and type: its own where it has a slope, else the board's pooled."""
    own = widen.get(f"{emitter}/{dtype}")
    return own if own and own.get("slope") is not None else widen.get(POOLED)


def layer_interval(
    model: Model,
    seconds: float,
    ratio: float,
    widen: dict | None,
    dtype: str,
    quantiles: dict[str, dict] | None = None,
    call_seconds: float | None = None,
    channels: float | None = None,
) -> tuple[tuple[float, float] | None, str]:
    """A layer's interval, and why it has none ('' where it has one): its family's `spread` for
    a call of `call_seconds` on `channels` (the tile it is timed on) with the board's `quantiles`
    (spread_quantiles; None: the family's own conformal quantile, Model.spread), widened past
    the family's shapes by `widen` (widening's entry of its emitter/dtype)."""
    q = model.spread if quantiles is None else spread(model, quantiles, call_seconds, channels)
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
