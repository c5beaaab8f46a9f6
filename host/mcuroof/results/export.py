"""Tidy tables of a results.json for re-plotting elsewhere: roofs, ridges, points, sweeps and the
whole model, one row per item, base SI units named in the column (bytes_per_s, macs_per_s,
seconds, bytes, oi_macc_per_byte). Every row stands alone (files of several boards can be
merged): it names the board, what its time counts (`time_counts`: instructions under QEMU,
cycles on a real board, host time on the unix port), the rate of that step (`step_hz`:
instructions/s or the clock) and the tool that measured it. Points carry nominal and executed
MACs; their rates and intensity count the executed ones. Pure computation apart from write_csv /
write_json."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from mcuroof.analysis import timing_basis
from mcuroof.errors import UserError
from mcuroof.model import names as layer_names

ROOFS = [
    "kind",
    "name",
    "role",
    "source",
    "emitter",
    "dtype",
    "kernel",
    "level",
    "region",
    "ws_min_bytes",
    "ws_max_bytes",
    "bytes_per_s",
    "macs_per_s",
    "bytes_per_step",
    "macs_per_step",
    "basis",
]
RIDGES = ["compute", "memory", "oi_macc_per_byte"]
POINTS = [
    "index",
    "short_name",
    "name",
    "op",
    "dtype",
    "emitter",
    "input_shapes",
    "output_shape",
    "macc_nominal",
    "macc_executed",
    "bytes",
    "oi_executed_macc_per_byte",
    "seconds",
    "executed_macs_per_s",
    "executed_macs_per_step",
    "bytes_per_s",
    "roof_macs_per_s",
    "headroom",
    "bound",
    "memory_share",
    "above_roof",
    "verified",
    "tile_fraction",
    "tile_reason",
    "heap_bytes",
    "memory_roof",
    "compute_roof",
    "advice_kind",
    "advice",
]
SWEEPS = ["emitter", "kernel", "dtype", "working_set_bytes", "bytes_per_s"]
MODEL = [
    "model",
    "emitter",
    "dtype",
    "layers",
    "macc",
    "predicted_seconds",
    "measured_seconds",
    "measured_over_predicted",
    "inferences_per_s",
    "estimated_inferences_per_s",
    "fits",
    "fit",
]


SOURCE = ["board", "time_counts", "step_hz", "step_clock", "tool"]  # the last columns of every table


def source(result: dict) -> dict:
    """The columns that make a row stand alone: board, timing basis and the measuring tool."""
    basis = timing_basis.of(result.get("board", {}))
    return {
        "board": result.get("board", {}).get("name"),
        "time_counts": basis.kind,
        "step_hz": basis.rate_hz,
        "step_clock": basis.clock_text,
        "tool": result.get("tool"),
    }


def tables(result: dict) -> dict[str, tuple[list[str], list[dict]]]:
    """name -> (columns, rows) for roofs, ridges, points, sweeps and model."""
    own = _tables(result)
    extra = source(result)
    basis = timing_basis.of(result.get("board", {}))
    for row in own["roofs"][1]:
        row["bytes_per_step"] = basis.per_step(row.get("bytes_per_s"))
        row["macs_per_step"] = basis.per_step(row.get("macs_per_s"))
    for row in own["points"][1]:
        row["executed_macs_per_step"] = basis.per_step(row.get("executed_macs_per_s"))
    return {name: (cols + SOURCE, [{**row, **extra} for row in rows]) for name, (cols, rows) in own.items()}


def _tables(result: dict) -> dict[str, tuple[list[str], list[dict]]]:
    roofs = [
        {
            **{k: r.get(k) for k in ROOFS},
            "ws_min_bytes": (r.get("ws_range") or [None, None])[0],
            "ws_max_bytes": (r.get("ws_range") or [None, None])[1],
        }
        for r in result["roofs"]
    ]
    ridges = [
        {"compute": r["compute"], "memory": r["memory"], "oi_macc_per_byte": r["oi"]}
        for r in result.get("ridges") or []
    ]
    points = [
        {
            **{k: p.get(k) for k in POINTS},
            "short_name": layer_names.short(p),
            "macc_nominal": p.get("macc"),
            "macc_executed": p.get("macc_executed", p.get("macc")),
            "oi_executed_macc_per_byte": p.get("oi"),
            "executed_macs_per_s": p.get("macs_per_s"),
            "input_shapes": ";".join(layer_names.shape_text(s) for s in p.get("input_shapes") or []) or None,
            "output_shape": layer_names.shape_text(p["output_shape"]) if p.get("output_shape") else None,
        }
        for p in result.get("points") or []
    ]
    sweeps = [
        {
            "emitter": s["emitter"],
            "kernel": s["kernel"],
            "dtype": s["dtype"],
            "working_set_bytes": ws,
            "bytes_per_s": bw,
        }
        for s in result.get("sweeps") or []
        for ws, bw in s.get("points") or []
    ]
    sweeps += [
        {
            "emitter": "reference",
            "kernel": "memcpy",
            "dtype": None,
            "working_set_bytes": p["bytes"],
            "bytes_per_s": p["bytes_per_s"],
        }
        for p in (result.get("reference") or {}).get("points") or []
    ]
    m = result.get("model") or {}
    fit = m.get("fit") or {}  # fits: whether the board holds the model (else the speed is an estimate)
    model = [
        {**{k: w.get(k) for k in MODEL}, "model": m.get("name"), "fits": fit.get("fits"), "fit": fit.get("text")}
        for w in m.get("whole_model") or []
    ]
    return {
        "roofs": (ROOFS, roofs),
        "ridges": (RIDGES, ridges),
        "points": (POINTS, points),
        "sweeps": (SWEEPS, sweeps),
        "model": (MODEL, model),
    }


def write_csv(result: dict, folder: Path) -> list[Path]:
    """One CSV per table in `folder` (made if missing); empty tables keep their header."""
    folder = Path(folder)
    written = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, (columns, rows) in tables(result).items():
            path = folder / f"{name}.csv"
            with path.open("w", newline="", encoding="utf-8") as f:
                w = csv.DictWriter(f, fieldnames=columns)
                w.writeheader()
                w.writerows({k: "" if v is None else v for k, v in row.items()} for row in rows)
            written.append(path)
    except OSError as e:
        raise UserError(f"{folder}: cannot write the CSV files ({e.strerror})") from None
    return written


def document(result: dict) -> dict:
    """The same tables as one JSON document: {"board": ..., "roofs": [rows], ...}."""
    return {"board": result.get("board", {}), **{name: rows for name, (_, rows) in tables(result).items()}}


def write_json(result: dict, path: Path) -> Path:
    try:
        Path(path).write_text(json.dumps(document(result), indent=1), encoding="utf-8")
    except OSError as e:
        raise UserError(f"{path}: cannot write ({e.strerror})") from None
    return Path(path)
