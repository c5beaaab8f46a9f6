"""A layer kernel's time as a sum of cost terms, fitted from timed shapes (the calibration suite).
Pure computation: nothing here talks to a board or prints.

A layer-kernel family (one generator, op kind, emitter and element type) spends its time per
call, per output row, per output pixel, per output element, per kernel-row run of its dot
products, per window tap, per MAC, per element of a run's tail (past its last group of 8), per
border output (a window clipped by padding) and per input and weight element it touches. Each
term's count follows from a tile's parameters P (`terms`); the seconds each costs come from
least squares on timed shapes, non-negative (no term saves time) and relative (a shape of 50 us
counts as much as one of 50 ms, as the error that matters is relative).

A fit passes through its own shapes when it has as many terms as shapes, so its in-sample error
says nothing of a new layer. What a prediction reports instead is cross-validated: each shape is
left out in turn, the family refitted on the others and the left-out shape predicted
(`cv_log_errors`); the interval of a prediction holds 1 - CV_ALPHA of them: split-conformal prediction's finite-sample quantile,
the ceil((n+1)(1-alpha))-th smallest of the n held-out errors (`conformal`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mcuroof.kernels.ops.contract import Grain  # how a generator's kernel groups its work

TERMS = (
    "call",
    "row",
    "pixel",
    "output",
    "run",
    "tap",
    "mac",
    "tail",
    "quad",
    "border",
    "input",
    "weight",
    "lane_mac",
    "stream_mac",
    "lane_input",
    "gather_row",
    "pass",
    "block",
    "expr_output",
    "expr_tap",
    "row3",
    "single_tap",
    "tap_row",
    "spill",
    "spill_last",
)
# what a term is called where it dominates a layer ("per-row overhead: 60 %")
LABELS = {
    "call": "per call",
    "row": "per output row",
    "pixel": "per pixel",
    "output": "per output element",
    "run": "per kernel-row run",
    "tap": "per window tap",
    "mac": "per MAC",
    "tail": "per run-tail element",
    "quad": "per run-tail group of 4",
    "border": "per border output",
    "input": "per input element",
    "weight": "per weight element",
    "lane_mac": "per MAC in the kernel's lanes",
    "stream_mac": "per MAC in lanes streamed from memory",
    "lane_input": "per input gathered or widened per pixel",
    "gather_row": "per window row gathered per pixel",
    "pass": "per pass over pixels x channels",
    "block": "per weight widened per pixel block",
    "expr_output": "per output of a one-expression window",
    "expr_tap": "per tap of a one-expression window",
    "row3": "per 3-wide window row",
    "single_tap": "per tap taken alone",
    "tap_row": "per window row taken tap by tap",
    "spill": "per MAC with the working set past the first cache",
    "spill_last": "per MAC with the working set past the last cache",
}
GROUP = 8  # the widest group of elements the layer kernels' dot loops take at once (viper: 8)
SPATIAL = ("CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D")


def _valid(n_out: int, stride: int, pad: int, k: int, size: int) -> list[int]:
    """Taps along one axis inside the input, for each output position."""
    return [max(0, min(k, size - (o * stride - pad)) - max(0, pad - o * stride)) for o in range(n_out)]


def _up(n: int, g: int) -> int:
    return -(-n // g) * g


def grained(op: str, params: tuple[int, ...], g: Grain) -> dict[str, float]:
    """The lane_mac, lane_input, pass and block terms of a grained kernel: its MACs, the inputs
    it gathers or widens for each pixel (K of them), its passes and its widened weights, each
    counted over the lanes it fills (padding included)."""
    C, OH, OW, OC, KH, KW = params[2:8]
    k = C * KH * KW if op == "CONV_2D" else C
    n = OH * OW
    passes = -(-n // g.pixels) * -(-OC // g.chans)
    blocks = -(-n // g.block) if g.block else 1
    macs = _up(n, g.pixels) * _up(OC, g.chans) * _up(k, g.inputs)
    return {
        "lane_mac": 0 if g.stream else macs,
        "stream_mac": macs if g.stream else 0,
        "lane_input": (passes if g.widen_per_pass else 0 if g.direct else _up(n, g.pixels)) * _up(k, g.inputs),
        "gather_row": 0 if g.direct or op != "CONV_2D" else _up(n, g.pixels) * KH,
        "pass": passes,
        "block": blocks * _up(OC, g.chans) * _up(k, g.inputs),
    }


def terms(
    op: str, params: tuple[int, ...], grain: Grain | None = None, window_paths_: bool = False
) -> dict[str, float]:
    """How many times each cost term is paid by one call on a tile with parameters P
    (kernels.ops.contract.PARAMS: H, V, C, OH, OW, OC, KH, KW, SH, SW, PT, PL, M, S, LO, N)
    by a kernel that groups its work by `grain` (None: one element at a time), or whose
    depthwise windows take the paths of window_paths."""
    t = _terms(op, params)
    if window_paths_ and op == "DEPTHWISE_CONV_2D":
        t.update(dict.fromkeys(("run", "tap", "mac"), 0.0), **window_paths(params))
    if grain is not None and op in ("CONV_2D", "FULLY_CONNECTED"):
        # its dot products are the grain's lanes, not element-wise loops over runs and taps
        t.update(dict.fromkeys(("run", "tap", "mac", "tail", "quad"), 0.0), **grained(op, params, grain))
    return t


# viper's depthwise kernel (kernels.ops.viper._vdepthwise): a 3-wide window whose valid part is
# (rows, cols) (3, 3), (2, 2), (2, 3) or (3, 2) is one expression of its taps; any other window
# goes row by row, a 3-wide row as one expression of 3, other rows a tap at a time
_EXPRESSION_WINDOWS = {(3, 3), (2, 2), (2, 3), (3, 2)}


def window_paths(params: tuple[int, ...]) -> dict[str, float]:
    """The expr_output, expr_tap, row3, single_tap and tap_row terms of viper's depthwise kernel
    on a tile: which path each output's window takes, from its valid rows and columns."""
    H, V, C, OH, OW, OC, KH, KW, SH, SW, PT, PL = params[:12]
    vy, vx = _valid(OH, SH, PT, KH, H), _valid(OW, SW, PL, KW, V)
    t = dict.fromkeys(("expr_output", "expr_tap", "row3", "single_tap", "tap_row"), 0.0)
    for m in vy:
        for n in vx:
            if KW == 3 and (m, n) in _EXPRESSION_WINDOWS:
                t["expr_output"] += OC
                t["expr_tap"] += m * n * OC
            elif n == 3:
                t["row3"] += m * OC
            else:
                t["single_tap"] += m * n * OC
                t["tap_row"] += m * OC
    return t


def level_terms(work: float, working_set: float, cache_bytes: tuple[int, ...]) -> dict[str, float]:
    """The spill and spill_last terms: a call's work (MACs, or elements for MAC-free ops) where
    its working set is past the first cache, and past the last (none without caches)."""
    if not cache_bytes:
        return {}
    return {
        "spill": work if working_set > cache_bytes[0] else 0.0,
        "spill_last": work if working_set > cache_bytes[-1] else 0.0,
    }


def _terms(op: str, params: tuple[int, ...]) -> dict[str, float]:
    H, V, C, OH, OW, OC, KH, KW, SH, SW, PT, PL = params[:12]
    t = dict.fromkeys(TERMS, 0.0)
    t["call"] = 1.0
    if op not in SPATIAL and op != "FULLY_CONNECTED":  # elementwise: N elements
        n = params[15]
        t.update(output=n, input=n * (2 if op == "ADD" else 1))
        return t
    if op == "FULLY_CONNECTED":
        t.update(row=1, pixel=1, output=OC, run=OC, tap=1, mac=C * OC, tail=OC * (C % 4), quad=OC * (C % GROUP // 4))
        t.update(input=C, weight=C * OC)
        return t
    vy, vx = _valid(OH, SH, PT, KH, H), _valid(OW, SW, PL, KW, V)
    conv = op == "CONV_2D"
    depth = C if conv else 1  # elements of a run per tap
    rows_valid, cols_valid = sum(vy), sum(vx)
    # dot runs (convolutions only) end in a group of 4 and single elements past their 8s
    tail_x = sum((x * depth) % 4 for x in vx) if conv else 0
    quad_x = sum((x * depth) % GROUP // 4 for x in vx) if conv else 0
    inner = sum(1 for y in vy if y == KH) * sum(1 for x in vx if x == KW)
    t.update(
        row=OH,
        pixel=OH * OW,
        output=OH * OW * OC,
        run=rows_valid * OW * OC,
        tap=rows_valid * cols_valid,
        mac=rows_valid * cols_valid * depth * OC,
        tail=rows_valid * tail_x * OC,
        quad=rows_valid * quad_x * OC,
        border=(OH * OW - inner) * OC,
        input=H * V * C,
        weight={"CONV_2D": OC * KH * KW * C, "DEPTHWISE_CONV_2D": OC * KH * KW}.get(op, 0),
    )
    return t


def vector(op: str, params: tuple[int, ...], grain: Grain | None = None) -> np.ndarray:
    t = terms(op, params, grain)
    return np.array([t[k] for k in TERMS], dtype=float)


def nnls(a: np.ndarray, b: np.ndarray, max_iter: int = 500) -> np.ndarray:
    """x >= 0 minimising |a x - b| (Lawson and Hanson's active-set method)."""
    m, n = a.shape
    x = np.zeros(n)
    passive = np.zeros(n, dtype=bool)
    w = a.T @ (b - a @ x)
    for _ in range(max_iter):
        if passive.all() or (w[~passive] <= 1e-12 * max(1.0, np.abs(w).max())).all():
            break
        j = int(np.argmax(np.where(passive, -np.inf, w)))
        passive[j] = True
        while True:
            z = np.zeros(n)
            z[passive] = np.linalg.lstsq(a[:, passive], b, rcond=None)[0]
            if (z[passive] > 0).all():
                x = z
                break
            neg = passive & (z <= 0)
            alpha = np.min(x[neg] / (x[neg] - z[neg]))
            x = x + alpha * (z - x)
            passive &= x > 1e-300
            x[~passive] = 0.0
        w = a.T @ (b - a @ x)
    return x


# the share of held-out shapes a prediction's interval may miss (a 90 % interval)
CV_ALPHA = 0.1
# no interval is narrower than this (log of 1.01: 1 %): a family whose held-out shapes are all
# exact (instruction-counted time, one loop nest) still meets layers whose time is projected from
# tiles (up to 0.7 % apart between two tile sizes) and timed to the timer's tick
CV_FLOOR = math.log(1.01)


def conformal_rank(n: int, alpha: float = CV_ALPHA) -> int:
    """The rank of split-conformal prediction's quantile among n held-out errors, ceil((n+1)(1-alpha)):
    an error of a new shape exchangeable with them lies at or under it with probability >= 1-alpha."""
    return math.ceil(round((n + 1) * (1 - alpha), 9))


def min_held_out(alpha: float = CV_ALPHA) -> int:
    """The fewest held-out errors whose conformal rank exists (9 for a 90 % interval)."""
    n = 1
    while conformal_rank(n, alpha) > n:
        n += 1
    return n


def conformal(errors, alpha: float = CV_ALPHA) -> float | None:
    """The conformal_rank-th smallest of |errors| (None: too few for that rank)."""
    errs = sorted(abs(e) for e in errors)
    k = conformal_rank(len(errs), alpha)
    return errs[k - 1] if k <= len(errs) else None


# what a family's shapes span (predict.design.extent): a layer outside it is an extrapolation
EXTENTS = ("macs", "channels", "work_bytes")


@dataclass(frozen=True)
class Model:
    """The fitted seconds per term of one family, its leave-one-out errors and what its shapes span."""

    family: str
    coefficients: dict[str, float]
    shapes: int
    worst_fit: float  # the largest |fitted / timed - 1| over the shapes it was fitted on (in-sample)
    cv_log_errors: tuple[float, ...] = ()  # log(predicted / timed) of each shape, left out of the fit
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)  # EXTENTS: (least, most)
    merged: dict[str, list[str]] = field(default_factory=dict)  # terms fitted as one (merges)
    cv_seconds: tuple[float, ...] = ()  # the timed seconds of each shape, in cv_log_errors' order
    cv_channels: tuple[float, ...] = ()  # the widest channel count of each shape, in that order

    @property
    def median_seconds(self) -> float | None:
        """The median time of the family's timed shapes (None: a calibration that kept none)."""
        return float(np.median(self.cv_seconds)) if self.cv_seconds else None

    def seconds(self, t: dict[str, float]) -> float:
        return sum(self.coefficients.get(k, 0.0) * v for k, v in t.items())

    def shares(self, t: dict[str, float]) -> dict[str, float]:
        """Each term's share of the time of a call with these term counts."""
        total = self.seconds(t)
        return {k: self.coefficients.get(k, 0.0) * v / total for k, v in t.items()} if total else {}

    def dominant(self, t: dict[str, float]) -> tuple[str, float]:
        """The term that costs most and its share of the time."""
        shares = self.shares(t)
        name = max(shares, key=shares.get) if shares else "call"
        return name, shares.get(name, 1.0)

    @property
    def scale(self) -> float | None:
        """The family's own size of error: the median |log(predicted / timed)| over its held-out
        shapes (None: fewer than min_held_out shapes). predict.intervals multiplies it by a
        quantile pooled over the families of its emitter and type."""
        n = len(self.cv_log_errors)
        return float(np.median(np.abs(self.cv_log_errors))) if n and n >= min_held_out() else None

    @property
    def spread(self) -> float | None:
        """The conformal quantile of |log(predicted / timed)| over this family's held-out shapes
        alone, at least CV_FLOOR (None: fewer than min_held_out shapes): what the family's own
        n errors say (cv_summary); a layer's interval is predict.intervals.spread's."""
        q = conformal(self.cv_log_errors)
        return None if q is None else max(CV_FLOOR, q)

    def interval(self, seconds: float) -> tuple[float, float] | None:
        """Where the time of a layer in the family's range predicted at `seconds` lies, as
        1 - CV_ALPHA of held-out shapes did (predict.intervals widens it past the range)."""
        q = self.spread
        return None if q is None else (seconds * math.exp(-q), seconds * math.exp(q))

    def ratio(self, extent: dict[str, float]) -> float:
        """How far a layer lies past the shapes: the largest of value / most and least / value
        over EXTENTS (1: inside the range on every one)."""
        r = 1.0
        for name, value in extent.items():
            lo, hi = self.ranges.get(name, (None, None))
            if hi and value > hi:
                r = max(r, value / hi)
            if lo and 0 < value < lo:
                r = max(r, lo / value)
        return r

    def outside(self, extent: dict[str, float]) -> list[str]:
        """What of a layer's extent lies outside the shapes this family was fitted on."""
        out = []
        for name, value in extent.items():
            lo, hi = self.ranges.get(name, (None, None))
            if lo is not None and value < lo:
                out.append(f"{name} {_num(value)} < {_num(lo)}")
            elif hi is not None and value > hi:
                out.append(f"{name} {_num(value)} > {_num(hi)}")
        return out

    def cv_summary(self) -> dict:
        """The held-out errors as people read them: median and worst |predicted / timed - 1|."""
        errs = sorted(abs(math.expm1(e)) for e in self.cv_log_errors)
        return {
            "held_out": len(errs),
            "rank": conformal_rank(len(errs)),
            "median": float(np.median(errs)) if errs else None,
            "worst": errs[-1] if errs else None,
            "interval": None if self.spread is None else math.expm1(self.spread),
        }

    def as_dict(self) -> dict:
        return {
            "family": self.family,
            "coefficients": dict(self.coefficients),
            "shapes": self.shapes,
            "worst_fit": self.worst_fit,
            "cv_log_errors": list(self.cv_log_errors),
            "cv": self.cv_summary(),
            "ranges": {k: list(v) for k, v in self.ranges.items()},
            "merged": {k: list(v) for k, v in self.merged.items()},
            "cv_seconds": list(self.cv_seconds),
            "cv_channels": list(self.cv_channels),
        }

    @classmethod
    def from_dict(cls, d: dict) -> Model:
        return cls(
            d["family"],
            dict(d["coefficients"]),
            d["shapes"],
            d["worst_fit"],
            tuple(d.get("cv_log_errors") or ()),
            {k: tuple(v) for k, v in (d.get("ranges") or {}).items()},
            {k: list(v) for k, v in (d.get("merged") or {}).items()},
            tuple(d.get("cv_seconds") or ()),
            tuple(d.get("cv_channels") or ()),
        )


def _num(v: float) -> str:
    return f"{v:,.0f}" if v >= 10 else f"{v:g}"


def merges(used: list[str], samples: list[tuple[dict[str, float], float]]) -> dict[str, list[str]]:
    """Terms no shape can tell apart: their counts are equal or proportional on every shape, so
    any split of their time between them fits as well. Each group is fitted as its first term
    in TERMS order, {first: [the others]}; the others get no coefficient of their own."""
    cols = {k: np.array([t.get(k, 0.0) for t, _ in samples], dtype=float) for k in used}
    unit = {k: c / np.linalg.norm(c) for k, c in cols.items() if np.linalg.norm(c) > 0}
    out: dict[str, list[str]] = {}
    taken: set[str] = set()
    for i, k in enumerate(used):
        if k in taken or k not in unit:
            continue
        same = [j for j in used[i + 1 :] if j not in taken and j in unit and np.abs(unit[j] - unit[k]).max() < 1e-9]
        if same:
            out[k] = same
            taken.update(same)
    return out


def _solve(used: list[str], samples: list[tuple[dict[str, float], float]]) -> dict[str, float]:
    """NNLS in relative error over the terms of `used` that the samples tell apart (merges)."""
    gone = {j for js in merges(used, samples).values() for j in js}
    used = [k for k in used if k not in gone]
    a = np.array([[t.get(k, 0.0) / s for k in used] for t, s in samples], dtype=float)
    scale = np.abs(a).max(axis=0)
    scale[scale == 0] = 1.0
    x = nnls(a / scale, np.ones(len(samples))) / scale
    return {k: float(v) for k, v in zip(used, x)}


def canonical(samples: list[tuple[dict[str, float], float]]) -> list[tuple[dict[str, float], float]]:
    """The samples in one order whatever order they were timed in (by term counts, then time):
    the fit's arithmetic, and so its last bits, do not depend on the records' order."""
    return [samples[i] for i in canonical_order(samples)]


def canonical_order(samples: list[tuple[dict[str, float], float]]) -> list[int]:
    """The indices of `samples` in canonical order."""
    return sorted(range(len(samples)), key=lambda i: (tuple(samples[i][0].get(k, 0.0) for k in TERMS), samples[i][1]))


def _predict(coef: dict[str, float], t: dict[str, float]) -> float:
    return sum(coef.get(k, 0.0) * v for k, v in t.items())


def cross_validate(used: list[str], samples: list[tuple[dict[str, float], float]]) -> tuple[float, ...]:
    """log(predicted / timed) of each shape predicted by the fit of all the others (leave one out).
    A shape predicted at no time (it alone paid a term) counts as off by 100x."""
    out = []
    for i, (t, s) in enumerate(samples):
        pred = _predict(_solve(used, samples[:i] + samples[i + 1 :]), t)
        out.append(math.log(pred / s) if pred > 0 else -math.log(100.0))
    return tuple(out)


def fit(
    family: str, samples: list[tuple[dict[str, float], float]], extents: list[dict[str, float]] | None = None
) -> Model:
    """The non-negative seconds per term that best give the timed seconds of `samples`
    ((term counts, seconds) of each shape), least squares in relative error, with each shape's
    leave-one-out error and the ranges of `extents` (predict.design.extent of each shape).
    Terms no sample pays are left out; terms no sample tells apart are fitted as one (merges)."""
    order = canonical_order(samples)  # extents follow, as cv_channels is read beside cv_log_errors
    samples = [samples[i] for i in order]
    extents = [extents[i] for i in order] if extents else extents
    used = [k for k in TERMS if any(t.get(k) for t, _ in samples)]
    coef = _solve(used, samples)
    worst = max((abs(_predict(coef, t) / s - 1) for t, s in samples), default=0.0)
    cv = cross_validate(used, samples) if len(samples) > 1 else ()
    ranges = {k: (min(e[k] for e in extents), max(e[k] for e in extents)) for k in EXTENTS} if extents else {}
    times = tuple(s for _, s in samples) if cv else ()
    chans = tuple(e["channels"] for e in extents) if cv and extents else ()
    return Model(family, coef, len(samples), float(worst), cv, ranges, merges(used, samples), times, chans)


def describe(name: str, share: float, merged: dict[str, list[str]] | None = None) -> str:
    """'per output row: 60%'; a merged term with the terms it stands for ('per MAC = per weight
    element: 80%')."""
    label = " = ".join(LABELS.get(k, k) for k in [name, *(merged or {}).get(name, [])])
    return f"{label}: {share:.0%}"
