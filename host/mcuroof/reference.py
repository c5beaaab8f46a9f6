"""A C memcpy measured on the host, to check the unix port's memory roof against.

libc's memmove is called through ctypes on numpy buffers; the cost of the call itself (the same
call moving 0 bytes) is subtracted, as the firmware subtracts its harness's cost."""
from __future__ import annotations

import ctypes
import time

import numpy as np

from .roofs import MIN_KERNEL_SHARE

_memmove = ctypes.memmove


def memcpy_bandwidth(sizes: list[int], min_seconds: float = 0.005, trials: int = 5) -> list[dict]:
    """Best copy bandwidth per working set (bytes read + written, as the firmware counts)."""
    out = []
    for ws in sizes:
        n = max(ws // 2, 1)
        src = np.arange(n, dtype=np.uint8)
        dst = np.zeros_like(src)
        ps, pd = src.ctypes.data, dst.ctypes.data
        reps = 1
        while _time(pd, ps, n, reps) < min_seconds:
            reps *= 2
        best = min(_time(pd, ps, n, reps) for _ in range(trials))
        call = min(_time(pd, ps, 0, reps) for _ in range(trials))
        if not np.array_equal(src, dst):
            raise AssertionError("memcpy reference produced a wrong result")
        if best - call >= MIN_KERNEL_SHARE * best:  # else the call's cost hides the copy
            out.append({"bytes": 2 * n, "bytes_per_s": 2 * n * reps / (best - call)})
    return out


def _time(pd: int, ps: int, n: int, reps: int) -> float:
    t0 = time.perf_counter()
    for _ in range(reps):
        _memmove(pd, ps, n)
    return time.perf_counter() - t0
