"""`mcuroof analyze`: per-layer MACC, bytes, operational intensity and peak memory of a model."""

from __future__ import annotations

import csv
import json
import os
import sys

from mcuroof.analysis import fit
from mcuroof.board import profiles as boards
from mcuroof.errors import UserError
from mcuroof.kernels.ops.dsp_common import MAX_FRAME
from mcuroof.model.builtins import BUILTINS
from mcuroof.model.load import load_network
from mcuroof.model.network import SCRATCH_NOTE, Layer, Network, layer_dict, peak_memory, totals

CSV_COLUMNS = (
    "index",
    "name",
    "op",
    "dtype",
    "inputs",
    "output",
    "weights",
    "kernel",
    "stride",
    "padding",
    "depth_multiplier",
    "activation",
    "macc",
    "weight_bytes",
    "act_bytes",
    "intensity",
)


def configure(parser) -> None:
    parser.add_argument("path", nargs="?", metavar="MODEL", help="a .tflite file (or a built-in name)")
    parser.add_argument("--model", metavar="NAME", help=f"a built-in network instead of a file: {', '.join(BUILTINS)}")
    parser.add_argument(
        "--board", metavar="NAME", help="also say whether the model fits this board (a profile name or .toml file)"
    )
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print a JSON document")
    fmt.add_argument("--csv", action="store_true", help="print one CSV row per layer")


def run(args) -> int:
    net = load_network(_spec(args))
    verdict = board_fit(net, args.board) if getattr(args, "board", None) else None
    try:
        if args.json:
            doc = document(net)
            if verdict:
                doc["fit"] = verdict
            print(json.dumps(doc, indent=2))
        elif args.csv:
            write_csv(net, sys.stdout)
        else:
            print_table(net)
            if verdict:
                print(f"on {verdict['board']}: {verdict['text']}")
        sys.stdout.flush()
    except BrokenPipeError:  # output piped into `head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def board_fit(net: Network, board_name: str) -> dict:
    """The fit verdict of `net` on a board, from its profile alone (nothing is run)."""
    board = boards.load_board(board_name)
    return {"board": board.name, **fit.verdict(net, fit.budget(board)).as_dict()}


def _spec(args) -> str:
    if args.path and args.model:
        raise UserError("analyze: give a MODEL file or --model NAME, not both")
    if args.model:
        if args.model not in BUILTINS:
            raise UserError(f"--model {args.model}: unknown built-in network (choose from {', '.join(BUILTINS)})")
        return args.model
    if not args.path:
        raise UserError(f"analyze: give a MODEL.tflite file or --model NAME ({', '.join(BUILTINS)})")
    return args.path


def document(net: Network) -> dict:
    peak = peak_memory(net)
    return {
        "schema": 1,
        "model": net.name,
        "source": net.source,
        "layers": [layer_dict(l) for l in net.layers],
        "totals": totals(net),
        "peak_memory": {
            "bytes": peak.bytes,
            "layer": peak.layer,
            "weights": peak.weights,
            "activations": peak.activations,
            "scratch": peak.scratch,
            "scratch_covers": scratch_note(),
        },
        "notes": list(net.notes),
    }


def _shape(shape) -> str:
    return "x".join(str(d) for d in shape) if shape else "scalar"


def _cell(key: str, value) -> str:
    if value is None:
        return ""
    if key in ("inputs", "weights"):
        return ";".join(_shape(s) for s in value)
    if key in ("output", "kernel", "stride"):
        return _shape(value)
    if key == "intensity":
        return f"{value:.4g}"
    return str(value)


def write_csv(net: Network, out) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for layer in net.layers:
        writer.writerow(_cell(k, getattr(layer, k)) for k in CSV_COLUMNS)


def _row(layer: Layer) -> list[str]:
    return [
        str(layer.index),
        layer.op,
        ", ".join(_shape(s) for s in layer.inputs) or "-",
        _shape(layer.output),
        layer.dtype,
        f"{layer.macc:,}",
        f"{layer.weight_bytes:,}",
        f"{layer.act_bytes:,}",
        f"{layer.intensity:.2f}",
    ]


def scratch_note() -> str:
    """What the scratch figure covers: the heap; the DSP and MVE kernels' im2col blocks are on the stack."""
    return (
        f"{SCRATCH_NOTE}; the asm_thumb DSP and MVE kernels (cores with SMLAD or Helium) build their "
        f"im2col blocks and widened weights in a stack frame of up to {MAX_FRAME:,} B, on the C stack, "
        "outside the heap"
    )


def print_table(net: Network) -> None:
    from rich.table import Table

    from mcuroof.report import terminal

    console = terminal.console()
    table = Table(title=f"{net.name} ({net.source})", show_footer=True)
    tot = totals(net)
    footer = [
        "",
        "total",
        "",
        "",
        "",
        f"{tot['macc']:,}",
        f"{tot['weight_bytes']:,}",
        f"{tot['act_bytes']:,}",
        f"{tot['intensity']:.2f}",
    ]
    heads = ["#", "op", "input", "output", "dtype", "MACC", "weight B", "act B (in+out)", "MACC/B"]
    for i, (head, foot) in enumerate(zip(heads, footer)):
        table.add_column(head, foot, justify="right" if i in (0, 5, 6, 7, 8) else "left")
    for layer in net.layers:
        table.add_row(*_row(layer))
    terminal.show(console, table, more="mcuroof analyze --csv")
    peak = peak_memory(net)
    console.print(
        f"peak memory {peak.bytes:,} B at layer {peak.layer} = weights {peak.weights:,} "
        f"+ live activations {peak.activations:,} + scratch {peak.scratch}",
        highlight=False,
    )
    console.print(f"(weights: each constant tensor once; scratch {scratch_note()})", highlight=False)
    for note in net.notes:
        console.print(note, highlight=False)
