"""Several runs side by side (boards, clocks, icount shifts, firmware versions): roof ratios,
per-layer speed-ups and the fastest target per layer, and all the roofs on one plot.

Pure computation except draw(); runs are (label, results dict) pairs, the first is the baseline.
"""
from __future__ import annotations

import math
from pathlib import Path

from . import layer_names
from . import plot as plot_mod
from . import roofs as roofs_mod
from .errors import UserError
from .units import duration, si

RUN_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
RUN_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def labels(results: list[dict], paths: list[Path]) -> list[str]:
    """Short distinct names: board, QEMU shift, clock where the runs' clocks differ, then the
    results' folder where that is still not enough."""
    clocks = {r.get("board", {}).get("clock_hz") for r in results} - {None}
    out = []
    for data in results:
        b = data.get("board", {})
        text = b.get("name") or "?"
        if b.get("icount_shift") is not None:
            text += f" shift={b['icount_shift']}"
        if len(clocks) > 1 and b.get("clock_hz"):
            text += f" {b['clock_hz'] / 1e6:g} MHz"
        out.append(text)
    if len(set(out)) < len(out):
        out = [f"{t} ({p.parent.name or p})" for t, p in zip(out, paths)]
    if len(set(out)) < len(out):
        out = [f"{t} #{i + 1}" for i, t in enumerate(out)]
    return out


def _value(r: dict) -> float:
    return r["bytes_per_s"] if r["kind"] == "memory" else r["macs_per_s"]


def _measured(data: dict) -> list[dict]:
    return [r for r in data["roofs"] if r.get("source") == "measured"]


def _top_compute(data: dict) -> dict | None:
    comps = [r for r in _measured(data) if r["kind"] == "compute"]
    return max(comps, key=_value) if comps else None


def roof_rows(runs: list[tuple[str, dict]]) -> list[dict]:
    """Rows of matched measured roofs: first the top memory and top compute roof of every run
    (whatever their names), then every roof that two or more runs share by kind, name, emitter
    and dtype. `values` has one entry per run (None where a run lacks the roof); `ratios` is
    value / the first run's value that has it."""
    rows = [{"kind": "memory", "name": "top memory roof", "emitter": None, "dtype": None,
             "values": [_v(roofs_mod.top_memory(d["roofs"])) for _, d in runs]},
            {"kind": "compute", "name": "top compute roof", "emitter": None, "dtype": None,
             "values": [_v(_top_compute(d)) for _, d in runs]}]
    keyed: dict[tuple, list] = {}
    for i, (_, data) in enumerate(runs):
        for r in _measured(data):
            key = (r["kind"], r["name"], r.get("emitter"), r.get("dtype"))
            keyed.setdefault(key, [None] * len(runs))[i] = _value(r)
    for (kind, name, em, dt), values in keyed.items():
        if sum(v is not None for v in values) >= 2:
            rows.append({"kind": kind, "name": name, "emitter": em, "dtype": dt, "values": values})
    for row in rows:
        base = next((v for v in row["values"] if v), None)
        row["ratios"] = [v / base if v and base else None for v in row["values"]]
    return rows


def _v(r: dict | None) -> float | None:
    return _value(r) if r else None


def _model(data: dict) -> str | None:
    m = data.get("model")
    if isinstance(m, dict):
        return m.get("name") or m.get("path")
    return m if isinstance(m, str) else None


def _layer_keys(points: list[dict]) -> dict[tuple, tuple]:
    """(index, name) of a point -> the key that matches its layer across runs: op, input and
    output shapes and the how-manieth such layer it is (the same network from a .tflite file and
    from the built-in shapes has other tensor names); the name where points carry no shapes."""
    keys, seen = {}, {}
    for p in sorted(points, key=lambda p: p.get("index", 0)):
        ident = (p.get("index"), p.get("name"))
        if ident in keys:
            continue
        if p.get("output_shape") is not None and p.get("input_shapes") is not None:
            sig = (p.get("op"), tuple(tuple(s) for s in p["input_shapes"]), tuple(p["output_shape"]))
            seen[sig] = seen.get(sig, 0) + 1
            keys[ident] = ("shape",) + sig + (seen[sig],)
        else:
            keys[ident] = ("name", p.get("name"))
    return keys


def layer_comparison(runs: list[tuple[str, dict]]) -> dict | None:
    """Per-layer speed-ups where the runs profiled the same network's layers, matched by op and
    shapes (results' points: index, op, input_shapes, output_shape, dtype, emitter, seconds).
    None when fewer than two runs share a layer.

    layers: per layer, each run's fastest (dtype, emitter) and its seconds, the speed-up of each
    run over the first (first's seconds / this run's), and the fastest run, dtype and emitter.
    network: per (run, dtype, emitter), the summed seconds over the shared layers; a variant that
    lacks some of them names them (`missing`) with their best time in the same run on another
    variant, which its `seconds` includes (`complete` is False); and per run its best total."""
    per_run: list[dict[tuple, dict[tuple, float]]] = []
    labels: dict[tuple, str] = {}
    order: list[tuple] = []
    for _, data in runs:
        pts = [p for p in data.get("points") or [] if not p.get("user")]
        keys = _layer_keys(pts)
        layers: dict[tuple, dict[tuple, float]] = {}
        for p in sorted(pts, key=lambda p: p.get("index", 0)):
            if p.get("verified") is False or not p.get("seconds"):
                continue
            key = keys[(p.get("index"), p.get("name"))]
            variants = layers.setdefault(key, {})
            v = (p.get("dtype"), p.get("emitter"))
            variants[v] = min(variants.get(v, math.inf), p["seconds"])
            labels.setdefault(key, layer_names.short(p) if key[0] == "shape" else str(p.get("name")))
            if key not in order:
                order.append(key)
        per_run.append(layers)
    shared = [k for k in order if sum(k in lay for lay in per_run) >= 2]
    models = {_model(d) for _, d in runs} - {None}
    if not shared:
        if len(models) > 1:
            return {"layers": [], "network": [], "note": f"different models ({', '.join(sorted(models))}): "
                                                          "no layer with the same op and shapes"}
        return None
    rows = []
    for key in shared:
        best = [min(lay[key].items(), key=lambda kv: kv[1]) if key in lay else None for lay in per_run]
        base = next((b[1] for b in best if b), None)
        fastest = min(((i, k, s) for i, b in enumerate(best) if b for k, s in per_run[i][key].items()),
                      key=lambda t: t[2])
        rows.append({"layer": labels[key], "best": [{"dtype": b[0][0], "emitter": b[0][1], "seconds": b[1]} if b
                                                    else None for b in best],
                     "speedup": [base / b[1] if b else None for b in best],
                     "fastest": {"run": fastest[0], "dtype": fastest[1][0], "emitter": fastest[1][1],
                                 "seconds": fastest[2]}})
    network = [_network_row(i, v, lay, shared, labels) for i, lay in enumerate(per_run)
               for v in dict.fromkeys(v for k in shared if k in lay for v in lay[k])]
    network.sort(key=lambda v: (v["seconds"] is None, v["seconds"] or 0))
    best_total = [sum(min(lay[k].values()) for k in shared) if all(k in lay for k in shared) else None
                  for lay in per_run]
    note = f"matched by op and shapes: {', '.join(sorted(models))}" if len(models) > 1 else None
    return {"layers": rows, "network": network, "best_total": best_total, "shared": len(shared), "match_note": note}


def _network_row(run: int, variant: tuple, lay: dict, shared: list[tuple], labels: dict) -> dict:
    own = [k for k in shared if variant in lay.get(k, {})]
    missing = []
    for k in shared:
        if k in own:
            continue
        other = min(lay[k].items(), key=lambda kv: kv[1]) if k in lay else None
        missing.append({"layer": labels[k], "seconds": other[1] if other else None,
                        "dtype": other[0][0] if other else None, "emitter": other[0][1] if other else None})
    total = sum(lay[k][variant] for k in own)
    lost = any(m["seconds"] is None for m in missing)
    return {"run": run, "dtype": variant[0], "emitter": variant[1], "layers": len(own), "measured_seconds": total,
            "seconds": None if lost else total + sum(m["seconds"] for m in missing),
            "complete": not missing, "missing": missing}


# ---------------------------------------------------------------- tables

def tables(runs: list[tuple[str, dict]], paths: list[Path] | None = None) -> list:
    from rich.table import Table

    out = []
    t = Table(title="Runs", title_justify="left")
    for col in ("run", "board", "firmware", "clock", "icount shift", "results"):
        t.add_column(col)
    for i, (label, data) in enumerate(runs):
        b = data.get("board", {})
        t.add_row(_tag(i) + " " + label, str(b.get("name", "?")), str(b.get("firmware", "")),
                  si(b.get("clock_hz"), "Hz"), str(b.get("icount_shift") if b.get("icount_shift") is not None else "-"),
                  str(paths[i]) if paths else "-")
    out.append(t)
    t = Table(title=f"Roofs (ratio: run / {_tag(0)})", title_justify="left")
    for col in ("kind", "name", "emitter", "dtype"):
        t.add_column(col)
    for i, (label, _) in enumerate(runs):
        t.add_column(_tag(i), justify="right")
        if i:
            t.add_column(f"{_tag(i)}/{_tag(0)}", justify="right")
    for row in roof_rows(runs):
        unit = "B/s" if row["kind"] == "memory" else "MACC/s"
        cells = []
        for i, v in enumerate(row["values"]):
            cells.append(si(v, unit))
            if i:
                cells.append(f"{row['ratios'][i]:.3g}" if row["ratios"][i] and row["values"][0] else "-")
        t.add_row(row["kind"], row["name"], row["emitter"] or "-", row["dtype"] or "-", *cells)
    out.append(t)
    lay = layer_comparison(runs)
    if lay is None:
        out.append("layers: no model layers that two of these runs share (results' points)")
    elif lay.get("note"):
        out.append(f"layers: not compared: {lay['note']}")
    else:
        out += _layer_tables(runs, lay)
    return out


def _variant(run: int, dtype, emitter) -> str:
    return f"{_tag(run)} {dtype or '?'} {emitter or '?'}"


def _layer_tables(runs, lay) -> list:
    from rich.table import Table

    t = Table(title=f"Layers: best time per run (speed-up over {_tag(0)}) and the fastest target", title_justify="left")
    t.add_column("layer")
    for i, _ in enumerate(runs):
        t.add_column(_tag(i), justify="right")
    t.add_column("fastest")
    for row in lay["layers"]:
        cells = []
        for b, s in zip(row["best"], row["speedup"]):
            cells.append(f"{duration(b['seconds'])} {b['dtype']} {b['emitter']}" + (f" (x{s:.3g})" if s else "")
                         if b else "-")
        f = row["fastest"]
        t.add_row(row["layer"], *cells, _variant(f["run"], f["dtype"], f["emitter"]))
    out = [t]
    n = Table(title=f"Whole network ({lay['shared']} shared layers)", title_justify="left")
    for col in ("target / dtype / emitter", "time", "speed-up over the slowest", "missing layers (their time elsewhere)"):
        n.add_column(col, justify="right" if col in ("time", "speed-up over the slowest") else "left")
    slowest = max((v["seconds"] for v in lay["network"] if v["seconds"]), default=None)
    for v in lay["network"]:
        missing = ", ".join(f"{m['layer']} ({duration(m['seconds'])} on {m['dtype']} {m['emitter']})" if m["seconds"]
                            else f"{m['layer']} (not run in {_tag(v['run'])})" for m in v["missing"])
        time = duration(v["seconds"]) if v["seconds"] else f"{duration(v['measured_seconds'])} + ?"
        n.add_row(_variant(v["run"], v["dtype"], v["emitter"]), time + ("" if v["complete"] else " *"),
                  f"x{slowest / v['seconds']:.3g}" if v["seconds"] and slowest else "-", missing or "-")
    if any(not v["complete"] for v in lay["network"]):
        n.caption = "* includes the missing layers at their time on another emitter or type of the same run"
        n.caption_justify = "left"
    out.append(n)
    if lay.get("match_note"):
        out.append(f"layers {lay['match_note']}")
    if lay["network"] and lay["network"][0]["seconds"]:
        f = lay["network"][0]
        out.append(f"fastest for the whole network: {_tag(f['run'])} {runs[f['run']][0]}, {f['dtype']} {f['emitter']} "
                   f"({duration(f['seconds'])}{'' if f['complete'] else ', with the missing layers elsewhere'})")
    return out


def _tag(i: int) -> str:
    return chr(ord("A") + i) if i < 26 else f"R{i + 1}"


# ---------------------------------------------------------------- plot

def draw(runs: list[tuple[str, dict]], path: Path) -> Path:
    """Every run's measured roofline on one log-log plot: a colour per run (line style by roof
    kind and dtype, labels carry the run's letter); layer points coloured by emitter, with a
    marker per run and their layer numbers; axes fitted to the data."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(13, 7.5), dpi=110)
    draw_axes(ax, runs)
    ax.legend(handles=ax.get_legend().legend_handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
              framealpha=0.9)
    fig.tight_layout()
    plot_mod._place_labels(ax)
    plot_mod._label_points(ax)
    return plot_mod.save(fig, path)


def draw_axes(ax, runs: list[tuple[str, dict]]):
    """The comparison on one Axes; roof labels and layer numbers are placed by the caller once
    the figure's layout is final (plot._place_labels, plot._label_points)."""
    from matplotlib.lines import Line2D

    if not any(_measured(d) for _, d in runs):
        raise UserError("nothing to plot: the results hold no measured roof")
    lines = []
    for i, (_, data) in enumerate(runs):
        for ln in plot_mod.roof_lines(_measured(data)):
            ln.style = {**ln.style, "color": RUN_COLORS[i % len(RUN_COLORS)]}
            ln.tag = _tag(i)
            lines.append(ln)
    points = [p for _, d in runs for p in d.get("points") or []]
    xlim, ylim = plot_mod.fit(lines, points)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.mcuroof_labels = []
    for ln in lines:
        plot_mod._draw_line(ax, ln, xlim)
    numbers = []
    for i, (_, data) in enumerate(runs):
        numbers += [(x, y, f"{_tag(i)}{text}", color) for x, y, text, color in
                    plot_mod._draw_points(ax, data.get("points") or [], RUN_MARKERS[i % len(RUN_MARKERS)], f"{_tag(i)} ")]
    ax.mcuroof_numbers = numbers if len(numbers) <= plot_mod.MAX_NUMBERED else []
    handles = [Line2D([], [], color=RUN_COLORS[i % len(RUN_COLORS)], lw=2.4, marker=RUN_MARKERS[i % len(RUN_MARKERS)],
                      label=f"{_tag(i)}: {label}") for i, (label, _) in enumerate(runs)]
    handles += ax.get_legend_handles_labels()[0]
    ax.legend(handles=handles, loc="lower right", fontsize=7, framealpha=0.9)
    title = "Empirical rooflines compared: " + ", ".join(f"{_tag(i)} {lb}" for i, (lb, _) in enumerate(runs))
    if any(data.get("board", {}).get("icount_shift") is not None for _, data in runs):
        title += "\nQEMU runs (shift=K): time counts instructions (-icount), it is not cycle-accurate"
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("operational intensity (MACC / byte)")
    ax.set_ylabel("attainable performance (MACC / s)")
    ax.grid(True, which="major", alpha=0.3)
    ax.grid(True, which="minor", alpha=0.08)
    plot_mod.plain_ticks(ax)
    return ax
