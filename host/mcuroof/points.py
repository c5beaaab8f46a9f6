"""Per-layer roofline points from layer records: verified, placed under their roofs, advised (advice.py).
Pure computation: nothing here talks to a board or prints.

A point's roofline is its own emitter's: the memory ceiling that emitter reached (the top
memory roof where it has none) and the compute ceiling of its emitter and element type.
"""
from __future__ import annotations

from . import advice as advice_mod
from . import layers as layers_mod
from . import roofs as roofs_mod
from .model import Layer, nelem

ABOVE_ROOF_TOLERANCE = 1.05   # measurement noise allowed before a point counts as above its roof


def layer_bytes(layer: Layer, dtype: str) -> int:
    """Bytes one inference of the layer moves at this element type: activations in and out,
    weights, and int32 (or float32) biases."""
    isz = layers_mod.DTYPES[dtype][1]
    act = sum(nelem(s) for s in layer.inputs) + nelem(layer.output)
    shapes = list(layer.weights)
    weights = sum(nelem(s) for s in shapes[:1]) * isz + sum(nelem(s) for s in shapes[1:]) * 4
    return act * isz + weights


def _memory_roof(roofs: list[dict], emitter: str) -> dict | None:
    own = [r for r in roofs if r["kind"] == "memory" and r["source"] == "measured" and r["emitter"] == emitter]
    return max(own, key=lambda r: r["bytes_per_s"]) if own else roofs_mod.top_memory(roofs)


def _compute_roof(roofs: list[dict], emitter: str, dtype: str) -> dict | None:
    comp = [r for r in roofs if r["kind"] == "compute" and r["source"] == "measured"
            and (emitter is None or r["emitter"] == emitter and r["dtype"] == dtype)]
    return max(comp, key=lambda r: r["macs_per_s"]) if comp else None


def point(job, rec: dict, roofs: list[dict], emitters: list[str], features: frozenset[str] | None = None) -> dict:
    """The point of one layer record (firmware/layers.py) for its layers.Job; `emitters` the
    board's (its probe's), `features` its profile's [core].features (None: not declared)."""
    layer = job.layer
    tile = job.tiles[rec["cand"]] if 0 <= rec.get("cand", -1) < len(job.tiles) else job.tiles[0]
    verified = layers_mod.verify(job, rec)
    seconds = roofs_mod.seconds(rec) / tile.fraction
    moved = layer_bytes(layer, job.dtype)
    oi = layer.macc / moved if moved else 0.0
    p = {"index": layer.index, "name": layer.name, "op": layer.op,
         "input_shapes": [list(s) for s in layer.inputs], "output_shape": list(layer.output), "dtype": job.dtype, "emitter": job.emitter,
         "macc": layer.macc, "bytes": moved, "oi": oi, "seconds": seconds,
         "tile_fraction": tile.fraction, "tile_reason": job.why_tiled, "verified": verified,
         "heap_bytes": rec.get("heap"), "tile_data_bytes": tile.data_bytes(layers_mod.DTYPES[job.dtype][1])}
    return place(p, roofs, emitters, features)


def place(p: dict, roofs: list[dict], emitters: list[str], features: frozenset[str] | None = None) -> dict:
    """Put a point (macc, bytes, oi, seconds, emitter, dtype) under its roofs: achieved rates,
    memory share, bound, attainable roof, headroom and advice. An emitter of None goes under
    the board's top roofs (a user kernel that names none)."""
    seconds, moved, oi = p["seconds"], p["bytes"], p["oi"]
    p["macs_per_s"], p["bytes_per_s"] = p["macc"] / seconds, moved / seconds
    mem, comp = _memory_roof(roofs, p["emitter"]), _compute_roof(roofs, p["emitter"], p["dtype"])
    p["memory_roof"], p["compute_roof"] = (mem["name"] if mem else None), (comp["name"] if comp else None)
    p["memory_share"] = p["bytes_per_s"] / mem["bytes_per_s"] if mem else None
    if p["macc"]:
        by_mem = mem["bytes_per_s"] * oi if mem else float("inf")
        by_comp = comp["macs_per_s"] if comp else float("inf")
        roof = min(by_mem, by_comp)
        p["bound"] = "memory" if by_mem <= by_comp else "compute"
        p["roof_macs_per_s"] = roof if roof != float("inf") else None
        p["headroom"] = roof / p["macs_per_s"] if p["roof_macs_per_s"] else None
    else:
        p["bound"] = "memory"
        p["roof_macs_per_s"] = 0.0
        p["headroom"] = 1 / p["memory_share"] if p["memory_share"] else None
    p["above_roof"] = bool(p["headroom"] and p["headroom"] * ABOVE_ROOF_TOLERANCE < 1)
    p["advice_kind"], p["advice"] = advice_mod.advise(p, roofs, advice_mod.Features(features, tuple(emitters)))
    return p


def whole_model(points: list[dict]) -> list[dict]:
    """Per element type and emitter: predicted latency from the roofline (sum over layers of
    MACC / attainable, or bytes / memory roof for MAC-free layers), measured latency (sum of
    layer times), inferences per second and measured / predicted. Verified points only."""
    out = []
    for key in sorted({(p["dtype"], p["emitter"]) for p in points}):
        pts = [p for p in points if (p["dtype"], p["emitter"]) == key and p["verified"]]
        if not pts:
            continue
        predicted = sum(_predicted(p) for p in pts)
        measured = sum(p["seconds"] for p in pts)
        out.append({"dtype": key[0], "emitter": key[1], "layers": len(pts), "macc": sum(p["macc"] for p in pts),
                    "predicted_seconds": predicted, "measured_seconds": measured,
                    "inferences_per_s": 1 / measured if measured else None,
                    "measured_over_predicted": measured / predicted if predicted else None})
    return out


def _predicted(p: dict) -> float:
    if p["macc"] and p["roof_macs_per_s"]:
        return p["macc"] / p["roof_macs_per_s"]
    if p.get("memory_share"):
        return p["seconds"] * p["memory_share"]   # bytes / memory roof
    return 0.0
