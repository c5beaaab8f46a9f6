"""One suite's contract: its config on a probed board, its kernels, the records they send and
the unit each record belongs to, and its rules for a unit that fails.

Every suite (probe, memory, compute, regions, layers, clock, user) is one `Suite` in one module
of this package; suites.registry lists them. measure.collect runs any of them the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from mcuroof.kernels.contract import Kernel, unit_key

# record fields that are text; every other required field is a number
TEXT_FIELDS = frozenset({"k", "em", "ty"})


@dataclass(frozen=True)
class Context:
    """What a suite's config may depend on besides the probe: the records of the suites that ran
    before it in the same run, and what the user asked for (a model's layers, a kernel file)."""

    records: list[dict] = field(default_factory=list)
    layers: object | None = None  # suites.layers.Request (--model)
    user_file: object | None = None  # kernels.user.UserFile (`mcuroof kernel FILE.py`)
    profile: object | None = None  # board.profiles.Board: the board's profile, if it has one
    timer: object | None = None  # suites.timing.Timer: the timer check (None: sized as noisy time)


def no_shrink(cfg: dict, key: str) -> None:
    return None


@dataclass(frozen=True)
class Suite:
    name: str
    kernels: Callable[[dict], list[Kernel]]
    key: Callable[[dict], str | None]  # the unit a record belongs to (None: any)
    records: Mapping[str, tuple[str, ...]]  # record types it sends: the fields each must carry
    config: Callable[[dict, Context], dict] | None = None  # None: the caller builds the config
    helpers: Callable[[dict], list[str]] | None = None  # firmware/ modules its kernels call (default: its name)
    # after a MemoryError in a unit: (the config with that unit's working set halved, the field, its
    # value), or None where the unit cannot shrink
    shrink: Callable[[dict, str], tuple[dict, str, int] | None] = no_shrink
    leaves_out_failing: bool = False  # a unit that keeps raising is left out, not the run
    # a unit whose set-up (every script but its last: the clean-up and the kernel's definition)
    # is the previous unit's, in the same pass, is sent its last script alone (measure.collect)
    reuses_setup: bool = False
    tail: str = "finish()\n"  # what closes each unit's last script
    check: Callable[[dict], str | None] | None = None  # a check of its records beyond their fields
    # the parts of results.json it adds itself beyond roofs (records, roofs, board, Context) -> dict
    results: Callable[[list[dict], list[dict], dict, Context], dict] | None = None

    def firmware(self, cfg: dict) -> list[str]:
        return self.helpers(cfg) if self.helpers else [self.name]

    def malformed(self, rec: dict) -> str | None:
        """Why a record of this suite that arrived intact still cannot be used (None: it can)."""
        if self.check and self.check(rec):
            return self.check(rec)
        for f in self.records.get(rec["t"], ()):
            v = rec.get(f)
            ok = isinstance(v, str) if f in TEXT_FIELDS else isinstance(v, (int, float)) and not isinstance(v, bool)
            if not ok:
                return f"{rec['t']} record without a valid '{f}'"
        return None


def keyed(*fields: str, suite: str, types: tuple[str, ...]) -> Callable[[dict], str | None]:
    """A record's unit from its fields, for records of these types: suite/field1/field2/..."""

    def key(rec: dict) -> str | None:
        if rec.get("t") in types and all(f in rec for f in fields):
            return unit_key(suite, *(rec[f] for f in fields))
        return None

    return key
