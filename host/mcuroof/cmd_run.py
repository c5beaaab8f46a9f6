"""`mcuroof run`: run the suites on a board, log every record, derive roofs, plot and summarise."""
from __future__ import annotations

import os
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from . import __version__, boards, kernels, plot, reference, report, results
from .collect import Collector, configs
from .errors import UserError
from .link import SerialLink, UnixLink
from .ports import resolve_port
from .qemu import DEFAULT_ICOUNT_SHIFT, QemuLink
from .rawlog import RawLog

SUITES = ("memory", "compute")


def configure(p):
    target = p.add_mutually_exclusive_group()
    target.add_argument("--board", default=None, help="qemu-microbit, unix, or a profile name used with --port")
    target.add_argument("--port", help="serial port of a real board: /dev/ttyACM0, auto, or a0/u0/c0")
    p.add_argument("--suite", default="memory,compute", help="comma-separated: memory,compute (default both)")
    p.add_argument("-o", "--output", type=Path, default=Path("out"), help="output folder (default: out)")
    p.add_argument("--icount-shift", type=int, default=DEFAULT_ICOUNT_SHIFT,
                   help=f"QEMU -icount shift: 2^K ns per instruction (default {DEFAULT_ICOUNT_SHIFT})")
    p.add_argument("--profile", help="board profile for the theoretical roofs (default: the --board name)")


def run(args) -> int:
    suites = _suites(args.suite)
    out = _output_dir(args.output)
    console = Console()
    link, name, shift = _open_link(args)
    log = RawLog(out / "raw.jsonl")
    try:
        log.write("header", tool=f"mcuroof {__version__}", board=name, link=link.description,
                  icount_shift=shift, started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        t0 = time.monotonic()
        probe, records = _collect(link, log, suites, console)
        wall = time.monotonic() - t0
    finally:
        link.close()
        log.close()
    board = results.board_info(name, probe, link.description, shift)
    board["wall_seconds"] = round(wall, 1)
    ref = _reference(records) if probe.get("platform") == "linux" else None
    data = results.build(board, records, ref, _theoretical(args.profile or name, shift))
    results.save(data, out / "results.json")
    plot.draw(data, out / "roofline.png")
    for item in report.renderables(data):
        console.print(item)
    console.print(f"wrote {out / 'raw.jsonl'}, {out / 'results.json'}, {out / 'roofline.png'} in {wall:.1f} s")
    return 0


def _suites(text: str) -> list[str]:
    chosen = [s.strip() for s in text.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SUITES]
    if unknown or not chosen:
        raise UserError(f"--suite: unknown suite {', '.join(unknown) or '(none)'} (choose from {', '.join(SUITES)})")
    return chosen


def _output_dir(path: Path) -> Path:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"{path}: cannot create output folder ({e.strerror})") from None
    if not os.access(path, os.W_OK):
        raise UserError(f"{path}: output folder is not writable")
    return path


def _open_link(args):
    if args.port:
        return SerialLink(resolve_port(args.port)), args.board or args.profile or args.port, None
    board = args.board or "qemu-microbit"
    if board == "qemu-microbit":
        return QemuLink(args.icount_shift), board, args.icount_shift
    if board == "unix":
        return UnixLink(), board, None
    known = boards.board_names()
    if board in known:
        raise UserError(f"--board {board}: a real board needs --port (e.g. --port auto --profile {board})")
    raise UserError(f"--board {board}: unknown board (use qemu-microbit, unix, or --port with one of: {', '.join(known)})")


def _collect(link, log, suites, console):
    records: list[dict] = []
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as progress:
        task = progress.add_task("probe", total=1)
        collector = Collector(link, log)
        probe = collector.probe()
        progress.update(task, completed=1)
        cfgs = configs(probe, suites)
        for suite in suites:
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
    return probe, records


def _reference(records: list[dict]) -> list[dict]:
    sizes = sorted({r["bytes"] for r in records if r.get("t") == "mem" and r.get("em") == "c"})
    return reference.memcpy_bandwidth(sizes) if sizes else []


def _theoretical(profile: str, shift: int | None) -> list[dict]:
    if profile not in boards.board_names():
        return []
    return boards.theoretical_roofs(boards.load_board(profile), icount_shift=shift)
