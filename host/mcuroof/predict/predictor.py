"""A network's latency on a board from its characterisation alone: results.json's calibration
(a cost model per layer-kernel family, fitted by suites.calibration) and roofs. No layer of the network
is run, and no measured point is read.

A layer is planned as the layers suite would plan it on that board (its heap and its compute
ceilings: layer_plan.plan_layer), so a layer the board runs on a heap-limited tile is predicted
on that tile and its companion and projected to the whole layer as the measured one is
(points.project); a layer that runs whole is predicted whole.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from mcuroof.analysis import points as points_mod
from mcuroof.kernels.ops import layer_plan, m0
from mcuroof.kernels.ops.tiles import companion_shape, full_tile, unsupported
from mcuroof.model.network import Layer, Network
from mcuroof.predict import cost_model, design

EMITTERS = ("bytecode", "native", "viper", "asm_thumb")
DTYPES = ("int8", "float32")


@dataclass(frozen=True)
class Board:
    """What a prediction reads of results.json."""

    name: str
    models: dict[str, cost_model.Model]
    isa: frozenset[str]
    free_heap: int
    emitters: tuple[str, ...]
    roofs: tuple[dict, ...]
    small: bool
    floats: bool = True  # the board has floats (the probe's `float`)


def board(data: dict) -> Board | None:
    """The predictor of the board a results document characterises (None: it has no calibration)."""
    cal = data.get("calibration")
    if not cal:
        return None
    b = data.get("board", {})
    free = cal.get("free_heap") or b.get("free_heap") or 0
    return Board(
        b.get("name", "?"),
        {m["family"]: cost_model.Model.from_dict(m) for m in cal.get("families", [])},
        frozenset(cal.get("isa", [])),
        free,
        tuple(e for e in b.get("emitters", []) if e in EMITTERS),
        tuple(data.get("roofs", [])),
        layer_plan.heap_class(free) == "small",
        bool(b.get("float", True)),
    )


def calibrated(bd: Board, dtype: str, emitters: list[str] | None = None) -> bool:
    """Whether the calibration fitted any family of this element type (of these emitters; a
    results.json calibrated before the float32 shapes has int8 families only)."""
    return any(f.split("/")[1] == dtype and (not emitters or f.split("/")[0] in emitters) for f in bd.models)


def _ceilings(bd: Board) -> list[dict]:
    return [r for r in bd.roofs if r["kind"] == "compute" and r["source"] == "measured" and r.get("emitter")]


def plan(bd: Board, layer: Layer, dtype: str, emitter: str):
    """The job the layers suite would run for this layer on this board (None: it runs none)."""
    if unsupported(layer) or (emitter == "asm_thumb" and not m0.asm_pool_fits(layer)):
        return None
    work = layer_plan.max_work(_ceilings(bd), [emitter], [dtype], "small" if bd.small else "large")
    job = layer_plan.plan_layer(layer, dtype, emitter, bd.free_heap, work[(emitter, dtype)])
    if job is None:
        return None
    return dataclasses.replace(job, isa=bd.isa)


def _timed(bd: Board, job, model: cost_model.Model) -> list[tuple]:
    """(tile, predicted seconds) of the job's first candidate and of its companion."""
    first = job.tiles[0]
    out = [(first, model.seconds(design.terms(job, first)))]
    n = len(job.candidates)
    comp = job.tiles[n] if job.companions else None
    if comp is not None and (comp.rows, comp.cols, comp.chans) == companion_shape(job.layer, first):
        out.append((comp, model.seconds(design.terms(job, comp))))
    return out


def layer_time(bd: Board, layer: Layer, dtype: str, emitter: str) -> dict | None:
    """The predicted time of one layer: seconds, the cost term that dominates it, the family and
    the projection; None where the board runs no kernel of it, {"why": ...} where its family was
    not calibrated."""
    job = plan(bd, layer, dtype, emitter)
    if job is None:
        return None
    fam = design.family(job)
    model = bd.models.get(fam)
    if model is None:
        return {"why": f"no calibration of {fam}"}
    seconds, how = points_mod.project(job, _timed(bd, job, model))
    name, share = model.dominant(design.terms(job, full_tile(layer, dtype)))
    return {"seconds": seconds, "family": fam, "projection": how, "dominant": cost_model.describe(name, share)}


def bound_seconds(bd: Board, layer: Layer, dtype: str, emitter: str, seconds: float) -> float | None:
    """The layer's time at its roofline (points.roofline_seconds) under this board's roofs."""
    p = points_mod.bare_point(layer, dtype, emitter, seconds)
    points_mod.place(p, list(bd.roofs), list(bd.emitters))
    return points_mod.roofline_seconds(p) or None


def network(bd: Board, net: Network, dtypes: list[str], emitters: list[str] | None = None) -> dict:
    """Per-layer rows and whole-model totals per (emitter, dtype)."""
    ems = [e for e in (emitters or bd.emitters) if e in bd.emitters]
    rows = []
    for layer in net.layers:
        for dtype in dtypes:
            for em in ems:
                got = layer_time(bd, layer, dtype, em)
                if got is None or "seconds" not in got:
                    continue
                rows.append(
                    {
                        "index": layer.index,
                        "name": layer.name,
                        "op": layer.op,
                        "emitter": em,
                        "dtype": dtype,
                        "seconds": got["seconds"],
                        "bound_seconds": bound_seconds(bd, layer, dtype, em, got["seconds"]),
                        "dominant": got["dominant"],
                        "projection": got["projection"],
                    }
                )
    return {"layers": rows, "whole_model": whole_model(rows)}


def whole_model(rows: list[dict]) -> list[dict]:
    """Per (emitter, dtype): the sum of its layers, a layer it has no kernel for taken from the
    fastest emitter that has one (points.DONORS), as the measured whole model is."""
    out = []
    for dtype, em in sorted({(r["dtype"], r["emitter"]) for r in rows}):
        mine = {r["index"]: r for r in rows if (r["dtype"], r["emitter"]) == (dtype, em)}
        total, borrowed = 0.0, []
        for i in sorted({r["index"] for r in rows if r["dtype"] == dtype}):
            r = mine.get(i) or _donor(rows, i, dtype)
            total += r["seconds"]
            if i not in mine:
                borrowed.append({"index": i, "emitter": r["emitter"]})
        out.append({"emitter": em, "dtype": dtype, "seconds": total, "layers": len(mine), "borrowed": borrowed})
    return out


def _donor(rows: list[dict], index: int, dtype: str) -> dict:
    have = [r for r in rows if r["index"] == index and r["dtype"] == dtype]
    order = points_mod.DONORS
    return min(have, key=lambda r: order.index(r["emitter"]) if r["emitter"] in order else len(order))
