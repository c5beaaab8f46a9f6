"""The MicroPython code sent to the board: firmware files plus a config line, made compact."""

from __future__ import annotations

import re

from mcuroof import package_data
from mcuroof.errors import UserError

HOST_ONLY = (
    "jobs",
    "peaks",
    "user_file",
    "alloc_trials",
    "viper_fill",
)  # config the host keeps: rendered into the kernels
FIRMWARE_DIR = package_data.data_dir("firmware")


def source(name: str) -> list[str]:
    """firmware/NAME.py as pieces split at `#--` lines, without comments and blank lines.

    The micro:bit has 8 KB of heap: a piece is compiled (and its parse tree freed) before the
    next is sent, so each must stay under about 1 KB of text.
    """
    try:
        text = (FIRMWARE_DIR / f"{name}.py").read_text()
    except OSError:
        raise UserError(
            f"{FIRMWARE_DIR / name}.py not found: this mcuroof was installed without its "
            "firmware; reinstall it (pip install mcuroof, or pip install . in its repository)"
        ) from None
    pieces = []
    for part in re.split(r"^#--.*$", text, flags=re.M):
        lines = [ln for ln in part.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        if lines:
            pieces.append("\n".join(lines) + "\n")
    return pieces


def config_line(cfg: dict) -> str:
    """A `CFG = {...}` line: only numbers, strings, lists and dicts of them reach the board."""
    sent = {k: v for k, v in cfg.items() if k not in HOST_ONLY}
    return "CFG = " + _literal(sent) + "\nWIN = %d\nTRIALS = %d\n" % (cfg["win_us"], cfg["trials"])


def _literal(v) -> str:
    if isinstance(v, bool) or v is None:
        return repr(v)
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        if not re.fullmatch(r"[A-Za-z0-9_.\-]*", v):
            raise ValueError(f"unsafe string in firmware config: {v!r}")
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_literal(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(f"{_literal(k)}:{_literal(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot send {type(v).__name__} to the board")


def prefix(helpers: list[str], cfg: dict) -> list[str]:
    """The scripts that set up a suite's state on the board before its kernels run: its config
    line, the common harness, then the firmware/ helpers it names (suites.base.Suite.helpers)."""
    return [config_line(cfg)] + source("common") + [p for h in helpers for p in source(h)]
