"""results.json: the derived roofs, ridges and points of one run, versioned.

Schema history (the loader reads every version up to RESULTS_SCHEMA and refuses newer ones):
  1 - first version: schema, tool, created, board, roofs, ridges, sweeps, reference, checks, points.
"""
from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from . import __version__, roofs as roofs_mod
from .errors import UserError

RESULTS_SCHEMA = 1


def board_info(name: str, probe: dict, link_description: str, icount_shift: int | None) -> dict:
    version = ".".join(str(v) for v in probe.get("version", []))
    return {"name": name, "platform": probe.get("platform"), "firmware": f"MicroPython {version}",
            "clock_hz": probe.get("freq"), "emitters": probe.get("emitters", []),
            "icount_shift": icount_shift, "free_heap": probe.get("free"),
            "tick_us": probe.get("tick_us"), "link": link_description}


def build(board: dict, records: list[dict], reference: list[dict] | None = None,
          theoretical: list[dict] | None = None) -> dict:
    """Everything derived from the verified records of one run."""
    mem, mac, bad = roofs_mod.split(records)
    reg, reg_bad = roofs_mod.region_split(records)
    bad += reg_bad
    roofs = (roofs_mod.memory_roofs(mem) + roofs_mod.region_roofs(reg) + roofs_mod.compute_roofs(mac)
             + list(theoretical or []))
    result = {"schema": RESULTS_SCHEMA, "tool": f"mcuroof {__version__}",
              "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "board": board,
              "roofs": roofs, "ridges": roofs_mod.ridges(roofs),
              "sweeps": [{"emitter": em, "kernel": k, "dtype": ty, "points": pts}
                         for (em, k, ty), pts in roofs_mod.series(mem).items()],
              "checks": {"verified": len(mem) + len(mac) + len(reg), "failed": len(bad),
                         "failed_records": bad[:20]},
              "skipped": [r for r in records if r.get("t") == "skip" and r.get("suite") == "regions"],
              "points": []}
    if reference:
        top = roofs_mod.top_memory(roofs)
        sweep = roofs_mod.series(mem).get((top["emitter"], top["kernel"], top["dtype"]), []) if top else []
        result["reference"] = reference_summary(reference, roofs, sweep)
    return result


def reference_summary(points: list[dict], roofs: list[dict], sweep: list[tuple[int, float]]) -> dict:
    """The C memcpy reference beside the measured memory roof, per level.

    `ratio` is the median, over the working sets both measured in the level, of roof mover /
    memcpy at the same size; `ratio_at_roof` the same at the working set where the roof was
    measured (`roof_ws`); the level's best values are kept beside them."""
    measured = dict(sweep)
    levels = [r for r in roofs if r["kind"] == "memory" and r["role"] == "roof" and r["source"] == "measured"]
    out = []
    for lv in levels:
        lo, hi = lv["ws_range"]
        ref = {p["bytes"]: p["bytes_per_s"] for p in points if lo <= p["bytes"] <= hi}
        common = sorted(ws for ws in ref if ws in measured)
        if common:
            at_roof = max(common, key=lambda ws: measured[ws])
            out.append({"level": lv["name"], "roof_bytes_per_s": lv["bytes_per_s"],
                        "reference_bytes_per_s": max(ref.values()), "sizes_compared": len(common),
                        "ratio": statistics.median(measured[ws] / ref[ws] for ws in common),
                        "roof_ws": at_roof, "ratio_at_roof": measured[at_roof] / ref[at_roof]})
    kind = points[0].get("method", "C memcpy on the host") if points else "C memcpy on the host"
    return {"kind": kind, "points": points, "levels": out}


def save(result: dict, path: Path) -> None:
    tmp = path.with_suffix(".json.tmp")
    try:
        tmp.write_text(json.dumps(result, indent=1))
        tmp.replace(path)
    except OSError as e:
        raise UserError(f"{path}: cannot write ({e.strerror})") from None


def load(path: Path) -> dict:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise UserError(f"{path}: cannot read ({e.strerror})") from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: not a results.json (not text)") from None
    try:
        data = json.loads(text)
    except ValueError as e:
        raise UserError(f"{path}: corrupt results.json ({e.msg} at line {e.lineno})") from None
    if not isinstance(data, dict) or "schema" not in data or "roofs" not in data:
        raise UserError(f"{path}: not a results.json (no schema or roofs)")
    if not isinstance(data["schema"], int) or data["schema"] > RESULTS_SCHEMA:
        raise UserError(f"{path}: results schema {data['schema']} is newer than this mcuroof reads "
                        f"({RESULTS_SCHEMA}); upgrade mcuroof")
    _validate_roofs(path, data["roofs"])
    return data


def _validate_roofs(path: Path, roofs) -> None:
    if not isinstance(roofs, list):
        raise UserError(f"{path}: 'roofs' must be a list")
    for i, r in enumerate(roofs):
        unit = "bytes_per_s" if isinstance(r, dict) and r.get("kind") == "memory" else "macs_per_s"
        if not isinstance(r, dict) or r.get("kind") not in ("memory", "compute"):
            raise UserError(f"{path}: roofs[{i}] has no kind 'memory' or 'compute'")
        v = r.get(unit)
        if not isinstance(v, (int, float)) or not v > 0:
            raise UserError(f"{path}: roofs[{i}].{unit} must be a positive number")
