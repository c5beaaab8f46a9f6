"""The tables of an npu.json (`mcuroof npu`), as rich renderables: the NPU roofs, the whole-model
estimates, the CPU-fallback operators, Vela's per-layer estimate beside the CPU's measured time,
and the C-engine reference of the CPU's core. Every Vela figure says it is estimated."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table
from rich.text import Text

from mcuroof.report import c_engines
from mcuroof.units import duration, si


def _model(path: str) -> str:
    return Path(path).stem


def roofs_table(doc: dict) -> Table:
    t = Table(title=f"NPU roofs (theory: Vela {doc['vela']}'s system config)", title_justify="left")
    for col in ("config", "system", "kind", "name", "value", "basis"):
        t.add_column(col, justify="right" if col == "value" else "left")
    for r in doc["roofs"]:
        value = si(r["macs_per_s"], "MAC/s") if r["kind"] == "compute" else si(r["bytes_per_s"], "B/s")
        t.add_row(r["config"], r["system"], r["kind"], r["name"], value, r["basis"])
    return t


def whole_table(doc: dict) -> Table:
    cpu = doc.get("cpu")
    caption = f"NPU: {doc['estimated']}" + (f"; CPU: measured on {cpu['board']} ({cpu['time_basis']})" if cpu else "")
    t = Table(title="Whole model: NPU estimate + CPU-fallback operators", title_justify="left", caption=caption)
    for col in ("model", "config", "NPU cycles", "NPU time", "CPU ops", "CPU time", "total", "MAC/s (NPU)"):
        t.add_column(col, justify="left" if col in ("model", "config") else "right")
    for w, run in zip(doc["whole_model"], doc["runs"]):
        macs = sum(
            p["macs"]
            for p in doc["points"]
            if p["target"] == "npu" and p["model"] == w["model"] and p["config"] == w["config"]
        )
        t.add_row(
            _model(w["model"]),
            w["config"],
            f"{w['npu_cycles']:,}",
            duration(w["npu_seconds"]),
            str(w["cpu_operators"]),
            "-" if w["cpu_seconds"] is None else duration(w["cpu_seconds"]),
            "-" if w["seconds"] is None else duration(w["seconds"]),
            si(macs / w["npu_seconds"], "MAC/s") if w["npu_seconds"] else "-",
        )
    return t


def cpu_ops_table(doc: dict) -> Table | Text:
    ops = doc["cpu_operators"]
    if not ops:
        models = sorted({_model(r["model"]) for r in doc["runs"]})
        return Text(f"CPU-fallback operators: none (every operator of {', '.join(models)} maps to the NPU)")
    t = Table(title="Operators Vela leaves on the CPU", title_justify="left")
    for col in ("model", "config", "operator", "name", "MACs (mcuroof)"):
        t.add_column(col, justify="right" if col.startswith("MACs") else "left")
    for op in ops:
        macs = "-" if op["macs"] is None else f"{op['macs']:,}"
        t.add_row(_model(op["model"]), op["config"], op["tflite_op"], op["name"][-48:], macs)
    return t


def per_layer_table(doc: dict) -> Table | None:
    """Vela's per-layer NPU estimate beside the CPU run's measured time of the same layer."""
    cpu = doc.get("cpu")
    if not cpu:
        return None
    measured = {p["name"]: p for p in doc["cpu_points"] if p.get("seconds")}
    rows = [p for p in doc["points"] if p["source"] == "vela" and p["name"] in measured and p["op"] != "Relu"]
    if not rows:
        return None
    caption = f"NPU: cycles at its clock, {doc['estimated']}; CPU: measured, {cpu['time_basis']}"
    t = Table(
        title=f"Per layer: NPU estimate beside {cpu['board']}'s measured time", title_justify="left", caption=caption
    )
    for col in (
        "model",
        "config",
        "layer",
        "op",
        "MACs",
        "NPU cycles",
        "NPU time",
        "CPU time",
        "CPU emitter",
        "CPU / NPU",
    ):
        t.add_column(col, justify="left" if col in ("model", "config", "layer", "op", "CPU emitter") else "right")
    for p in rows:
        m = measured[p["name"]]
        t.add_row(
            _model(p["model"]),
            p["config"],
            p["name"][-28:],
            p["tflite_op"],
            f"{p['macs']:,}",
            f"{p['cycles']:,}",
            duration(p["seconds"]),
            duration(m["seconds"]),
            f"{m['emitter']} {m['dtype']}",
            f"{m['seconds'] / p['seconds']:.0f}x",
        )
    return t


def reference_table(doc: dict) -> Table | Text:
    ref = doc["reference"]
    if not ref["core"]:
        return Text("C-engine reference (MLPerf Tiny): no CPU core known (give --roofs or --board)")
    if not ref["rows"]:
        return Text(f"C-engine reference (MLPerf Tiny closed, int8): no published result on a {ref['core']}")
    return c_engines.rows_table(ref["rows"], f"C engines on a {ref['core']}: best MLPerf Tiny closed int8 figure")


def renderables(doc: dict) -> list:
    items = [
        Text(doc["units"]),
        roofs_table(doc),
        whole_table(doc),
        cpu_ops_table(doc),
        per_layer_table(doc),
        reference_table(doc),
    ]
    notes = sorted({r["model_note"] for r in doc["runs"] if r["model_note"]})
    items += [Text(f"built-in networks: {n}") for n in notes]
    above = doc["checks"]["points_above_roof"]
    items.append(
        Text(
            f"NPU points above the NPU roof: {above}"
            + (f" ({', '.join(doc['checks']['above_roof'])})" if above else "")
        )
    )
    return [i for i in items if i is not None]
