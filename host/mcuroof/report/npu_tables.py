"""The tables of an npu.json (`mcuroof npu`): the NPU roofs, the whole-model estimates, the
CPU-fallback operators, Vela's per-layer estimate beside the CPU's measured time, and the C-engine
reference of the CPU's core. Each is a Grid (title, headers, text rows, caption), rendered for the
terminal here (rich) and for report.html by report.npu_html. Every Vela figure says it is estimated."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from mcuroof.model import names as layer_names
from mcuroof.published import mlperf
from mcuroof.report import c_engines
from mcuroof.report.grid import Grid, to_rich
from mcuroof.units import duration, si


def _model(path: str) -> str:
    return Path(path).stem


def roofs_grid(doc: dict) -> Grid:
    """One row a roof, short enough for 80 columns: the system configs and clocks go in the caption."""
    rows = []
    for r in doc["roofs"]:
        compute = r["kind"] == "compute"
        rows.append(
            [
                r["config"],
                r["name"].split(" ", 1)[-1],
                si(r["macs_per_s"], "MAC/s") if compute else si(r["bytes_per_s"], "B/s"),
                f"{r['per_cycle']:g} {'MAC' if compute else 'B'}/cycle" if "per_cycle" in r else "-",
            ]
        )
    systems = {r["config"]: (r["system"], r.get("clock_hz")) for r in doc["roofs"]}
    caption = "; ".join(
        f"{c}: Vela's {system}" + (f" at {si(hz, 'Hz')}" if hz else "") for c, (system, hz) in systems.items()
    )
    headers = ("config", "roof", "value", "per cycle")
    return Grid(f"NPU roofs (theory: Vela {doc['vela']}'s system config)", headers, rows, caption, headers[:2])


def like_steps(cpu: dict | None) -> bool:
    """Whether the CPU run's times and Vela's NPU times are alike: both cycles at stated clocks (a
    real board's, or a cycle model's); QEMU's instructions or host time are not."""
    return bool(cpu) and cpu.get("step") == "cycle" and bool(cpu.get("step_rate_hz"))


def apart_why(cpu: dict) -> str:
    counts = {"instr": "QEMU's instructions", "cycle": "cycles at no known clock"}.get(cpu.get("step"), "host time")
    return (
        f"no CPU / NPU ratio and no CPU + NPU sum: {cpu['board']}'s time counts {counts}, not cycles at a "
        "stated clock as Vela's NPU time does"
    )


def whole_grid(doc: dict) -> Grid:
    cpu = doc.get("cpu")
    caption = f"NPU: {doc['estimated']}" + (f"; CPU: measured on {cpu['board']} ({cpu['time_basis']})" if cpu else "")
    alike = not cpu or like_steps(cpu)
    if not alike:
        caption += "; " + apart_why(cpu) + ": CPU in its own steps"
    rows = []
    for w in doc["whole_model"]:
        macs = sum(
            p["macs"]
            for p in doc["points"]
            if p["target"] == "npu" and p["model"] == w["model"] and p["config"] == w["config"]
        )
        rows.append(
            [
                _model(w["model"]),
                w["config"],
                f"{w['npu_cycles']:,}",
                duration(w["npu_seconds"]),
                str(w["cpu_operators"]),
                "-"
                if w["cpu_seconds"] is None
                else duration(w["cpu_seconds"])
                if alike
                else _own(w["cpu_seconds"], cpu),
                "-" if w["seconds"] is None or not (alike or not w["cpu_seconds"]) else duration(w["seconds"]),
                si(macs / w["npu_seconds"], "MAC/s") if w["npu_seconds"] else "-",
            ]
        )
    headers = ("model", "config", "NPU cycles", "NPU time", "CPU ops", "CPU time", "total", "MAC/s (NPU)")
    return Grid("Whole model: NPU estimate + CPU-fallback operators", headers, rows, caption, headers[:2])


def cpu_ops_grid(doc: dict) -> Grid | str:
    ops = doc["cpu_operators"]
    if not ops:
        models = sorted({_model(r["model"]) for r in doc["runs"]})
        return f"CPU-fallback operators: none (every operator of {', '.join(models)} maps to the NPU)"
    rows = [
        [
            _model(op["model"]),
            op["config"],
            op["tflite_op"],
            op["name"][-48:],
            "-" if op["macs"] is None else f"{op['macs']:,}",
        ]
        for op in ops
    ]
    headers = ("model", "config", "operator", "name", "MACs (mcuroof)")
    return Grid("Operators Vela leaves on the CPU", headers, rows, "", headers[:4])


def per_layer_grid(doc: dict) -> Grid | None:
    """Vela's per-layer NPU estimate (cycles at the NPU clock) beside the CPU run's measured time
    of the same layer (its steps: QEMU instructions or the board's cycles)."""
    cpu = doc.get("cpu")
    if not cpu:
        return None
    measured = _fastest(doc["cpu_points"])
    rows = [p for p in doc["points"] if p["source"] == "vela" and _key(p, measured) and p["op"] != "Relu"]
    if not rows:
        return None
    step = {"instr": "CPU instructions (QEMU)", "cycle": "CPU cycles"}.get(cpu.get("step"))
    alike = like_steps(cpu)
    clock = {r["config"]: r["clock_hz"] for r in doc["runs"]}
    headers = ("model", "config", "layer", "op", "MACs", "NPU cycles", "NPU time")
    headers += ("CPU time",) if alike else ()
    headers += (step,) if step else ()
    headers += ("CPU emitter",) + (("CPU / NPU time",) if alike else ())
    groups: dict[tuple, list] = {}
    for p in rows:
        groups.setdefault((p["model"], p["config"]), []).append((p, measured[_key(p, measured)]))
    body = []
    for (model, config), pairs in groups.items():
        body += [_layer_row(p, m, cpu, step, alike) for p, m in pairs]
        npu, cpu_s = sum(p["seconds"] for p, _ in pairs), sum(m["seconds"] for _, m in pairs)
        body.append(
            [_model(model), config, f"sum of {len(pairs)}", "-", f"{sum(p['macs'] for p, _ in pairs):,}"]
            + [f"{sum(p['cycles'] for p, _ in pairs):,}", duration(npu)]
            + ([duration(cpu_s)] if alike else [])
            + ([_steps(cpu_s, cpu)] if step else [])
            + ["-"]
            + ([f"{cpu_s / npu:.0f}x"] if alike else [])
        )
    clocks = ", ".join(sorted({f"{c / 1e6:g} MHz" for c in clock.values() if c}))
    caption = (
        f"NPU: Vela's cycles at its clock ({clocks}), {doc['estimated']}; CPU: measured on {cpu['board']}, "
        f"{cpu['time_basis']}"
    )
    caption += "; CPU / NPU: seconds of cycles at each one's stated clock" if alike else "; " + apart_why(cpu)
    title = f"Per layer: NPU estimate beside {cpu['board']}'s measured time"
    return Grid(title, headers, body, caption, ("model", "config", "layer", "op", "CPU emitter"))


def _fastest(points: list[dict]) -> dict:
    """The fastest measured CPU point per (model, layer name)."""
    best: dict = {}
    for p in points:
        k = (p.get("model"), p["name"])
        if p.get("seconds") and (k not in best or p["seconds"] < best[k]["seconds"]):
            best[k] = p
    return best


def _key(p: dict, measured: dict) -> tuple | None:
    """The measured point of a Vela point: same model (by stem) and layer name; by name alone only
    where the CPU points are of one run of another name (as document._own_points)."""
    own = (Path(p["model"]).stem, p["name"])
    if own in measured:
        return own
    if len({k[0] for k in measured}) != 1 or Path(p["model"]).stem in {k[0] for k in measured}:
        return None
    return next((k for k in measured if k[1] == p["name"]), None)


def _layer_row(p: dict, m: dict, cpu: dict, step: str | None, alike: bool) -> list[str]:
    """One layer: Vela's point p beside the CPU run's measured point m (its seconds and the
    ratio only where both count cycles at stated clocks)."""
    return [
        _model(p["model"]),
        p["config"],
        layer_names.short(m) if m.get("index") is not None else p["name"][-28:],
        p["tflite_op"],
        f"{p['macs']:,}",
        f"{p['cycles']:,}",
        duration(p["seconds"]),
        *([duration(m["seconds"])] if alike else []),
        *([_steps(m["seconds"], cpu)] if step else []),
        f"{m['emitter']} {m['dtype']}",
        *([f"{m['seconds'] / p['seconds']:.0f}x"] if alike else []),
    ]


def _own(seconds: float, cpu: dict) -> str:
    """A CPU time in the steps it counts ("640 k instr"), or seconds of host time."""
    unit = {"instr": " instr", "cycle": " cycles"}.get(cpu.get("step"))
    return _steps(seconds, cpu) + unit if unit and cpu.get("step_rate_hz") else f"{duration(seconds)} of its time"


def _steps(seconds: float, cpu: dict) -> str:
    """A measured time as the CPU steps it counts: "640 k"."""
    rate = cpu.get("step_rate_hz")
    return si(seconds * rate, "").strip() if rate else "-"


def reference_grid(doc: dict) -> Grid | str:
    ref = doc["reference"]
    if not ref["core"]:
        return "C-engine reference (MLPerf Tiny): no CPU core known (give --roofs or --board)"
    if not ref["rows"]:
        return mlperf.no_result_text(ref["core"])
    return c_engines.rows_grid(
        ref["rows"], f"C engines on a {ref['core']}: best MLPerf Tiny closed int8 figure ({c_engines.EFFECTIVE})"
    )


def grids(doc: dict) -> list:
    """Every table and line of the summary, in order (a Grid or a line of text)."""
    items = [doc["units"], roofs_grid(doc), whole_grid(doc), cpu_ops_grid(doc), per_layer_grid(doc)]
    items.append(reference_grid(doc))
    notes = sorted({r["model_note"] for r in doc["runs"] if r["model_note"]})
    items += [f"built-in networks: {n}" for n in notes]
    above = doc["checks"]["points_above_roof"]
    items.append(
        f"NPU points above the NPU roof: {above}" + (f" ({', '.join(doc['checks']['above_roof'])})" if above else "")
    )
    return [i for i in items if i is not None]


def renderables(doc: dict) -> list:
    return [to_rich(i) if isinstance(i, Grid) else Text(i) for i in grids(doc)]
