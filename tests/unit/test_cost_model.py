"""The cost model: term counts against hand computation, NNLS against a brute force, and a fit
that recovers known coefficients."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from mcuroof.kernels.ops import tiles
from mcuroof.model.builtins import builtin_network
from mcuroof.predict import cost_model


def test_conv_terms_by_hand():
    # 3x3 input, 2 channels in, 3 out, 3x3 kernel, stride 1, padding 1: every output window
    # is clipped but the centre one. Valid taps per axis: 2, 3, 2 -> 7 per axis, 49 taps.
    p = (3, 3, 2, 3, 3, 3, 3, 3, 1, 1, 1, 1, 5, 6, 0, 0)
    t = cost_model.terms("CONV_2D", p)
    assert t["pixel"] == 9 and t["row"] == 3 and t["output"] == 27
    assert t["tap"] == 49
    assert t["mac"] == 49 * 2 * 3
    assert t["run"] == 7 * 3 * 3  # valid kernel rows (7 over the 3 output rows) x 3 columns x 3 channels
    assert t["border"] == 8 * 3
    # run lengths along a kernel row: 2*2=4, 3*2=6, 2*2=4 elements: below a group of 8, each a
    # group of 4 and 0, 2, 0 single elements
    assert t["quad"] == 7 * 3 * 3 and t["tail"] == 7 * 2 * 3
    assert t["input"] == 18 and t["weight"] == 3 * 9 * 2


def test_dense_and_add_terms_by_hand():
    t = cost_model.terms("FULLY_CONNECTED", (1, 1, 20, 1, 1, 5, 1, 1, 1, 1, 0, 0, 5, 6, 0, 0))
    assert (t["mac"], t["output"], t["run"], t["quad"], t["tail"], t["weight"]) == (100, 5, 5, 5, 0, 100)
    t = cost_model.terms("ADD", (0,) * 12 + (0, 0, 0, 40))
    assert (t["call"], t["output"], t["input"], t["mac"]) == (1, 40, 80, 0)


def test_macs_agree_with_the_tiles_executed_work():
    for name in ("kws-dscnn", "vww-mobilenet", "ic-resnet8"):
        for layer in builtin_network(name).layers:
            if layer.op in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED") and not tiles.unsupported(layer):
                t = tiles.full_tile(layer, "int8")
                assert cost_model.terms(layer.op, t.params)["mac"] == tiles.executed_work(layer, t), layer.name


def test_nnls_matches_a_brute_force():
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(12, 4)), rng.normal(size=12)
    x = cost_model.nnls(a, b)
    assert (x >= 0).all()
    best = min(
        (np.linalg.norm(a[:, list(s)] @ np.linalg.lstsq(a[:, list(s)], b, rcond=None)[0] - b), s)
        for r in range(5)
        for s in itertools.combinations(range(4), r)
        if not s or (np.linalg.lstsq(a[:, list(s)], b, rcond=None)[0] >= 0).all()
    )
    assert np.linalg.norm(a @ x - b) == pytest.approx(best[0], rel=1e-9, abs=1e-12)


def _shapes():
    # rows and columns apart, or the per-call, per-row and per-pixel costs cannot be told apart
    for h, w, c, oc, k in itertools.product((2, 5, 7), (3, 6), (3, 8, 16), (2, 5), (1, 3)):
        pad = k // 2
        yield (h, w, c, h, w, oc, k, k, 1, 1, pad, pad, 5, 6, 0, 0)


def test_fit_recovers_known_coefficients():
    true = {"call": 40e-6, "row": 6e-6, "pixel": 2e-6, "mac": 0.1e-6, "tail": 0.05e-6, "border": 0.3e-6}
    samples = []
    for p in _shapes():
        t = cost_model.terms("CONV_2D", p)
        samples.append((t, sum(true.get(k, 0) * v for k, v in t.items())))
    model = cost_model.fit("asm_thumb/int8/test/conv", samples)
    assert model.worst_fit < 1e-6
    for k, v in model.coefficients.items():
        assert v == pytest.approx(true.get(k, 0.0), abs=1e-12), k
    # a layer bigger than every shape it was fitted on
    big = cost_model.terms("CONV_2D", (25, 5, 64, 25, 5, 64, 3, 3, 1, 1, 1, 1, 5, 6, 0, 0))
    assert model.seconds(big) == pytest.approx(sum(true.get(k, 0) * v for k, v in big.items()), rel=1e-9)


def test_no_coefficient_is_negative_and_dominant_names_the_largest_share():
    rng = np.random.default_rng(5)
    samples = [(cost_model.terms("CONV_2D", p), float(rng.uniform(1e-4, 1e-3))) for p in _shapes()]
    model = cost_model.fit("x", samples)
    assert all(v >= 0 for v in model.coefficients.values())
    m = cost_model.Model("y", {"call": 1.0, "mac": 0.01}, 2, 0.0)
    assert m.dominant({"call": 1, "mac": 300}) == ("mac", pytest.approx(0.75))
    assert cost_model.describe("row", 0.6) == "per output row: 60%"
    assert cost_model.Model.from_dict(m.as_dict()) == m


def test_viper_depthwise_window_paths_by_hand():
    # 3x3 SAME on 4x4: every window is 2x2 (corners), 2x3 or 3x2 (edges) or 3x3: one expression
    # each, with 4*4 + 8*6 + 4*9 = 100 taps; OC = 5 channels
    p = (4, 4, 5, 4, 4, 5, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0)
    t = cost_model.window_paths(p)
    assert (t["expr_output"], t["expr_tap"], t["row3"], t["single_tap"], t["tap_row"]) == (80, 500, 0, 0, 0)
    # 3x3 SAME on a 1x4 row: windows 1x2, 1x3, 1x3, 1x2 go row by row: two 3-wide rows, two
    # rows of 2 single taps
    p = (1, 4, 5, 1, 4, 5, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0)
    t = cost_model.window_paths(p)
    assert (t["expr_output"], t["row3"], t["single_tap"], t["tap_row"]) == (0, 10, 20, 10)
    # 5x5 VALID on 5x5: one window, 5 rows of 5 single taps
    p = (5, 5, 2, 1, 1, 2, 5, 5, 1, 1, 0, 0, 0, 0, 0, 0)
    t = cost_model.window_paths(p)
    assert (t["expr_output"], t["row3"], t["single_tap"], t["tap_row"]) == (0, 0, 50, 10)


def test_working_sets_past_the_caches_pay_their_own_cost():
    caches = (32 * 1024, 1024 * 1024)
    assert cost_model.level_terms(100, 1000, caches) == {"spill": 0.0, "spill_last": 0.0}
    assert cost_model.level_terms(100, 64 * 1024, caches) == {"spill": 100, "spill_last": 0.0}
    assert cost_model.level_terms(100, 4 << 20, caches) == {"spill": 100, "spill_last": 100}
    assert cost_model.level_terms(100, 4 << 20, ()) == {}
    # MACs cost 1 ns in L1, 1.5 ns past it, 3 ns past the last cache: the fit finds the steps
    samples = []
    for macs, ws in ((1e4, 8e3), (5e4, 2e4), (2e5, 1e5), (1e6, 5e5), (3e6, 2e6), (8e6, 6e6), (4e5, 3e4), (2e6, 3e6)):
        t = {"call": 1.0, "mac": macs, **cost_model.level_terms(macs, ws, caches)}
        samples.append((t, 1e-5 + macs * (1e-9 + 0.5e-9 * t["spill"] / macs + 1.5e-9 * t["spill_last"] / macs)))
    m = cost_model.fit("f", samples)
    assert m.coefficients["spill"] == pytest.approx(0.5e-9, rel=1e-3)
    assert m.coefficients["spill_last"] == pytest.approx(1.5e-9, rel=1e-3)


def _dense_samples():
    # a dense layer pays call, row, pixel and tap once, output and run OC times, mac and weight
    # C*OC times: no dense shape tells those apart
    true = {"call": 30e-6, "output": 2e-6, "mac": 0.2e-6, "input": 0.1e-6, "tail": 0.05e-6}
    out = []
    for c, oc in itertools.product((8, 13, 30, 64, 101), (2, 7, 16)):
        t = cost_model.terms("FULLY_CONNECTED", (1, 1, c, 1, 1, oc, 1, 1, 1, 1, 0, 0, 5, 6, 0, 0))
        out.append((t, sum(true.get(k, 0) * v for k, v in t.items())))
    return out


def test_terms_no_shape_tells_apart_are_fitted_as_one():
    samples = _dense_samples()
    m = cost_model.fit("asm_thumb/int8/test/dense", samples)
    assert m.merged == {"call": ["row", "pixel", "tap"], "output": ["run"], "mac": ["weight"]}
    assert not {"row", "pixel", "tap", "run", "weight"} & set(m.coefficients)
    assert m.coefficients["mac"] == pytest.approx(0.2e-6, rel=1e-9)
    assert cost_model.describe("mac", 0.8, m.merged) == "per MAC = per weight element: 80%"
    assert cost_model.Model.from_dict(m.as_dict()) == m


def test_the_same_timed_shapes_give_the_same_coefficients():
    # real times: no exact fit, so a tie between terms would be broken by rounding
    rng = np.random.default_rng(11)
    samples = [(t, s * float(rng.uniform(0.9, 1.1))) for t, s in _dense_samples()]
    first = cost_model.fit("f", samples)
    order = rng.permutation(len(samples))
    permuted = cost_model.fit("f", [samples[i] for i in order])
    assert permuted.coefficients == first.coefficients  # bit for bit
    assert permuted.cv_log_errors == first.cv_log_errors
    noised = cost_model.fit("f", [(t, s * (1 + 1e-12 * float(rng.standard_normal()))) for t, s in samples])
    assert noised.coefficients.keys() == first.coefficients.keys()
    for k, v in first.coefficients.items():
        assert noised.coefficients[k] == pytest.approx(v, rel=1e-6, abs=1e-18), k
