"""`mcuroof run --clocks 64M,125M`: the suites at several CPU clocks, one folder per clock.

Each clock is one run of the pipeline (pipeline.measure) into DIR/<clock>/ (raw.jsonl,
results.json, and roofline.png that the command's `draw` adds); the command puts them on one
plot (DIR/compare.png) and prints. Before a clock's suites the board runs machine.freq(hz)
(firmware/clock.py) and reports the clock that resulted; a port whose machine.freq() cannot be set (the micro:bit, the unix port) is refused
before any folder is made. After the suites the clock is read again: a board that lost it (a
hard reset during the run) is marked `clock_lost`. An emulated board that accepts the setting
is marked with `clock_note`: its timing does not follow the clock. Not yet run on hardware.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from mcuroof.errors import UserError
from mcuroof.kernels.emitters import HOST_PLATFORMS
from mcuroof.measure import pipeline
from mcuroof.measure.collect import Collector
from mcuroof.measure.rawlog import MemoryLog

_CLOCK = re.compile(r"(\d+(?:\.\d+)?)\s*([kmg]?)(?:hz)?", re.I)
_SCALE = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}
EMULATED_NOTE = (
    "emulated board: it accepts machine.freq() and reports the clock, but its timing "
    "does not follow it (QEMU counts instructions with -icount; the unix port runs at the host's speed)"
)


def parse(text: str) -> list[int]:
    """'64M,125M' -> [64000000, 125000000]; plain Hz, k/M/G suffixes and a trailing Hz are read."""
    out = []
    for part in (p.strip() for p in text.split(",")):
        m = _CLOCK.fullmatch(part)
        hz = int(round(float(m.group(1)) * _SCALE[m.group(2).lower()])) if m else 0
        if hz <= 0:
            raise UserError(f"--clocks: cannot read {part!r} as a clock (e.g. 64M,125M or 125000000)")
        out.append(hz)
    if len(set(out)) != len(out):
        raise UserError("--clocks: a clock is given twice")
    return out


def folder(hz: int) -> str:
    return f"{hz / 1e6:g}MHz"


def emulated(probe: dict, icount_shift: int | None) -> bool:
    return icount_shift is not None or probe.get("platform") in HOST_PLATFORMS


@dataclass
class Setting:
    """One clock of a --clocks run: set before the suites, read again after them."""

    hz: int
    board: str | None  # None: a port alone, named by its probe
    hz_set: int | None = None
    hz_after: int | None = None

    def set(self, collector: Collector) -> None:
        rec = _setclock(collector, self.hz)
        if rec.get("why") or not rec.get("freq"):
            raise UserError(
                f"--clocks: {self.board or 'the board'} cannot set its clock: machine.freq({self.hz}) raised {rec.get('why')}"
            )
        self.hz_set = rec["freq"]

    def check(self, collector: Collector) -> None:
        """The clock before setting it again: a board reset during the suites is back at its default."""
        self.hz_after = _setclock(collector, self.hz).get("was")

    @property
    def lost(self) -> bool:
        return self.hz_after != self.hz_set

    def facts(self, probe: dict, icount_shift: int | None) -> dict:
        """The board fields of results.json (clock_hz is the probe's, read after setting it)."""
        out = {"clock_requested_hz": self.hz, "clock_set_hz": self.hz_set}
        if self.lost:
            out["clock_lost"] = True
        if emulated(probe, icount_shift):
            out["clock_note"] = EMULATED_NOTE
        return out

    def roof_hz(self, probe: dict, icount_shift: int | None) -> int | None:
        """The clock the theoretical roofs are computed at: none set on an emulated board."""
        return None if emulated(probe, icount_shift) else self.hz_set


def _setclock(collector: Collector, hz: int) -> dict:
    recs = [r for r in collector.run_suite("clock", {"win_us": 20000, "trials": 1, "hz": hz}) if r.get("t") == "clock"]
    return recs[0] if recs else {"why": "no clock record"}


def check_settable(link, board: str, hz: int) -> None:
    """Refuse, before any folder is made, a board whose machine.freq() cannot be set."""
    Setting(hz, board).set(Collector(link, MemoryLog()))


def run_all(
    spec: pipeline.Spec, link, out: Path, hzs: list[int], console, draw: Callable[[dict, Path], None]
) -> list[tuple[Path, dict]]:
    """Every clock through the run pipeline, into out/<clock>/, each drawn (`draw(results, folder)`)
    as soon as it is saved; returns (results path, results)."""
    runs = []
    for hz in hzs:
        sub = out / folder(hz)
        sub.mkdir(exist_ok=True)
        data = pipeline.measure(spec, link, sub, console, clock=Setting(hz, spec.board))
        draw(data, sub)
        runs.append((sub / "results.json", data))
    return runs
