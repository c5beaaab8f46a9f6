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
from mcuroof.analysis.records import Family, LayerPrediction
from mcuroof.kernels.emitters import LAYER_EMITTERS
from mcuroof.kernels.ops import dispatch, layer_plan
from mcuroof.kernels.ops.contract import EMITTER_DTYPES
from mcuroof.kernels.ops.tiles import companion_shape, full_tile, unsupported
from mcuroof.model.network import Layer, Network
from mcuroof.predict import cost_model, design, intervals

EMITTERS = LAYER_EMITTERS  # the emitters with layer kernels (kernels.emitters)
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
    caches: tuple[int, ...] = ()  # the data cache sizes the calibration's fit knew (design.cache_sizes)
    widening: dict = dataclasses.field(default_factory=dict)  # per emitter/dtype (intervals.widening)
    spreads: dict = dataclasses.field(default_factory=dict)  # per emitter/dtype (intervals.spread_quantiles)


def board(data: dict) -> Board | None:
    """The predictor of the board a results document characterises (None: it has no calibration)."""
    cal = data.get("calibration")
    if not cal:
        return None
    b = data.get("board", {})
    free = cal.get("free_heap") or b.get("free_heap") or 0
    models = {m["family"]: cost_model.Model.from_dict(m) for m in cal.get("families", [])}
    return Board(
        b.get("name", "?"),
        models,
        frozenset(cal.get("isa", [])),
        free,
        tuple(e for e in b.get("emitters", []) if e in EMITTERS),
        tuple(data.get("roofs", [])),
        layer_plan.heap_class(free) == "small",
        bool(b.get("float", True)),
        tuple(cal.get("caches") or ()),
        dict(cal.get("widening") or {}),
        intervals.spread_quantiles(models.values()),
    )


def calibrated(bd: Board, dtype: str, emitters: list[str] | None = None) -> bool:
    """Whether the calibration fitted any family of this element type (of these emitters; a
    results.json calibrated before the float32 shapes has int8 families only)."""
    fams = [Family.parse(f) for f in bd.models]
    return any(f.dtype == dtype and (not emitters or f.emitter in emitters) for f in fams)


def _ceilings(bd: Board) -> list[dict]:
    return [r for r in bd.roofs if r["kind"] == "compute" and r["source"] == "measured" and r.get("emitter")]


def plan(bd: Board, layer: Layer, dtype: str, emitter: str):
    """The job the layers suite would run for this layer on this board (None: it runs none)."""
    if unsupported(layer) or dispatch.limit(layer, emitter):
        return None
    work = layer_plan.max_work(_ceilings(bd), [emitter], [dtype], "small" if bd.small else "large")
    job = layer_plan.plan_layer(layer, dtype, emitter, bd.free_heap, work[(emitter, dtype)])
    if job is None:
        return None
    return dataclasses.replace(job, isa=bd.isa)


def _timed(bd: Board, job, model: cost_model.Model) -> list[tuple]:
    """(tile, predicted seconds) of the job's first candidate and of its companion."""
    first = job.tiles[0]
    out = [(first, model.seconds(design.terms(job, first, bd.caches)))]
    n = len(job.candidates)
    comp = job.tiles[n] if job.companions else None
    if comp is not None and (comp.rows, comp.cols, comp.chans) == companion_shape(job.layer, first):
        out.append((comp, model.seconds(design.terms(job, comp, bd.caches))))
    return out


# op classes whose generic kernels are one code path (the family's name only tells the window
# apart): a layer of one is predicted by the other's fit where its own has no shape
SIBLINGS = {"dw": "dw3", "dw3": "dw", "conv": "conv1x1", "conv1x1": "conv"}


def stand_in(bd: Board, fam: str) -> tuple[str, str] | None:
    """The family that predicts a layer of an uncalibrated family `fam`, and why it may: the
    same kernel fitted on other windows, else another path of the same generator (None: none)."""
    f = Family.parse(fam)
    sib = SIBLINGS.get(f.op_class)
    if sib and str(f.with_op_class(sib)) in bd.models:
        return str(f.with_op_class(sib)), f"{fam} has no calibrated shape; the same kernel fitted on {sib} shapes"
    for other in sorted(bd.models):
        o = Family.parse(other)
        if (
            o.with_generator(f.generator) == f
            and o.generator != f.generator
            and o.generator.startswith(f.generator_base)
        ):
            return other, f"{fam} has no calibrated shape; another path of the same generator"
    return None


def layer_time(bd: Board, layer: Layer, dtype: str, emitter: str) -> dict:
    """layer_prediction as its JSON object (suites/layers.py copies it into the run's points)."""
    return layer_prediction(bd, layer, dtype, emitter).to_dict()


def layer_prediction(bd: Board, layer: Layer, dtype: str, emitter: str) -> LayerPrediction:
    """One layer's prediction with one kernel (records.LayerPrediction says what each field is;
    `pool` and `pool_held_out`: the pool of scale-free errors whose conformal quantile its
    interval takes and its n, intervals.pool)."""
    why = _no_kernel(bd, layer, dtype, emitter)
    if why:
        return LayerPrediction("none", why)
    job = plan(bd, layer, dtype, emitter)
    if job is None:
        return LayerPrediction("none", "no tile of it fits the heap")
    fam = design.family(job)
    status, used, note = "own", fam, ""
    if fam not in bd.models:
        got = stand_in(bd, fam)
        if got is None:
            return LayerPrediction("none", f"{fam} has no calibrated shape on {bd.name}", family=fam)
        status, (used, note) = "other", got
    model = bd.models[used]
    timed = _timed(bd, job, model)
    seconds, how = points_mod.project(job, timed)
    name, share = model.dominant(design.terms(job, full_tile(layer, dtype), bd.caches))
    extent = design.extent(job, job.tiles[0])
    ratio = model.ratio(extent)
    iv, iv_why = intervals.layer_interval(
        model,
        seconds,
        ratio,
        intervals.widening_of(bd.widening, emitter, dtype),
        dtype,
        bd.spreads,
        timed[0][1],
        extent["channels"],
    )
    pooled = intervals.pool(model, bd.spreads, timed[0][1], extent["channels"])
    return LayerPrediction(
        status,
        note,
        used,
        seconds,
        iv,
        iv_why,
        held_out=len(model.cv_log_errors),
        pool=pooled[0] if pooled else None,
        pool_held_out=pooled[1]["held_out"] if pooled else None,
        ratio=ratio,
        outside=model.outside(extent),
        own_family=fam,
        projection=how,
        dominant=cost_model.describe(name, share, model.merged),
    )


def _no_kernel(bd: Board, layer: Layer, dtype: str, emitter: str) -> str | None:
    why = unsupported(layer)
    if why:
        return why
    if not dispatch.runs(layer.op, emitter, dtype):
        return f"{emitter} has no {dtype} {layer.op} kernel"
    return dispatch.limit(layer, emitter)


def bound_seconds(bd: Board, layer: Layer, dtype: str, emitter: str, seconds: float) -> float | None:
    """The layer's time at its roofline (points.roofline_seconds) under this board's roofs."""
    p = points_mod.bare_point(layer, dtype, emitter, seconds)
    points_mod.place(p, list(bd.roofs), list(bd.emitters))
    return points_mod.roofline_seconds(p) or None


def network(bd: Board, net: Network, dtypes: list[str], emitters: list[str] | None = None) -> dict:
    """A row per layer, element type and emitter (every layer: predicted or why not; a
    records.LayerPrediction), and the whole-model totals per (emitter, dtype) with their coverage."""
    ems = [e for e in (emitters or bd.emitters) if e in bd.emitters]
    rows = []
    for layer in net.layers:
        for dtype in dtypes:
            for em in ems:
                if dtype not in EMITTER_DTYPES.get(em, ()):  # no kernel of this type at all: no rows
                    continue
                got = layer_prediction(bd, layer, dtype, em)
                bound = bound_seconds(bd, layer, dtype, em, got.seconds) if got.timed else None
                rows.append(
                    dataclasses.replace(
                        got,
                        index=layer.index,
                        name=layer.name,
                        op=layer.op,
                        macc=layer.macc,
                        emitter=em,
                        dtype=dtype,
                        bound_seconds=bound,
                    )  # fmt: skip
                )
    return {"layers": rows, "whole_model": whole_model(rows, net)}


def whole_model(rows: list[LayerPrediction], net: Network | None = None) -> list[dict]:
    """Per (emitter, dtype): the sum of its layers' predictions, a layer it predicts no time for
    taken from the fastest emitter that has one (points.DONORS: `borrowed`, as the measured whole
    model is), the interval (its layers' combined with intervals.RHO; none where a layer has
    none: `interval_why`), and the coverage: the layers and the
    share of the network's MACs the sum holds."""
    out = []
    total_macc = sum(l.macc for l in net.layers) if net else sum({r.index: r.macc for r in rows}.values())
    n_layers = len(net.layers) if net else len({r.index for r in rows})
    timed = [r for r in rows if r.seconds is not None]
    for dtype, em in sorted({(r.dtype, r.emitter) for r in timed}):
        mine = {r.index: r for r in timed if (r.dtype, r.emitter) == (dtype, em)}
        parts, borrowed, left_out = [], [], []
        for i in sorted({r.index for r in rows if r.dtype == dtype}):
            r = mine.get(i) or _donor(timed, i, dtype)
            if r is None:
                left_out.append(_left_out(rows, i, dtype, em))
                continue
            parts.append(r)
            if i not in mine:
                borrowed.append({"index": i, "emitter": r.emitter})
        macc = sum(r.macc for r in parts)
        no_iv = [r for r in parts if not r.interval]
        out.append(
            {
                "emitter": em,
                "dtype": dtype,
                "seconds": sum(r.seconds for r in parts),
                "interval": None if no_iv else list(intervals.combine([(r.seconds, r.interval) for r in parts])),
                "interval_why": _no_interval(no_iv),
                "layers": len(mine),
                "borrowed": borrowed,
                "coverage": {
                    "layers": len(parts),
                    "of_layers": n_layers,
                    "macs_share": macc / total_macc if total_macc else 1.0,
                    "own": sum(1 for r in mine.values() if r.status == "own"),
                    "other_family": sum(1 for r in mine.values() if r.status == "other"),
                    "borrowed": len(borrowed),
                    "left_out": left_out,
                    "outside_range": sum(1 for r in parts if r.outside),
                },
            }
        )
    return out


def _no_interval(rows: list[LayerPrediction]) -> str:
    """Why a whole model has no interval: the layers that have none."""
    if not rows:
        return ""
    names = ", ".join(f"{r.op} {r.index}" for r in rows[:4]) + (f" and {len(rows) - 4} more" if len(rows) > 4 else "")
    return f"no interval for {names} ({rows[0].interval_why or 'none'})"


def _left_out(rows: list[LayerPrediction], index: int, dtype: str, emitter: str) -> dict:
    r = next((r for r in rows if (r.index, r.dtype, r.emitter) == (index, dtype, emitter)), None)
    r = r or next(r for r in rows if r.index == index)
    return {"index": index, "name": r.name, "op": r.op, "why": r.why or "not predicted"}


def _donor(rows: list[LayerPrediction], index: int, dtype: str) -> LayerPrediction | None:
    have = [r for r in rows if r.index == index and r.dtype == dtype]
    if not have:
        return None
    order = points_mod.DONORS
    return min(have, key=lambda r: order.index(r.emitter) if r.emitter in order else len(order))
