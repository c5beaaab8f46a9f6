"""A C memcpy measured on the host, to check the unix port's memory roof against.

The copy loop runs in C: a few lines compiled with the host's C compiler into a shared library
(cached beside the user's other caches), called once per trial through ctypes, so Python's
per-call cost never enters the figure. Where no compiler is found, libc's memmove is called from
Python instead and the cost of the call itself (the same call moving 0 bytes) is subtracted;
that fallback is noisy below about 1 MiB and the results say which method ran.

Source and destination share one allocation, 64 bytes off a page boundary from each other: two
separately page-aligned buffers alias in the L1 (4K aliasing) and made one size ten times
slower. numpy's transparent huge pages are turned off meanwhile: MicroPython's heap has 4 KiB
pages, and huge pages alone made the reference up to 20 % faster out in main memory.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

COPY_LOOP_C = r"""
#include <string.h>
#include <time.h>
typedef void *(*copy_fn)(void *, const void *, size_t);
static copy_fn volatile copy = memcpy;  /* volatile: the compiler may not fold repeated copies */
double copy_seconds(char *dst, const char *src, size_t n, long reps) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < reps; i++) copy(dst, src, n);
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
}
"""
KIND_C = "C memcpy on the host (a compiled loop, libc memcpy)"
KIND_PY = "C memcpy on the host (libc memmove called from Python, call cost subtracted)"
MIN_COPY_SHARE = 0.5  # fallback only: keep a size where the copy, not the call, is most of the time


def memcpy_bandwidth(sizes: list[int], min_seconds: float = 0.005, trials: int = 7) -> list[dict]:
    """Best copy bandwidth per working set (bytes read + written, as the firmware counts)."""
    timer = _compiled_timer() or _python_timer
    hugepages = _set_hugepages(False)
    try:
        return [p for p in (_copy_bandwidth(timer, ws, min_seconds, trials) for ws in sizes) if p]
    finally:
        _set_hugepages(hugepages)


def _copy_bandwidth(timer, ws: int, min_seconds: float, trials: int) -> dict | None:
    n = max(ws // 2, 1)
    buf = np.zeros(2 * n + 4096 + 64, dtype=np.uint8)
    gap = -(-n // 4096) * 4096 + 64
    src, dst = buf[:n], buf[gap : gap + n]
    src[:] = np.arange(n, dtype=np.uint8)
    ps, pd = src.ctypes.data, dst.ctypes.data
    reps = 1
    while timer(pd, ps, n, reps) < min_seconds:
        reps *= 2
    best = min(timer(pd, ps, n, reps) for _ in range(trials))
    call = min(timer(pd, ps, 0, reps) for _ in range(trials)) if timer is _python_timer else 0.0
    if not np.array_equal(src, dst):
        raise AssertionError("memcpy reference produced a wrong result")
    if best - call >= MIN_COPY_SHARE * best:
        return {
            "bytes": 2 * n,
            "bytes_per_s": 2 * n * reps / (best - call),
            "method": KIND_PY if timer is _python_timer else KIND_C,
        }
    return None


_compiled = {}


def _compiled_timer():
    """copy_seconds from COPY_LOOP_C, compiled once per source; None without a C compiler."""
    if "fn" in _compiled:
        return _compiled["fn"]
    _compiled["fn"] = None
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc:
        digest = hashlib.sha1(COPY_LOOP_C.encode()).hexdigest()[:12]
        cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mcuroof"
        lib = cache / f"copyloop-{digest}.so"
        try:
            if not lib.exists():
                cache.mkdir(parents=True, exist_ok=True)
                with tempfile.TemporaryDirectory() as tmp:
                    c_file = Path(tmp) / "copyloop.c"
                    c_file.write_text(COPY_LOOP_C)
                    built = Path(tmp) / lib.name  # then renamed: a reader never loads a half-written file
                    subprocess.run(
                        [cc, "-O2", "-shared", "-fPIC", "-o", str(built), str(c_file)],
                        check=True,
                        capture_output=True,
                        timeout=60,
                    )
                    shutil.move(str(built), str(lib.with_suffix(".tmp")))
                    os.replace(lib.with_suffix(".tmp"), lib)
            fn = ctypes.CDLL(str(lib)).copy_seconds
            fn.restype = ctypes.c_double
            fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_long]
            _compiled["fn"] = fn
        except (OSError, subprocess.SubprocessError):
            pass
    return _compiled["fn"]


def _python_timer(pd: int, ps: int, n: int, reps: int) -> float:
    t0 = time.perf_counter()
    for _ in range(reps):
        ctypes.memmove(pd, ps, n)
    return time.perf_counter() - t0


def _set_hugepages(on: bool) -> bool:
    """numpy's madvise(MADV_HUGEPAGE) switch for large arrays; returns the previous setting."""
    multiarray = getattr(getattr(np, "_core", None), "multiarray", None) or np.core.multiarray
    return multiarray._set_madvise_hugepage(on)
