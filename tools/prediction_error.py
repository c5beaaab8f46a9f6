"""How well a board's calibration predicts networks measured on that board, counted the way a
user meets it: every verified layer of every measured run (`mcuroof run --model ... -o DIR`),
tile-projected layers included, predicted from the calibration of ANOTHER run (`--cal`: a
`--suite calibration` run of the same board), so that the measured network shaped nothing in
the prediction. A layer with no interval counts as a miss (and is counted apart).

Prints the coverage of the 90 % layer intervals by family, by board and emitter, and by how far
a layer lies past its family's shapes, with the median half-width and the factor the log
half-widths would need for 90 % of the stratum's layers to lie inside (under 1: wider than
needed); then the whole-model check:
each network's measured whole time against the whole-model interval combined with the
correlation intervals.RHO, with rho 0 and 1, and with rho estimated leaving that network out
(intervals.estimate_rho over the other networks of every board).

    python tools/prediction_error.py --cal cal-m3/results.json cal-unix/results.json \
        --runs run-m3-*/results.json run-unix-*/results.json [--json]

A calibration with a raw.jsonl beside it is fitted again with this code (say `--as-saved` to
read the fit its results.json holds). docs/prediction.md quotes its tables with the commands.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
from pathlib import Path

import numpy as np

from mcuroof.measure import rawlog
from mcuroof.model.load import load_network
from mcuroof.predict import cost_model, intervals, predictor
from mcuroof.suites import calibration

BINS = ((1.0, "in range"), (4.0, "past 1-4x"), (intervals.LIMIT, "past 4-16x"), (math.inf, "past >16x"))


def load_board(path: Path, as_saved: bool):
    """The predictor of a calibration run, fitted again from its raw.jsonl where there is one."""
    data = json.loads(path.read_text())
    raw = path.parent / "raw.jsonl"
    if raw.exists() and not as_saved:
        units = rawlog.complete_kernels(rawlog.read(raw))
        recs = [r for (suite, _), body in units.items() if suite == "calibration" for r in body]
        data["calibration"] = calibration.results_parts(recs, data["board"])["calibration"]
    return predictor.board(data)


def _network(measured: dict, root: Path):
    src = Path(measured["model"]["source"])
    if str(src) == "builtin":
        return load_network(measured["model"]["name"])
    return load_network(str(src if src.exists() or src.is_absolute() else root / src))


def layer_rows(bd, measured: dict, root: Path) -> list[dict]:
    """One row per verified layer point: measured, predicted, interval (or why none), where it lies."""
    net = _network(measured, root)
    layer_of = {l.index: l for l in net.layers}
    out = []
    for p in measured.get("points") or []:
        if p.get("user") or not p["verified"]:
            continue
        g = predictor.layer_time(bd, layer_of[p["index"]], p["dtype"], p["emitter"])
        out.append(
            {
                "board": bd.name,
                "network": net.name,
                "index": p["index"],
                "emitter": p["emitter"],
                "dtype": p["dtype"],
                "projection": p.get("projection"),
                "family": g.get("family") or "-",
                "measured": p["seconds"],
                "predicted": g.get("seconds"),
                "interval": g.get("interval"),
                "why": g.get("interval_why") or g.get("why") or "",
                "ratio": g.get("ratio"),
            }
        )
    return out


def whole_rows(measured: dict, rows: list[dict]) -> list[dict]:
    """Per measured whole-model row: its parts' predictions (the layers it sums, borrowed ones too)."""
    net = rows[0]["network"] if rows else measured["model"]["name"]
    by = {(r["index"], r["emitter"], r["dtype"]): r for r in rows}
    out = []
    for w in measured["model"]["whole_model"]:
        own = [
            (r["index"], r["emitter"])
            for r in rows
            if (r["emitter"], r["dtype"]) == (w["emitter"], w["dtype"]) and r["projection"] != "tile"
        ]
        parts = [by.get((i, em, w["dtype"])) for i, em in own + [(b["index"], b["emitter"]) for b in w["borrowed"]]]
        out.append(
            {
                "board": rows[0]["board"] if rows else "?",
                "network": net,
                "kernel": f"{w['emitter']} {w['dtype']}",
                "measured": w["measured_seconds"],
                "parts": [(p["predicted"], tuple(p["interval"])) if p and p["interval"] else None for p in parts],
                "predicted": None
                if None in parts or any(p["predicted"] is None for p in parts)
                else sum(p["predicted"] for p in parts),
            }
        )
    return out


def inside(r: dict) -> bool:
    iv = r.get("interval")
    return bool(iv) and iv[0] <= r["measured"] <= iv[1]


def _bin(ratio: float | None) -> str:
    return next(name for top, name in BINS if (ratio or 1.0) <= top)


def stratum(rows: list[dict]) -> dict:
    """Held, of all (no-interval layers counted as misses), how many had none, median half-width."""
    with_iv = [r for r in rows if r.get("interval")]
    widths = [r["interval"][1] / r["predicted"] - 1 for r in with_iv]
    return {
        "held": sum(inside(r) for r in rows),
        "of": len(rows),
        "no_interval": len(rows) - len(with_iv),
        "median_width": statistics.median(widths) if widths else None,
        "scale": _scale(with_iv),
    }


def _scale(rows: list[dict]) -> float | None:
    """What the log half-widths would have to be multiplied by for 90 % of these layers to lie
    inside (under 1: the intervals are wider than they need be): the conformal quantile of
    |log(measured / predicted)| / log half-width."""
    need = [abs(math.log(r["measured"] / r["predicted"])) / math.log(r["interval"][1] / r["predicted"]) for r in rows]
    return cost_model.conformal(need)


def coverage(rows: list[dict]) -> dict[str, dict[str, dict]]:
    """The strata: by family, by board and emitter, by range, and all."""
    groups = {
        "family": lambda r: r["family"],
        "board/emitter": lambda r: f"{r['board']} {r['emitter']} {r['dtype']}",
        "range": lambda r: _bin(r["ratio"]),
        "board, range": lambda r: f"{r['board']} {_bin(r['ratio'])}",
        "board/emitter, range": lambda r: f"{r['board']} {r['emitter']} {r['dtype']}, {_bin(r['ratio'])}",
    }
    out = {}
    for name, key in groups.items():
        keys = sorted({key(r) for r in rows})
        out[name] = {k: stratum([r for r in rows if key(r) == k]) for k in keys}
    out["all"] = {"all layers": stratum(rows)}
    return out


def whole_check(wholes: list[dict]) -> dict[str, dict]:
    """Each whole model held by its interval at rho 0, intervals.RHO, 1 and leave-one-network-out."""
    usable = [w for w in wholes if w["predicted"] is not None and None not in w["parts"]]
    out = {}
    for label, rho_of in (
        ("rho 0 (independent)", lambda w: 0.0),
        (f"rho {intervals.RHO:g} (intervals.RHO)", lambda w: intervals.RHO),
        ("rho 1 (sum of bounds)", lambda w: 1.0),
        ("rho leave-one-network-out", lambda w: _lono_rho(usable, w)),
    ):
        held, widths, rhos = 0, [], []
        for w in usable:
            rho = rho_of(w)
            lo, hi = intervals.combine(w["parts"], rho)
            held += lo <= w["measured"] <= hi
            widths.append(hi / w["predicted"] - 1)
            rhos.append(rho)
        out[label] = {
            "held": held,
            "of": len(wholes),
            "no_interval": len(wholes) - len(usable),
            "median_width": statistics.median(widths) if widths else None,
            "rho": statistics.median(rhos) if rhos else None,
        }
    return out


def _lono_rho(usable: list[dict], w: dict) -> float:
    others = [(o["measured"], o["parts"]) for o in usable if o["network"] != w["network"]]
    return intervals.estimate_rho(others)


def diagnosis(boards: dict, rows: list[dict]) -> list[dict]:
    """Per board and emitter, why its intervals are as wide as they are: what its layers' errors
    needed (their 90th percentile), the family's own conformal quantile (its n errors' rank
    ceil(0.9 (n+1)), near their largest) against the 90th percentile of the same errors, the
    pooled scale-free quantile (over all shapes, and its two extreme classes) and its n, the
    widening slope, and how many layers' half-widths a floor set (+-5 % past 4x, or the timing
    resolution)."""
    out = []
    for key in sorted({(r["board"], r["emitter"], r["dtype"]) for r in rows}):
        bd = boards[key[0]]
        mine = [r for r in rows if (r["board"], r["emitter"], r["dtype"]) == key and r["family"] in bd.models]
        fams = [bd.models[r["family"]] for r in mine]
        own = [m.spread for m in fams if m.spread is not None]
        p90 = [float(np.quantile(np.abs(m.cv_log_errors), 0.9)) for m in fams if m.cv_log_errors]
        g = intervals.group(f"{key[1]}/{key[2]}")
        q = {z: (bd.spreads.get(f"{g} {z}".strip()) or {}) for z in ("", "large aligned", "small odd")}
        widen = intervals.widening_of(bd.widening, key[1], key[2]) or {}
        out.append(
            {
                "kernel": " ".join(key),
                "layers": len(mine),
                "needed": _q90([abs(math.log(r["measured"] / r["predicted"])) for r in mine]),
                "own_q": statistics.median(own) if own else None,
                "own_n": statistics.median([len(m.cv_log_errors) for m in fams]) if fams else None,
                "own_q_over_p90": statistics.median([a / b for a, b in zip(own, p90) if b]) if own else None,
                "pooled": {z: (v.get("quantile"), v.get("held_out")) for z, v in q.items()},
                "slope": widen.get("slope"),
                "floored": sum(1 for r in mine if _floored(r)),
            }
        )
    return out


def _q90(xs: list[float]) -> float | None:
    return float(np.quantile(xs, 0.9)) if xs else None


def _floored(r: dict) -> bool:
    """Whether a floor set this layer's half-width: +-5 % past TESTED x, or the timing resolution."""
    if not r.get("interval"):
        return False
    w = math.log(r["interval"][1] / r["predicted"])
    floors = [intervals.RESOLUTION] + ([intervals.FLOOR_AT_4X] if (r["ratio"] or 1) > intervals.TESTED else [])
    return any(abs(w - f) < 1e-9 for f in floors)


def print_diagnosis(diag: list[dict]) -> None:
    print("\n| kernel | layers | their 90th pct error | family's own q (median; n) | own q / its errors' p90 "
          "| pooled q / scale: all, large aligned, small odd (n) | slope | floored |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for d in diag:
        pooled = ", ".join(f"{_num(v)} ({k or 0})" for v, k in d["pooled"].values())
        print(
            f"| {d['kernel']} | {d['layers']} | ±{_pct(_e(d['needed']))} | ±{_pct(_e(d['own_q']))}; {d['own_n']:g} "
            f"| {_num(d['own_q_over_p90'])} | {pooled} | {_num(d['slope'])} | {d['floored']} |"
        )


def _e(v):
    return None if v is None else math.expm1(v)


def _num(v) -> str:
    return "-" if v is None else f"{v:.2f}"


def _pct(v) -> str:
    return "-" if v is None else f"{v:.1%}"


def print_tables(cov: dict, whole: dict, rows: list[dict]) -> None:
    for name, strata in cov.items():
        print(f"\n| {name} | held / layers | no interval | median half-width | x for 90 % |")
        print("|---|---|---|---|---|")
        for k, s in strata.items():
            share = f" ({s['held'] / s['of']:.0%})" if s["of"] else ""
            x = "-" if s["scale"] is None else f"{s['scale']:.2f}"
            print(f"| {k} | {s['held']} / {s['of']}{share} | {s['no_interval']} | ±{_pct(s['median_width'])} | {x} |")
    print("\n| whole model | held / networks x kernels | no interval | median half-width |")
    print("|---|---|---|---|")
    for k, s in whole.items():
        share = f" ({s['held'] / s['of']:.0%})" if s["of"] else ""
        label = k if "leave" not in k else f"{k} (median rho {s['rho']:.2f})"
        print(f"| {label} | {s['held']} / {s['of']}{share} | {s['no_interval']} | ±{_pct(s['median_width'])} |")
    whys: dict[str, int] = {}
    for r in rows:
        if not r.get("interval"):
            why = re.sub(r"\b\d+(\.\d+)?x past", "Nx past", r["why"])
            whys[why] = whys.get(why, 0) + 1
    if whys:
        print("\nlayers with no interval (counted as misses above):")
        for why, n in sorted(whys.items(), key=lambda kv: -kv[1]):
            print(f"- {n}: {why}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cal", type=Path, nargs="+", required=True, help="results.json of calibration runs (one a board)")
    ap.add_argument("--runs", type=Path, nargs="+", required=True, help="results.json of run --model runs")
    ap.add_argument("--as-saved", action="store_true", help="the fit the calibration's results.json holds")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--diagnose", action="store_true", help="also print why each kernel's intervals are as wide")
    ap.add_argument("--root", type=Path, default=Path("."), help="where relative model paths start")
    args = ap.parse_args(argv)
    boards = {}
    for path in args.cal:
        bd = load_board(path, args.as_saved)
        boards[bd.name] = bd
    rows, wholes = [], []
    for path in args.runs:
        measured = json.loads(path.read_text())
        bd = boards.get(measured["board"]["name"])
        if bd is None:
            print(f"{path}: no --cal of board {measured['board']['name']}; left out", file=sys.stderr)
            continue
        mine = layer_rows(bd, measured, args.root)
        rows += mine
        wholes += whole_rows(measured, mine)
    cov = coverage(rows)
    whole = {f"all boards, {k}": v for k, v in whole_check(wholes).items()}
    for b in sorted({w["board"] for w in wholes}) if len(boards) > 1 else []:
        whole |= {f"{b}, {k}": v for k, v in whole_check([w for w in wholes if w["board"] == b]).items()}
    diag = diagnosis(boards, rows)
    if args.json:
        print(json.dumps({"coverage": cov, "whole_model": whole, "diagnosis": diag, "layers": rows}, indent=1))
        return 0
    print_tables(cov, whole, rows)
    if args.diagnose:
        print_diagnosis(diag)
    return 0


if __name__ == "__main__":
    sys.exit(main())
