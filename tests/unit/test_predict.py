"""`mcuroof predict` from a results.json whose calibration records follow known costs, and that
holds no layer point: the prediction cannot have read a measured layer."""

from __future__ import annotations

import json

import pytest

from factories import run_result
from mcuroof.analysis import cost_model
from mcuroof.cli import main
from mcuroof.kernels.ops import reference, tiles
from mcuroof.model.builtins import builtin_network
from mcuroof.suites import calibration, prediction

PROBE = {"platform": "qemu-m3", "emitters": ["viper", "asm_thumb"], "free": 104688, "float": True, "tick_us": 10}
TRUE = {"call": 40e-6, "row": 5e-6, "pixel": 3e-6, "output": 2e-6, "mac": 0.3e-6}


def _seconds(job) -> float:
    scale = 1 if job.emitter == "asm_thumb" else 4
    t = cost_model.terms(job.layer.op, job.tiles[0].params)
    return scale * sum(v * t[k] for k, v in TRUE.items())


def records() -> list[dict]:
    """What the board would send: every shape's checksum right, its time from TRUE."""
    out = []
    for job in calibration.jobs(PROBE):
        chk = reference.checksum(reference.reference_output(job.layer.op, "int8", job.tiles[0]))
        us = _seconds(job) * 1e6 * 1000
        out.append({"t": "cal", "k": job.layer.index, "em": job.emitter, "ty": "int8", "cand": 0, "r": 1000,
                    "us": us, "med": us, "ovh": 0, "chk": chk, "heap": 100})  # fmt: skip
    return out


@pytest.fixture(scope="module")
def results_file(tmp_path_factory):
    data = run_result("qemu-m3", 1.0, shift=6)  # no points
    data["board"].update(platform="qemu-m3", emitters=PROBE["emitters"], free_heap=PROBE["free"], float=True)
    data["calibration"] = calibration.results_parts(records(), data["board"])["calibration"]
    path = tmp_path_factory.mktemp("r") / "results.json"
    path.write_text(json.dumps(data))
    return path


def test_predict_json_from_results_without_points(results_file, capsys):
    assert main(["predict", "kws-dscnn", "--roofs", str(results_file), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"model", "board", "fit", "whole_model", "layers"}
    assert (doc["model"], doc["board"]) == ("kws-dscnn", "qemu-m3")
    kws = builtin_network("kws-dscnn")
    names = {l.name for l in kws.layers}
    for row in doc["layers"]:
        assert set(row) == {"name", "op", "emitter", "dtype", "seconds", "bound_seconds", "dominant"}
        assert row["name"] in names and row["seconds"] > 0
    for w in doc["whole_model"]:
        assert set(w) == {"emitter", "dtype", "seconds"}
    # asm_thumb has no max pool or add here, but KWS has none: its whole model is its layers' sum
    asm = sum(r["seconds"] for r in doc["layers"] if r["emitter"] == "asm_thumb")
    assert [w["seconds"] for w in doc["whole_model"] if w["emitter"] == "asm_thumb"] == [pytest.approx(asm)]


def test_a_whole_layer_gets_the_known_cost(results_file):
    bd = prediction.board(json.loads(results_file.read_text()))
    dense = next(l for l in builtin_network("kws-dscnn").layers if l.op == "FULLY_CONNECTED")
    job = prediction.plan(bd, dense, "int8", "viper")
    assert job.tiles[0] == tiles.full_tile(dense, "int8") or job.tiles[0].fraction == 1
    got = prediction.layer_time(bd, dense, "int8", "viper")
    assert got["seconds"] == pytest.approx(_seconds(job), rel=1e-6)
    assert got["dominant"].startswith("per MAC")


def test_several_models_make_a_table(results_file, capsys):
    assert main(["predict", "kws-dscnn", "ad-autoencoder", "--roofs", str(results_file), "--emitter", "viper"]) == 0
    out = capsys.readouterr().out
    assert "kws-dscnn" in out and "ad-autoencoder" in out and "viper int8" in out and "asm_thumb" not in out


def test_bad_input_is_one_line(results_file, tmp_path, capsys):
    bare = json.loads(results_file.read_text())
    del bare["calibration"]
    path = tmp_path / "bare.json"
    path.write_text(json.dumps(bare))
    assert main(["predict", "kws-dscnn", "--roofs", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no calibration" in err[0]
    assert main(["predict", "kws-dscnn", "--roofs", str(results_file), "--emitter", "native"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "qemu-m3 has viper, asm_thumb" in err[0]


def test_run_model_puts_the_calibrated_time_beside_the_measured(results_file):
    from mcuroof.report import calibrated, html
    from mcuroof.suites import layers

    data = json.loads(results_file.read_text())
    net = builtin_network("kws-dscnn")
    bd = prediction.board(data)
    pts = []
    for layer in net.layers[:3]:
        want = prediction.layer_time(bd, layer, "int8", "viper")["seconds"]
        pts.append({"index": layer.index, "name": layer.name, "op": layer.op, "emitter": "viper", "dtype": "int8",
                    "seconds": want * 1.25, "verified": True, "projection": "scaled"})  # fmt: skip
    rows = [{"emitter": "viper", "dtype": "int8", "measured_seconds": sum(p["seconds"] for p in pts),
             "borrowed": [], "tiles_left_out": []}]  # fmt: skip
    layers.calibrated(pts, rows, records(), data["roofs"], data["board"], net)
    assert all(p["calibrated_error"] == pytest.approx(1 / 1.25 - 1) for p in pts)
    assert rows[0]["calibrated_error"] == pytest.approx(1 / 1.25 - 1)
    result = {"board": data["board"], "points": pts, "model": {"whole_model": rows}}
    text = [r[0] for r in calibrated.rows(result)]
    assert text[-1] == "whole model" and len(text) == 4
    assert "-20.0%" in html.calibrated_table(result)
    # without calibration records nothing is added
    bare = [dict(p, calibrated_seconds=None) for p in pts]
    layers.calibrated(bare, [], [], data["roofs"], data["board"], net)
    assert all(p["calibrated_seconds"] is None for p in bare)
