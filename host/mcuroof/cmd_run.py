"""`mcuroof run`: run the suites on a board, log every record, derive roofs, plot and summarise."""
from __future__ import annotations

import contextlib
import os
import tempfile
import time
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from . import (__version__, boards, capability, html_report, kernels, layer_suite, layers, plot, reference, report,
               results, terminal)
from . import place
from .collect import Collector, configs
from .errors import BoardError, UserError
from .link import SerialLink, UnixLink
from .model import load_network
from .ports import resolve_port
from .qemu import QemuLink, is_qemu_board
from .rawlog import RawLog, read as read_raw

SUITES = ("memory", "compute", "regions", "layers")
LAYER_OPTIONS = ("model", "dtype", "emitter", "tile_seconds")
UNIX_HEAP_BYTES = 600 * 1024 * 1024   # a unix profile without [run].heap_bytes


def configure(p):
    target = p.add_mutually_exclusive_group()
    target.add_argument("--board", default=None, help="qemu-microbit, qemu-m3, qemu-m7, qemu-m55, unix, "
                                                       "or a profile name used with --port")
    target.add_argument("--port", help="serial port of a real board: /dev/ttyACM0, auto, or a0/u0/c0")
    place.configure(p, target)
    p.add_argument("--suite", default="memory,compute,regions",
                   help="comma-separated: memory,compute,regions (default all three)")
    p.add_argument("-o", "--output", type=Path, default=Path("out"), help="output folder (default: out)")
    p.add_argument("--icount-shift", type=int, default=None,
                   help="QEMU -icount shift: 2^K ns per instruction (default: the profile's [run].icount_shift)")
    p.add_argument("--heap-bytes", type=int, default=None,
                   help="unix port: MicroPython heap, -X heapsize (default: the profile's [run].heap_bytes)")
    p.add_argument("--profile", help="board profile for the theoretical roofs (default: the --board name)")
    p.add_argument("--resume", type=Path, metavar="DIR",
                   help="continue the interrupted run in DIR (its raw.jsonl) without repeating finished measurements")
    p.add_argument("--model", help="profile a network layer by layer: a .tflite file or a built-in name "
                                   "(kws-dscnn, vww-mobilenet, ic-resnet8, ad-autoencoder); adds the layers suite")
    p.add_argument("--dtype", help="element types of the layer kernels: int8,float32 (default: the model's)")
    p.add_argument("--emitter", help="emitters of the layer kernels, e.g. bytecode,asm_thumb (default: all the board has)")
    p.add_argument("--tile-seconds", type=float, default=None,
                   help="time budget of one layer-kernel call at its measured ceiling (default 0.25 s on small boards, 1 s else)")
    p.add_argument("--clocks", help="run the suites at each CPU clock, e.g. 64M,125M (ports with a settable "
                                    "machine.freq()); writes DIR/<clock>/results.json and DIR/compare.png")


def run(args) -> int:
    entries = _resume(args) if args.resume else None
    if not args.port and not getattr(args, "place", None) and (args.board or "qemu-microbit") in boards.board_names():
        _profile_defaults(args, boards.load_board(args.board or "qemu-microbit"))
    suites, layer_request = _layer_request(args, _suites(args.suite))
    if layer_request:
        _check_request(args, layer_request)
    out = _output_dir(args.output)
    console = terminal.console()
    if getattr(args, "clocks", None):
        from . import clocks

        clocks.parse(args.clocks)  # a bad list fails before the board is touched
        if entries is not None:
            raise UserError("--clocks cannot resume a run: run it again without --resume")
        return clocks.run(args, suites, out, console, _open_link,
                          lambda *a: _collect(*a, None, layer_request), _reference, layer_request)
    link, name, shift = _open_link(args)
    log = RawLog(out / "raw.jsonl")
    try:
        log.write("header", tool=f"mcuroof {__version__}", board=name, link=link.description,
                  icount_shift=shift, started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                  suites=suites, resumed=entries is not None, place=getattr(args, "place", None),
                  **{opt: getattr(args, opt, None) for opt in LAYER_OPTIONS})
        t0 = time.monotonic()
        probe, records = _collect(link, log, suites, console, entries, layer_request)
        wall = time.monotonic() - t0
    except BoardError as e:
        raise BoardError(f"{e}; the partial run is kept: mcuroof run --resume {out}") from None
    finally:
        link.close()
        log.close()
    ref = _reference(records) if probe.get("platform") == "linux" else None
    facts = results.Run(name, link.description, shift, wall, _theoretical(args.profile or name, shift), ref,
                        layers=layer_request)
    data = results.document(facts, probe, records)
    results.save(data, out / "results.json")
    plot.draw(data, out / "roofline.png")
    html_report.write(data, out / "report.html")
    for item in report.renderables(data):
        terminal.show(console, item)
    console.print(f"wrote {out / 'raw.jsonl'}, {out / 'results.json'}, {out / 'roofline.png'}, {out / 'report.html'} "
                  f"in {wall:.1f} s")
    return 0


def _suites(text: str) -> list[str]:
    chosen = [s.strip() for s in text.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SUITES]
    if unknown or not chosen:
        raise UserError(f"--suite: unknown suite {', '.join(unknown) or '(none)'} (choose from {', '.join(SUITES)})")
    return chosen


def _layer_request(args, suites: list[str]) -> tuple[list[str], layer_suite.Request | None]:
    """The suites to run and the layer profiling asked for: --model adds the layers suite,
    last (after the suites whose roofs its points are placed under)."""
    model_spec = getattr(args, "model", None)
    if not model_spec:
        if "layers" in suites:
            raise UserError("--suite layers needs --model MODEL (a .tflite file or a built-in name)")
        return suites, None
    request = layer_suite.Request(load_network(model_spec),
                                  layer_suite.parse_list(args.dtype, tuple(layers.DTYPES), "--dtype"),
                                  layer_suite.parse_list(args.emitter, layer_suite.EMITTERS, "--emitter"),
                                  args.tile_seconds)
    return [s for s in suites if s != "layers"] + ["layers"], request


def _check_request(args, request: layer_suite.Request) -> None:
    """Refuse, before anything runs, emitters and element types the board's profile cannot run."""
    name = args.profile or args.board or (None if args.port or getattr(args, "place", None) else "qemu-microbit")
    profile = boards.load_board(name) if name in boards.board_names() else None
    capability.check(request.emitters, request.dtypes, request.network, name,
                     profile.run.get("emitters") if profile else None)


def _output_dir(path: Path) -> Path:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"{path}: cannot create output folder ({e.strerror})") from None
    try:  # os.access alone says yes to root, or on a read-only file system
        if not os.access(path, os.W_OK):
            raise PermissionError(13, "permission denied")
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as e:
        raise UserError(f"{path}: output folder is not writable ({e.strerror})") from None
    return path


def _open_link(args):
    """The link the board's profile names (`connect`), with its [run] values as defaults that
    --icount-shift and --heap-bytes override. Returns (link, board name, QEMU shift or None)."""
    if getattr(args, "place", None):
        return place.open_link(args)
    if args.port:
        return SerialLink(resolve_port(args.port)), args.board or args.profile or args.port, None
    name = args.board or "qemu-microbit"
    if name not in boards.board_names():
        raise UserError(f"--board {name}: unknown board (use a profile name: {', '.join(boards.board_names())})")
    profile = boards.load_board(name)
    _profile_defaults(args, profile)  # again for callers that did not (mcuroof kernel)
    if profile.connect == "qemu":
        if not is_qemu_board(name):
            raise UserError(f"--board {name}: no QEMU machine is known for this profile")
        with _build_progress() as on_progress:
            return QemuLink(args.icount_shift, board=name, on_progress=on_progress), name, args.icount_shift
    if profile.connect == "unix":
        return UnixLink(heapsize=str(args.heap_bytes)), name, None
    raise UserError(f"--board {name}: a real board needs --port (e.g. --port auto --profile {name})")


def _profile_defaults(args, profile: boards.Board) -> None:
    """The profile's [run] values where the command line left them out."""
    if getattr(args, "icount_shift", None) is None and "icount_shift" in profile.run:
        args.icount_shift = profile.run["icount_shift"]
    if getattr(args, "heap_bytes", None) is None and profile.connect == "unix":
        args.heap_bytes = profile.run.get("heap_bytes", UNIX_HEAP_BYTES)


@contextlib.contextmanager
def _build_progress():
    """A progress bar for the first run of a board whose firmware must be built (seen only then)."""
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  transient=True) as progress:
        tasks = {}

        def update(step, done, total):
            if step not in tasks:
                tasks[step] = progress.add_task(step, total=total or None)
            progress.update(tasks[step], completed=done)

        yield update


def _resume(args) -> list[dict]:
    """The raw log of the run to continue; its board, suites and output folder become this run's."""
    entries = read_raw(args.resume / "raw.jsonl")
    header = next((e for e in entries if e["kind"] == "header"), None)
    if header is None:
        raise UserError(f"{args.resume / 'raw.jsonl'}: no header line: not a run to resume")
    args.output = args.resume
    if isinstance(header.get("suites"), list):
        args.suite = ",".join(str(s) for s in header["suites"])
    if not args.board and not args.port and not getattr(args, "place", None):
        args.board, args.place = (None, header["place"]) if header.get("place") else (header.get("board"), None)
    for opt in LAYER_OPTIONS:  # the same layer plan as the interrupted run
        if getattr(args, opt, None) is None and header.get(opt) is not None:
            setattr(args, opt, header[opt])
    if isinstance(header.get("icount_shift"), int):
        args.icount_shift = header["icount_shift"]
    return entries


def _collect(link, log, suites, console, entries=None, layer_request=None):
    records: list[dict] = []
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as progress:
        task = progress.add_task("probe", total=1)
        collector = Collector(link, log)
        if entries:
            collector.resume_from(entries)
        probe = collector.probe()
        progress.update(task, completed=1)
        cfgs = configs(probe, [s for s in suites if s != "layers"])
        for suite in suites:
            if suite == "layers":
                cfgs[suite] = layer_suite.config(layer_request, probe, records)
            keys = [k.key for k in kernels.for_suite(suite, cfgs[suite])]
            task = progress.add_task(suite, total=len(keys))
            seen: set[str] = set()

            def advance(_suite, rec, seen=seen, task=task):
                key = kernels.record_key(rec)
                if key and key not in seen:
                    seen.add(key)
                    progress.update(task, completed=len(seen) - 1, description=f"{_suite}: {key}")

            collector.on_record = advance
            records += collector.run_suite(suite, cfgs[suite])
            progress.update(task, completed=len(keys), description=suite)
    faults = {k: v for k, v in collector.stats.items() if v}
    if faults or collector.retries:
        console.print(f"recovered from faults: {faults}; MemoryError retries: {collector.retries}", highlight=False)
    return probe, records


def _reference(records: list[dict]) -> list[dict]:
    sizes = sorted({r["bytes"] for r in records if r.get("t") == "mem" and r.get("em") == "c"})
    return reference.memcpy_bandwidth(sizes) if sizes else []


def _theoretical(profile: str, shift: int | None) -> list[dict]:
    if profile not in boards.board_names():
        return []
    return boards.theoretical_roofs(boards.load_board(profile), icount_shift=shift)
