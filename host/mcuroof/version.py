"""The tool's version, as results and raw logs record it: the release and, run from a git
checkout, the commit (`git describe --always --dirty`), so results of different builds do not
look alike ("mcuroof 0.1.0+g30c7c8f" or "...+g30c7c8f.dirty"). An installed wheel has no checkout
beside it and records the release alone."""

from __future__ import annotations

import subprocess
from pathlib import Path

RELEASE = "0.1.0"
_REPO = Path(__file__).resolve().parents[2]


def commit(repo: Path = _REPO) -> str | None:
    """The checkout's commit as git describes it, or None (no checkout, no git)."""
    if not (repo / ".git").exists():
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), "describe", "--always", "--dirty", "--abbrev=10"],
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip().replace("-", ".") or None if done.returncode == 0 else None


def version(repo: Path = _REPO) -> str:
    c = commit(repo)
    return f"{RELEASE}+g{c}" if c else RELEASE


def __getattr__(name: str) -> str:
    """__version__, worked out on first use: `git describe` costs ~12 ms, which no command that
    writes no result (`mcuroof --help`, `boards`) should pay at start-up."""
    if name == "__version__":
        globals()["__version__"] = value = version()
        return value
    raise AttributeError(f"module 'mcuroof.version' has no attribute {name!r}")
