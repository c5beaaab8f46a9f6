"""How far a layer's projected time moves with its tile: each chosen layer of a model run whole
and on the tiles a run would plan under several time budgets and heaps (kernels.ops.layer_plan
.at_fraction), on a real board link, each tile projected to the whole layer as `mcuroof run
--model` projects it (analysis.points.project) and compared with the whole layer's time.

    python tools/tile_invariance.py --board qemu-m3 --model kws-dscnn --layers 0,1,2,9,11 \\
        --emitter asm_thumb,viper --fractions 0.5,0.25,0.125,0.0625,0.03125 --heaps 9424,4096 -o DIR

One row per layer x emitter x tile: the tile (rows x cols x channels of its output, and its
share), how it was projected, the board seconds of the tile and of the whole layer (instructions
under QEMU at its -icount rate) and the spread, projected / whole - 1. Rows go to DIR/tiles.json
as each layer finishes, the board's records to DIR/raw.jsonl. docs/tiles.md quotes the tables.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from mcuroof.analysis import points, roofs, tile_error
from mcuroof.kernels.ops import layer_plan, reference, tiles
from mcuroof.links.base import Target
from mcuroof.links.open import open_link
from mcuroof.measure.collect import Collector
from mcuroof.measure.rawlog import RawLog
from mcuroof.model.load import load_network
from mcuroof.suites import layers, timing

SUITE = "calibration"  # its units run one Job each through firmware/layers.py, records 'cal'


def kind(layer) -> str:
    if layer.op == "CONV_2D":
        return "1x1" if tuple(layer.kernel) == (1, 1) else "conv"
    return {"DEPTHWISE_CONV_2D": "depthwise", "AVERAGE_POOL_2D": "avgpool", "FULLY_CONNECTED": "dense"}.get(
        layer.op, layer.op.lower()
    )


def cases(layer, dtype: str, emitter: str, heap: int, fractions, heaps, shapes=()) -> list[tuple[str, object]]:
    """(label, Job) of the whole layer, then of each distinct tiled plan, then of each tile shape
    (rows, cols, chans: clipped to the layer's)."""
    whole = layer_plan.whole(layer, dtype, emitter, heap)
    out = [("whole", whole)] if whole else []  # none: the tiles' projections are compared with each other
    seen = {j.tiles for _, j in out}
    plans = [(f"budget {f:g}", heap, f) for f in fractions] + [(f"heap {h}", h, None) for h in heaps]
    for label, h, f in plans:
        job = layer_plan.at_fraction(layer, dtype, emitter, h, f)
        if job is not None and job.tiles not in seen:
            seen.add(job.tiles)
            out.append((label, job))
    ext = tiles.extent(layer)
    for shape in shapes:
        r, c, ch = (min(a, b) for a, b in zip(shape, ext))
        job = layer_plan.shaped(layer, dtype, emitter, r, c, ch)
        if job.tiles not in seen and job.tiles[0].heap_bytes(1) <= heap:
            seen.add(job.tiles)
            out.append((f"shape {r}x{c}x{ch}", job))
    return out


def numbered(jobs: list, first: int) -> list:
    """The jobs with layer indices of their own (a unit's key names its layer index)."""
    return [dataclasses.replace(j, layer=dataclasses.replace(j.layer, index=first + i)) for i, j in enumerate(jobs)]


def timed(job, recs: list[dict], tick_us: float | None) -> tuple[list[tuple], list[float]] | None:
    """(tile, seconds) of the tile that ran and of its companion, as analysis.points.point takes
    them, and their timer quantization; None where the tile's output failed its check."""
    n = len(job.candidates)
    main = [r for r in recs if r.get("cand", 0) < n]
    if not main or not reference.verify(job, main[0]):
        return None
    extra = [r for r in recs if r.get("cand", 0) >= n and reference.verify(job, r)]
    used = main[:1] + extra[:1]
    return [(job.tiles[r["cand"]], roofs.seconds(r)) for r in used], [tile_error.tick_seconds(r, tick_us) for r in used]


def row(layer, label: str, job, got: list[tuple], whole_s: float | None, ticks: list[float]) -> dict:
    t = got[0][0]
    projected, how = points.project(job, got)
    tk = tile_error.kind(job, got)
    iv = tile_error.interval(
        tile_error.tick_interval(points.project, job, got, ticks), tile_error.spread(tk, job.emitter)
    )
    return {
        "index": layer.index,
        "kind": kind(layer),
        "emitter": job.emitter,
        "case": label,
        "tile": [t.rows, t.cols, t.chans],
        "fraction": t.fraction,
        "executed_share": tiles.executed_work(layer, t) / tiles.executed_work(layer, tiles.full_tile(layer, job.dtype)),
        "projection": how,
        "tile_seconds": got[0][1],
        "companion_seconds": got[1][1] if len(got) > 1 else None,
        "projected_seconds": projected,
        "whole_seconds": whole_s,
        "spread": projected / whole_s - 1 if whole_s else None,
        "tile_kind": tk,
        "interval": list(iv),  # where the whole layer's time lies, as results.json's points say
    }


def measure_layer(collector, probe, layer, dtype, emitter, args, first: int) -> list[dict]:
    named = cases(layer, dtype, emitter, probe.get("free", 0), args.fractions, args.heaps, args.shapes)
    if not named:
        return []
    jobs = numbered([j for _, j in named], first)
    cfg = {**timing.timing(probe), "jobs": jobs}
    recs = collector.run_suite(SUITE, cfg)
    by_index: dict[int, list[dict]] = {}
    for r in recs:
        if r.get("t") == "cal":
            by_index.setdefault(r["k"], []).append(r)
    got = [timed(j, by_index.get(j.layer.index, []), probe.get("tick_us")) for j in jobs]
    whole_s = got[0][0][0][1] if named[0][0] == "whole" and got[0] else None
    return [row(layer, label, job, g[0], whole_s, g[1]) for (label, job), g in zip(named, got) if g]


def line(r: dict) -> str:
    spread = "-" if r["spread"] is None else f"{r['spread']:+.2%}"
    tile = "x".join(str(v) for v in r["tile"])
    return (
        f"{r['index']:>3} {r['kind']:<9} {r['emitter']:<9} {r['case']:<14} {tile:>9} {r['fraction']:>8.4f} "
        f"{r['projection']:<6} {r['tile_seconds']:>11.5g} {r['projected_seconds']:>11.5g} {spread:>8}"
    )


def parse(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", default="qemu-m3")
    ap.add_argument("--model", default="kws-dscnn")
    ap.add_argument("--layers", default="0,1,2,9,11", help="layer indices")
    ap.add_argument("--emitter", default="asm_thumb,viper")
    ap.add_argument("--dtype", default="int8")
    ap.add_argument("--fractions", default="0.5,0.25,0.125,0.0625,0.03125")
    ap.add_argument("--heaps", default="", help="heaps (bytes) to plan the layer's tile in, as a smaller board")
    ap.add_argument("--shapes", default="", help="tiles as ROWSxCOLSxCHANS, e.g. 1x5x64,7x1x64")
    ap.add_argument("-o", "--output", default="out-tiles")
    args = ap.parse_args(argv)
    args.fractions = [float(v) for v in args.fractions.split(",") if v]
    args.heaps = [int(v) for v in args.heaps.split(",") if v]
    args.layers = [int(v) for v in args.layers.split(",") if v]
    args.shapes = [tuple(int(n) for n in v.split("x")) for v in args.shapes.split(",") if v]
    args.emitter = layers.parse_list(args.emitter, layers.EMITTERS, "--emitter")
    return args


def main(argv: list[str]) -> int:
    args = parse(argv)
    net = load_network(args.model)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    link = open_link(Target(board=args.board)).link
    log = RawLog(out / "raw.jsonl")
    rows: list[dict] = []
    try:
        collector = Collector(link, log)
        probe = collector.probe()
        print(f"{args.board}: {probe.get('free')} B free; spread = projected / whole - 1", flush=True)
        for n, layer in enumerate(l for l in net.layers if l.index in args.layers):
            for m, em in enumerate(args.emitter):
                got = measure_layer(collector, probe, layer, args.dtype, em, args, 1000 * (1 + n * 10 + m))
                for r in got:
                    print(line(r), flush=True)
                rows += got
                (out / "tiles.json").write_text(json.dumps({"board": args.board, "rows": rows}, indent=1))
    finally:
        log.close()
        link.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
