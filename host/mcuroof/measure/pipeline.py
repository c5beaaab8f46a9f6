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
from mcuroof.measure import host_memcpy, runfolder
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
    return results.document(facts, probe, records)


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
            records += collector.run_suite(suite, cfg)
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
