"""A C memcpy measured on the host (numpy copy), to check the unix port's memory roof against."""
from __future__ import annotations

import time

import numpy as np


def numpy_copy(sizes: list[int], min_seconds: float = 0.005, trials: int = 5) -> list[dict]:
    """Best copy bandwidth per working set (bytes read + written, as the firmware counts)."""
    out = []
    for ws in sizes:
        n = max(ws // 2, 1)
        src = np.arange(n, dtype=np.uint8)
        dst = np.empty_like(src)
        reps = 1
        while _time(src, dst, reps) < min_seconds:
            reps *= 2
        best = min(_time(src, dst, reps) for _ in range(trials))
        out.append({"bytes": 2 * n, "bytes_per_s": 2 * n * reps / best})
        if not np.array_equal(src, dst):
            raise AssertionError("numpy copy produced a wrong result")
    return out


def _time(src, dst, reps: int) -> float:
    t0 = time.perf_counter()
    for _ in range(reps):
        np.copyto(dst, src)
    return time.perf_counter() - t0
