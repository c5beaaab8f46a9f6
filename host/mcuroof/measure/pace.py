"""How fast the board's time runs against the host's: board seconds per host second.

After the probe, a board that is not a host OS runs the pace suite (suites.pace): two records a
fixed span of its own time apart; the host times their arrival. A real board's time is real
time (about 1); QEMU -icount's runs ahead of the host (over 1); rp2040js's counts emulated cycles
at 4-36 M a host second against the Pico's 125 MHz (0.035-0.29 here, by the host's load). suites.timing sizes the windows,
trials and sweeps by it. The figure goes into raw.jsonl (a "pace" entry), so a resumed run sizes
what is left as the first run sized it.
"""

from __future__ import annotations

import time

from mcuroof.kernels.emitters import HOST_PLATFORMS
from mcuroof.suites import pace as pace_suite


def ratio(board_us: float, host_s: float) -> float | None:
    """Board seconds per host second; None where the host saw no time pass (a link that hands
    over its lines only at the end)."""
    return board_us / 1e6 / host_s if host_s > 0 and board_us > 0 else None


def recorded(entries: list[dict]) -> float | None:
    """The pace a previous run of this folder measured (None: it measured none)."""
    found = [e.get("pace") for e in entries if e.get("kind") == "pace"]
    return found[-1] if found and isinstance(found[-1], (int, float)) else None


def for_run(collector, probe: dict, entries: list[dict] | None) -> float | None:
    """The run's pace: a resumed run's as its first run measured it (None where that run sized
    its suites without one), a new run's measured now."""
    if entries:
        done = {suite for suite, _ in collector.done} - {"probe", "pace"}
        if recorded(entries) is not None or done:
            return recorded(entries)
    return measure(collector, probe)


def measure(collector, probe: dict) -> float | None:
    """Run the pace suite through the collector and log the result; None on a host OS (its
    time is the host's)."""
    if probe.get("platform") in HOST_PLATFORMS:
        return None
    arrived: dict[int, float] = {}
    seen = collector.on_record

    def stamp(suite, rec):
        if rec.get("t") == "pace":
            arrived[0 if rec.get("us") == 0 else 1] = time.monotonic()
        seen(suite, rec)

    collector.on_record = stamp
    try:
        recs = collector.run_suite("pace", pace_suite.CONFIG)
    finally:
        collector.on_record = seen
    span = max((r["us"] for r in recs if r.get("t") == "pace"), default=0)
    value = ratio(span, arrived.get(1, 0.0) - arrived.get(0, 0.0)) if len(arrived) == 2 else None
    collector.log.write("pace", board_us=span, pace=value)
    return value
