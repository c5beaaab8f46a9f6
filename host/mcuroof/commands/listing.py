"""`mcuroof listing MODEL|SUITE [--board B] [--layer N] [--emitter E] [--dtype T] [--sent]`: the
source mcuroof sends for a kernel, as a reader checks it: one instruction a line, the mnemonic
beside every data() word, the P field beside an offset (kernels.listing). No board needed: the
kernels are generated as a run on the board's profile plans them before it measures anything."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from mcuroof.board import profiles as boards
from mcuroof.commands import options
from mcuroof.errors import UserError
from mcuroof.kernels.contract import Kernel
from mcuroof.kernels.emitters import get as emitter
from mcuroof.kernels.emitters import is_assembler
from mcuroof.kernels.ops import dispatch, layer_plan, m0
from mcuroof.model.load import load_network
from mcuroof.suites import layers, registry
from mcuroof.suites.base import Context

SUITES = ("memory", "compute", "regions")
DEFAULT_BOARD = "qemu-microbit"


def configure(p) -> None:
    p.add_argument(
        "what", metavar="MODEL|SUITE", help=f"a .tflite file, a built-in network, or a suite: {', '.join(SUITES)}"
    )
    p.add_argument(
        "--board", default=DEFAULT_BOARD, help=f"the board profile to generate for (default {DEFAULT_BOARD})"
    )
    p.add_argument("--layer", help="only these layer indices (comma-separated; `mcuroof analyze MODEL` lists them)")
    p.add_argument(
        "--emitter",
        help="only these emitters (comma-separated; default the board's assembler that has layer kernels, asm_thumb)",
    )
    p.add_argument("--dtype", help="element types of a model's kernels: int8,float32 (default: the model's own)")
    p.add_argument("--heap", type=int, help="bytes of heap free on the board (default: the profile's [run] heap_bytes)")
    p.add_argument("--key", help="only kernels whose key contains this text (e.g. compute/asm_thumb/int8)")
    p.add_argument("--sent", action="store_true", help="print what is sent to the board (the comments stripped)")


@dataclass(frozen=True)
class Request:
    """What to list, parsed once from the command line."""

    what: str
    board: boards.Board
    layers: list[int] | None
    emitters: list[str] | None
    dtypes: list[str] | None
    heap: int | None
    key: str | None
    sent: bool


def run(args) -> int:
    request = Request(
        args.what,
        boards.load_board(args.board),
        _indices(args.layer),
        options.emitters(args.emitter),
        options.dtypes(args.dtype, layer_plan.DTYPES),
        args.heap,
        args.key,
        args.sent,
    )
    found = kernels(request)
    if not found:
        raise UserError(f"{args.what}: no kernel on {request.board.name} matches (--layer, --emitter, --dtype, --key)")
    sys.stdout.write("".join(render(k, request.sent) for k in found))
    return 0


def probe(request: Request) -> dict:
    """What a run's probe would report of the board, from its profile ([run] heap_bytes and
    emitters) or the command line; the core's instruction sets come from the profile's
    features (board.identity)."""
    board = request.board
    heap = request.heap or board.run.get("heap_bytes")
    emitters = board.run.get("emitters") or request.emitters
    if not heap or heap <= 0:
        raise UserError(f"{board.name}: its profile gives no heap size ([run] heap_bytes): give one with --heap BYTES")
    if not emitters:
        raise UserError(f"{board.name}: its profile names no emitters ([run] emitters): give them with --emitter")
    return {"platform": board.name, "free": heap, "emitters": list(emitters), "float": True, "memoryview": True}


def kernels(request: Request) -> list[Kernel]:
    """The kernels the request names, in the order a run sends them."""
    pr = probe(request)
    ctx = Context(profile=request.board)
    if request.what in SUITES:
        pr["emitters"] = [e for e in pr["emitters"] if not request.emitters or e in request.emitters]
        found = registry.for_suite(request.what, registry.suite_config(request.what, pr, ctx))
    else:
        net = _network(request.what)
        ems = request.emitters or _assembler(pr["emitters"])
        asked = layers.Request(net, request.dtypes, ems)
        cfg = layers.config(pr, Context(layers=asked, profile=request.board))
        jobs = [j for j in cfg["jobs"] if request.layers is None or j.layer.index in request.layers]
        found = [Kernel.listed(j.key, _title(j) + dispatch.listing(j)) for j in jobs]
    return [k for k in found if not request.key or request.key in k.key]


def _assembler(board_emitters: list[str]) -> list[str] | None:
    """The default emitter of a layer listing: the board's assembler with layer kernels (asm_thumb)."""
    found = [e for e in board_emitters if is_assembler(e) and emitter(e).layers]
    return found[:1] or None


def _title(job) -> str:
    """A layer kernel's first comment lines: the layer, the generator and the tiles it runs."""
    layer, gen = job.layer, dispatch.generator(job)
    shape = "x".join(str(n) for n in layer.output)
    kern = f" kernel {'x'.join(str(n) for n in layer.kernel)}" if layer.kernel else ""
    tiles = ", ".join(f"{t.rows}x{t.cols}x{t.chans}" for t in job.candidates)
    isa = f" ({dispatch.kernel_isa(job) or 'armv6-m'})" if job.emitter in m0.EMITTERS else ""
    return f"# {layer.op} {layer.name or ''} -> {shape}{kern}; generator {gen.name}{isa}; tiles {tiles}\n"


def render(kernel: Kernel, only_sent: bool) -> str:
    """One kernel as the user reads it: a header naming it and the sizes, then its text."""
    text = kernel.source if only_sent else kernel.listing or kernel.source
    head = f"#### {kernel.key}: {len(kernel.source):,} bytes sent"
    if not only_sent and kernel.listing:
        head += f" ({len(kernel.listing):,} with the comments, which are stripped)"
    return head + "\n" + text + ("" if text.endswith("\n") else "\n") + "\n"


def _network(what: str):
    try:
        return load_network(what)
    except UserError as e:
        raise UserError(f"{e}; or a suite: {', '.join(SUITES)}") from None


def _indices(text: str | None) -> list[int] | None:
    if not text:
        return None
    try:
        return [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise UserError(f"--layer {text}: layer indices are whole numbers, comma-separated") from None
