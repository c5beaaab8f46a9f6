"""Every suite by name (suites.base.Suite), in the order a run runs them."""

from __future__ import annotations

from mcuroof.errors import UserError
from mcuroof.kernels import firmware
from mcuroof.kernels.contract import Kernel
from mcuroof.suites import calibration, clock, compute, layers, memory, pace, probe, regions, timer, user
from mcuroof.suites.base import Context, Suite

SUITES: dict[str, Suite] = {
    s.name: s
    for s in (
        probe.SUITE,
        pace.SUITE,
        timer.SUITE,
        memory.SUITE,
        compute.SUITE,
        regions.SUITE,
        calibration.SUITE,
        layers.SUITE,
        clock.SUITE,
        user.SUITE,
    )
}
# what `mcuroof run --suite` chooses from (the layers suite comes with --model)
RUNNABLE = ("memory", "compute", "regions", "calibration", "layers")
DEFAULT = ("memory", "compute", "regions", "calibration")


def chosen(values: str | list[str]) -> list[str]:
    """The suites that --suite values name (each comma-separated, the option given once or more),
    each once, in the order given."""
    texts = [values] if isinstance(values, str) else values
    names = list(dict.fromkeys(s.strip() for text in texts for s in text.split(",") if s.strip()))
    unknown = [s for s in names if s not in RUNNABLE]
    if unknown or not names:
        raise UserError(f"--suite: unknown suite {', '.join(unknown) or '(none)'} (choose from {', '.join(RUNNABLE)})")
    return names


# the unit of a record that names no suite, by its type (skip records name theirs, or belong to a layer)
_OWNER = {t: s.name for s in SUITES.values() for t in s.records}


def get(name: str) -> Suite:
    return SUITES[name]


def suite_config(name: str, probe: dict, ctx: Context | None = None) -> dict:
    return SUITES[name].config(probe, ctx or Context())


def configs(probe: dict, names: list[str], ctx: Context | None = None) -> dict[str, dict]:
    return {s: suite_config(s, probe, ctx) for s in names}


def for_suite(name: str, cfg: dict) -> list[Kernel]:
    return SUITES[name].kernels(cfg)


def record_key(rec: dict, suite: str | None = None) -> str | None:
    """The unit key a record belongs to: by its suite where known, else by its type."""
    name = suite or rec.get("suite") or _OWNER.get(rec.get("t"))
    return SUITES[name].key(rec) if name in SUITES else None


def malformed(rec: dict) -> str | None:
    """Why a record misses what its type's suite requires of it (None: it does not)."""
    owner = SUITES.get(_OWNER.get(rec.get("t")))
    return owner.malformed(rec) if owner else None


def chunks(name: str, cfg: dict) -> list[str]:
    """The scripts that run one suite whole, in order (globals carry from one to the next)."""
    suite = SUITES[name]
    scripts = [c for k in suite.kernels(cfg) for c in k.scripts()]
    return firmware.prefix(suite.firmware(cfg), cfg) + scripts + ([suite.tail] if suite.tail else [])
