"""`mcuroof run`: run the suites on a board, log every record, derive roofs, plot and summarise."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import math
import time
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from mcuroof.analysis import compare as compare_runs
from mcuroof.board import capability
from mcuroof.board import profiles as boards
from mcuroof.commands import options
from mcuroof.errors import Interrupted, UserError
from mcuroof.kernels.ops import layer_plan
from mcuroof.links import farm_place as place
from mcuroof.links.base import Opened, Target
from mcuroof.links.open import open_link
from mcuroof.links.qemu import MAX_ICOUNT_SHIFT, is_qemu_board
from mcuroof.measure import pipeline, runfolder
from mcuroof.measure.rawlog import read as read_raw
from mcuroof.model.load import load_network
from mcuroof.report import compare, outputs, terminal
from mcuroof.report import tables as report
from mcuroof.suites import layers as layer_suite
from mcuroof.suites import registry
from mcuroof.units import duration

DEFAULT_SUITES = ",".join(registry.DEFAULT)
LAYER_OPTIONS = ("model", "dtype", "emitter", "tile_seconds")


@dataclasses.dataclass(frozen=True)
class RunRequest:
    """What `mcuroof run` is asked to do, built once: from the command line (`request`) or by the
    notebook API (`mcuroof.run`). Names as the options' (--tile-seconds: tile_seconds)."""

    board: str | None = None
    port: str | None = None
    place: str | None = None
    coordinator: str | None = None
    wait: bool = False
    icount_shift: int | None = None
    heap_bytes: int | None = None
    profile: str | None = None
    as_board: str | None = None  # --as: the board a modelled emulator (qemu-m4, qemu-m33) is timed as
    suite: str | None = None  # comma-separated, as --suite
    output: Path | None = None
    force: bool = False
    resume: Path | None = None
    model: str | None = None
    dtype: str | None = None  # comma-separated, as --dtype
    emitter: str | None = None
    tile_seconds: float | None = None
    clocks: str | None = None
    details: bool = False  # print every table (as `mcuroof report`), not the short summary
    recalibrate: bool = False  # time the calibration shapes even where this board's is kept (measure.calcache)

    @property
    def target(self) -> Target:
        return Target(**{f.name: getattr(self, f.name) for f in dataclasses.fields(Target)})


def request(args) -> RunRequest:
    """The request of a `mcuroof run` command line."""
    req = RunRequest(**{f.name: getattr(args, f.name, f.default) for f in dataclasses.fields(RunRequest)})
    return dataclasses.replace(req, suite=",".join(registry.chosen(req.suite)) if req.suite else None)


def _icount_shift(text: str) -> int:
    if not text.strip().isdigit() or int(text) > MAX_ICOUNT_SHIFT:
        raise argparse.ArgumentTypeError(
            f"{text!r}: QEMU takes a whole number from 0 to {MAX_ICOUNT_SHIFT} (2^K ns per instruction)"
        )
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds above 0, e.g. 0.25")
    return value


def configure(p):
    p.add_argument(
        "--board",
        default=None,
        help="where the suites run: qemu-microbit, qemu-m3, qemu-m7, qemu-m55, qemu-rv32, rp2040js-pico or unix (on this host), "
        "or the profile name of the real board on --port (e.g. --board pico --port auto); "
        "default qemu-microbit",
    )
    target = p.add_mutually_exclusive_group()
    target.add_argument("--port", help="serial port of a real board: /dev/ttyACM0, auto, or a0/u0/c0")
    place.configure(p, target)
    p.add_argument(
        "--suite",
        action="append",
        help=f"comma-separated or repeated: {','.join(registry.RUNNABLE)} (default {DEFAULT_SUITES}; "
        "layers comes with --model)",
    )
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        help="output folder (default: out); it must hold no run (see --force, --resume)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="move a run already in the output folder aside (kept as DIR.<its start time>) and start again",
    )
    p.add_argument(
        "--icount-shift",
        type=_icount_shift,
        default=None,
        help=f"QEMU -icount shift: 2^K ns per instruction, 0 to {MAX_ICOUNT_SHIFT} "
        "(default: the profile's [run].icount_shift)",
    )
    p.add_argument(
        "--heap-bytes",
        type=int,
        default=None,
        help="unix port: MicroPython heap, -X heapsize (default: the profile's [run].heap_bytes)",
    )
    p.add_argument("--profile", help="board profile for the theoretical roofs (default: the --board name)")
    add_as_option(p)
    p.add_argument(
        "--resume",
        type=Path,
        metavar="DIR",
        help="continue the interrupted run in DIR without repeating finished measurements; its board, "
        "suites and options come from DIR/raw.jsonl",
    )
    p.add_argument(
        "--model",
        help="profile a network layer by layer: a .tflite file or a built-in name "
        "(kws-dscnn, vww-mobilenet, ic-resnet8, ad-autoencoder); adds the layers suite",
    )
    p.add_argument("--dtype", help="element types of the layer kernels: int8,float32 (default: the model's)")
    p.add_argument(
        "--emitter", help="emitters of the layer kernels, e.g. bytecode,asm_thumb (default: all the board has)"
    )
    p.add_argument(
        "--tile-seconds",
        type=_seconds,
        default=None,
        help="time budget of one layer-kernel call at its measured ceiling (default 0.25 s on small boards, 1 s else)",
    )
    p.add_argument(
        "--details",
        action="store_true",
        help="with --model: print every roof, ridge point and layer run with its advice (what "
        "`mcuroof report DIR/results.json` prints), not the short summary",
    )
    p.add_argument(
        "--recalibrate",
        action="store_true",
        help="time the calibration's shapes again, even where this board's calibration is kept "
        "(~/.cache/mcuroof/calibration: a later run on the same board, firmware and clock reuses it)",
    )
    p.add_argument(
        "--clocks",
        help="run the suites at each CPU clock, e.g. 64M,125M (ports with a settable "
        "machine.freq()); writes DIR/<clock>/results.json and DIR/compare.png",
    )


def run(args) -> int:
    return execute(request(args))


def execute(req: RunRequest) -> int:
    """`mcuroof run` of a typed request (the command line's, or the notebook API's)."""
    entries = None
    if req.resume:
        req, entries = _resume(req)
    req = _defaults(req)
    spec = _spec(req)
    console = terminal.console()
    if req.clocks:
        return _run_clocks(req, spec, console)
    if entries is None:
        runfolder.check_new(req.output, req.force)
    else:
        runfolder.check_resumable(req.output)
    started = time.monotonic()
    link, built = _open(req, spec)
    opened = time.monotonic() - started
    top, moved = runfolder.first_missing(req.output), None
    try:
        moved = runfolder.create(req.output) if entries is None else None
        data = pipeline.measure(spec, link, req.output, console, entries)
        outputs.draw(data, req.output)
    except capability.Refused:
        runfolder.undo(req.output, top, moved)
        raise
    except KeyboardInterrupt:
        raise Interrupted(f"the partial run is kept: {runfolder.resume_command(req.output)}") from None
    finally:
        link.close()
    for item in report.renderables(data, req.details, str(req.output)):
        terminal.show(console, item)
    out = req.output
    if moved:
        console.print(f"the run that was in {out} is kept in {moved}")
    written = [out / "raw.jsonl", *outputs.outputs(data, out)]
    console.print(
        f"wrote {', '.join(map(str, written))} in {duration(time.monotonic() - started)}: "
        + _time_parts(opened, built, data["board"]["wall_seconds"])
    )
    if len(written) < 4:
        console.print("no plot or report.html: the results hold no roof and no layer to draw")
    return 0


def _time_parts(opened: float, built: bool, suites: float) -> str:
    """Where a run's time went: opening the board (its firmware built first, the first time) and
    the suites; drawing and writing are the rest."""
    first = "building its firmware and opening the board" if built else "opening the board"
    return f"{duration(opened)} {first}, {duration(suites)} of suites"


def _run_clocks(req, spec: pipeline.Spec, console) -> int:
    from mcuroof.measure import clocks

    hzs = clocks.parse(req.clocks)  # a bad list fails before the board is touched
    if req.resume:
        raise UserError("--clocks cannot resume a run: run it again without --resume")
    runfolder.check_new(req.output, req.force)
    link, _ = _open(req, spec)
    top, moved = runfolder.first_missing(req.output), None
    try:
        clocks.check_settable(link, spec.board or req.port, hzs[0])
        moved = runfolder.create(req.output)
        runs = clocks.run_all(spec, link, req.output, hzs, console, outputs.draw)
    except capability.Refused:
        runfolder.undo(req.output, top, moved)
        raise
    except KeyboardInterrupt:
        raise Interrupted(
            f"the clocks finished so far are kept in {req.output}; --clocks cannot resume: "
            "run the others into another folder"
        ) from None
    finally:
        link.close()
    for path, data in runs:
        for item in report.renderables(data):
            terminal.show(console, item)
        if data["board"].get("clock_lost"):
            console.print(
                f"[bold red]warning:[/] at {clocks.folder(data['board']['clock_requested_hz'])} the board "
                "lost its clock during the suites: it was reset during the run"
            )
    pairs = _draw_clocks(runs, req.output / "compare.png")
    for item in compare.tables(pairs, [p for p, _ in runs]):
        terminal.show(console, item)
    if moved:
        console.print(f"the run that was in {req.output} is kept in {moved}")
    console.print(f"wrote {', '.join(str(p) for p, _ in runs)} and {req.output / 'compare.png'}")
    return 0


def _draw_clocks(runs: list[tuple[Path, dict]], path: Path) -> list[tuple[str, dict]]:
    """compare.png of the clocks; returns the labelled runs for the tables."""
    paths = [p for p, _ in runs]
    pairs = list(zip(compare_runs.labels([d for _, d in runs], paths), [d for _, d in runs]))
    compare.draw(pairs, path)
    return pairs


def _defaults(req: RunRequest) -> RunRequest:
    req = dataclasses.replace(req, suite=req.suite or DEFAULT_SUITES, output=req.output or Path("out"))
    if req.port and (is_qemu_board(req.board) or req.board == "unix"):
        raise UserError(
            f"--board {req.board} runs on this host: it takes no --port "
            "(with --port, --board names the real board's profile)"
        )
    for name in (req.profile, req.board if req.port else None):  # a typo here would drop the theory silently
        if name and name not in boards.board_names():
            raise UserError(boards.unknown(name))
    if req.place and req.board:
        raise UserError(
            f"--board {req.board}: --place {req.place} names its board (its board tag; --profile to override)"
        )
    return req


def _spec(req) -> pipeline.Spec:
    """What to run; the board's name and QEMU shift are filled in when its link opens."""
    suites, request = _layer_request(req, registry.chosen(req.suite))
    if request:
        _check_request(req, request)
    options = {opt: getattr(req, opt, None) for opt in LAYER_OPTIONS + ("port", "place")}
    spec = pipeline.Spec(None, None, suites, req.profile, request, options)
    spec.recalibrate = req.recalibrate
    return spec


def _open(req: RunRequest, spec: pipeline.Spec):
    """The board's link, and whether its firmware was built first; its name, shift and profile go
    into the spec (a --place knows them once acquired)."""
    built: list[str] = []
    opened = open_target(req.target, built)
    spec.board, spec.icount_shift, spec.profile = opened.board, opened.icount_shift, opened.profile
    spec.cycle_model = opened.cycle_model
    return opened.link, bool(built)


def add_as_option(p) -> None:
    p.add_argument(
        "--as",
        dest="as_board",
        metavar="BOARD",
        help="time a modelled board (--board qemu-m4, qemu-m33 or qemu-m0plus) as this profile's board: its core's "
        "timings, clock, heap and flash wait states (e.g. --board qemu-m4 --as pyboard)",
    )


def target(args) -> Target:
    """Where the suites run, from a command line (`mcuroof run` and `mcuroof kernel`)."""
    return Target(**{f.name: getattr(args, f.name, f.default) for f in dataclasses.fields(Target)})


def open_target(t: Target, steps: list[str] | None = None) -> Opened:
    """The target's link, with a progress bar where its firmware must be built first (the steps
    seen are added to `steps`)."""
    if t.port or t.place:
        return open_link(t)
    with _build_progress(steps) as on_progress:
        return open_link(t, on_progress)


def _layer_request(req, suites: list[str]) -> tuple[list[str], layer_suite.Request | None]:
    """The suites to run and the layer profiling asked for: --model adds the layers suite,
    last (after the suites whose roofs its points are placed under)."""
    model_spec = req.model
    if not model_spec:
        if "layers" in suites:
            raise UserError("--suite layers needs --model MODEL (a .tflite file or a built-in name)")
        for opt in ("dtype", "emitter"):
            if getattr(req, opt, None):
                raise UserError(
                    f"--{opt} chooses the layer kernels: it needs --model MODEL "
                    "(the memory and compute suites run every type and emitter the board has)"
                )
        return suites, None
    request = layer_suite.Request(
        load_network(model_spec),
        options.dtypes(req.dtype, layer_plan.DTYPES),
        options.emitters(req.emitter),
        req.tile_seconds,
    )
    return [s for s in suites if s != "layers"] + ["layers"], request


def _check_request(req, request: layer_suite.Request) -> None:
    """Refuse, before anything runs, emitters and element types the board's profile cannot run."""
    name = req.profile or req.board or (None if req.port or req.place else "qemu-microbit")
    profile = boards.find(name)
    capability.check(
        request.emitters, request.dtypes, request.network, name, profile.run.get("emitters") if profile else None
    )


@contextlib.contextmanager
def _build_progress(steps: list[str] | None = None):
    """A progress bar for the first run of a board whose firmware must be built (seen only then)."""
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), transient=True
    ) as progress:
        tasks = {}

        def update(step, done, total):
            if step not in tasks:
                tasks[step] = progress.add_task(step, total=total or None)
                if steps is not None:
                    steps.append(step)
            progress.update(tasks[step], completed=done)

        yield update


def _resume(req: RunRequest) -> tuple[RunRequest, list[dict]]:
    """The raw log of the run to continue. Its board, suites and options become this run's; an
    option given again with another value is refused (the log must hold one run)."""
    entries = read_raw(req.resume / "raw.jsonl")
    header = next((e for e in entries if e["kind"] == "header"), None)
    if header is None:
        raise UserError(f"{req.resume / 'raw.jsonl'}: no header line: not a run to resume")
    recorded = _recorded_options(header)
    given = {
        "board": req.board,
        "suite": req.suite,
        "icount_shift": req.icount_shift,
        "profile": req.profile,
        "as_board": req.as_board,
        "output": req.output,
        "place": req.place,
        **{opt: getattr(req, opt, None) for opt in LAYER_OPTIONS},
    }
    recorded["output"] = req.resume
    for opt, value in given.items():
        if value is not None and opt in recorded and not _same(opt, value, recorded[opt]):
            flag = "-o" if opt == "output" else "--" + opt.replace("_", "-")
            raise UserError(
                f"{flag} {value}: the run in {req.resume} was started with {flag} {recorded[opt]}; leave "
                f"{flag} out (--resume takes the run's options from {req.resume / 'raw.jsonl'})"
            )
    req = dataclasses.replace(req, **recorded)
    if not req.port and not req.place and header.get("port"):
        req = dataclasses.replace(req, port=header["port"])
    return req, entries


def _recorded_options(header: dict) -> dict:
    """The run's options as its raw.jsonl header recorded them (older logs lack some)."""
    out = {opt: header[opt] for opt in LAYER_OPTIONS + ("profile", "place", "as_board") if header.get(opt) is not None}
    if isinstance(header.get("board"), str) and not header.get("place"):  # a place's board is the place
        out["board"] = header["board"]
    if isinstance(header.get("suites"), list):
        out["suite"] = ",".join(str(s) for s in header["suites"])
    if isinstance(header.get("icount_shift"), int):
        out["icount_shift"] = header["icount_shift"]
    return out


def _same(opt: str, given, recorded) -> bool:
    if opt == "suite":
        return set(registry.chosen(str(given))) - {"layers"} == set(registry.chosen(str(recorded))) - {"layers"}
    if opt in ("dtype", "emitter"):
        return [x.strip() for x in str(given).split(",")] == [x.strip() for x in str(recorded).split(",")]
    if opt in ("output", "model") and Path(str(given)).exists():
        return Path(str(given)).resolve() == Path(str(recorded)).resolve()
    return str(given) == str(recorded)
