"""`mcuroof predict MODEL... --roofs RESULTS [--emitter E] [--dtype T] [--json]`: each model's
latency on the board RESULTS characterises, from its calibration (predict.predictor); no board
needed, and no measured layer read (a results.json without points predicts the same)."""

from __future__ import annotations

import json
from pathlib import Path

from rich.table import Table

from mcuroof.analysis import fit, timing_basis
from mcuroof.errors import UserError
from mcuroof.kernels.ops import dispatch
from mcuroof.model import names as layer_names
from mcuroof.model.load import load_network
from mcuroof.predict import predictor
from mcuroof.report import terminal
from mcuroof.results import document as results
from mcuroof.suites import layers
from mcuroof.suites.layers import parse_list
from mcuroof.units import duration


def configure(p) -> None:
    p.add_argument("models", nargs="+", metavar="MODEL", help="a .tflite file or a built-in network, one or more")
    p.add_argument("--roofs", type=Path, required=True, metavar="RESULTS", help="a results.json of the board")
    p.add_argument("--emitter", help="only these emitters (comma-separated; default every one the board has)")
    p.add_argument("--dtype", help="element types: int8,float32 (default: each model's own)")
    p.add_argument("--json", action="store_true", help="print one JSON document per model (a list for several)")


def run(args) -> int:
    data = results.load(args.roofs)
    bd = predictor.board(data)
    if bd is None:
        raise UserError(f"--roofs {args.roofs}: no calibration in it (run mcuroof run with the calibration suite)")
    if not bd.models:
        raise UserError(f"--roofs {args.roofs}: its calibration fitted no layer-kernel family (heap or emitters)")
    emitters = parse_list(args.emitter, layers.EMITTERS, "--emitter")
    bad = [e for e in emitters or [] if e not in bd.emitters]
    if bad:
        raise UserError(f"--emitter {','.join(bad)}: {bd.name} has {', '.join(bd.emitters)}")
    chosen = parse_list(args.dtype, predictor.DTYPES, "--dtype")
    nets = [load_network(m) for m in args.models]
    dtypes = [chosen or [layers.model_dtype(net)] for net in nets]
    for dtype in sorted({d for ds in dtypes for d in ds}):
        if not predictor.calibrated(bd, dtype, emitters):
            raise UserError(f"--roofs {args.roofs}: no {dtype} prediction ({_why_not(bd, dtype, emitters)})")
    preds = [predictor.network(bd, net, ds, emitters) for net, ds in zip(nets, dtypes)]
    docs = [document(bd, data, net, pred) for net, pred in zip(nets, preds)]
    if args.json:
        print(json.dumps(docs[0] if len(docs) == 1 else docs, indent=2))
        return 0
    con = terminal.console()
    basis = timing_basis.of(data.get("board", {}))
    if len(docs) == 1:
        terminal.show(con, layer_table(docs[0], preds[0]["layers"], basis))
    terminal.show(con, model_table(docs, basis))
    return 0


def _why_not(bd, dtype: str, emitters: list[str] | None) -> str:
    ems = emitters or list(bd.emitters)
    if dtype == "float32" and not bd.floats:
        return f"{bd.name} has no floats"
    if not any(dispatch.runs("FULLY_CONNECTED", e, dtype) for e in ems):
        return f"{', '.join(ems)} have no {dtype} layer kernel"
    if dtype == "float32":
        return "its calibration has no float32 family: calibrated before the float32 shapes; run it again"
    return f"its calibration fitted no {dtype} family of {', '.join(ems)}"


def document(bd, data: dict, net, pred: dict) -> dict:
    """The JSON of one model: model, board, fit, whole_model (with interval and coverage) and every
    layer (status "own", "other" or "none" with why; names as in results.json's points)."""
    verdict = fit.verdict(net, fit.budget(layers.profile(data.get("board", {})), bd.free_heap))
    keys = ("name", "op", "emitter", "dtype", "status", "why", "family", "seconds", "interval", "outside")
    return {
        "model": net.name,
        "board": bd.name,
        "fit": verdict.text(),
        "whole_model": [
            {k: r[k] for k in ("emitter", "dtype", "seconds", "interval", "coverage", "borrowed")}
            for r in pred["whole_model"]
        ],
        "layers": [{**{k: r.get(k) for k in keys}, **_extra(r)} for r in pred["layers"]],
    }


def _extra(r: dict) -> dict:
    return {k: r[k] for k in ("bound_seconds", "dominant") if k in r}


def _interval(iv) -> str:
    return "-" if not iv else f"{duration(iv[0])} - {duration(iv[1])}"


def _how(r: dict) -> str:
    """How a layer was predicted, in a few words: its family's fit, another's and why, or why not."""
    if r["status"] == "none":
        return f"not predicted: {r['why']}"
    text = "own fit" if r["status"] == "own" else f"by {r['family']}: {r['why'].split('; ')[-1]}"
    if r.get("outside"):
        text += f"; OUTSIDE calibrated range ({', '.join(r['outside'])})"
    return text


def layer_table(doc: dict, rows: list[dict], basis) -> Table:
    """One row per layer and kernel; layers by their short name ("DW 3": the points' index)."""
    t = Table(title=f"Predicted layers of {doc['model']} on {doc['board']} ({basis.sentence})")
    for h in ("layer", "kernel", "predicted", "interval (CV)", "roofline", "how"):
        t.add_column(h, justify="right" if h in ("predicted", "roofline") else "left")
    for r in rows:
        t.add_row(
            layer_names.short(r),
            f"{r['emitter']} {r['dtype']}",
            duration(r.get("seconds")),
            _interval(r.get("interval")),
            duration(r.get("bound_seconds")),
            _how(r),
        )
    return t


def coverage_text(w: dict) -> str:
    """'9 of 9 layers, 100.0 % of MACs' and, below 100 %, what is borrowed or left out."""
    c = w["coverage"]
    text = f"{c['layers']} of {c['of_layers']} layers, {c['macs_share']:.1%} of MACs"
    if w["borrowed"]:
        text += "; borrowed: " + ", ".join(f"layer {b['index']} from {b['emitter']}" for b in w["borrowed"])
    if c["left_out"]:
        text += "; NOT PREDICTED: " + ", ".join(f"{x['op']} {x['index']} ({x['why']})" for x in c["left_out"])
    if c["other_family"]:
        text += f"; {c['other_family']} by another family"
    if c["outside_range"]:
        text += f"; {c['outside_range']} outside the calibrated range"
    return text


def model_table(docs: list[dict], basis) -> Table:
    t = Table(title=f"Predicted whole-model latency on {docs[0]['board']}; {basis.sentence}")
    for h in ("model", "kernel", "predicted", "interval (CV)", "coverage", "fit"):
        t.add_column(h, justify="right" if h == "predicted" else "left")
    for d in docs:
        for w in d["whole_model"]:
            t.add_row(
                d["model"],
                f"{w['emitter']} {w['dtype']}",
                duration(w["seconds"]),
                _interval(w["interval"]),
                coverage_text(w),
                d["fit"],
            )
    return t
