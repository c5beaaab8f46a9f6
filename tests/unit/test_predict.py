"""`mcuroof predict` from a results.json whose calibration records follow known costs, and that
holds no layer point: the prediction cannot have read a measured layer."""

from __future__ import annotations

import dataclasses
import json

import pytest

from factories import run_result
from mcuroof.cli import main
from mcuroof.kernels.ops import reference, tiles
from mcuroof.model.builtins import BUILTINS, Spec, builtin_network
from mcuroof.predict import cost_model, predictor
from mcuroof.suites import calibration

PROBE = {"platform": "qemu-m3", "emitters": ["viper", "asm_thumb"], "free": 104688, "float": True, "tick_us": 10}
TRUE = {"call": 40e-6, "row": 5e-6, "pixel": 3e-6, "output": 2e-6, "mac": 0.3e-6}


def _seconds(job) -> float:
    scale = 1 if job.emitter == "asm_thumb" else 4
    t = cost_model.terms(job.layer.op, job.tiles[0].params)
    return scale * sum(v * t[k] for k, v in TRUE.items())


def records(probe: dict = PROBE) -> list[dict]:
    """What the board would send: every shape's checksum right, its time from TRUE."""
    out = []
    for job in calibration.jobs(probe):
        chk = reference.checksum(reference.reference_output(job.layer.op, job.dtype, job.tiles[0]))
        us = _seconds(job) * 1e6 * 1000
        out.append({"t": "cal", "k": job.layer.index, "em": job.emitter, "ty": job.dtype, "cand": 0, "r": 1000,
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
    # every layer has a row per emitter: predicted (with a time) or not, and why
    assert len(doc["layers"]) == len(kws.layers) * 2
    for row in doc["layers"]:
        assert {"name", "op", "emitter", "dtype", "status", "why", "family", "seconds", "interval"} <= set(row)
        assert row["name"] in names
        assert (row["seconds"] > 0) if row["status"] != "none" else (row["seconds"] is None and row["why"])
    for w in doc["whole_model"]:
        assert set(w) == {"emitter", "dtype", "seconds", "interval", "interval_why", "coverage", "borrowed"}
        assert w["coverage"]["of_layers"] == len(kws.layers)
    # asm_thumb has no max pool or add here, but KWS has none: its whole model is its layers' sum
    asm = sum(r["seconds"] or 0 for r in doc["layers"] if r["emitter"] == "asm_thumb")
    assert [w["seconds"] for w in doc["whole_model"] if w["emitter"] == "asm_thumb"] == [pytest.approx(asm)]


def test_a_whole_layer_gets_the_known_cost(results_file):
    bd = predictor.board(json.loads(results_file.read_text()))
    dense = next(l for l in builtin_network("kws-dscnn").layers if l.op == "FULLY_CONNECTED")
    job = predictor.plan(bd, dense, "int8", "viper")
    assert job.tiles[0] == tiles.full_tile(dense, "int8") or job.tiles[0].fraction == 1
    got = predictor.layer_time(bd, dense, "int8", "viper")
    assert got["seconds"] == pytest.approx(_seconds(job), rel=1e-6)
    # a dense layer's MACs and weights are one count (C x OC): the fit may put the cost on either
    assert got["dominant"].startswith(("per MAC", "per weight element"))


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
    from mcuroof.report import calibrated
    from mcuroof.report import html_tables as html
    from mcuroof.suites import layers

    data = json.loads(results_file.read_text())
    net = builtin_network("kws-dscnn")
    bd = predictor.board(data)
    pts = []
    for layer in net.layers[:3]:
        want = predictor.layer_time(bd, layer, "int8", "viper")["seconds"]
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


# float32: the Python emitters' kernels only (viper and asm_thumb have none), on an FPU core
FLOAT_PROBE = {**PROBE, "emitters": ["bytecode", "viper"], "cpu": [0x411FC270, 0x01100110, 0x10110021]}


def _float_results(tmp_path, probe: dict, recs: list[dict]) -> dict:
    data = run_result("qemu-m7", 1.0, shift=6)
    data["board"].update(platform="qemu-m7", emitters=probe["emitters"], free_heap=probe["free"], float=True,
                         cpu=probe["cpu"])  # fmt: skip
    data["calibration"] = calibration.results_parts(recs, data["board"])["calibration"]
    return data


def test_float32_shapes_make_float32_families(tmp_path):
    jobs = calibration.jobs(FLOAT_PROBE)
    floats = [j for j in jobs if j.dtype == "float32"]
    assert floats and {j.emitter for j in floats} == {"bytecode"}
    assert [j for j in jobs if j.dtype == "int8"] == calibration.jobs({**FLOAT_PROBE, "float": False})
    data = _float_results(tmp_path, FLOAT_PROBE, records(FLOAT_PROBE))
    fams = {f["family"]: f for f in data["calibration"]["families"]}
    mine = [f for f in fams if f.split("/")[1] == "float32"]
    assert mine and all(f.startswith("bytecode/float32/generic/") for f in mine)
    assert {f.rsplit("/", 1)[1] for f in mine} >= {"conv1x1", "conv", "dw3", "dense", "avgpool", "add"}
    assert all(fams[f]["worst_fit"] < 1e-6 for f in mine)  # the costs they were made with
    assert data["calibration"]["shapes_verified"] == len(jobs)


def test_a_float32_shape_with_a_wrong_checksum_is_not_fitted(tmp_path):
    recs = records(FLOAT_PROBE)
    bad = [dict(r, chk=r["chk"] + 1e6) if r["ty"] == "float32" else r for r in recs]
    data = _float_results(tmp_path, FLOAT_PROBE, bad)
    assert not [f for f in data["calibration"]["families"] if "/float32/" in f["family"]]
    assert data["calibration"]["shapes_failed"] == len([r for r in recs if r["ty"] == "float32"])


def _float_net():
    net = builtin_network("kws-dscnn")
    return dataclasses.replace(net, layers=tuple(dataclasses.replace(l, dtype="float32") for l in net.layers))


def test_float32_predicted_from_float32_families(tmp_path):
    data = _float_results(tmp_path, FLOAT_PROBE, records(FLOAT_PROBE))
    bd = predictor.board(data)
    assert predictor.calibrated(bd, "float32") and predictor.calibrated(bd, "int8")
    got = predictor.network(bd, _float_net(), ["float32"])
    assert got["layers"] and {r.kernel for r in got["layers"]} == {("bytecode", "float32")}
    assert [(w["emitter"], w["dtype"]) for w in got["whole_model"]] == [("bytecode", "float32")]
    dense = next(l for l in _float_net().layers if l.op == "FULLY_CONNECTED")
    assert predictor.layer_time(bd, dense, "float32", "bytecode")["family"] == "bytecode/float32/generic/dense"
    # run --model: a float32 point gets its float32 prediction beside the measured time
    from mcuroof.suites import layers

    want = predictor.layer_time(bd, dense, "float32", "bytecode")["seconds"]
    pts = [{"index": dense.index, "name": dense.name, "op": dense.op, "emitter": "bytecode", "dtype": "float32",
            "seconds": want * 2, "verified": True, "projection": "scaled"}]  # fmt: skip
    rows = [{"emitter": "bytecode", "dtype": "float32", "measured_seconds": want * 2, "borrowed": []}]
    layers.calibrated(pts, rows, records(FLOAT_PROBE), data["roofs"], data["board"], _float_net())
    assert pts[0]["calibrated_error"] == pytest.approx(-0.5) and rows[0]["calibrated_error"] == pytest.approx(-0.5)


def test_float32_from_a_calibration_without_float32_is_one_line(results_file, tmp_path, capsys):
    # results_file's board has viper and asm_thumb only: no float32 kernel at all
    assert main(["predict", "kws-dscnn", "--roofs", str(results_file), "--dtype", "float32"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "viper, asm_thumb have no float32 layer kernel" in err[0]
    # a board with bytecode calibrated before the float32 shapes: its int8 families only
    data = _float_results(tmp_path, FLOAT_PROBE, records(FLOAT_PROBE))
    data["calibration"]["families"] = [f for f in data["calibration"]["families"] if "/float32/" not in f["family"]]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    for dtype in ("float32", "int8,float32"):
        assert main(["predict", "kws-dscnn", "--roofs", str(old), "--dtype", dtype]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "no float32 family: calibrated before the float32 shapes" in err[0]
    assert main(["predict", "kws-dscnn", "--roofs", str(old), "--json"]) == 0  # int8 still predicted
    assert {w["dtype"] for w in json.loads(capsys.readouterr().out)["whole_model"]} == {"int8"}
    assert main(["predict", "kws-dscnn", "--roofs", str(results_file), "--dtype", "float16"]) == 2
    assert "unknown float16" in capsys.readouterr().err


def test_the_default_dtype_is_the_models_own(tmp_path, capsys, monkeypatch):
    from mcuroof.commands import predict

    data = _float_results(tmp_path, FLOAT_PROBE, records(FLOAT_PROBE))
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))
    monkeypatch.setattr(predict, "load_network", lambda m: _float_net() if m == "f32" else builtin_network(m))
    for models, dtype, want in ((["f32"], None, {"float32"}), (["kws-dscnn"], None, {"int8"}),
                                (["f32"], "int8,float32", {"int8", "float32"})):  # fmt: skip
        assert main(["predict", *models, "--roofs", str(path), "--json"] + (["--dtype", dtype] if dtype else [])) == 0
        doc = json.loads(capsys.readouterr().out)
        assert {w["dtype"] for w in doc["whole_model"]} == want and {r["dtype"] for r in doc["layers"]} == want


# a 24x24x8 network whose two 7x7 depthwise layers hold most of its MACs (issue 30's example)
DW7 = [
    Spec("CONV_2D", (24, 24, 16), (1, 1), 1, "RELU"),
    Spec("DEPTHWISE_CONV_2D", (24, 24, 16), (7, 7), 1, "RELU"),
    Spec("DEPTHWISE_CONV_2D", (12, 12, 16), (7, 7), 2, "RELU"),
    Spec("CONV_2D", (12, 12, 8), (1, 1), 1, "RELU"),
    Spec("AVERAGE_POOL_2D", (1, 1, 8), (12, 12), 12, pad="valid"),
    Spec("RESHAPE", (8,)),
    Spec("FULLY_CONNECTED", (4,)),
]


@pytest.fixture
def dw7(monkeypatch):
    monkeypatch.setitem(BUILTINS, "dw7", ((24, 24, 8), DW7, "test network"))
    return builtin_network("dw7")


def test_every_layer_is_accounted_for(results_file, dw7):
    data = json.loads(results_file.read_text())
    bd = predictor.board(data)
    got = predictor.network(bd, dw7, ["int8"])
    for em in ("viper", "asm_thumb"):
        rows = {r.index: r for r in got["layers"] if r.emitter == em}
        assert sorted(rows) == [l.index for l in dw7.layers]  # none dropped
        assert rows[1].status == rows[2].status == "own" and rows[1].family.endswith("/dw")
        assert rows[5].status == "none" and "RESHAPE" in rows[5].why
        whole = next(w for w in got["whole_model"] if w["emitter"] == em)
        cov = whole["coverage"]
        assert (cov["layers"], cov["of_layers"]) == (6, 7) and cov["macs_share"] == pytest.approx(1.0)
        assert [x["op"] for x in cov["left_out"]] == ["RESHAPE"]


def test_a_family_without_shapes_is_stood_in_for_or_left_out_by_name(results_file, dw7):
    data = json.loads(results_file.read_text())
    data["calibration"]["families"] = [
        f for f in data["calibration"]["families"] if f["family"] != "viper/int8/generic/dw"
    ]
    bd = predictor.board(data)
    row = predictor.layer_time(bd, dw7.layers[1], "int8", "viper")
    assert row["status"] == "other" and row["family"] == "viper/int8/generic/dw3" and "dw3" in row["why"]
    data["calibration"]["families"] = [f for f in data["calibration"]["families"] if "/dw" not in f["family"]]
    bd = predictor.board(data)
    row = predictor.layer_time(bd, dw7.layers[1], "int8", "viper")
    assert row["status"] == "none" and "viper/int8/generic/dw has no calibrated shape" in row["why"]
    got = predictor.network(bd, dw7, ["int8"], ["viper"])
    cov = got["whole_model"][0]["coverage"]
    macs = sum(l.macc for l in dw7.layers)
    assert cov["layers"] == 4 and cov["macs_share"] == pytest.approx(
        1 - (dw7.layers[1].macc + dw7.layers[2].macc) / macs
    )
    from mcuroof.report.predicted_models import coverage_text

    text = coverage_text(got["whole_model"][0])
    assert text.startswith("4 of 7 layers") and "not predicted: DW 1, DW 2 (viper/int8/generic/dw has no" in text


def test_predict_json_carries_intervals_and_coverage(results_file, capsys):
    assert main(["predict", "kws-dscnn", "--roofs", str(results_file), "--json", "--emitter", "viper"]) == 0
    doc = json.loads(capsys.readouterr().out)
    w = doc["whole_model"][0]
    assert w["coverage"]["of_layers"] == len(builtin_network("kws-dscnn").layers)
    lo, hi = w["interval"]
    assert lo <= w["seconds"] <= hi


def test_one_model_on_many_boards_is_one_table(results_file, tmp_path, capsys):
    other = json.loads(results_file.read_text())
    other["board"]["name"] = "qemu-m3-twin"
    twin = tmp_path / "twin.json"
    twin.write_text(json.dumps(other))
    argv = ["predict", "kws-dscnn", "--roofs", str(results_file), str(twin), "--board", "pico2", "--json"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["board"] for r in rows} == {"qemu-m3", "qemu-m3-twin", "pico2"}
    assert all(set(r) >= {"board", "emitter", "dtype", "seconds", "unit", "fits", "best"} for r in rows)
    bound = [r for r in rows if r["board"] == "pico2"]
    assert [r["kind"] for r in bound] == ["bound"] and not bound[0]["best"] and "150 MHz" in bound[0]["unit"]
    # the twins' times compare (both QEMU instruction time): one best among their predictions
    assert sum(r["best"] for r in rows) == 1
    assert main(argv[:-1]) == 0
    out = " ".join(capsys.readouterr().out.split())  # as read, whatever the terminal's width wrapped
    # a narrow terminal may cut the cell "[2]; a bound, not a prediction" short, never its start
    assert "a bound" in out and "never across" in out
    assert main(["predict", "kws-dscnn", "--board", "nosuchboard"]) == 2
    assert "unknown board 'nosuchboard'" in capsys.readouterr().err


def test_the_roofline_bound_by_hand():
    from mcuroof.predict import bound

    net = builtin_network("ad-autoencoder")
    dense = net.layers[0]  # 640 -> 128: 81,920 MACs
    one = dataclasses.replace(net, layers=(dense,))
    roofs = [{"kind": "compute", "dtype": "int8", "macs_per_s": 1e6}, {"kind": "memory", "bytes_per_s": 1e9}]
    assert bound.roofline_seconds(one, "int8", roofs) == pytest.approx(81920 / 1e6)  # compute-bound
    slow_memory = [roofs[0], {"kind": "memory", "bytes_per_s": 1e3}]
    # 640 + 128 activations, 81,920 int8 weights, 128 int32 biases: 83,200 bytes
    assert bound.roofline_seconds(one, "int8", slow_memory) == pytest.approx(83200 / 1e3)
    assert bound.roofline_seconds(one, "float32", roofs) is None  # no float32 ceiling


def test_an_npu_estimate_is_a_row_never_compared(results_file, capsys):
    pytest.importorskip("ethosu.vela")
    assert main(["predict", "kws-dscnn", "--roofs", str(results_file), "--npu", "ethos-u55-128", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    npu = [r for r in rows if r["kind"] == "estimate"]
    assert len(npu) == 1 and "estimated by Vela, not measured" in npu[0]["unit"] and not npu[0]["best"]
    assert npu[0]["seconds"] > 0 and sum(r["best"] for r in rows) == 1  # the QEMU rows' best only
