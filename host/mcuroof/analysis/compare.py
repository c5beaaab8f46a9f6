"""Several runs side by side (boards, clocks, icount shifts, firmware versions): roof ratios,
per-layer time ratios and the fastest target per layer, and all the roofs on one plot. A ratio
is named by what the runs' time counts (timing_basis.ratio_word): never a speed-up between QEMU
runs, whose time counts instructions; and there is none between runs whose times do not compare
(QEMU instructions, a cycle model's cycles, real time, host time: not_compared says why).

Pure computation except draw(); runs are (label, results dict) pairs, the first is the baseline.
"""

from __future__ import annotations

import math
from pathlib import Path

from mcuroof.analysis import records, timing_basis
from mcuroof.analysis import roofs as roofs_mod
from mcuroof.analysis.records import Roof
from mcuroof.model import names as layer_names


def labels(results: list[dict], paths: list[Path]) -> list[str]:
    """Short distinct names: board, QEMU shift where the runs' shifts differ, a real board's clock
    (timing_basis: counted, or machine.freq()'s) where those differ (a timer clock under QEMU or a
    suspected emulator is not its speed: never), then
    the results' folder where that is still not enough."""
    bases = [timing_basis.of(r.get("board", {})) for r in results]
    shifts = {b.icount_shift for b in bases if b.kind == timing_basis.INSTRUCTIONS}
    hz = [
        None
        if b.kind in (timing_basis.INSTRUCTIONS, timing_basis.SUSPECT)
        else b.rate_hz or r.get("board", {}).get("clock_hz")
        for r, b in zip(results, bases)
    ]
    clocks = {h for h in hz if h}
    out = []
    for data, basis, clock in zip(results, bases, hz):
        text = data.get("board", {}).get("name") or "?"
        if basis.kind == timing_basis.INSTRUCTIONS and len(shifts) > 1:
            text += f" shift={basis.icount_shift}"
        if clock and len(clocks) > 1:  # the clock the probe read (--clocks: the one set)
            text += f" {clock / 1e6:g} MHz"
        out.append(text)
    if len(set(out)) < len(out):
        out = [f"{t} ({p.parent.name or p})" for t, p in zip(out, paths)]
    if len(set(out)) < len(out):
        out = [f"{t} #{i + 1}" for i, t in enumerate(out)]
    return out


def bases(runs: list[tuple[str, dict]]) -> list[timing_basis.Basis]:
    """What each run's time counts (analysis.timing_basis): ratios between them are named by it."""
    return [timing_basis.of(d.get("board", {})) for _, d in runs]


def value(r: Roof) -> float:
    return r.rate


def measured(data: dict) -> list[Roof]:
    """The run's measured roofs."""
    return [r for r in records.roofs(data) if r.measured]


def _top_compute(data: dict) -> Roof | None:
    comps = [r for r in measured(data) if r.kind == "compute"]
    return max(comps, key=value) if comps else None


def roof_rows(runs: list[tuple[str, dict]]) -> list[dict]:
    """Rows of matched measured roofs: first the top memory and top compute roof of every run
    (whatever their names), then every roof that two or more runs share by kind, name, emitter
    and dtype. `values` has one entry per run (None where a run lacks the roof); `ratios` is
    value / the first run's value (None where the first run lacks the roof)."""
    rows = [
        {
            "kind": "memory",
            "name": "top memory roof",
            "emitter": None,
            "dtype": None,
            "values": [_v(roofs_mod.top_memory(d["roofs"])) for _, d in runs],
        },
        {
            "kind": "compute",
            "name": "top compute roof",
            "emitter": None,
            "dtype": None,
            "values": [_v(_top_compute(d)) for _, d in runs],
        },
    ]
    keyed: dict[tuple, list] = {}
    for i, (_, data) in enumerate(runs):
        for r in measured(data):
            key = (r.kind, r.name, r.emitter, r.dtype)
            keyed.setdefault(key, [None] * len(runs))[i] = value(r)
    for (kind, name, em, dt), values in keyed.items():
        if sum(v is not None for v in values) >= 2:
            rows.append({"kind": kind, "name": name, "emitter": em, "dtype": dt, "values": values})
    b = bases(runs)
    for row in rows:  # against the first run only: where it lacks the roof or its time differs, no ratio ("-")
        base = row["values"][0]
        row["ratios"] = [timing_basis.rate_ratio(b[0], base, b[i], v) for i, v in enumerate(row["values"])]
    return rows


def not_compared(runs: list[tuple[str, dict]]) -> str | None:
    """Why the runs' times do not compare, naming the first two that do not; None where all do."""
    b = bases(runs)
    for i in range(len(b)):
        for j in range(i + 1, len(b)):
            why = timing_basis.why_not(b[i], b[j], (f"run {tag(i)}", f"run {tag(j)}"))
            if why:
                return why
    return None


def _v(r: Roof | None) -> float | None:
    return value(r) if r else None


def _model(data: dict) -> str | None:
    m = data.get("model")
    if isinstance(m, dict):
        return m.get("name") or m.get("path")
    return m if isinstance(m, str) else None


def _layer_keys(points: list[dict]) -> dict[tuple, tuple]:
    """(index, name) of a point -> the key that matches its layer across runs: op, input and
    output shapes and the how-manieth such layer it is (the same network from a .tflite file and
    from the built-in shapes has other tensor names); the name where points carry no shapes."""
    keys, seen = {}, {}
    for p in sorted(points, key=lambda p: p.get("index", 0)):
        ident = (p.get("index"), p.get("name"))
        if ident in keys:
            continue
        if p.get("output_shape") is not None and p.get("input_shapes") is not None:
            sig = (p.get("op"), tuple(tuple(s) for s in p["input_shapes"]), tuple(p["output_shape"]))
            seen[sig] = seen.get(sig, 0) + 1
            keys[ident] = ("shape",) + sig + (seen[sig],)
        else:
            keys[ident] = ("name", p.get("name"))
    return keys


def layer_comparison(runs: list[tuple[str, dict]]) -> dict | None:
    """Per-layer time ratios where the runs profiled the same network's layers, matched by op and
    shapes (results' points: index, op, input_shapes, output_shape, dtype, emitter, seconds).
    None when fewer than two runs share a layer.

    layers: per layer, each run's fastest (dtype, emitter) and its seconds, the ratio of each run
    to the first (`ratio`: first's seconds / this run's; a speed-up in real time, an
    instruction-count ratio between QEMU runs: timing_basis.ratio_word; None where the two runs'
    times do not compare), and the fastest run, dtype and emitter (None unless all runs' times
    compare).
    network: per (run, dtype, emitter), the summed seconds over the shared layers (`over_slowest`:
    the slowest variant's time over this one's where the runs' times compare); a variant that
    lacks some of them names them (`missing`) with their best time in the same run on another
    variant, which its `seconds` includes (`complete` is False); and per run its best total."""
    bs = bases(runs)
    one_scale = timing_basis.ratio_word(bs) is not None
    per_run: list[dict[tuple, dict[tuple, float]]] = []
    labels: dict[tuple, str] = {}
    order: list[tuple] = []
    for _, data in runs:
        pts = [p for p in data.get("points") or [] if not p.get("user")]
        keys = _layer_keys(pts)
        layers: dict[tuple, dict[tuple, float]] = {}
        for p in sorted(pts, key=lambda p: p.get("index", 0)):
            if p.get("verified") is False or not p.get("seconds"):
                continue
            key = keys[(p.get("index"), p.get("name"))]
            variants = layers.setdefault(key, {})
            v = (p.get("dtype"), p.get("emitter"))
            variants[v] = min(variants.get(v, math.inf), p["seconds"])
            labels.setdefault(key, layer_names.short(p) if key[0] == "shape" else str(p.get("name")))
            if key not in order:
                order.append(key)
        per_run.append(layers)
    shared = [k for k in order if sum(k in lay for lay in per_run) >= 2]
    models = {_model(d) for _, d in runs} - {None}
    if not shared:
        if len(models) > 1:
            return {
                "layers": [],
                "network": [],
                "note": f"different models ({', '.join(sorted(models))}): no layer with the same op and shapes",
            }
        return None
    rows = []
    for key in shared:
        best = [min(lay[key].items(), key=lambda kv: kv[1]) if key in lay else None for lay in per_run]
        base = best[0][1] if best[0] else None  # over the first run only: "-" where it lacks the layer
        fastest = min(
            ((i, k, timing_basis.units(bs[i], s)) for i, x in enumerate(best) if x for k, s in per_run[i][key].items()),
            key=lambda t: t[2],
        )
        rows.append(
            {
                "layer": labels[key],
                "best": [{"dtype": b[0][0], "emitter": b[0][1], "seconds": b[1]} if b else None for b in best],
                "ratio": [timing_basis.time_ratio(bs[0], base, bs[i], x[1] if x else None) for i, x in enumerate(best)],
                "fastest": {
                    "run": fastest[0],
                    "dtype": fastest[1][0],
                    "emitter": fastest[1][1],
                    "seconds": per_run[fastest[0]][key][fastest[1]],
                }
                if one_scale
                else None,
            }
        )
    network = [
        _network_row(i, v, lay, shared, labels)
        for i, lay in enumerate(per_run)
        for v in dict.fromkeys(v for k in shared if k in lay for v in lay[k])
    ]
    network.sort(  # by time where the runs' times compare, else run by run
        key=lambda v: (
            v["seconds"] is None,
            0 if one_scale else v["run"],
            timing_basis.units(bs[v["run"]], v["seconds"] or 0),
        )
    )
    slowest = max(
        (v for v in network if v["seconds"]), key=lambda v: timing_basis.units(bs[v["run"]], v["seconds"]), default=None
    )
    for v in network:  # over the slowest variant, where the runs' times compare
        v["over_slowest"] = (
            timing_basis.time_ratio(bs[slowest["run"]], slowest["seconds"], bs[v["run"]], v["seconds"])
            if one_scale and slowest
            else None
        )
    best_total = [
        sum(min(lay[k].values()) for k in shared) if all(k in lay for k in shared) else None for lay in per_run
    ]
    note = f"matched by op and shapes: {', '.join(sorted(models))}" if len(models) > 1 else None
    return {"layers": rows, "network": network, "best_total": best_total, "shared": len(shared), "match_note": note}


def _network_row(run: int, variant: tuple, lay: dict, shared: list[tuple], labels: dict) -> dict:
    own = [k for k in shared if variant in lay.get(k, {})]
    missing = []
    for k in shared:
        if k in own:
            continue
        other = min(lay[k].items(), key=lambda kv: kv[1]) if k in lay else None
        missing.append(
            {
                "layer": labels[k],
                "seconds": other[1] if other else None,
                "dtype": other[0][0] if other else None,
                "emitter": other[0][1] if other else None,
            }
        )
    total = sum(lay[k][variant] for k in own)
    lost = any(m["seconds"] is None for m in missing)
    return {
        "run": run,
        "dtype": variant[0],
        "emitter": variant[1],
        "layers": len(own),
        "measured_seconds": total,
        "seconds": None if lost else total + sum(m["seconds"] for m in missing),
        "complete": not missing,
        "missing": missing,
    }


def variant(run: int, dtype, emitter) -> str:
    return f"{tag(run)} {dtype or '?'} {emitter or '?'}"


def tag(i: int) -> str:
    return chr(ord("A") + i) if i < 26 else f"R{i + 1}"
