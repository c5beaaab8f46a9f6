"""The pace suite: a busy wait of a fixed span of the board's time between two records, run
once after the probe. measure.pace times the two records' arrival on the host: the board's
seconds per host second, a fact of the run that sizes nothing."""

from __future__ import annotations

from mcuroof.kernels.contract import Kernel
from mcuroof.suites.base import Suite

# the span of board time waited: on a board as slow as rp2040js (0.04-0.08 board s a host
# second) about 2 s of host time; a record's latency on a USB or pty link (ms) is a few % of it
SPAN_US = 100000


CONFIG = {"win_us": 1000, "trials": 1, "span_us": SPAN_US}


def kernels(cfg: dict) -> list[Kernel]:
    span = int(cfg.get("span_us", SPAN_US))
    body = (
        "emit({'t': 'pace', 'us': 0})\nt0 = ticks()\n"
        "while tdiff(ticks(), t0) < %d:\n    pass\nemit({'t': 'pace', 'us': tdiff(ticks(), t0)})\n" % span
    )
    return [Kernel("pace", body)]


SUITE = Suite(
    "pace",
    kernels,
    lambda rec: "pace" if rec.get("t") == "pace" else None,
    {"pace": ("us",)},
    helpers=lambda cfg: [],
)
