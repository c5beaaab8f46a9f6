"""One run of the suites into one folder: collect -> derive -> save.

`mcuroof run` calls `measure` once; `--clocks` (clocks.py) once per clock. Drawing the plot and
report.html (report.outputs) and printing are left to the command: only the progress bar of a
running collection is drawn here, and nothing here imports plotting.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from mcuroof.analysis import timing_basis
from mcuroof.board import capability, cycle_counter, identity
from mcuroof.board import profiles as boards
from mcuroof.errors import BoardError
from mcuroof.kernels.emitters import MEMCPY
from mcuroof.measure import calcache, host_memcpy, runfolder
from mcuroof.measure import pace as board_pace
from mcuroof.measure import timer as board_timer
from mcuroof.measure.collect import Collector, fault_line
from mcuroof.measure.rawlog import RawLog
from mcuroof.results import document as results
from mcuroof.suites import calibration, registry, timing
from mcuroof.suites import layers as layer_suite
from mcuroof.suites.base import Context
from mcuroof.version import __version__


@dataclass
class Spec:
    """What to run and on which board, as the header of raw.jsonl records it."""

    board: str | None  # the board's name: qemu-microbit, unix, a profile name; None: its probe names it
    icount_shift: int | None  # QEMU's -icount shift, None on a real board
    suites: list[str]
    profile: str | None = None  # the profile of the theoretical roofs
    layers: layer_suite.Request | None = None
    options: dict = field(default_factory=dict)  # as given: model, dtype, emitter, tile_seconds, port
    user_file: object | None = None  # kernels.user.UserFile: the user suite's kernels
    # checks of the board once its probe is in, before any suite: check(link, probe) raises to stop
    on_probe: list = field(default_factory=list)
    pace: float | None = None  # board seconds per host second (measure.pace), set by collect()
    timer: timing.Timer | None = None  # the timer check (measure.timer), set by collect(): sizes the suites
    recalibrate: bool = False  # time the calibration's shapes even where a kept one fits (measure.calcache)
    calibration_source: dict | None = None  # results.json's calibration.source, set by collect()
    cycle_model: dict | None = None  # a modelled board's setup (links.cycle_model.Setup.record())

    @property
    def modelled_as(self) -> str | None:
        """The board a modelled emulator is timed as (--as), None where it is timed as itself."""
        cm = self.cycle_model
        return cm["board"] if cm and cm["board"] != cm["emulator"] else None

    def header(self, link, resumed: bool, clock_hz: int | None = None) -> dict:
        return {
            "tool": f"mcuroof {__version__}",
            "board": self.board,
            "link": link.description,
            "icount_shift": self.icount_shift,
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "suites": self.suites,
            "resumed": resumed,
            "profile": self.profile,
            "clock_hz": clock_hz,
            "cycle_model": self.cycle_model,
            "as_board": self.modelled_as,
            **self.options,
        }


def measure(spec: Spec, link, out: Path, console, entries: list[dict] | None = None, clock=None) -> dict:
    """Run the suites into out/raw.jsonl and write results.json there (the command draws the rest:
    report.outputs).

    `entries`: the raw log of the interrupted run to continue. `clock` (clocks.Setting): set the
    board's clock before the suites and read it again after them."""
    log = RawLog(out / "raw.jsonl")
    try:
        log.write("header", **spec.header(link, entries is not None, clock.hz if clock else None))
        t0 = time.monotonic()
        if clock:
            clock.set(Collector(link, log))
        probe, records = collect(link, log, spec, console, entries)
        if clock:
            clock.check(Collector(link, log))
        wall = time.monotonic() - t0
    except BoardError as e:
        if clock:  # --clocks does not resume: the clocks finished before are kept
            raise BoardError(f"{e}; the clocks finished before {out.name} are kept in {out.parent}") from None
        raise BoardError(f"{e}; the partial run is kept: {runfolder.resume_command(out)}") from None
    finally:
        log.close()
    data = derive(spec, link, probe, records, wall, clock)
    results.save(data, out / "results.json")
    return data


def derive(spec: Spec, link, probe: dict, records: list[dict], wall: float, clock=None) -> dict:
    clock_hz = theory_clock(spec, link, probe, clock)
    profile = run_profile(spec)
    facts = results.Run(
        spec.modelled_as or spec.board,
        link.description,
        spec.icount_shift,
        wall,
        theoretical(spec.profile or spec.board, spec.icount_shift, clock_hz),
        memcpy_reference(records) if probe.get("platform") == "linux" else None,
        clock.facts(probe, spec.icount_shift) if clock else {},
        [registry.get(s).results for s in spec.suites if registry.get(s).results],
        Context(records, spec.layers, profile=profile, timer=spec.timer),
        spec.profile or spec.board,
        spec.pace,
        timing.sizing(profile, spec.timer),
        spec.cycle_model,
        timer_record(spec, probe, profile),
    )
    data = results.document(facts, probe, records)
    if spec.calibration_source and "calibration" in data:
        data["calibration"]["source"] = spec.calibration_source
    return data


def pace_warning(spec: Spec, probe: dict, profile) -> str | None:
    """One line where the board's time ran far from real time and nothing says it is an emulator."""
    if spec.icount_shift is not None or spec.pace is None:
        return None
    board = {
        "pace": spec.pace,
        "limits": list(profile.limits) if profile else [],
        "platform": probe.get("platform"),
        "cycle_model": spec.cycle_model,
    }
    if timing_basis.of(board).kind != timing_basis.SUSPECT:
        return None
    return (
        f"an emulator is suspected: {timing_basis.suspected_emulator(board)}; time comes from ticks_us and "
        "may count instructions, so no figure is given per cycle"
    )


def collect(link, log, spec: Spec, console, entries=None) -> tuple[dict, list[dict]]:
    """The probe and the records of every suite, with a progress bar per suite."""
    records: list[dict] = []
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("probe", total=1)
        collector = Collector(link, log)
        if entries:
            collector.resume_from(entries)
        probe = collector.probe()
        if spec.board is None:  # a port alone: "Cortex-M7 (mimxrt) on /dev/ttyACM0"
            spec.board = identity.board_name(probe, getattr(link, "device", None) or link.description)
        profile = run_profile(spec)
        core = identity.describe(probe, profile)
        counter = cycle_counter.warning(
            cycle_counter.read(probe), core.name, spec.icount_shift, spec.cycle_model is not None
        )
        for warning in (core.warning, counter):
            if warning:
                console.print(f"warning: {warning}", highlight=False)
        if spec.layers and not entries:
            capability.check_probe(spec.layers, probe, spec.board)
        for check in spec.on_probe:
            check(link, probe)
        spec.pace = board_pace.for_run(collector, probe, entries)
        paced = pace_warning(spec, probe, profile)
        if paced and not counter:
            console.print(f"warning: {paced}", highlight=False)
        check_timer(spec, collector, probe, entries)
        if timing.slow(profile):
            console.print(f"{spec.board}: {timing.sizing(profile, spec.timer)}", highlight=False, markup=False)
        progress.update(task, completed=1)
        for suite in spec.suites:
            contract = registry.get(suite)
            cfg = contract.config(probe, Context(records, spec.layers, spec.user_file, profile, spec.timer))
            keys = [k.key for k in contract.kernels(cfg)]
            task = progress.add_task(suite, total=len(keys))
            seen: set[str] = set()

            def advance(_suite, rec, seen=seen, task=task):
                key = registry.record_key(rec, _suite)
                if key and key not in seen:
                    seen.add(key)
                    progress.update(task, completed=len(seen) - 1, description=f"{_suite}: {key}")

            collector.on_record = advance
            kept = _kept_calibration(collector, spec, probe, cfg, entries, console) if suite == calcache.SUITE else None
            before = sum(collector.stats.values())
            records += collector.run_suite(suite, cfg)
            if kept is not None:
                _keep_calibration(collector, spec, kept, keys, sum(collector.stats.values()) == before)
            progress.update(task, completed=len(keys), description=suite)
    faults = fault_line(collector.stats, collector.retries)
    if faults:
        console.print(faults, highlight=False, markup=False)
    return probe, records


def check_timer(spec: Spec, collector, probe: dict, entries) -> None:
    """The timer check (measure.timer) into spec.timer, before any suite is sized."""
    board = results.board_info(spec.board, probe, "", spec.icount_shift, spec.cycle_model)
    spec.timer = board_timer.for_run(collector, probe, board, entries)


def timer_record(spec: Spec, probe: dict, profile) -> dict | None:
    """results.json's board.timer: the check and the rule it chose (None: a run without one)."""
    if spec.timer is None:
        return None
    suites = timing.timing(probe, timing.slow(profile), spec.timer)
    return timing.record(spec.timer, probe, suites, calibration.trials(probe, spec.timer))


def memcpy_reference(records: list[dict]) -> list[dict]:
    sizes = sorted({r["bytes"] for r in records if r.get("t") == "mem" and r.get("em") == MEMCPY})
    return host_memcpy.memcpy_bandwidth(sizes) if sizes else []


def run_profile(spec: Spec):
    """The profile a run is sized and checked by: the board's (or --profile's). A modelled emulator
    timed as another board (--as) has that board's facts with the emulator's run table (its
    sizing and emitters) and limits."""
    profile = boards.find(spec.profile or spec.board)
    if profile is None or not spec.modelled_as:
        return profile
    emulator = boards.find(spec.board)
    run = {**profile.run, **{k: v for k, v in emulator.run.items() if not k.startswith("heap_")}}
    return dataclasses.replace(profile, run=run, limits=emulator.limits)


def theory_clock(spec: Spec, link, probe: dict, clock=None) -> float | None:
    """The clock the theory is at: the one per-cycle figures use (timing_basis.figure_clock: the
    counted clock, else machine.freq()'s at the probe, after --clocks set it); None under QEMU's
    -icount, host time or a suspected emulator (the profile's own clock)."""
    board = results.board_info(spec.board, probe, link.description, spec.icount_shift, spec.cycle_model)
    if clock and not board.get("clock_hz"):
        board["clock_hz"] = clock.hz_set
    return timing_basis.figure_clock(board)


def theoretical(profile: str, icount_shift: int | None, clock_hz: float | None = None) -> list[dict]:
    """The profile's theoretical roofs at the clock the run had (set, emulated or the profile's)."""
    board = boards.find(profile)
    return boards.theoretical_roofs(board, clock_hz=clock_hz, icount_shift=icount_shift) if board else []


def _kept_calibration(collector, spec: Spec, probe: dict, cfg: dict, entries, console) -> dict:
    """Take a kept calibration of this board into the run where one fits (not with --recalibrate),
    saying so in one line; returns its key (and the document taken, if any) for _keep_calibration."""
    key = calcache.key(spec.board, spec.icount_shift, probe, cfg, spec.cycle_model)
    resumed = next((e for e in entries or [] if e.get("kind") == "calibration_source"), None)
    if resumed is not None:  # a resumed run keeps the source its first part chose
        spec.calibration_source = resumed["source"]
        return {"key": key, "cfg": cfg, "doc": None, "resumed": True}
    # a resumed run whose calibration had begun finishes it on the board: one calibration, never two mixed
    doc = None if spec.recalibrate or entries is not None or not cfg.get("jobs") else calcache.load(key)
    if doc is not None:
        collector.take(calcache.SUITE, doc["units"], cached=doc["path"])
        console.print(
            f"calibration: reusing this board's, measured {doc.get('measured_at')} ({doc['path']}); "
            "--recalibrate measures it again",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
        spec.calibration_source = calcache.source(doc)
        collector.log.write("calibration_source", source=spec.calibration_source)
    return {"key": key, "cfg": cfg, "doc": doc, "resumed": False}


def _keep_calibration(collector, spec: Spec, kept: dict, keys: list[str], clean: bool) -> None:
    """Keep a calibration this run measured whole, with no fault on the link, for the next run."""
    if kept["doc"] is not None or kept["resumed"] or not keys:
        return
    units = {k: collector.done[(calcache.SUITE, k)] for k in keys if (calcache.SUITE, k) in collector.done}
    whole = clean and len(units) == len(keys)
    window = {k: kept["cfg"].get(k) for k in ("win_us", "trials")}
    out = str(collector.log.path.parent) if collector.log.path else None
    path = calcache.save(kept["key"], units, out, window) if whole and out else None
    spec.calibration_source = calcache.source(None, path)
    collector.log.write("calibration_source", source=spec.calibration_source)
