"""How well a board's calibration predicts networks measured on that board: for every measured
run (`mcuroof run --model ... -o DIR`), each verified layer point predicted from the calibration
of ANOTHER run (`--cal`: a `--suite calibration` run of the same board), so that the measured
network shaped nothing in the prediction. Prints one row per network x emitter x type: the
whole-model error, the per-layer median and worst error, the coverage and how many measured
layer times lie in their cross-validated interval.

    python tools/prediction_error.py --cal out-m7-cal/results.json out-m7-kws/results.json ...

docs/prediction.md quotes its tables with the commands that made them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from mcuroof.model.load import load_network
from mcuroof.predict import predictor


def evaluate(bd, measured: dict, root: Path) -> list[dict]:
    src = Path(measured["model"]["source"])
    if str(src) == "builtin":
        net = load_network(measured["model"]["name"])
    else:
        net = load_network(str(src if src.exists() or src.is_absolute() else root / src))
    layer_of = {l.index: l for l in net.layers}
    pts = [p for p in measured.get("points") or [] if not p.get("user") and p["verified"]]
    pred = {}
    for p in pts:
        pred[(p["index"], p["emitter"], p["dtype"])] = predictor.layer_time(
            bd, layer_of[p["index"]], p["dtype"], p["emitter"]
        )
    rows = []
    for w in measured["model"]["whole_model"]:
        key = (w["emitter"], w["dtype"])
        mine = [p for p in pts if (p["emitter"], p["dtype"]) == key and p.get("projection") != "tile"]
        parts = [(p["index"], p["emitter"]) for p in mine] + [(b["index"], b["emitter"]) for b in w["borrowed"]]
        got = [pred.get((i, em, w["dtype"])) or {} for i, em in parts]
        secs = [g.get("seconds") for g in got]
        whole = sum(secs) if None not in secs else None
        errs, inside, with_iv = [], 0, 0
        for p in mine:
            g = pred[(p["index"], p["emitter"], p["dtype"])]
            if g.get("seconds") is None:
                continue
            errs.append(g["seconds"] / p["seconds"] - 1)
            if g.get("interval"):
                with_iv += 1
                inside += g["interval"][0] <= p["seconds"] <= g["interval"][1]
        n_all = len([l for l in net.layers])
        rows.append(
            {
                "network": net.name,
                "kernel": f"{w['emitter']} {w['dtype']}",
                "whole_error": None if whole is None else whole / w["measured_seconds"] - 1,
                "layer_median": statistics.median(abs(e) for e in errs) if errs else None,
                "layer_worst": max(errs, key=abs) if errs else None,
                "predicted": f"{sum(s is not None for s in secs)}/{len(parts)}",
                "measured_layers": f"{len(parts)} of {n_all}",
                "in_interval": f"{inside}/{with_iv}",
                "outside_range": sum(1 for g in got if g.get("outside")),
                "other_family": sum(1 for g in got if g.get("status") == "other"),
            }
        )
    return rows


def _pct(v) -> str:
    return "-" if v is None else f"{v:+.1%}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cal", type=Path, required=True, help="results.json of a calibration run of the board")
    ap.add_argument("measured", nargs="+", type=Path, help="results.json of run --model runs on that board")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--root", type=Path, default=Path("."), help="where relative model paths start")
    args = ap.parse_args(argv)
    bd = predictor.board(json.loads(args.cal.read_text()))
    rows = [r | {"board": bd.name} for m in args.measured for r in evaluate(bd, json.loads(m.read_text()), args.root)]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(
        "| board | network | kernel | whole model | layers: median, worst | predicted | in interval | outside range | by other family |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['board']} | {r['network']} | {r['kernel']} | {_pct(r['whole_error'])} | "
            f"{_pct(r['layer_median'])[1:] if r['layer_median'] is not None else '-'}, {_pct(r['layer_worst'])} | "
            f"{r['predicted']} ({r['measured_layers']} layers) | {r['in_interval']} | {r['outside_range']} | {r['other_family']} |"
        )
    hits = [tuple(int(x) for x in r["in_interval"].split("/")) for r in rows]
    inside, total = sum(h[0] for h in hits), sum(h[1] for h in hits)
    if total:
        print(f"\nmeasured layer times inside their interval: {inside} of {total} ({inside / total:.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
