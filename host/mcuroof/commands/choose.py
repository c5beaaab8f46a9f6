"""`mcuroof choose MODEL --board A,B,... [--roofs RESULTS ...] [--json] [--html FILE]`: which board,
how many ms. One table, a row per board and element type: the fit, MicroPython's time from a
calibration (the board's own, or one of its core), a C engine's from the published MLPerf Tiny
figures, the NPU's from Vela, and the roofline bound; every cell labelled (report.choose)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from mcuroof.board import profiles
from mcuroof.errors import UserError
from mcuroof.model.load import load_network
from mcuroof.predict import bound, predictor
from mcuroof.report import choose, choose_table, terminal
from mcuroof.results import document as results
from mcuroof.suites import layers


def configure(p) -> None:
    p.add_argument("model", metavar="MODEL", help="a .tflite file or a built-in network")
    p.add_argument("--board", required=True, help="the boards to choose from, comma-separated profile names")
    p.add_argument(
        "--roofs",
        type=Path,
        nargs="+",
        metavar="RESULTS",
        help="results.json of calibrated runs: a board's own, or an emulated board of the same core",
    )
    p.add_argument("--dtype", help="element types: int8,float32 (default: the model's)")
    p.add_argument("--json", action="store_true", help="print the table as one JSON document")
    p.add_argument("--html", type=Path, metavar="FILE", help="also write the table as an HTML page")


def run(args) -> int:
    names = [n.strip() for n in args.board.split(",") if n.strip()]
    if not names:
        raise UserError("--board: give one or more board profile names, comma-separated")
    boards = [profiles.load_board(n) for n in names]  # a typo: profiles.unknown's one line
    net = load_network(args.model)
    dtypes = layers.parse_list(args.dtype, predictor.DTYPES, "--dtype") or [layers.model_dtype(net)]
    cals = [calibration(path, net, dtypes) for path in args.roofs or []]
    bounds = {
        (b.name, d): bound.roofline_seconds(net, d, profiles.theoretical_roofs(b)) for b in boards for d in dtypes
    }
    npus = npu_estimates(args.model, [b for b in boards if b.npu]) if "int8" in dtypes else {}
    doc = choose.document(net, boards, dtypes, cals, npus, bounds)
    if args.html:
        from mcuroof.report import html

        html.save_page(html.page([choose_table.html_section(doc)], f"mcuroof choose: {net.name}"), args.html)
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    con = terminal.console()
    for item in choose_table.renderables(doc):  # laid out for 80 columns: printed as it is
        con.print(item)
    return 0


def calibration(path: Path, net, dtypes: list[str]) -> choose.Calibration:
    """The least whole-model time per element type of a run's calibration, over the kernels whose
    prediction holds every MAC of the model."""
    data = results.load(path)
    bd = predictor.board(data)
    if bd is None or not bd.models:
        raise UserError(f"--roofs {path}: no calibration in it (run mcuroof run with the calibration suite)")
    ok = [d for d in dtypes if predictor.calibrated(bd, d)]
    best: dict[str, tuple[float, str]] = {}
    for w in predictor.network(bd, net, ok)["whole_model"] if ok else []:
        if w["seconds"] and w["coverage"]["macs_share"] > 0.999:
            if w["dtype"] not in best or w["seconds"] < best[w["dtype"]][0]:
                best[w["dtype"]] = (w["seconds"], w["emitter"])
    return choose.Calibration(str(path), data["board"], best)


def npu_estimates(spec: str, boards: list) -> dict[str, choose.NpuEstimate]:
    """Vela's estimate on each board's NPU ([npu]: its vendor's system config where published)."""
    from mcuroof.commands import npu as npu_command
    from mcuroof.npu import roofline, vela

    try:
        vela.require()
    except UserError as e:
        return {b.name: choose.NpuEstimate(None, why=str(e).removeprefix("npu: ")) for b in boards}
    out = {}
    with tempfile.TemporaryDirectory(prefix="mcuroof-choose-") as tmp:
        path, macs, _, _ = npu_command._model(spec, Path(tmp))
        for b in boards:
            cfg, system, mode = b.npu["config"], b.npu["system"], b.npu.get("memory_mode")
            est = vela.compile_model(path, cfg, system, mode, Path(tmp) / b.name)
            cpu_ops = roofline.cpu_operators(est, macs)
            whole = roofline.whole_model(est, cpu_ops, None)
            out[b.name] = choose.NpuEstimate(whole["seconds"], cfg, system, est.summary.clock_hz, len(cpu_ops))
    return out
