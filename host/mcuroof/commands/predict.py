"""`mcuroof predict MODEL... --roofs RESULTS [--emitter E] [--dtype T] [--json]`: each model's
latency on the board RESULTS characterises, from its calibration (predict.predictor); no board
needed, and no measured layer read (a results.json without points predicts the same).

With several --roofs, or --board NAME (a profile: a board not characterised, not owned yet),
one table per model of board x kernel: each characterised board's prediction, each profile's
roofline bound, and the best among the rows whose times compare (report.board_kernels)."""

from __future__ import annotations

import json
from pathlib import Path

from mcuroof.analysis import timing_basis
from mcuroof.board import profiles as boards
from mcuroof.commands import options
from mcuroof.errors import UserError
from mcuroof.kernels.ops import dispatch
from mcuroof.model.load import load_network
from mcuroof.predict import bound, predictor
from mcuroof.report import board_kernels, predicted_layers, predicted_models, terminal
from mcuroof.report.prediction_document import document


def configure(p) -> None:
    p.add_argument("models", nargs="+", metavar="MODEL", help="a .tflite file or a built-in network, one or more")
    options.add_roofs(p, "results.json of the board (several: one table)")
    p.add_argument("--board", help="boards by profile alone, not characterised: their roofline bound (comma-separated)")
    p.add_argument(
        "--npu",
        help="Ethos-U configurations (e.g. ethos-u55-128): Vela's estimate as a row (pip install 'mcuroof[npu]')",
    )
    p.add_argument("--emitter", help="only these emitters (comma-separated; default every one the board has)")
    options.add_dtype(p, "element types: int8,float32 (default: each model's own)")
    options.add_json(p, "print one JSON document per model (a list for several)")


def run(args) -> int:
    if not args.roofs and not args.board and not args.npu:
        raise UserError("give --roofs RESULTS (a characterised board) or --board NAME (a board's profile)")
    if len(args.roofs or []) == 1 and not args.board and not args.npu:
        return _one(args, args.roofs[0])
    return _many(args)


def _predictor(path: Path) -> tuple[dict, predictor.Board]:
    data, bd = options.calibrated_run(path)
    if not bd.models:
        raise UserError(f"--roofs {path}: its calibration fitted no layer-kernel family (heap or emitters)")
    return data, bd


def _one(args, path: Path) -> int:
    data, bd = _predictor(path)
    emitters = options.emitters(args.emitter)
    bad = [e for e in emitters or [] if e not in bd.emitters]
    if bad:
        raise UserError(f"--emitter {','.join(bad)}: {bd.name} has {', '.join(bd.emitters)}")
    chosen = options.dtypes(args.dtype)
    nets = [load_network(m) for m in args.models]
    dtypes = [options.model_dtypes(chosen, net) for net in nets]
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
        terminal.show(con, predicted_layers.layer_table(docs[0], preds[0]["layers"], basis))
    terminal.show(con, predicted_models.model_table(docs, basis))
    return 0


def _many(args) -> int:
    """One table per model: every --roofs board's prediction per kernel, every --board's bound."""
    emitters = options.emitters(args.emitter)
    chosen = options.dtypes(args.dtype)
    nets = [load_network(m) for m in args.models]
    rows = []
    for path in args.roofs or []:
        data, bd = _predictor(path)
        rows += board_kernels.predicted_rows(bd, data, _whole_models(bd, nets, chosen, emitters))
    for name in options.names(args.board):
        prof = boards.find(name)
        if prof is None:
            raise UserError(boards.unknown(name))
        roofs = boards.theoretical_roofs(prof)
        dtypes = [options.model_dtypes(chosen, net) for net in nets]
        seconds = [[bound.roofline_seconds(net, d, roofs) for d in ds] for net, ds in zip(nets, dtypes)]
        rows += board_kernels.bound_rows(name, prof, list(zip(nets, dtypes, seconds)))
    for config in options.names(args.npu):
        rows += _npu_rows(config, args.models, nets)
    rows = board_kernels.mark_best(rows)
    if args.json:
        print(json.dumps([r.to_dict() for r in rows], indent=2))
        return 0
    con = terminal.console()
    for net in nets:
        terminal.show(con, board_kernels.table(net.name, [r for r in rows if r.model == net.name]))
    return 0


def _whole_models(bd, nets, chosen, emitters) -> list[tuple]:
    """Each network with its whole-model predictions on a board, over the emitters asked that it
    has and the element types its calibration predicts."""
    ems = [e for e in emitters or bd.emitters if e in bd.emitters]
    out = []
    for net in nets:
        dtypes = [d for d in options.model_dtypes(chosen, net) if predictor.calibrated(bd, d, ems)]
        out.append((net, predictor.network(bd, net, dtypes, ems)["whole_model"]))
    return out


def _npu_rows(config: str, specs: list[str], nets) -> list[board_kernels.Row]:
    """Vela's estimate of each model on an Ethos-U configuration (its system: commands.npu's default)."""
    import tempfile

    from mcuroof.commands import npu as npu_command
    from mcuroof.npu import vela

    vela.require()
    if config not in vela.CONFIGS:
        raise UserError(f"--npu {config}: not an Ethos-U55/U65 configuration ({', '.join(vela.CONFIGS)})")
    rows = []
    with tempfile.TemporaryDirectory(prefix="mcuroof-npu-") as tmp:
        for spec, net in zip(specs, nets):
            path, macs, _, dtype = npu_command.model_file(spec, Path(tmp))
            system = vela.default_system(config)
            est = npu_command.estimate(path, macs, config, system, None, Path(tmp) / "vela")
            board = f"{config} ({system})"
            rows.append(board_kernels.npu_row(net, board, dtype or "int8", est.seconds, est.clock_hz, est.cpu_ops))
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
