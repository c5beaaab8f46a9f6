"""The timer check, run once after the probe: the same call (an empty loop of 64 iterations,
repeated until one run spans the exact rule's window, suites.timing.exact_window) timed REPEATS times. Its spread says whether the
board's time is exact (QEMU -icount, rp2040js: every repeat the same) or noisy (a host OS, a real
board's interrupts); suites.timing sizes every later window and trial count by it."""

from __future__ import annotations

from mcuroof.kernels.contract import Kernel
from mcuroof.suites import timing
from mcuroof.suites.base import Suite

REPEATS = 5

# no allocation between the timed runs: the list is made before them
_BODY = (
    "def _tl(a, b, c, n):\n    for i in range(n):\n        pass\n"
    "r = 1\nt = _run(_tl, 0, 0, 0, 64, r)\n"
    "while t < WIN and r < 1 << 24:\n    r = r * 2\n    t = _run(_tl, 0, 0, 0, 64, r)\n"
    "ts = [0] * %d\n"
    "for i in range(%d):\n    ts[i] = _run(_tl, 0, 0, 0, 64, r)\n"
    "emit({'t': 'timer', 'r': r, 'win': WIN, 'us': ts})\n"
)


def config(probe: dict) -> dict:
    return {"win_us": timing.exact_window(probe), "trials": 1}


def kernels(cfg: dict) -> list[Kernel]:
    return [Kernel("timer", _BODY % (REPEATS, REPEATS))]


def check(rec: dict) -> str | None:
    us = rec.get("us")
    if rec.get("t") == "timer" and not (isinstance(us, list) and us and all(isinstance(v, int) for v in us)):
        return "timer record without a list of times"
    return None


SUITE = Suite(
    "timer",
    kernels,
    lambda rec: "timer" if rec.get("t") == "timer" else None,
    {"timer": ("r", "win")},
    helpers=lambda cfg: [],
    check=check,
)
