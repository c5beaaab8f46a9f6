"""`mcuroof choose MODEL --board A,B,... [--roofs RESULTS ...] [--json] [--html FILE]`: which board,
how many ms. One table, a row per board and element type: the fit, MicroPython's time from a
calibration (the board's own, or one of its core), a C engine's from the published MLPerf Tiny
figures, the NPU's from Vela, and the roofline bound; every cell labelled (report.board_choice)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from mcuroof.board import profiles
from mcuroof.commands import options
from mcuroof.errors import UserError
from mcuroof.model.load import load_network
from mcuroof.predict import bound, predictor
from mcuroof.report import board_choice, board_choice_table, terminal


def configure(p) -> None:
    p.add_argument("model", metavar="MODEL", help="a .tflite file or a built-in network")
    p.add_argument("--board", required=True, help="the boards to choose from, comma-separated profile names")
    options.add_roofs(p, "results.json of calibrated runs: a board's own, or an emulated board of the same core")
    options.add_dtype(p, "element types: int8,float32 (default: the model's)")
    options.add_json(p, "print the table as one JSON document")
    options.add_html(p, "also write the table as an HTML page")


def run(args) -> int:
    names = options.names(args.board)
    if not names:
        raise UserError("--board: give one or more board profile names, comma-separated")
    boards = [profiles.load_board(n) for n in names]  # a typo: profiles.unknown's one line
    net = load_network(args.model)
    dtypes = options.model_dtypes(options.dtypes(args.dtype), net)
    cals = [calibration(path, net, dtypes) for path in args.roofs or []]
    bounds = {
        (b.name, d): bound.roofline_seconds(net, d, profiles.theoretical_roofs(b)) for b in boards for d in dtypes
    }
    npus = npu_estimates(args.model, [b for b in boards if b.npu]) if "int8" in dtypes else {}
    doc = board_choice.document(net, boards, dtypes, cals, npus, bounds)
    if args.html:
        from mcuroof.report import html

        html.save_page(html.page([board_choice_table.html_section(doc)], f"mcuroof choose: {net.name}"), args.html)
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    con = terminal.console()
    for item in board_choice_table.renderables(doc):  # laid out for 80 columns: printed as it is
        con.print(item)
    return 0


def calibration(path: Path, net, dtypes: list[str]) -> board_choice.Calibration:
    """A run's calibration as the least whole-model time per element type (report.board_choice)."""
    data, bd = options.calibrated_run(path)
    if not bd.models:
        raise UserError(f"--roofs {path}: no calibration in it (run mcuroof run with the calibration suite)")
    ok = [d for d in dtypes if predictor.calibrated(bd, d)]
    whole = predictor.network(bd, net, ok)["whole_model"] if ok else []
    return board_choice.Calibration.of(str(path), data["board"], whole)


def npu_estimates(spec: str, boards: list) -> dict[str, board_choice.NpuEstimate]:
    """Vela's estimate on each board's NPU ([npu]: its vendor's system config where published)."""
    from mcuroof.commands import npu as npu_command
    from mcuroof.npu import vela

    try:
        vela.require()
    except UserError as e:
        return {b.name: board_choice.NpuEstimate(None, why=str(e).removeprefix("npu: ")) for b in boards}
    out = {}
    with tempfile.TemporaryDirectory(prefix="mcuroof-choose-") as tmp:
        path, macs, _, _ = npu_command.model_file(spec, Path(tmp))
        for b in boards:
            cfg, system, mode = b.npu["config"], b.npu["system"], b.npu.get("memory_mode")
            est = npu_command.estimate(path, macs, cfg, system, mode, Path(tmp) / b.name)
            out[b.name] = board_choice.NpuEstimate(est.seconds, cfg, system, est.clock_hz, est.cpu_ops)
    return out
