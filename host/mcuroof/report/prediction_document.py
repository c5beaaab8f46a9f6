"""The JSON of `mcuroof predict` for one model on one characterised board: the model, the board,
the fit, each kernel's whole-model time and every layer (predict.predictor's rows, its keys)."""

from __future__ import annotations

from mcuroof.analysis import fit
from mcuroof.analysis.records import LayerPrediction
from mcuroof.board import profiles

LAYER_KEYS = ("name", "op", "emitter", "dtype", "status", "why", "family", "seconds", "interval", "interval_why")
LAYER_KEYS += ("held_out", "pool", "pool_held_out", "ratio", "outside")
WHOLE_KEYS = ("emitter", "dtype", "seconds", "interval", "interval_why", "coverage", "borrowed")


def document(bd, data: dict, net, pred: dict) -> dict:
    """The JSON of one model: model, board, fit, whole_model (with interval and coverage) and every
    layer (status "own", "other" or "none" with why; names as in results.json's points)."""
    board = data.get("board", {})
    verdict = fit.verdict(net, fit.budget(profiles.find(board.get("name")), bd.free_heap))
    return {
        "model": net.name,
        "board": bd.name,
        "fit": verdict.text(),
        "whole_model": [{k: r[k] for k in WHOLE_KEYS} for r in pred["whole_model"]],
        "layers": [layer(r) for r in pred["layers"]],
    }


def layer(r: LayerPrediction) -> dict:
    """A layer's row: LAYER_KEYS, and a timed layer's roofline time and dominant cost term."""
    out = {k: getattr(r, k) for k in LAYER_KEYS}
    return out | ({"bound_seconds": r.bound_seconds, "dominant": r.dominant} if r.timed else {})
