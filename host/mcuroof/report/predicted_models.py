"""`mcuroof predict`'s table of whole models on one board: a row per model and kernel with its
predicted time, its interval and what of the model the time covers."""

from __future__ import annotations

from rich.table import Table

from mcuroof.model import names as layer_names
from mcuroof.report import calibrated
from mcuroof.units import duration


def coverage_text(w: dict) -> str:
    """'11 of 13 layers, 100.0% of MACs; not predicted: RESHAPE 10, SOFTMAX 12 (no kernel)', with
    the layers borrowed from another emitter, stood in for by another family or past their range."""
    c = w["coverage"]
    text = f"{c['layers']} of {c['of_layers']} layers, {c['macs_share']:.1%} of MACs"
    whys: dict[str, list[str]] = {}
    for x in c["left_out"]:
        why = "no kernel" if x["why"] == f"no {x['op']} kernel" else x["why"]
        whys.setdefault(why, []).append(f"{layer_names.short(x)}")
    if whys:
        text += "; not predicted: " + "; ".join(f"{', '.join(v)} ({k})" for k, v in whys.items())
    if w["borrowed"]:
        text += "; from another emitter: " + ", ".join(f"layer {b['index']} ({b['emitter']})" for b in w["borrowed"])
    if c["other_family"]:
        text += f"; {c['other_family']} by another family"
    if c["outside_range"]:
        text += f"; {c['outside_range']} beyond their family's shapes"
    if w.get("interval_why"):
        text += f"; {w['interval_why']}"
    return text


def model_table(docs: list[dict], basis) -> Table:
    """A row per model (report.prediction_document) and kernel."""
    t = Table(title=f"Predicted whole-model latency on {docs[0]['board']}; {basis.sentence}")
    for h in ("model", "kernel", "predicted", "interval (CV)", "coverage"):
        t.add_column(h, justify="right" if h == "predicted" else "left")
    for d in docs:
        for w in d["whole_model"]:
            t.add_row(
                d["model"],
                f"{w['emitter']} {w['dtype']}",
                duration(w["seconds"]),
                calibrated.interval_text(w["interval"]),
                coverage_text(w),
            )
    t.caption = "; ".join(f"{d['model']} {d['fit']}" for d in docs)
    return t
