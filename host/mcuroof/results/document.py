"""results.json: the one owner of the document a run writes and every command reads.

`build` makes the complete document from a run's records and its facts (`Run`); `save` and
`load` check it against results_schema.RESULTS, so report, plot and compare only ever see a
document whose fields they can use; `load` also derives each point's rates and place under its
roofs again (results/recheck.py): a hand-edited rate is refused, a point above its roof marked. A foreign, hand-edited or truncated file gives one line
naming the field (`mcuroof: PATH: roofs[3].source is missing`) and exit status 2.

Schema history (the loader reads every version up to RESULTS_SCHEMA and refuses newer ones;
a reader of an older version adds what it lacks in _UPGRADES):
  1 - first version: schema, tool, created, board, roofs, ridges, sweeps, reference, checks,
      skipped, points, model. Checked field by field since mcuroof 0.1 (issue 12); files that
      earlier builds wrote pass unchanged.
"""

from __future__ import annotations

import json
import math
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from mcuroof.analysis import records, user_points
from mcuroof.analysis import roofs as roofs_mod
from mcuroof.board import caches, cycle_counter, identity
from mcuroof.board import profiles as boards
from mcuroof.errors import UserError, read_text
from mcuroof.results import recheck
from mcuroof.version import __version__

RESULTS_SCHEMA = 1
# version -> function bringing a document of that version up to the next one
_UPGRADES: dict = {}


@dataclass
class Run:
    """What a run knows besides its records: the board it named, the link, the options."""

    board: str
    link: str
    icount_shift: int | None = None
    wall_seconds: float | None = None
    theoretical: list[dict] = field(default_factory=list)  # profiles.theoretical_roofs
    reference: list[dict] | None = None  # host memcpy points (unix port)
    clock: dict = field(default_factory=dict)  # --clocks: clock_requested_hz, ...
    # what the suites that ran add themselves (suites.base.Suite.results: the layers suite's points
    # and model): (records, roofs, board, context) -> dict with its checks
    parts: list = field(default_factory=list)
    context: object = None  # suites.base.Context: the run's request
    profile: str | None = None  # the profile the board's caches and theory come from, if any
    pace: float | None = None  # board seconds per host second (measure.pace): a fact, it sizes nothing
    sizing: str | None = None  # suites.timing.sizing: how a slow emulator's run was sized (None: as any board)
    cycle_model: dict | None = None  # a modelled board's setup (links.cycle_model.Setup.record())
    timer: dict | None = None  # suites.timing.record: the timer check and the sizing rule it chose


def firmware_name(probe: dict) -> str:
    """MicroPython and its version, from the probe record: "MicroPython 1.9.2"."""
    return "MicroPython " + ".".join(str(v) for v in probe.get("version", []))


def board_info(
    name: str, probe: dict, link_description: str, icount_shift: int | None, cycle_model: dict | None = None
) -> dict:
    counter = cycle_counter.read(probe)
    return {
        "name": name,
        "platform": probe.get("platform"),
        "firmware": firmware_name(probe),
        "clock_hz": probe.get("freq"),
        "emitters": probe.get("emitters", []),
        "cpu": probe.get("cpu"),  # the core's ID registers (board.identity), None where not read
        "cycle_counter": counter.state,  # board.cycle_counter: counting, not counting, no TRCENA, none
        "cycle_hz": round(counter.hz) if counter.hz else None,  # the counted clock
        "icount_shift": icount_shift,
        "cycle_model": cycle_model,  # the cycle model's setup where time counts modelled cycles, else None
        "free_heap": probe.get("free"),
        "float": probe.get("float"),
        "tick_us": probe.get("tick_us"),
        "link": link_description,
    }


def document(run: Run, probe: dict, records: list[dict]) -> dict:
    """The complete results document of one run, checked against the schema."""
    board = board_info(run.board, probe, run.link, run.icount_shift, run.cycle_model)
    board["core"] = identity.describe(probe, boards.find(run.profile or run.board)).record()
    if run.wall_seconds is not None:
        board["wall_seconds"] = round(run.wall_seconds, 1)
    if run.pace is not None:
        board["pace"] = round(run.pace, 4)
    if run.sizing:
        board["sizing"] = run.sizing
    if run.timer:
        board["timer"] = run.timer
    board.update(run.clock)
    if not board.get("clock_hz"):
        board["clock_hz"] = run.clock.get("clock_set_hz")
    limits = _limits((run.cycle_model or {}).get("emulator") or run.profile or run.board)
    if limits:
        board["limits"] = limits
    data = build(board, records, run.reference, run.theoretical, _caches(run.profile or run.board))
    for add in run.parts:  # the parts a suite adds itself (the layers suite: points and model)
        parts = add(records, data["roofs"], data["board"], run.context)
        data["checks"].update(parts.pop("checks"))
        data.update(parts)
    data = _plain(data)
    validate(data)
    return data


def with_user_points(data: dict, uf, records: list[dict], roofs_from: Path | None) -> dict:
    """The document with the user's kernels (`mcuroof kernel`: kernels.user.UserFile and its uk/uerr
    records) as points beside the run's own; the points of an earlier pass over the same file go."""
    kept = [p for p in data.get("points", []) if not (p.get("user") and p.get("file") == uf.path.name)]
    first = 1 + max((p["index"] for p in kept if p.get("user")), default=0)
    pts, errors = user_points.points(uf, records, data["roofs"], data.get("board", {}).get("emitters", []), first)
    data["points"] = kept + pts
    data["user_kernels"] = {
        "file": str(uf.path),
        "kernels": user_points.names(uf),
        "roofs_from": str(roofs_from) if roofs_from else None,
        "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "errors": errors,
    }
    return data


def _limits(profile: str | None) -> list[str]:
    """What the board's emulator does not model (its profile's `limits`), [] elsewhere."""
    board = boards.find(profile)
    return list(board.limits) if board else []


def _caches(profile: str | None) -> list[dict]:
    """The caches the memory levels are named after (board/caches.py): the host's for the unix port,
    else the board profile's, [] where the board has no profile (levels by plateaus)."""
    if profile == "unix":
        return caches.host_caches()
    board = boards.find(profile)
    return caches.profile_caches(board) if board else []


def build(
    board: dict,
    records: list[dict],
    reference: list[dict] | None = None,
    theoretical: list[dict] | None = None,
    caches: list[dict] | None = None,
) -> dict:
    """Everything derived from the verified records of one run."""
    mem, mac, bad = roofs_mod.split(records)
    reg, reg_bad = roofs_mod.region_split(records)
    bad += reg_bad
    if caches:
        board = {**board, "caches": caches}
    roofs = (
        roofs_mod.memory_roofs(mem, caches)
        + roofs_mod.region_roofs(reg)
        + roofs_mod.compute_roofs(mac)
        + list(theoretical or [])
    )
    result = {
        "schema": RESULTS_SCHEMA,
        "tool": f"mcuroof {__version__}",
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "board": board,
        "roofs": roofs,
        "ridges": roofs_mod.ridges(roofs),
        "sweeps": [
            {
                "emitter": em,
                "kernel": k,
                "dtype": ty,
                "points": [list(p) for p in pts],
                **({"call_bound": True} if roofs_mod.sweep_call_bound(pts) else {}),
            }
            for (em, k, ty), pts in roofs_mod.series(mem).items()
        ],
        "checks": {
            "verified": len(mem) + len(mac) + len(reg),
            "failed": len(bad),
            "failed_records": bad[:20],
            **timing_noise(records),
        },
        "skipped": [r for r in records if r.get("t") == "skip" and r.get("suite") == "regions"],
        "points": [],
    }
    if reference:
        top = roofs_mod.top_memory(roofs)
        sweep = roofs_mod.series(mem).get((top.emitter, top.kernel, top.dtype), []) if top else []
        result["reference"] = reference_summary(reference, roofs, sweep)
    return result


NOISY = 1.10  # a measurement whose median trial is this much slower than its fastest


def timing_noise(records: list[dict]) -> dict:
    """How many timed records (`timed`) had their median trial over NOISY x their fastest
    (`noisy`): the fastest is kept, but many such mean a busy host or interrupts."""
    timed = [
        r
        for r in records
        if isinstance(r.get("us"), (int, float)) and isinstance(r.get("med"), (int, float)) and r["us"] > 0
    ]
    return {"timed": len(timed), "noisy": sum(r["med"] > NOISY * r["us"] for r in timed)}


def reference_summary(points: list[dict], roofs: list, sweep: list[tuple[int, float]]) -> dict:
    """The C memcpy reference beside the measured memory roof, per level.

    `ratio` is the median, over the working sets both measured in the level, of roof mover /
    memcpy at the same size; `ratio_at_roof` the same at the working set where the roof was
    measured (`roof_ws`); the level's best values are kept beside them."""
    measured = dict(sweep)
    levels = [r for r in records.roofs(roofs) if r.kind == "memory" and r.role == "roof" and r.measured]
    out = []
    for lv in levels:
        lo, hi = lv.ws_range
        ref = {p["bytes"]: p["bytes_per_s"] for p in points if lo <= p["bytes"] <= hi}
        common = sorted(ws for ws in ref if ws in measured)
        if common:
            at_roof = max(common, key=lambda ws: measured[ws])
            out.append(
                {
                    "level": lv.name,
                    "roof_bytes_per_s": lv.bytes_per_s,
                    "reference_bytes_per_s": max(ref.values()),
                    "sizes_compared": len(common),
                    "ratio": statistics.median(measured[ws] / ref[ws] for ws in common),
                    "roof_ws": at_roof,
                    "ratio_at_roof": measured[at_roof] / ref[at_roof],
                }
            )
    kind = points[0].get("method", "C memcpy on the host") if points else "C memcpy on the host"
    return {"kind": kind, "points": points, "levels": out}


def save(result: dict, path: Path) -> None:
    """Write a checked document (atomically: a reader never sees half a file)."""
    try:
        validate(_plain(result))
    except UserError as e:
        raise UserError(f"{path}: not written, the results are inconsistent ({e}); raw.jsonl keeps the run") from None
    tmp = path.with_suffix(".json.tmp")
    try:
        tmp.write_text(json.dumps(result, indent=1, allow_nan=False))
        tmp.replace(path)
    except OSError as e:
        raise UserError(f"{path}: cannot write ({e.strerror})") from None


def load(path: Path) -> dict:
    """A results.json any reader can use: parsed, brought up to RESULTS_SCHEMA, checked."""
    text = read_text(path, "a results.json")
    try:  # NaN and Infinity stay text, so that the check names the field that holds one
        data = json.loads(text, parse_constant=str)
    except ValueError as e:
        raise UserError(f"{path}: corrupt results.json ({e.msg} at line {e.lineno})") from None
    if not isinstance(data, dict) or "schema" not in data or "roofs" not in data:
        raise UserError(f"{path}: not a results.json (no schema or roofs)")
    version = data["schema"]
    if isinstance(version, int) and not isinstance(version, bool) and version > RESULTS_SCHEMA:
        raise UserError(
            f"{path}: results schema {version} is newer than this mcuroof reads ({RESULTS_SCHEMA}); upgrade mcuroof"
        )
    while isinstance(version, int) and version in _UPGRADES:
        data = _UPGRADES[version](data)
        version = data["schema"]
    try:
        validate(data)
        return recheck.recheck(data)  # checked, not trusted: rates and placement derived again
    except UserError as e:
        raise UserError(f"{path}: {e}") from None


def _plain(data: dict) -> dict:
    """The document as JSON holds it (tuples become lists), as a reader will load it."""
    return json.loads(json.dumps(data))


def validate(data: dict) -> None:
    """Raise UserError naming the first field that a reader could not use."""
    import jsonschema  # only the commands that read or write results pay for it

    from mcuroof.results.schema import RESULTS

    errors = list(jsonschema.Draft202012Validator(RESULTS).iter_errors(data))
    if not errors:
        _check_finite(data, "")
        return
    first = min(_order(e) for e in errors)  # the first damaged place, in list order
    error = jsonschema.exceptions.best_match(e for e in errors if _order(e) == first)
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    if error.validator == "required":
        missing = error.message.split("'")[1]
        raise UserError(f"{where + '.' if where else ''}{missing} is missing")
    must = error.schema.get("must", f"be valid ({error.message})")
    raise UserError(f"{where or 'the document'} must {must}{_got(error.instance)}")


def _order(error) -> list:
    return [(0, p) if isinstance(p, int) else (1, p) for p in error.absolute_path]


def _got(value) -> str:
    text = json.dumps(value)
    return f" (got {text if len(text) <= 30 else text[:27] + '...'})"


def _check_finite(value, where: str) -> None:
    """NaN and infinities in fields the schema leaves open (failed_records, reference points)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise UserError(f"{where or 'the document'} must be a finite number (got {value})")
    if isinstance(value, dict):
        for k, v in value.items():
            _check_finite(v, f"{where}.{k}" if where else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _check_finite(v, f"{where}[{i}]")
