"""Layer profiling plan and reference: which layers run on the board, on which tile, with
which parameters, and what their output must be. Pure computation, no I/O.

A layer whose buffers do not fit the board's heap (or whose run would exceed the time budget)
runs on a tile: the first output rows and columns (or elements), with all output channels where
a tile of them fits, else the first channels too. The tile's share of the layer's output is its
`fraction`. A tile's bytes are NOT the layer's bytes times that fraction (a tile allocates every
weight of its channels, and the input rows its output rows need: conv_2d_2 of KWS allocates
1184 B for a 163 B share), and its MACs are not either: the kernels skip padded taps, and the
first rows and columns hold the most padding. `executed_work` counts what a tile really
executes. The firmware is given a few candidate tiles, largest first, and runs the first one it
can allocate (firmware/layers.py); the numpy reference here computes the same tile.

Where only tiles with fewer output channels fit, the job also carries `companions`: the same
tiles with half the channels, run after the first. The kernels pay some costs once per pixel or
tap for all channels, so time is not proportional to channels; two channel counts let
points.project fit that cost apart from the per-MAC cost. Tiles that keep every channel of a
spatial MAC layer but not every column have companions with half the columns: the kernels pay
some costs once per row (the Python loop around the assembler or viper row), whatever its
width, and two widths fit that cost apart from the per-MAC one.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from . import layer_kernels
from .layer_kernels import DTYPES
from .model import Layer, Network, nelem

SPATIAL = ("CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D")
ELEMENTWISE = ("ADD", "RELU")
MAX_CANDIDATES = 5
REQUANT_M = 5
ARRAY_OVERHEAD = 32          # bytes of heap per array object beside its data (estimate)


@dataclass(frozen=True)
class Tile:
    rows: int                # output rows (spatial ops), outputs (dense) or elements
    cols: int                # output columns (spatial ops; else 1)
    chans: int               # output channels (1 for dense and elementwise)
    fraction: float          # share of the layer's output this tile computes
    nx: int                  # elements of X, W, O and biases the firmware allocates
    nw: int
    no: int
    nb: int
    params: tuple[int, ...]  # P[0..15], see layer_kernels.PARAMS

    def data_bytes(self, isz: int) -> int:
        """Bytes of X, W, O and of P (16 parameters and the biases)."""
        return (self.nx + self.nw + self.no) * isz + 4 * (16 + self.nb)

    def heap_bytes(self, isz: int) -> int:
        """Heap the firmware needs: data, and the transient copy while an array is made."""
        return self.data_bytes(isz) + max(self.nx, self.nw, self.no) * isz + 4 * ARRAY_OVERHEAD

    def firmware_list(self) -> list[int]:
        return [self.nx, self.nw, self.no, self.nb, *self.params]


@dataclass(frozen=True)
class Job:
    layer: Layer
    dtype: str
    emitter: str
    tiles: tuple[Tile, ...]  # candidates, largest first, then the companions
    why_tiled: str           # "", "memory" or "time"
    companions: int = 0      # how many of `tiles` (at the end) are companions (half channels or columns)
    dsp: bool = False        # the core has SMLAD and SXTB16: layer_kernels_dsp's kernels where they apply
    mve: bool = False        # and MVE (VMLADAVA): layer_kernels_mve's where they apply

    @property
    def candidates(self) -> tuple[Tile, ...]:
        return self.tiles[:len(self.tiles) - self.companions]

    @property
    def key(self) -> str:
        return f"layers/{self.emitter}/{self.dtype}/{self.layer.index}"


def unsupported(layer: Layer) -> str | None:
    """Why this layer has no kernel on the board, or None."""
    if layer.op not in layer_kernels.OPS:
        return f"no {layer.op} kernel"
    if layer.op == "DEPTHWISE_CONV_2D" and (layer.depth_multiplier or 1) != 1:
        return "depth multiplier other than 1"
    if layer.op == "ADD" and (len(layer.inputs) != 2 or layer.inputs[0] != layer.inputs[1]):
        return "broadcasting ADD"
    if layer.op in SPATIAL and (len(layer.inputs[0]) != 4 or len(layer.output) != 4 or not layer.kernel):
        return "input or output is not NHWC"
    return None


def _pad(size: int, out: int, k: int, s: int, padding: str | None) -> int:
    return max((out - 1) * s + k - size, 0) // 2 if padding == "same" else 0


def requant_shift(taps: int) -> int:
    """S in (acc * M) >> S: about three standard deviations of the accumulator map to 127."""
    spread = 3 * 16 * math.sqrt(max(taps, 1)) * REQUANT_M   # |x*w| ~ 16 for values in -7..7
    return max(0, math.ceil(math.log2(spread / 127)))


def _relu(layer: Layer) -> bool:
    return (layer.activation or "NONE") in ("RELU", "RELU6", "RELU_N1_TO_1") or layer.op == "RELU"


def tile(layer: Layer, dtype: str, rows: int, cols: int, chans: int) -> Tile:
    """The tile computing the first `rows` output rows, `cols` columns and `chans` channels."""
    integer = dtype == "int8"
    lo = (0 if _relu(layer) else -128) if integer else int(_relu(layer))
    op = layer.op
    if op in ELEMENTWISE:
        n = nelem(layer.output)
        nw = rows if op == "ADD" else 0
        return Tile(rows, 1, 1, rows / n, rows, nw, rows, 0, (0,) * 12 + (0, 0, lo, rows))
    if op == "FULLY_CONNECTED":
        cin, cout = nelem(layer.inputs[0]), nelem(layer.output)
        p = (1, 1, cin, 1, 1, chans, 1, 1, 1, 1, 0, 0, REQUANT_M, requant_shift(cin), lo, 0)
        return Tile(1, 1, chans, chans / cout, cin, chans * cin, chans, chans, p)
    _, h, w, c = layer.inputs[0]
    _, oh, ow, oc = layer.output
    (kh, kw), (sh, sw) = layer.kernel, layer.stride or (1, 1)
    pt, pl = _pad(h, oh, kh, sh, layer.padding), _pad(w, ow, kw, sw, layer.padding)
    hin = max(1, min(h, (rows - 1) * sh - pt + kh))
    win = max(1, min(w, (cols - 1) * sw - pl + kw))
    conv = op == "CONV_2D"
    cin = c if conv else chans
    taps = kh * kw * (c if conv else 1)
    p = (hin, win, cin, rows, cols, chans, kh, kw, sh, sw, pt, pl, REQUANT_M, requant_shift(taps), lo, 0)
    nw = {"CONV_2D": chans * kh * kw * c, "DEPTHWISE_CONV_2D": kh * kw * chans}.get(op, 0)
    nb = chans if op in layer_kernels.MAC_OPS else 0
    return Tile(rows, cols, chans, rows * cols * chans / (oh * ow * oc), hin * win * cin, nw,
                rows * cols * chans, nb, p)


def _halvings(n: int) -> list[int]:
    out = [n]
    while out[-1] > 1:
        out.append(-(-out[-1] // 2))
    return out


def _extent(layer: Layer) -> tuple[int, int, int]:
    """(rows, columns, channels) of the whole layer's output, in the tile's terms."""
    if layer.op in ELEMENTWISE:
        return nelem(layer.output), 1, 1
    if layer.op == "FULLY_CONNECTED":
        return 1, 1, nelem(layer.output)
    return layer.output[1], layer.output[2], layer.output[3]


def _valid(n_out: int, stride: int, pad: int, k: int, size: int) -> int:
    """Taps along one axis that fall inside the input, summed over the output positions."""
    return sum(max(0, min(k, size - (o * stride - pad)) - max(0, pad - o * stride)) for o in range(n_out))


def executed_work(layer: Layer, t: Tile) -> int:
    """What the kernels execute on tile t: MACs without the padded taps they skip (spatial ops;
    pools: window values read), MACs of a dense tile, elements of an elementwise one."""
    op = layer.op
    if op in ELEMENTWISE:
        return t.rows
    H, V, C, OH, OW, OC, KH, KW, SH, SW, PT, PL = t.params[:12]
    if op == "FULLY_CONNECTED":
        return C * OC
    taps = _valid(OH, SH, PT, KH, H) * _valid(OW, SW, PL, KW, V)
    return taps * OC * (C if op == "CONV_2D" else 1)


def full_tile(layer: Layer, dtype: str) -> Tile:
    return tile(layer, dtype, *_extent(layer))


def _with_scratch(layer: Layer, dtype: str, emitter: str, t: Tile) -> Tile:
    """t with the words its kernel keeps after the biases in P (layer_kernels.scratch_words):
    carried as biases, so they cost no allocation on the board."""
    extra = layer_kernels.scratch_words(layer, emitter, dtype, t.chans, t.cols)
    return dataclasses.replace(t, nb=t.nb + extra) if extra else t


def companion_shape(layer: Layer, t: Tile) -> tuple[int, int, int] | None:
    """(rows, cols, chans) of t's companion: half its output channels (rounded up) where they
    were cut; else, for a spatial MAC layer cut in its columns, half its columns, or half its
    channels where it has one column (its per-call cost is then told from its channels only);
    else None."""
    _, cols, chans = _extent(layer)
    if 1 < t.chans < chans:
        return t.rows, t.cols, -(-t.chans // 2)
    if layer.op in ("CONV_2D", "DEPTHWISE_CONV_2D") and t.chans == chans and t.cols < cols:
        if t.cols > 1:
            return t.rows, -(-t.cols // 2), t.chans
        if t.chans > 1:
            return t.rows, 1, -(-t.chans // 2)
    return None


def _companion(layer: Layer, dtype: str, emitter: str, t: Tile) -> Tile:
    return _with_scratch(layer, dtype, emitter, tile(layer, dtype, *companion_shape(layer, t)))


def _tile_work(layer: Layer, t: Tile) -> float:
    """Operations of a tile: its MACC, or for MAC-free ops the elements it reads."""
    return layer.macc * t.fraction if layer.macc else (t.nx + t.nw) or 1


def _fits_asm(t: Tile) -> bool:
    lim = layer_kernels.ASM_PACK_LIMIT
    return t.nx < lim and t.nw < lim and t.params[2] * max(t.params[7], 1) < 4096


def plan_layer(layer: Layer, dtype: str, emitter: str, heap: int, max_work: float | None) -> Job | None:
    """The job for one layer: candidate tiles, largest first, that fit heap and time budget."""
    if unsupported(layer) or not layer_kernels.source(layer.op, emitter, dtype):
        return None
    isz = DTYPES[dtype][1]
    rows, cols, chans = _extent(layer)
    tiles = sorted({tile(layer, dtype, r, w, c) for r in _halvings(rows) for w in _halvings(cols)
                    for c in _halvings(chans)},
                   # every channel first; else two or more, so a half-channel companion exists
                   key=lambda t: (t.chans < chans, t.chans < min(2, chans), -t.fraction, t.heap_bytes(isz)))
    tiles = [_with_scratch(layer, dtype, emitter, t) for t in tiles]
    full = tiles[0]
    fit = [t for t in tiles if t.heap_bytes(isz) <= heap and (max_work is None or _tile_work(layer, t) <= max_work)
           and (emitter != "asm_thumb" or _fits_asm(t))]
    if not fit:
        return None
    picked = [fit[0]]
    for t in fit[1:]:
        if len(picked) == MAX_CANDIDATES:
            break
        if t.heap_bytes(isz) <= 0.7 * picked[-1].heap_bytes(isz):
            picked.append(t)
    why = "" if picked[0] == full else ("memory" if full.heap_bytes(isz) > heap else "time")
    comp = [_companion(layer, dtype, emitter, t) for t in picked if companion_shape(layer, t)]
    return Job(layer, dtype, emitter, tuple(picked + comp), why, len(comp))


def plan(net: Network, dtypes: list[str], emitters: list[str], heap: int,
         max_work: dict[tuple[str, str], float] | None = None) -> tuple[list[Job], list[dict]]:
    """Jobs for every layer x dtype x emitter that can run, and the layers left out (and why)."""
    jobs, skipped = [], []
    for layer in net.layers:
        why = unsupported(layer)
        if why:
            skipped.append({"index": layer.index, "name": layer.name, "op": layer.op, "why": why})
            continue
        for dtype in dtypes:
            for em in emitters:
                if not layer_kernels.source(layer.op, em, dtype):
                    continue
                if em == "asm_thumb" and not layer_kernels.asm_pool_fits(layer):
                    skipped.append({"index": layer.index, "name": layer.name, "op": layer.op, "dtype": dtype,
                                    "emitter": em, "why": f"pool window over {layer_kernels.POOL_MAX_WINDOW} values"})
                    continue
                job = plan_layer(layer, dtype, em, heap, (max_work or {}).get((em, dtype)))
                if job:
                    jobs.append(job)
                else:
                    skipped.append({"index": layer.index, "name": layer.name, "op": layer.op,
                                    "dtype": dtype, "emitter": em, "why": "no tile fits the heap"})
    return jobs, skipped


# ---------------------------------------------------------------- the reference

def lcg(n: int, seed: int) -> np.ndarray:
    """The firmware's data generator (firmware/layers.py fill): values in -7..7."""
    out = np.empty(n, dtype=np.int64)
    s = seed
    for i in range(n):
        s = (s * 75 + 74) % 65537
        out[i] = s % 15 - 7
    return out


def biases(n: int) -> np.ndarray:
    out = np.empty(n, dtype=np.int64)
    s = 3
    for i in range(n):
        s = (s * 75 + 74) % 65537
        out[i] = s % 129 - 64
    return out


def reference_output(op: str, dtype: str, t: Tile) -> np.ndarray:
    """The tile's output, flattened in NHWC order, as the firmware must compute it."""
    scale = DTYPES[dtype][2]
    integer = dtype == "int8"
    x = lcg(t.nx, 1).astype(np.float64) * scale if not integer else lcg(t.nx, 1)
    w = lcg(t.nw, 2).astype(np.float64) * scale if not integer else lcg(t.nw, 2)
    b = biases(t.nb)[:t.chans] * (scale if not integer else 1)  # (asm kernels keep scratch after them)
    H, V, C, OH, OW, OC, KH, KW, SH, SW, PT, PL, M, S, LO, N = t.params
    if op == "ADD":
        out = x + w
        return np.clip(out, -128, 127) if integer else out
    if op == "RELU":
        return np.maximum(x, 0)
    if op == "FULLY_CONNECTED":
        acc = w.reshape(OC, C) @ x + b
    else:
        acc = _spatial(op, x.reshape(H, V, C), w, integer, t.params)
        if op in ("AVERAGE_POOL_2D", "MAX_POOL_2D"):
            return acc.reshape(-1)
        acc = acc + b
    acc = acc.reshape(-1)
    if integer:
        return np.clip((acc * M) >> S, LO, 127)
    return np.maximum(acc, 0) if LO else acc


def _spatial(op: str, x: np.ndarray, w: np.ndarray, integer: bool, p: tuple[int, ...]) -> np.ndarray:
    H, V, C, OH, OW, OC, KH, KW, SH, SW, PT, PL = p[:12]
    big = (OH - 1) * SH + KH + H, (OW - 1) * SW + KW + V
    valid = np.zeros(big, dtype=bool)
    valid[PT:PT + H, PL:PL + V] = True
    xp = np.zeros((*big, C), dtype=x.dtype)
    xp[PT:PT + H, PL:PL + V] = x
    rows = lambda ky: slice(ky, ky + (OH - 1) * SH + 1, SH)
    cols = lambda kx: slice(kx, kx + (OW - 1) * SW + 1, SW)
    if op == "CONV_2D":
        wk = w.reshape(OC, KH, KW, C)
        return sum(np.einsum("hwc,oc->hwo", xp[rows(ky), cols(kx)], wk[:, ky, kx])
                   for ky in range(KH) for kx in range(KW))
    if op == "DEPTHWISE_CONV_2D":
        wk = w.reshape(KH, KW, C)
        return sum(xp[rows(ky), cols(kx)] * wk[ky, kx] for ky in range(KH) for kx in range(KW))
    taps = [(xp[rows(ky), cols(kx)], valid[rows(ky), cols(kx)]) for ky in range(KH) for kx in range(KW)]
    if op == "MAX_POOL_2D":
        low = -128 if integer else -1e30
        return np.max([np.where(m[..., None], v, low) for v, m in taps], axis=0)
    total = sum(v for v, _ in taps)
    count = sum(m.astype(np.int64) for _, m in taps)[..., None]
    return total // count if integer else total / count


def checksum(out: np.ndarray):
    """firmware/layers.py osum: sum of out[i] * (i % 7 + 1)."""
    weights = np.arange(out.size) % 7 + 1
    return int((out.astype(np.int64) * weights).sum()) if out.dtype.kind == "i" else float((out * weights).sum())


def verify(job: Job, rec: dict) -> bool:
    """The record's checksum equals the reference of the tile the firmware ran."""
    cand = rec.get("cand")
    if not isinstance(cand, int) or isinstance(cand, bool) or not 0 <= cand < len(job.tiles):
        return False
    want = checksum(reference_output(job.layer.op, job.dtype, job.tiles[cand]))
    got = rec.get("chk")
    if job.dtype == "int8":
        return isinstance(got, int) and got == want
    scale = float(np.abs(reference_output(job.layer.op, job.dtype, job.tiles[cand])).sum()) * 7 + 1.0
    return isinstance(got, (int, float)) and abs(got - want) <= 1e-4 * scale
