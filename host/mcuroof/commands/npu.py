"""`mcuroof npu MODEL... --config ethos-u55-128`: an Ethos-U NPU's roofs and per-operator points,
estimated by Arm's Vela (pip install 'mcuroof[npu]'), optionally stacked on a measured CPU run.

Writes DIR/npu.json (the document, also printed with --json), DIR/npu.png (the plot),
DIR/report.html (the plot, interactive, and the tables) and Vela's
own files under DIR/vela/MODEL-CONFIG/. Nothing runs on an NPU: every NPU figure is Vela's estimate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from mcuroof.board import profiles
from mcuroof.errors import UserError
from mcuroof.model.builtins import BUILTINS, builtin_network
from mcuroof.model.load import load_network
from mcuroof.npu import vela
from mcuroof.npu.document import Compiled, cpu_section, document
from mcuroof.results import document as results


def configure(p) -> None:
    p.add_argument(
        "models", nargs="+", metavar="MODEL", help=f"a .tflite file or a built-in name ({', '.join(BUILTINS)})"
    )
    p.add_argument(
        "--config", help=f"NPU configuration(s), comma-separated: {', '.join(vela.CONFIGS)} (default: --board's)"
    )
    p.add_argument(
        "--system",
        help="Vela system config in its Arm/vela.ini (default: --board's, else "
        + ", ".join(f"{v} for an {k}" for k, v in vela.DEFAULT_SYSTEMS.items())
        + ")",
    )
    p.add_argument("--memory-mode", help="Vela memory mode (default: --board's, else Vela's for the system)")
    p.add_argument("--board", help="a board profile with an [npu] section for the defaults, e.g. corstone300")
    p.add_argument(
        "--roofs",
        type=Path,
        nargs="+",
        metavar="CPU-RESULTS",
        help="results.json of measured CPU runs on one board to stack under (e.g. one per model: "
        "the first with measured roofs draws them; every run's layers are placed)",
    )
    p.add_argument("-o", "--output", type=Path, default=Path("npu-out"), help="output folder (default: npu-out)")
    p.add_argument("--json", action="store_true", help="print the JSON document instead of the tables")


def _defaults(args) -> tuple[list[str], str | None, str | None]:
    npu = profiles.load_board(args.board).npu if args.board else {}
    if args.board and not npu:
        raise UserError(
            f"npu: board {args.board} has no [npu] section (corstone300, alif-e7-hp and alif-e7-he have one)"
        )
    config = args.config or npu.get("config")
    if not config:
        raise UserError("npu: give --config (e.g. ethos-u55-128) or --board with an [npu] section (e.g. corstone300)")
    configs = [c.strip() for c in config.split(",") if c.strip()]
    bad = [c for c in configs if c not in vela.CONFIGS]
    if bad:
        raise UserError(f"npu: --config {bad[0]}: not an Ethos-U55/U65 configuration ({', '.join(vela.CONFIGS)})")
    return configs, args.system or npu.get("system"), args.memory_mode or npu.get("memory_mode")


def model_file(spec: str, out: Path) -> tuple[Path, dict, str | None, str | None]:
    """The .tflite Vela compiles, the MACs mcuroof's analyzer gives each output tensor, a note,
    and the model's element type."""
    from mcuroof.npu import synth

    if spec in BUILTINS:
        net = builtin_network(spec)
        path = out / "models" / f"{spec}.tflite"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(synth.tflite_bytes(net))
        return path, {l.name: l.macc for l in net.layers}, synth.SYNTH_NOTE, "int8"
    path = Path(spec)
    if path.suffix != ".tflite":
        raise UserError(f"npu: {spec}: not a .tflite file nor a built-in name ({', '.join(BUILTINS)})")
    net = load_network(spec)
    return path, {l.name: l.macc for l in net.layers}, None, net.layers[0].dtype if net.layers else None


@dataclass(frozen=True)
class Estimate:
    """Vela's whole-model estimate of a model on one configuration (predict's and choose's cell)."""

    seconds: float | None
    clock_hz: float
    cpu_ops: int  # operators Vela leaves on the CPU, not timed


def estimate(path: Path, macs: dict, config: str, system: str, memory_mode: str | None, out: Path) -> Estimate:
    """Vela's estimate of the .tflite at `path` (model_file's) on `config` and `system`."""
    from mcuroof.npu import roofline

    est = vela.compile_model(path, config, system, memory_mode, out)
    cpu_ops = roofline.cpu_operators(est, macs)
    return Estimate(roofline.whole_model(est, cpu_ops, None)["seconds"], est.summary.clock_hz, len(cpu_ops))


def cpu_of(paths: list[Path] | None) -> tuple[dict | None, str | None]:
    """The CPU section of one board's runs: the roofs of the first run that measured some, the
    layer points of them all (a KWS run and a VWW run place both models' layers)."""
    if not paths:
        return None, None
    runs = [(p, results.load(p)) for p in paths]
    boards = sorted({data["board"]["name"] for _, data in runs})
    if len(boards) > 1:
        raise UserError(f"npu: --roofs: runs of one CPU board at a time (these are of {', '.join(boards)})")
    sections = [cpu_section(data, str(p)) for p, data in runs]
    cpu = next((c for c in sections if c["roofs"]), sections[0])
    cpu = {**cpu, "points": [pt for c in sections for pt in c["points"]], "results": ", ".join(map(str, paths))}
    profile = profiles.find(boards[0])
    return cpu, cpu["core"] or (profile.core_name if profile else None)


def compile_all(args) -> dict:
    """Every model on every configuration, as one document."""
    configs, system, memory_mode = _defaults(args)
    cpu, core = cpu_of(args.roofs)  # the user's files are checked first: their errors need no Vela
    vela.require()
    if core is None and args.board:
        core = profiles.load_board(args.board).core_name
    compiled = []
    for spec in args.models:
        path, macs, note, dtype = model_file(spec, args.output)
        for config in configs:
            out = args.output / "vela" / f"{path.stem}-{config}"
            est = vela.compile_model(path, config, system or vela.default_system(config), memory_mode, out)
            compiled.append(Compiled(est, macs, note, dtype))
    return document(compiled, cpu, core)


def run(args) -> int:
    from mcuroof.report import npu_html, npu_plot, npu_tables, terminal

    doc = compile_all(args)
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "npu.json").write_text(json.dumps(doc, indent=2))
    png = npu_plot.save(doc, args.output / "npu.png")
    page = npu_html.write(doc, args.output / "report.html")
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    console = terminal.console()
    for item in npu_tables.renderables(doc):
        terminal.show(console, item)
    print(f"wrote {args.output / 'npu.json'}, {png}, {page} and Vela's files in {args.output / 'vela'}")
    return 0
