"""`mcuroof run --clocks 64M,125M`: the suites at several CPU clocks, one folder per clock.

Before a clock's suites the board runs machine.freq(hz) (firmware/clock.py) and reports the
clock that resulted; ports without a settable machine.freq() (the micro:bit, the unix port) stop
the run with one line. After the suites the clock is read again: a board that lost it (a hard
reset during the run) is reported. Each clock gets DIR/<clock>/raw.jsonl, results.json and
roofline.png; DIR/compare.png puts them on one plot. Not yet run on hardware.
"""
from __future__ import annotations

import re
import time
from pathlib import Path

from . import __version__, boards, compare, plot, report, results
from .collect import Collector
from .errors import UserError
from .rawlog import RawLog

_CLOCK = re.compile(r"(\d+(?:\.\d+)?)\s*([kmg]?)(?:hz)?", re.I)
_SCALE = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}


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


def set_clock(collector: Collector, hz: int, board: str) -> dict:
    (rec,) = [r for r in collector.run_suite("clock", {"win_us": 20000, "trials": 1, "hz": hz}) if r.get("t") == "clock"]
    if rec.get("why") or not rec.get("freq"):
        raise UserError(f"--clocks: {board} cannot set its clock: machine.freq({hz}) raised {rec.get('why')}")
    return rec


def run(args, suites: list[str], out: Path, console, open_link, collect, reference, layer_request=None) -> int:
    """cmd_run's helpers come in as arguments: open_link(args), collect(link, log, suites,
    console) -> (probe, records), reference(records); layer_request: --model's."""
    clocks = parse(args.clocks)
    link, name, shift = open_link(args)
    runs = []
    try:
        for hz in clocks:
            sub = out / folder(hz)
            sub.mkdir(parents=True, exist_ok=True)
            log = RawLog(sub / "raw.jsonl")
            try:
                log.write("header", tool=f"mcuroof {__version__}", board=name, link=link.description,
                          icount_shift=shift, clock_hz=hz, started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
                t0 = time.monotonic()
                before = set_clock(Collector(link, log), hz, name)
                probe, records = collect(link, log, suites, console)
                after = set_clock(Collector(link, log), hz, name)
                wall = time.monotonic() - t0
            finally:
                log.close()
            clock = {"clock_requested_hz": hz, "clock_set_hz": before["freq"]}
            if after["was"] != before["freq"]:
                console.print(f"[bold red]warning:[/] at {folder(hz)} the board's clock was {after['was']} Hz after "
                              f"the suites, not {before['freq']} Hz: it was reset during the run")
                clock["clock_lost"] = True
            ref = reference(records) if probe.get("platform") == "linux" else None
            facts = results.Run(name, link.description, shift, wall,
                                _theoretical(args.profile or name, probe.get("freq") or before["freq"]), ref,
                                clock, layer_request)
            data = results.document(facts, probe, records)
            results.save(data, sub / "results.json")
            plot.draw(data, sub / "roofline.png")
            for item in report.renderables(data):
                console.print(item)
            runs.append((sub / "results.json", data))
    finally:
        link.close()
    paths = [p for p, _ in runs]
    pairs = list(zip(compare.labels([d for _, d in runs], paths), [d for _, d in runs]))
    for item in compare.tables(pairs, paths):
        console.print(item)
    compare.draw(pairs, out / "compare.png")
    console.print(f"wrote {', '.join(str(p) for p in paths)} and {out / 'compare.png'}")
    return 0


def _theoretical(profile: str, clock_hz) -> list[dict]:
    if profile not in boards.board_names():
        return []
    return boards.theoretical_roofs(boards.load_board(profile), clock_hz=clock_hz)
