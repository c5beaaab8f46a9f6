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
    """The issue's JSON: model, board, whole_model, layers (names as in results.json's points)."""
    verdict = fit.verdict(net, fit.budget(layers.profile(data.get("board", {})), bd.free_heap))
    return {
        "model": net.name,
        "board": bd.name,
        "fit": verdict.text(),
        "whole_model": [{k: r[k] for k in ("emitter", "dtype", "seconds")} for r in pred["whole_model"]],
        "layers": [
            {k: r[k] for k in ("name", "op", "emitter", "dtype", "seconds", "bound_seconds", "dominant")}
            for r in pred["layers"]
        ],
    }


def _ms(s: float | None) -> str:
    return "-" if s is None else f"{s * 1e3:.4g}"


def layer_table(doc: dict, rows: list[dict], basis) -> Table:
    """One row per layer and kernel; layers by their short name ("DW 3": the points' index)."""
    t = Table(title=f"Predicted layers of {doc['model']} on {doc['board']} (ms; {basis.sentence})")
    for h in ("layer", "kernel", "predicted ms", "roofline ms", "dominant term"):
        t.add_column(h, justify="right" if "ms" in h else "left")
    for r in rows:
        t.add_row(
            layer_names.short(r),
            f"{r['emitter']} {r['dtype']}",
            _ms(r["seconds"]),
            _ms(r["bound_seconds"]),
            r["dominant"],
        )
    return t


def model_table(docs: list[dict], basis) -> Table:
    cols = sorted({(w["emitter"], w["dtype"]) for d in docs for w in d["whole_model"]})
    t = Table(title=f"Predicted whole-model latency (ms) on {docs[0]['board']}; {basis.sentence}")
    t.add_column("model")
    for em, dt in cols:
        t.add_column(f"{em} {dt}", justify="right")
    t.add_column("fit")
    for d in docs:
        got = {(w["emitter"], w["dtype"]): w["seconds"] for w in d["whole_model"]}
        t.add_row(d["model"], *(_ms(got.get(c)) for c in cols), d["fit"])
    return t
