"""A board's calibration kept once and reused by later runs: its shapes do not depend on the
model, so a second `mcuroof run --model` on the same board takes the calibration records of the
first instead of timing its ~1,000 shapes again (`--recalibrate` times them again).

A calibration is keyed by what its records depend on: the board's name, its firmware (sys.platform,
MicroPython version, .mpy version, the core's ID registers), its emitters, its clock (machine.freq(),
QEMU's -icount shift) and the hash of the harness's code and every shape's kernel (the shapes
follow the heap and the core's ISA). The timing window and trials are not in the key: the window
follows the timer's tick, which a probe under QEMU reads as 10 or 11 us from one run to the next;
the kept file records them (`window`). Files live in
~/.cache/mcuroof/calibration (XDG_CACHE_HOME; MCUROOF_CALIBRATION_CACHE names another folder), one
JSON file a key: {"schema", "key", "measured_at", "measured_in", "units": {unit key: [records]}}.

The run that reuses one copies its records into its own raw.jsonl (so results.json and --resume
stand alone) and says which calibration it used (results.json's calibration.source).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from mcuroof.kernels import firmware
from mcuroof.suites import registry

SCHEMA = 1
SUITE = "calibration"


def folder() -> Path:
    given = os.environ.get("MCUROOF_CALIBRATION_CACHE")
    if given:
        return Path(given)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mcuroof" / "calibration"


def key(board: str, icount_shift: int | None, probe: dict, cfg: dict, cycle_model: dict | None = None) -> dict:
    """What a calibration's records depend on (two runs with the same key time the same scripts on
    the same board and firmware at the same clock; a modelled board's cycle model, as it charges
    the cycles, is part of it)."""
    suite = registry.get(SUITE)
    harness = [piece for name in suite.firmware(cfg) for piece in firmware.source(name)]
    scripts = "\0".join(harness + [k.source for k in suite.kernels(cfg)])
    return {
        "board": board,
        "firmware": {f: probe.get(f) for f in ("platform", "version", "mpy", "cpu")},
        "emitters": sorted(probe.get("emitters") or []),
        "clock_hz": probe.get("freq"),
        "icount_shift": icount_shift,
        "cycle_model": cycle_model,
        "shapes": len(cfg.get("jobs", [])),
        "shapes_hash": hashlib.sha256(scripts.encode()).hexdigest(),
    }


def path_of(k: dict) -> Path:
    digest = hashlib.sha256(json.dumps(k, sort_keys=True).encode()).hexdigest()[:16]
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in str(k["board"]))
    return folder() / f"{safe}-{digest}.json"


def load(k: dict) -> dict | None:
    """The kept calibration of this key, or None (none kept, unreadable, or another key)."""
    path = path_of(k)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or doc.get("key") != k:
        return None
    units = doc.get("units")
    if not isinstance(units, dict) or not all(isinstance(v, list) for v in units.values()):
        return None
    return {**doc, "path": str(path)}


def save(k: dict, units: dict[str, list[dict]], measured_in: str, window: dict | None = None) -> Path | None:
    """Keep a complete calibration (written whole, then renamed); None where the folder is not writable."""
    path = path_of(k)
    doc = {
        "schema": SCHEMA,
        "key": k,
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "measured_in": measured_in,
        "window": window,
        "units": units,
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(doc), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        return None
    return path


def source(doc: dict | None, path: Path | None = None) -> dict:
    """results.json's calibration.source: reused from the cache (with when it was measured) or
    measured by this run (and where it was kept)."""
    if doc is not None:
        return {
            "reused": True,
            "cache": doc["path"],
            "measured_at": doc.get("measured_at"),
            "measured_in": doc.get("measured_in"),
        }
    return {"reused": False, "cache": str(path) if path else None}
