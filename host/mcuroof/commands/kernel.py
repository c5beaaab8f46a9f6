"""`mcuroof kernel FILE.py`: the user's own kernels timed on the board by mcuroof's harness,
checked, and placed on the roofline beside the roofs of the same board (measured in the same
session, or taken from an earlier run's results.json with --roofs)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from mcuroof.commands.run import open_target, target
from mcuroof.errors import BoardError, UserError
from mcuroof.kernels import firmware
from mcuroof.kernels import user as user_kernel
from mcuroof.links.base import ScriptError
from mcuroof.links.qemu import DEFAULT_ICOUNT_SHIFT
from mcuroof.measure import pipeline
from mcuroof.measure.rawlog import RawLog
from mcuroof.measure.runfolder import make as _output_dir
from mcuroof.report import plot, terminal
from mcuroof.report import tables as report
from mcuroof.results import document as results
from mcuroof.suites import registry
from mcuroof.suites.base import Context

ROOF_SUITES = ("memory", "compute")


def configure(p):
    p.add_argument("file", type=Path, help="a MicroPython file defining kernel_NAME() functions (see README)")
    target = p.add_mutually_exclusive_group()
    target.add_argument("--board", default=None, help=board_help())
    target.add_argument("--port", help="serial port of a real board: /dev/ttyACM0, auto, or a0/u0/c0")
    p.add_argument("--profile", help="board profile for the theoretical roofs (default: the --board name)")
    p.add_argument(
        "--roofs",
        type=Path,
        metavar="RESULTS",
        help="take the roofs from this results.json of the same board instead of measuring them",
    )
    p.add_argument("-o", "--output", type=Path, default=Path("out-kernel"), help="output folder (default: out-kernel)")
    p.add_argument(
        "--icount-shift",
        type=int,
        default=DEFAULT_ICOUNT_SHIFT,
        help=f"QEMU -icount shift: 2^K ns per instruction (default {DEFAULT_ICOUNT_SHIFT})",
    )


def board_help() -> str:
    """The boards --board takes: those started here (QEMU, rp2040js, the unix port), from their profiles."""
    from mcuroof.board import profiles

    try:
        here = [b.name for b in profiles.list_boards() if b.connect in ("qemu", "rp2040js", "unix")]
    except Exception:  # a broken profile must not break --help: `mcuroof boards` names it
        here = []
    started = ", ".join(here) or "the QEMU boards and unix"
    return (
        f"where the kernels run: {started} (started here), or the profile name of a real board "
        "on --port (`mcuroof boards` lists the profiles); default qemu-microbit"
    )


def run(args) -> int:
    uf = user_kernel.load(args.file)
    out = _output_dir(args.output)
    base = _base(out / "results.json", args.roofs)
    opened = open_target(target(args))
    link = opened.link
    roofs = args.roofs.resolve() if args.roofs else None  # recorded as the file it names, however spelled
    options = {"port": args.port, "kernel_file": str(args.file), "roofs_from": str(roofs) if roofs else None}
    spec = pipeline.Spec(
        opened.board,
        opened.icount_shift,
        ["user"] if base else [*ROOF_SUITES, "user"],
        opened.profile or args.profile,
        None,
        options,
        uf,
    )
    if base:
        spec.on_probe.append(lambda link, probe: _same_board(base, args.roofs, spec.board, probe))
    spec.on_probe.append(lambda link, probe: _load_check(link, uf, probe))
    log = RawLog(out / "raw.jsonl")
    console = terminal.console()
    t0 = time.monotonic()
    try:
        log.write("header", **spec.header(link, False))
        probe, records = pipeline.collect(link, log, spec, console)
    finally:
        link.close()
        log.close()
    if base is None:  # the roofs measured here, as `mcuroof run` derives them
        base = pipeline.derive(spec, link, probe, records, time.monotonic() - t0)
    data = results.with_user_points(base, uf, [r for r in records if r.get("t") in ("uk", "uerr")], roofs)
    results.save(data, out / "results.json")
    plot.draw(data, out / "roofline.png")
    for item in report.kernel_renderables(data, measured_roofs=not args.roofs):
        terminal.show(console, item)
    console.print(f"wrote {out / 'raw.jsonl'}, {out / 'results.json'}, {out / 'roofline.png'}", highlight=False)
    for line in data["user_kernels"]["errors"]:
        print(f"mcuroof: {line}", file=sys.stderr)
    return 2 if data["user_kernels"]["errors"] else 0


def _base(path: Path, roofs: Path | None) -> dict | None:
    """The results the points join: the --roofs ones, or those already in -o from the same
    --roofs (kernels of several files gather there). Any other run in -o is left alone."""
    if roofs and path.resolve() == roofs.resolve():
        raise UserError(
            f"{path.parent}: that folder holds the --roofs results; write the kernels' points elsewhere (-o)"
        )
    if not path.exists():
        return results.load(roofs) if roofs else None
    held = results.load(path)
    if roofs and same_file((held.get("user_kernels") or {}).get("roofs_from"), roofs):
        return held
    raise UserError(f"{path.parent}: holds another run already; choose another output folder (-o)")


def locate(chunks: list[str], line: int | None) -> tuple[int | None, int | None]:
    """(script, its line) of a line of the chunks run as one program, joined by newlines (the
    unix port): each chunk ends with a newline, and the join adds a blank line after it."""
    start = 1
    for i, chunk in enumerate(chunks):
        n = chunk.count("\n") or 1
        if line is not None and start <= line < start + n:
            return i, line - start + 1
        start += n + 1
    return None, None


def same_file(recorded: str | None, roofs: Path) -> bool:
    """The --roofs of an earlier pass names this file, however either was spelled (relative,
    absolute, through a link); runs before mcuroof recorded absolute paths wrote it as given."""
    if not recorded:
        return False
    try:
        return Path(recorded).samefile(roofs)
    except OSError:
        return Path(recorded).resolve() == roofs.resolve()


def _same_board(base: dict, path: Path, name: str, probe: dict) -> None:
    """Roofs of another board would mislabel every point placed under them."""
    board = base.get("board", {})
    if board.get("platform") != probe.get("platform") or board.get("name") != name:
        raise UserError(
            f"{path}: roofs of {board.get('name')} ({board.get('platform')}), but this board is "
            f"{name} ({probe.get('platform')}): leave out --roofs to measure its own"
        )


def _load_check(link, uf: user_kernel.UserFile, probe: dict) -> None:
    """Load the file once with the harness: a file the board cannot compile fails here, in one line."""
    lacking = uf.missing_emitter(probe["emitters"], probe.get("platform")) if probe.get("emitters") else None
    if lacking:
        em, line = lacking
        raise UserError(
            f"{uf.path}:{line}: @micropython.{em}: this board's {results.firmware_name(probe)} has "
            f"no {em} emitter (it has {', '.join(probe['emitters'])})"
        )
    prefix = firmware.prefix(["user"], registry.suite_config("user", probe, Context(user_file=uf)))
    try:
        link.run(prefix + uf.pieces, lambda line: None)
    except ScriptError as e:
        piece, line = (e.piece, e.line) if e.piece is not None else locate(prefix + uf.pieces, e.line)
        piece = piece - len(prefix) if piece is not None else None
        exact = uf.file_line(piece, line) if piece is not None and line else None
        if exact:
            text = f"{uf.path}:{exact}: the board could not load it: {e.text}"
        else:
            text = f"{uf.path}: the board could not load it (near line {uf.line_of(piece) if piece is not None else 1}): {e.text}"
        if e.exc_type == "MemoryError":
            text += f"; the board had {probe.get('free', 0):,} bytes of heap free when probed"
        raise UserError(text) from None
    except BoardError as e:
        raise UserError(f"{uf.path}: loading it on the board failed: {e}") from None
