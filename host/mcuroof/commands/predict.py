"""`mcuroof predict MODEL... --roofs RESULTS [--emitter E] [--dtype T] [--json]`: each model's
latency on the board RESULTS characterises, from its calibration (predict.predictor); no board
needed, and no measured layer read (a results.json without points predicts the same).

With several --roofs, or --board NAME (a profile: a board not characterised, not owned yet),
one table per model of board x kernel: each characterised board's prediction, each profile's
roofline bound, and the best among the rows whose times compare (report.choice)."""

from __future__ import annotations

import json
from pathlib import Path

from rich.table import Table

from mcuroof.analysis import fit, timing_basis
from mcuroof.board import profiles as boards
from mcuroof.errors import UserError
from mcuroof.kernels.ops import dispatch
from mcuroof.model import names as layer_names
from mcuroof.model.load import load_network
from mcuroof.predict import bound, predictor
from mcuroof.report import calibrated, choice, terminal
from mcuroof.results import document as results
from mcuroof.suites import layers
from mcuroof.suites.layers import parse_list
from mcuroof.units import duration


def configure(p) -> None:
    p.add_argument("models", nargs="+", metavar="MODEL", help="a .tflite file or a built-in network, one or more")
    p.add_argument(
        "--roofs", type=Path, nargs="+", metavar="RESULTS", help="results.json of the board (several: one table)"
    )
    p.add_argument("--board", help="boards by profile alone, not characterised: their roofline bound (comma-separated)")
    p.add_argument(
        "--npu",
        help="Ethos-U configurations (e.g. ethos-u55-128): Vela's estimate as a row (pip install 'mcuroof[npu]')",
    )
    p.add_argument("--emitter", help="only these emitters (comma-separated; default every one the board has)")
    p.add_argument("--dtype", help="element types: int8,float32 (default: each model's own)")
    p.add_argument("--json", action="store_true", help="print one JSON document per model (a list for several)")


def run(args) -> int:
    if not args.roofs and not args.board and not args.npu:
        raise UserError("give --roofs RESULTS (a characterised board) or --board NAME (a board's profile)")
    if len(args.roofs or []) == 1 and not args.board and not args.npu:
        return _one(args, args.roofs[0])
    return _many(args)


def _predictor(path: Path, data: dict):
    bd = predictor.board(data)
    if bd is None:
        raise UserError(f"--roofs {path}: no calibration in it (run mcuroof run with the calibration suite)")
    if not bd.models:
        raise UserError(f"--roofs {path}: its calibration fitted no layer-kernel family (heap or emitters)")
    return bd


def _one(args, path: Path) -> int:
    data = results.load(path)
    bd = _predictor(path, data)
    emitters = parse_list(args.emitter, layers.EMITTERS, "--emitter")
    bad = [e for e in emitters or [] if e not in bd.emitters]
    if bad:
        raise UserError(f"--emitter {','.join(bad)}: {bd.name} has {', '.join(bd.emitters)}")
    chosen = parse_list(args.dtype, predictor.DTYPES, "--dtype")
    nets = [load_network(m) for m in args.models]
    dtypes = [chosen or [layers.model_dtype(net)] for net in nets]
    for dtype in sorted({d for ds in dtypes for d in ds}):
        if not predictor.calibrated(bd, dtype, emitters):
            raise UserError(f"--roofs {path}: no {dtype} prediction ({_why_not(bd, dtype, emitters)})")
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


def _many(args) -> int:
    """One table per model: every --roofs board's prediction per kernel, every --board's bound."""
    emitters = parse_list(args.emitter, layers.EMITTERS, "--emitter")
    chosen = parse_list(args.dtype, predictor.DTYPES, "--dtype")
    nets = [load_network(m) for m in args.models]
    rows = []
    for path in args.roofs or []:
        data = results.load(path)
        rows += _predicted_rows(_predictor(path, data), data, nets, chosen, emitters)
    for name in [b.strip() for b in (args.board or "").split(",") if b.strip()]:
        rows += _bound_rows(name, nets, chosen)
    for config in [c.strip() for c in (args.npu or "").split(",") if c.strip()]:
        rows += _npu_rows(config, args.models, nets)
    choice.mark_best(rows)
    if args.json:
        keys = ("model", "board", "emitter", "dtype", "seconds", "unit", "fits", "fit", "best", "kind")
        print(json.dumps([{k: r[k] for k in keys} for r in rows], indent=2))
        return 0
    con = terminal.console()
    for net in nets:
        terminal.show(con, choice.table(net.name, [r for r in rows if r["model"] == net.name]))
    return 0


def _predicted_rows(bd, data: dict, nets, chosen, emitters) -> list[dict]:
    basis = timing_basis.of(data.get("board", {}))
    ems = [e for e in emitters or bd.emitters if e in bd.emitters]
    rows = []
    for net in nets:
        dtypes = [d for d in chosen or [layers.model_dtype(net)] if predictor.calibrated(bd, d, ems)]
        doc = document(bd, data, net, predictor.network(bd, net, dtypes, ems))
        verdict = fit.verdict(net, fit.budget(layers.profile(data.get("board", {})), bd.free_heap))
        for w in doc["whole_model"]:
            rows.append(
                {
                    "model": net.name,
                    "board": bd.name,
                    "emitter": w["emitter"],
                    "dtype": w["dtype"],
                    "kernel": f"{w['emitter']} {w['dtype']}",
                    "seconds": w["seconds"],
                    "unit": basis.label,
                    "scale": choice.scale(basis, bd.name),
                    "fits": verdict.fits,
                    "fit": verdict.text(),
                    "kind": "prediction",
                    "complete": w["coverage"]["macs_share"] > 0.999,
                }
            )
    return rows


def _bound_rows(name: str, nets, chosen) -> list[dict]:
    prof = boards.find(name)
    if prof is None:
        raise UserError(boards.unknown(name))
    roofs = boards.theoretical_roofs(prof)
    clock = boards.roof_clock_hz(prof, None, None)
    scale = "real time (cycles at each board's clock)"
    unit = f"cycles at {clock / 1e6:g} MHz (the profile's theory)" if clock else "no theoretical roofs in the profile"
    if prof.connect == "qemu":  # an emulated board's theory is per instruction
        shift = prof.run["icount_shift"]
        unit, scale = (
            f"instructions (the profile's theory, QEMU shift={shift})",
            f"QEMU instruction time (shift {shift})",
        )
    rows = []
    for net in nets:
        verdict = fit.verdict(net, fit.budget(prof))
        for dtype in chosen or [layers.model_dtype(net)]:
            rows.append(
                {
                    "model": net.name,
                    "board": name,
                    "emitter": None,
                    "dtype": dtype,
                    "kernel": f"roofline bound {dtype}",
                    "seconds": bound.roofline_seconds(net, dtype, roofs),
                    "unit": unit,
                    "scale": scale,
                    "fits": verdict.fits,
                    "fit": verdict.text(),
                    "kind": "bound",
                    "complete": True,
                }
            )
    return rows


def _npu_rows(config: str, specs: list[str], nets) -> list[dict]:
    """Vela's estimate of each model on an Ethos-U configuration (its system: commands.npu's default),
    a row never compared with a measured scale: no NPU runs here."""
    import tempfile

    from mcuroof.commands import npu as npu_command
    from mcuroof.npu import roofline, vela

    vela.require()
    if config not in vela.CONFIGS:
        raise UserError(f"--npu {config}: not an Ethos-U55/U65 configuration ({', '.join(vela.CONFIGS)})")
    rows = []
    with tempfile.TemporaryDirectory(prefix="mcuroof-npu-") as tmp:
        for spec, net in zip(specs, nets):
            path, macs, _, dtype = npu_command._model(spec, Path(tmp))
            system = vela.default_system(config)
            est = vela.compile_model(path, config, system, None, Path(tmp) / "vela")
            cpu_ops = roofline.cpu_operators(est, macs)
            whole = roofline.whole_model(est, cpu_ops, None)
            rows.append(
                {
                    "model": net.name,
                    "board": f"{config} ({system})",
                    "emitter": None,
                    "dtype": dtype or "int8",
                    "kernel": "NPU (Vela)",
                    "seconds": whole["seconds"],
                    "unit": f"NPU cycles at {est.summary.clock_hz / 1e6:g} MHz, estimated by Vela, not measured"
                    + (f"; {len(cpu_ops)} operators on the CPU, not timed" if cpu_ops else ""),
                    "scale": "Vela's estimate",
                    "fits": None,
                    "fit": "fit unknown: Vela places the tensors in the system's memories",
                    "kind": "estimate",
                    "complete": not cpu_ops,
                }
            )
    return rows


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
    keys = ("name", "op", "emitter", "dtype", "status", "why", "family", "seconds", "interval", "interval_why")
    keys += ("held_out", "ratio", "outside")
    return {
        "model": net.name,
        "board": bd.name,
        "fit": verdict.text(),
        "whole_model": [
            {k: r[k] for k in ("emitter", "dtype", "seconds", "interval", "interval_why", "coverage", "borrowed")}
            for r in pred["whole_model"]
        ],
        "layers": [{**{k: r.get(k) for k in keys}, **_extra(r)} for r in pred["layers"]],
    }


def _extra(r: dict) -> dict:
    return {k: r[k] for k in ("bound_seconds", "dominant") if k in r}


def layer_table(doc: dict, rows: list[dict], basis) -> Table:
    """One row per layer and kernel; layers by their short name ("DW 3": the points' index)."""
    one_type = len({r["dtype"] for r in rows}) == 1
    kind = f"{rows[0]['dtype']} " if one_type and rows else ""
    t = Table(title=f"Predicted {kind}layers of {doc['model']} on {doc['board']} ({basis.sentence})")
    for h in ("layer", "kernel", "predicted", "CV", "roofline", "how"):
        t.add_column(h, justify="right" if h in ("predicted", "CV", "roofline") else "left")
    for r in rows:
        t.add_row(
            layer_names.short(r),
            r["emitter"] if one_type else f"{r['emitter']} {r['dtype']}",
            duration(r.get("seconds")),
            calibrated.spread(r.get("interval"), r.get("seconds")),
            duration(r.get("bound_seconds")),
            calibrated.how_text(r["status"], r.get("family"), r.get("why") or "", r.get("outside") or [])
            + (f"; no interval: {r['interval_why']}" if r.get("interval_why") else ""),
        )
    t.caption = (
        "CV: the 90 % interval from the calibration shapes left out of their family's fit (the "
        "family's median held-out error times the 90 % quantile of held-out errors pooled over its "
        "emitter, type and shape class; n: --json's pool_held_out); 'macs 2.7x': the layer's MACs "
        "(channels, working set) are 2.7x the most its family's shapes had, an extrapolation: its interval is "
        "widened (docs/prediction.md), and past 16x it has none"
    )
    return t


def coverage_text(w: dict) -> str:
    """'11 of 13 layers, 100.0% of MACs; not predicted: RESHAPE 10, SOFTMAX 12 (no kernel)', with
    the layers borrowed from another emitter, stood in for by another family or past their range."""
    c = w["coverage"]
    text = f"{c['layers']} of {c['of_layers']} layers, {c['macs_share']:.1%} of MACs"
    whys: dict[str, list[str]] = {}
    for x in c["left_out"]:
        why = "no kernel" if x["why"] == f"no {x['op']} kernel" else x["why"]
        whys.setdefault(why, []).append(f"{layer_names.short(x)}")
    if whys:
        text += "; not predicted: " + "; ".join(f"{', '.join(v)} ({k})" for k, v in whys.items())
    if w["borrowed"]:
        text += "; from another emitter: " + ", ".join(f"layer {b['index']} ({b['emitter']})" for b in w["borrowed"])
    if c["other_family"]:
        text += f"; {c['other_family']} by another family"
    if c["outside_range"]:
        text += f"; {c['outside_range']} beyond their family's shapes"
    if w.get("interval_why"):
        text += f"; {w['interval_why']}"
    return text


def model_table(docs: list[dict], basis) -> Table:
    t = Table(title=f"Predicted whole-model latency on {docs[0]['board']}; {basis.sentence}")
    for h in ("model", "kernel", "predicted", "interval (CV)", "coverage"):
        t.add_column(h, justify="right" if h == "predicted" else "left")
    for d in docs:
        for w in d["whole_model"]:
            t.add_row(
                d["model"],
                f"{w['emitter']} {w['dtype']}",
                duration(w["seconds"]),
                calibrated.interval_text(w["interval"]),
                coverage_text(w),
            )
    t.caption = "; ".join(f"{d['model']} {d['fit']}" for d in docs)
    return t
