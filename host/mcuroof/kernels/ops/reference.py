"""The numpy reference of every layer op, and the checksum the firmware reports."""

from __future__ import annotations

import numpy as np

from mcuroof.kernels.ops.contract import DTYPES, Job, Tile

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
    b = biases(t.nb)[: t.chans] * (scale if not integer else 1)  # (asm kernels keep scratch after them)
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
    valid[PT : PT + H, PL : PL + V] = True
    xp = np.zeros((*big, C), dtype=x.dtype)
    xp[PT : PT + H, PL : PL + V] = x
    rows = lambda ky: slice(ky, ky + (OH - 1) * SH + 1, SH)
    cols = lambda kx: slice(kx, kx + (OW - 1) * SW + 1, SW)
    if op == "CONV_2D":
        wk = w.reshape(OC, KH, KW, C)
        return sum(
            np.einsum("hwc,oc->hwo", xp[rows(ky), cols(kx)], wk[:, ky, kx]) for ky in range(KH) for kx in range(KW)
        )
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
