"""A C memcpy measured on the host, to check the unix port's memory roof against.

libc's memmove is called through ctypes on numpy buffers; the cost of the call itself (the same
call moving 0 bytes) is subtracted, as the firmware subtracts its harness's cost. Source and
destination share one allocation, 64 bytes off a page boundary from each other: two separately
page-aligned buffers alias in the L1 (4K aliasing) and made one size ten times slower."""
from __future__ import annotations

import ctypes
import time

import numpy as np

_memmove = ctypes.memmove
# a size is kept only where the copy, not the Python call, is most of the time
MIN_COPY_SHARE = 0.5


def memcpy_bandwidth(sizes: list[int], min_seconds: float = 0.005, trials: int = 7) -> list[dict]:
    """Best copy bandwidth per working set (bytes read + written, as the firmware counts).

    numpy's transparent huge pages are turned off meanwhile: MicroPython's heap has 4 KiB pages,
    and huge pages alone made the reference up to 20 % faster out in main memory."""
    hugepages = _set_hugepages(False)
    try:
        return [p for p in (_copy_bandwidth(ws, min_seconds, trials) for ws in sizes) if p]
    finally:
        _set_hugepages(hugepages)


def _copy_bandwidth(ws: int, min_seconds: float, trials: int) -> dict | None:
    n = max(ws // 2, 1)
    buf = np.zeros(2 * n + 4096 + 64, dtype=np.uint8)
    gap = -(-n // 4096) * 4096 + 64
    src, dst = buf[:n], buf[gap:gap + n]
    src[:] = np.arange(n, dtype=np.uint8)
    ps, pd = src.ctypes.data, dst.ctypes.data
    reps = 1
    while _time(pd, ps, n, reps) < min_seconds:
        reps *= 2
    best = min(_time(pd, ps, n, reps) for _ in range(trials))
    call = min(_time(pd, ps, 0, reps) for _ in range(trials))
    if not np.array_equal(src, dst):
        raise AssertionError("memcpy reference produced a wrong result")
    if best - call >= MIN_COPY_SHARE * best:
        return {"bytes": 2 * n, "bytes_per_s": 2 * n * reps / (best - call)}
    return None


def _set_hugepages(on: bool) -> bool:
    """numpy's madvise(MADV_HUGEPAGE) switch for large arrays; returns the previous setting."""
    multiarray = getattr(getattr(np, "_core", None), "multiarray", None) or np.core.multiarray
    return multiarray._set_madvise_hugepage(on)


def _time(pd: int, ps: int, n: int, reps: int) -> float:
    t0 = time.perf_counter()
    for _ in range(reps):
        _memmove(pd, ps, n)
    return time.perf_counter() - t0
