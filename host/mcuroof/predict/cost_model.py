"""A layer kernel's time as a sum of cost terms, fitted from timed shapes (the calibration suite).
Pure computation: nothing here talks to a board or prints.

A layer-kernel family (one generator, op kind, emitter and element type) spends its time per
call, per output row, per output pixel, per output element, per kernel-row run of its dot
products, per window tap, per MAC, per element of a run's tail (past its last group of 8), per
border output (a window clipped by padding) and per input and weight element it touches. Each
term's count follows from a tile's parameters P (`terms`); the seconds each costs come from
least squares on timed shapes, non-negative (no term saves time) and relative (a shape of 50 us
counts as much as one of 50 ms, as the error that matters is relative).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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
}
GROUP = 8  # the widest group of elements the layer kernels' dot loops take at once (viper: 8)
SPATIAL = ("CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D")


def _valid(n_out: int, stride: int, pad: int, k: int, size: int) -> list[int]:
    """Taps along one axis inside the input, for each output position."""
    return [max(0, min(k, size - (o * stride - pad)) - max(0, pad - o * stride)) for o in range(n_out)]


@dataclass(frozen=True)
class Grain:
    """How a convolution or dense kernel groups its work (SIMD kernels): `pixels` output pixels
    and `chans` channels a pass, inputs in groups of `inputs` (padded with zeros), and the
    weights widened again for every block of `block` pixels (0: once a call)."""

    pixels: int = 1
    chans: int = 1
    inputs: int = 1
    block: int = 0
    stream: bool = False  # the inputs stream from memory with the weights (MVE, K over 64)
    direct: bool = False  # the inputs are read in place: none gathered
    widen_per_pass: bool = False  # the inputs are widened again for each pass (DSP dense passes)


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


def terms(op: str, params: tuple[int, ...], grain: Grain | None = None) -> dict[str, float]:
    """How many times each cost term is paid by one call on a tile with parameters P
    (kernels.ops.contract.PARAMS: H, V, C, OH, OW, OC, KH, KW, SH, SW, PT, PL, M, S, LO, N)
    by a kernel that groups its work by `grain` (None: one element at a time)."""
    t = _terms(op, params)
    if grain is not None and op in ("CONV_2D", "FULLY_CONNECTED"):
        # its dot products are the grain's lanes, not element-wise loops over runs and taps
        t.update(dict.fromkeys(("run", "tap", "mac", "tail", "quad"), 0.0), **grained(op, params, grain))
    return t


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


@dataclass(frozen=True)
class Model:
    """The fitted seconds per term of one family, and how well it fits its own shapes."""

    family: str
    coefficients: dict[str, float]
    shapes: int
    worst_fit: float  # the largest |fitted / timed - 1| over the shapes it was fitted on

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

    def as_dict(self) -> dict:
        return {
            "family": self.family,
            "coefficients": dict(self.coefficients),
            "shapes": self.shapes,
            "worst_fit": self.worst_fit,
        }

    @classmethod
    def from_dict(cls, d: dict) -> Model:
        return cls(d["family"], dict(d["coefficients"]), d["shapes"], d["worst_fit"])


def fit(family: str, samples: list[tuple[dict[str, float], float]]) -> Model:
    """The non-negative seconds per term that best give the timed seconds of `samples`
    ((term counts, seconds) of each shape), least squares in relative error. Terms no sample
    pays are left at 0."""
    used = [k for k in TERMS if any(t.get(k) for t, _ in samples)]
    a = np.array([[t.get(k, 0.0) / s for k in used] for t, s in samples], dtype=float)
    scale = np.abs(a).max(axis=0)
    scale[scale == 0] = 1.0
    x = nnls(a / scale, np.ones(len(samples))) / scale
    coef = {k: float(v) for k, v in zip(used, x)}
    model = Model(family, coef, len(samples), 0.0)
    worst = max((abs(model.seconds(t) / s - 1) for t, s in samples), default=0.0)
    return Model(family, coef, len(samples), float(worst))


def describe(name: str, share: float) -> str:
    """'per output row: 60%'."""
    return f"{LABELS.get(name, name)}: {share:.0%}"
