"""examples/*.json cannot go stale silently: what `mcuroof report` derives again from a loaded
file (each point's place under its roofs and its advice, the ridges, the whole model) must be
what the file says. `make examples` measures them again with today's code."""

import json
from pathlib import Path

import pytest

from mcuroof.analysis import points as points_mod
from mcuroof.analysis import roofs as roofs_mod
from mcuroof.results import document

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.json"))
AGAIN = "is stale: `make examples` measures it again with today's code"


def test_there_are_examples():
    assert {p.name for p in EXAMPLES} >= {"kws-microbit.json", "vww-unix.json"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_an_example_says_what_todays_analysis_derives_from_it(path):
    stored = json.loads(path.read_text())
    today = document.load(path)  # what `mcuroof report` shows: placed and advised again
    for was, now in zip(stored["points"], today["points"]):
        where = f"{path.name}: layer {was['index']} {was['emitter']}"
        assert (was.get("advice_kind"), was.get("advice")) == (now.get("advice_kind"), now.get("advice")), (
            f"{where}: advice {AGAIN}"
        )
        assert was.get("headroom") == pytest.approx(now.get("headroom"), rel=1e-6), f"{where}: headroom {AGAIN}"
        assert was.get("above_roof") == now.get("above_roof"), f"{where}: above-roof mark {AGAIN}"
    assert stored["ridges"] == roofs_mod.ridges(stored["roofs"]), f"{path.name}: ridges {AGAIN}"
    rows = points_mod.whole_model([p for p in today["points"] if not p.get("user")])
    for was, now in zip(stored["model"]["whole_model"], rows):
        assert (was["emitter"], was["dtype"], was["layers"]) == (now["emitter"], now["dtype"], now["layers"])
        for key in ("predicted_seconds", "measured_seconds"):
            assert was[key] == pytest.approx(now[key], rel=1e-6), f"{path.name}: whole model {key} {AGAIN}"
    assert "fit" in stored["model"], f"{path.name}: no fit verdict {AGAIN}"
