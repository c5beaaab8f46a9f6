"""The probe, the first unit of every run: what the board and its port offer (firmware/probe.py).
Its record is the run's description of the board (board.identity reads it)."""

from __future__ import annotations

from mcuroof.kernels import firmware
from mcuroof.kernels.contract import SPLIT, Kernel
from mcuroof.suites.base import Suite

CONFIG = {"win_us": 20000, "trials": 5}


def kernels(cfg: dict) -> list[Kernel]:
    """firmware/probe.py ends with its own finish()."""
    return [Kernel("probe", SPLIT.join(firmware.source("probe")))]


def check(rec: dict) -> str | None:
    if rec.get("t") == "probe" and not isinstance(rec.get("emitters"), list):
        return "probe record without a list of emitters"
    return None


SUITE = Suite(
    "probe",
    kernels,
    lambda rec: "probe" if rec.get("t") == "probe" else None,
    {"probe": ()},
    lambda probe, ctx: CONFIG,
    helpers=lambda cfg: [],
    tail="",
    check=check,
)
