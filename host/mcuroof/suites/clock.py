"""The clock suite of `mcuroof run --clocks`: machine.freq(hz) before a clock's suites
(firmware/clock.py)."""

from __future__ import annotations

from mcuroof.kernels.contract import Kernel
from mcuroof.suites.base import Suite


def kernels(cfg: dict) -> list[Kernel]:
    return [Kernel("clock", f"setclock({int(cfg['hz'])})\n")]


SUITE = Suite("clock", kernels, lambda rec: "clock" if rec.get("t") == "clock" else None, {"clock": ()})
