"""Layer profiling: counts by hand, the numpy reference against hand-written loops, tiling, and
every layer kernel run on the real MicroPython unix port and checked against the reference."""

import numpy as np
import pytest

from mcuroof.analysis import points
from mcuroof.kernels.ops import contract, dispatch, layer_plan, reference, tiles
from mcuroof.model import builtins
from mcuroof.model.network import Layer


def conv_layer(**kw):
    base = dict(
        index=0,
        name="conv",
        op="CONV_2D",
        dtype="int8",
        inputs=((1, 9, 7, 3),),
        output=(1, 5, 4, 6),
        weights=((6, 3, 3, 3), (6,)),
        kernel=(3, 3),
        stride=(2, 2),
        padding="same",
        activation="NONE",
        macc=5 * 4 * 6 * 27,
    )
    base.update(kw)
    return Layer(**base)


def test_generator_matches_the_firmware_formula_by_hand():
    # s = (s * 75 + 74) % 65537 from s = 1: 149, 11249, 57305 -> s % 15 - 7
    assert list(reference.lcg(3, 1)) == [7, 7, -2]
    assert list(reference.biases(2)) == [(((3 * 75 + 74) % 65537) % 129) - 64, (((299 * 75 + 74) % 65537) % 129) - 64]


def test_layer_bytes_and_intensity_by_hand():
    kws = builtins.builtin_network("kws-dscnn")
    conv0 = kws.layers[0]  # 49x10x1 in, 25x5x64 out, 64 filters of 10x4x1, int32 biases
    assert points.layer_bytes(conv0, "int8") == 490 + 8000 + 64 * 40 + 64 * 4
    assert points.layer_bytes(conv0, "float32") == 4 * (490 + 8000 + 64 * 40) + 64 * 4
    assert conv0.macc == 25 * 5 * 64 * 10 * 4


def test_tile_geometry_and_fraction_by_hand():
    conv0 = builtins.builtin_network("kws-dscnn").layers[0]
    t = tiles.tile(conv0, "int8", 5, 5, 64)
    # SAME padding: total (25-1)*2+10-49 = 9 rows, 4 on top; output rows 0..4 need input rows 0..13
    assert t.params[:12] == (14, 10, 1, 5, 5, 64, 10, 4, 2, 2, 4, 1)
    assert t.fraction == pytest.approx(5 * 5 * 64 / (25 * 5 * 64))
    assert (t.nx, t.nw, t.no, t.nb) == (14 * 10, 64 * 40, 5 * 5 * 64, 64)


def hand_conv(x, w, b, stride, pads, out_hw):
    """Direct loops, written apart from layers.py: x HWC, w OHWI, zero padding."""
    (h, wd, _), (oc, kh, kw, _) = x.shape, w.shape
    out = np.zeros((*out_hw, oc), dtype=np.int64)
    for oy in range(out_hw[0]):
        for ox in range(out_hw[1]):
            for o in range(oc):
                acc = b[o]
                for ky in range(kh):
                    for kx in range(kw):
                        y, xx = oy * stride - pads[0] + ky, ox * stride - pads[1] + kx
                        if 0 <= y < h and 0 <= xx < wd:
                            acc += int(np.dot(x[y, xx], w[o, ky, kx]))
                out[oy, ox, o] = acc
    return out


def test_reference_conv_equals_hand_loops_with_requantization():
    layer = conv_layer()
    t = tiles.tile(layer, "int8", 5, 4, 6)
    x = reference.lcg(t.nx, 1).reshape(9, 7, 3)
    w = reference.lcg(t.nw, 2).reshape(6, 3, 3, 3)
    acc = hand_conv(x, w, reference.biases(6), 2, (1, 1), (5, 4))
    m, s = t.params[12], t.params[13]
    want = np.clip((acc * m) >> s, -128, 127).reshape(-1)
    assert np.array_equal(reference.reference_output("CONV_2D", "int8", t), want)
    assert reference.checksum(want) == sum(int(v) * (i % 7 + 1) for i, v in enumerate(want))


def test_reference_depthwise_and_pools_by_hand():
    dw = conv_layer(
        op="DEPTHWISE_CONV_2D",
        output=(1, 5, 4, 3),
        weights=((1, 3, 3, 3), (3,)),
        depth_multiplier=1,
        activation="RELU",
        macc=5 * 4 * 3 * 9,
    )
    t = tiles.tile(dw, "float32", 5, 4, 3)
    x = reference.lcg(t.nx, 1).reshape(9, 7, 3) * 0.125
    w = reference.lcg(t.nw, 2).reshape(3, 3, 3) * 0.125
    b = reference.biases(3) * 0.125
    got = reference.reference_output("DEPTHWISE_CONV_2D", "float32", t).reshape(5, 4, 3)
    for oy, ox, c in [(0, 0, 0), (2, 1, 2), (4, 3, 1)]:
        acc = b[c] + sum(
            x[oy * 2 - 1 + ky, ox * 2 - 1 + kx, c] * w[ky, kx, c]
            for ky in range(3)
            for kx in range(3)
            if 0 <= oy * 2 - 1 + ky < 9 and 0 <= ox * 2 - 1 + kx < 7
        )
        assert got[oy, ox, c] == pytest.approx(max(acc, 0.0))
    pool = conv_layer(op="AVERAGE_POOL_2D", output=(1, 5, 4, 3), weights=(), macc=0)
    t = tiles.tile(pool, "int8", 5, 4, 3)
    x = reference.lcg(t.nx, 1).reshape(9, 7, 3)
    got = reference.reference_output("AVERAGE_POOL_2D", "int8", t).reshape(5, 4, 3)
    taps = [x[y, xx, 1] for y in (0, 1) for xx in (0, 1)]  # corner window: 2x2 valid taps of 3x3
    assert got[0, 0, 1] == sum(taps) // 4


def test_a_wrong_checksum_is_not_verified():
    job = layer_plan.plan_layer(conv_layer(), "int8", "bytecode", 1 << 20, None)
    want = reference.checksum(reference.reference_output("CONV_2D", "int8", job.tiles[0]))
    assert reference.verify(job, {"cand": 0, "chk": want})
    assert not reference.verify(job, {"cand": 0, "chk": want + 1})
    assert not reference.verify(job, {"cand": 7, "chk": want})


def test_every_kws_layer_gets_a_tile_in_the_microbit_heap():
    kws = builtins.builtin_network("kws-dscnn")
    jobs, skipped = layer_plan.plan(
        kws, ["int8", "float32"], ["bytecode", "asm_thumb"], heap=3184, max_work={("bytecode", "int8"): 4000}
    )
    planned = {(j.layer.index, j.dtype, j.emitter) for j in jobs}
    for layer in kws.layers:
        if layer.op in contract.OPS:
            assert (layer.index, "int8", "bytecode") in planned and (layer.index, "float32", "bytecode") in planned
    assert {s["op"] for s in skipped} == {"RESHAPE", "SOFTMAX"}
    for job in jobs:
        assert all(t.heap_bytes(layer_plan.DTYPES[job.dtype][1]) <= 3184 for t in job.tiles)
        if job.key.startswith("layers/bytecode/int8"):
            assert job.layer.macc * job.tiles[0].fraction <= 4000


def test_points_bound_headroom_and_the_above_roof_flag():
    layer = conv_layer()
    job = layer_plan.plan_layer(layer, "int8", "bytecode", 1 << 20, None)
    chk = reference.checksum(reference.reference_output("CONV_2D", "int8", job.tiles[0]))
    roofs = [
        {"kind": "memory", "role": "roof", "source": "measured", "name": "memory", "emitter": "c", "bytes_per_s": 1e6},
        {
            "kind": "compute",
            "role": "roof",
            "source": "measured",
            "name": "int8 bytecode",
            "emitter": "bytecode",
            "dtype": "int8",
            "macs_per_s": 1e5,
        },
    ]
    rec = {"cand": 0, "chk": chk, "us": 100000, "ovh": 0, "r": 1, "heap": 500}  # 0.1 s per call
    p = points.point(job, [rec], roofs, ["bytecode"])
    # placed by executed MACs: 13 valid row taps x 10 valid column taps x 3 x 6 (by hand)
    assert p["verified"] and p["macc_executed"] == 2340 and p["macs_per_s"] == pytest.approx(2340 / 0.1)
    assert p["oi"] == pytest.approx(2340 / (189 + 120 + 162 + 6 * 4))  # 9x7x3 in, 5x4x6 out, 6x3x3x3 + int32 biases
    assert p["bound"] == "compute" and p["roof_macs_per_s"] == 1e5
    assert p["headroom"] == pytest.approx(1e5 / 23400) and not p["above_roof"]
    fast = points.point(job, [{**rec, "us": 1000}], roofs, ["bytecode"])  # 100x faster: above the roof
    assert fast["above_roof"] and fast["advice"].startswith("ABOVE ITS ROOF")
    model_rows = points.whole_model([p])
    assert model_rows[0]["predicted_seconds"] == pytest.approx(2340 / 1e5)
    assert model_rows[0]["measured_seconds"] == pytest.approx(0.1)


def test_the_report_names_a_point_above_its_roof_and_the_plot_draws_it(tmp_path):
    from rich.console import Console

    from mcuroof.report import plot
    from mcuroof.report import tables as report

    job = layer_plan.plan_layer(conv_layer(), "int8", "bytecode", 1 << 20, None)
    chk = reference.checksum(reference.reference_output("CONV_2D", "int8", job.tiles[0]))
    roofs = [
        {
            "kind": "compute",
            "role": "roof",
            "source": "measured",
            "name": "int8 bytecode",
            "emitter": "bytecode",
            "dtype": "int8",
            "macs_per_s": 1e5,
        }
    ]
    above = points.point(job, [{"cand": 0, "chk": chk, "us": 1000, "ovh": 0, "r": 1, "heap": 500}], roofs, [])
    result = {
        "board": {"name": "t"},
        "roofs": roofs,
        "points": [above],
        "model": {
            "name": "m",
            "macc": 3240,
            "peak_memory_bytes": 1,
            "peak_memory_layer": 0,
            "measured_peak_heap_bytes": 500,
            "not_profiled": [],
            "whole_model": points.whole_model([above]),
        },
    }
    console = Console(record=True, width=200)
    for item in report.renderables(result):
        console.print(item)
    text = console.export_text()
    assert "ABOVE ROOF" in text and "1 point(s) ABOVE their roof" in text and "Whole model: m" in text
    assert plot.draw(result, tmp_path / "p.png").exists()


def test_each_kws_layer_gets_its_asm_thumb_kernel():
    kws = builtins.builtin_network("kws-dscnn")
    jobs, _ = layer_plan.plan(kws, ["int8"], ["asm_thumb"], heap=3184)
    routine = {
        j.layer.index: next(r for r in ("rows", "dwpix", "srow", "dot", "apool") if f"def {r}(" in dispatch.script(j))
        for j in jobs
    }
    assert routine == {
        0: "srow",
        1: "dwpix",
        2: "rows",
        3: "dwpix",
        4: "rows",
        5: "dwpix",
        6: "rows",
        7: "dwpix",
        8: "rows",
        9: "apool",
        11: "rows",
    }
