"""The user suite of `mcuroof kernel FILE.py`: one script per kernel_NAME of the user's file
(kernels.user, firmware/user.py)."""

from __future__ import annotations

from mcuroof.kernels.contract import Kernel, unit_key
from mcuroof.suites import timing
from mcuroof.suites.base import Context, Suite


def kernels(cfg: dict) -> list[Kernel]:
    return cfg["user_file"].kernels()


def config(probe: dict, ctx: Context) -> dict:
    return {**timing.for_context(probe, ctx), "user_file": ctx.user_file}


def key(rec: dict) -> str | None:
    return unit_key("user", rec["k"]) if rec.get("t") in ("uk", "uerr") else None


SUITE = Suite("user", kernels, key, {"uk": (), "uerr": ()}, config)
