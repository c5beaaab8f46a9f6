"""The output folder of a run: one run per folder, never replaced, mixed or mislabelled.

A folder holds a run once raw.jsonl (or, for --clocks, a clock's subfolder) is there; the run
has finished once results.json (or compare.png) is there. A new run goes only into a folder
that holds no run: `--force` first moves the old one aside (DIR.<its start time>, kept), an
interrupted one is continued with `--resume DIR`. Nothing is created until the run starts, so
a refused run leaves nothing behind; one refused after the board's probe (`undo`) removes what
it made and puts back a run it moved aside.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import tempfile
import time
from pathlib import Path

from mcuroof.errors import UserError

RAW, RESULTS, COMPARE = "raw.jsonl", "results.json", "compare.png"


def state(path: Path) -> str:
    """'empty' (no run), 'interrupted' (a raw log, no results) or 'finished'."""
    if not path.exists():
        return "empty"
    if not path.is_dir():
        raise UserError(f"{path}: cannot create output folder (a file of that name is there)")
    folders = [path] + [p for p in path.iterdir() if p.is_dir() and (p / RAW).exists()]
    if (path / COMPARE).exists() or any((p / RESULTS).exists() for p in folders):
        return "finished"
    return "interrupted" if any((p / RAW).exists() for p in folders) else "empty"


def resume_command(path: Path) -> str:
    return f"mcuroof run --resume {shlex.quote(str(path))}"


def check_new(path: Path, force: bool) -> None:
    """Refuse, before anything runs, a folder that holds a run (unless --force moves it aside)."""
    st = state(path)
    if st == "empty" or force:
        return _check_writable(path)
    if st == "finished":
        raise UserError(
            f"{path}: holds a finished run; choose another folder with -o, or add --force "
            "to move that run aside (it is kept)"
        )
    raise UserError(
        f"{path}: holds an interrupted run; continue it with `{resume_command(path)}`, "
        "or add --force to move it aside (it is kept) and start again"
    )


def check_resumable(path: Path) -> None:
    if state(path) == "finished":
        raise UserError(
            f"{path}: the run there has finished: nothing to resume "
            f"(mcuroof report {shlex.quote(str(path / RESULTS))} shows it)"
        )


def create(path: Path) -> Path | None:
    """Make the folder for a new run; a run already there is moved aside first. Returns where."""
    moved = None
    if state(path) != "empty":
        moved = _aside(path)
        try:
            path.rename(moved)
        except OSError as e:
            raise UserError(f"{path}: cannot move the old run aside to {moved} ({e.strerror})") from None
    make(path)
    return moved


def first_missing(path: Path) -> Path | None:
    """The topmost folder of `path` that does not exist yet (what `create` will make), or None."""
    top = None
    while not path.exists() and path != path.parent:
        top, path = path, path.parent
    return top


def undo(path: Path, top: Path | None, moved: Path | None) -> None:
    """Remove what a new run refused after its probe made: its raw logs (the folder held none
    before it), the folders it created (`top`: first_missing before `create`), and move back
    the run `create` moved aside. Anything else found there is left."""
    with contextlib.suppress(OSError):
        for log in [p for p in [path / RAW, *path.glob(f"*/{RAW}")] if p.exists()]:
            log.unlink()
            if log.parent != path:
                log.parent.rmdir()
        if top or moved:
            here = path
            while True:
                here.rmdir()
                if here == (top or path):
                    break
                here = here.parent
        if moved:
            moved.rename(path)


def make(path: Path) -> Path:
    """The folder, made if missing and checked writable (for commands that gather runs in one)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"{path}: cannot create output folder ({e.strerror})") from None
    _check_writable(path)
    return path


def _aside(path: Path) -> Path:
    """DIR.<the old run's start time>, e.g. out.20261201-102640."""
    stamp = _started(path) or time.strftime("%Y%m%d-%H%M%S", time.localtime(path.stat().st_mtime))
    for n in range(1, 1000):
        aside = path.with_name(f"{path.name}.{stamp}" + (f"-{n}" if n > 1 else ""))
        if not aside.exists():
            return aside
    raise UserError(f"{path}: too many old runs beside it")


def _started(path: Path) -> str | None:
    """The start time in the old run's raw.jsonl header, as 20261201-102640."""
    for log in [path / RAW, *sorted(path.glob(f"*/{RAW}"))]:
        try:
            with open(log, encoding="utf-8") as f:
                started = json.loads(f.readline()).get("started")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(started, str) and len(started) >= 19:
            return started[:19].replace("-", "").replace(":", "").replace("T", "-")
    return None


def _check_writable(path: Path) -> None:
    """The folder, or the nearest folder above it that exists, must take a new file."""
    here = path
    while not here.exists() and here != here.parent:
        here = here.parent
    if not here.is_dir():
        raise UserError(f"{path}: cannot create output folder ({here} is a file)")
    try:  # os.access alone says yes to root, or on a read-only file system
        if not os.access(here, os.W_OK):
            raise PermissionError(13, "permission denied")
        with tempfile.TemporaryFile(dir=here):
            pass
    except OSError as e:
        raise UserError(f"{path}: output folder is not writable ({e.strerror})") from None
