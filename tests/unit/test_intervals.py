"""Every rule of a prediction's interval against hand-worked values: the conformal quantile, the
leave-one-out, the penalty of a shape predicted at no time, the range check and its widening,
and the whole-model combination (predict.cost_model, predict.intervals)."""

from __future__ import annotations

import math

import pytest

from mcuroof.predict import cost_model, intervals
from mcuroof.predict.cost_model import Model


def test_the_conformal_rank_is_ceil_n_plus_1_times_0_9():
    # (n+1)(1-0.1): 9 -> 9.0, 10 -> 9.9, 19 -> 18.0, 20 -> 18.9
    assert [cost_model.conformal_rank(n) for n in (8, 9, 10, 19, 20)] == [9, 9, 10, 18, 19]
    assert cost_model.min_held_out() == 9
    errs = [-(k / 100) if k % 2 else k / 100 for k in range(1, 20)]  # |e| = 0.01 .. 0.19
    assert cost_model.conformal(errs) == pytest.approx(0.18)  # the 18th smallest of 19
    assert cost_model.conformal(errs[:9]) == pytest.approx(0.09)  # 9 of 9: the largest
    assert cost_model.conformal(errs[:8]) is None  # rank 9 of 8: no such error


def test_a_family_interval_is_its_conformal_error_at_least_the_floor_and_says_n():
    m = Model("f", {"call": 1.0}, 9, 0.0, tuple(k / 100 for k in range(1, 10)))
    lo, hi = m.interval(2.0)
    assert (lo, hi) == (pytest.approx(2 * math.exp(-0.09)), pytest.approx(2 * math.exp(0.09)))
    assert m.cv_summary()["rank"] == 9 and m.cv_summary()["held_out"] == 9
    exact = Model("f", {"call": 1.0}, 9, 0.0, (0.0,) * 9)
    assert exact.spread == cost_model.CV_FLOOR  # log 1.01
    few = Model("f", {"call": 1.0}, 8, 0.0, (0.0,) * 8)
    iv, why = intervals.layer_interval(few, 1.0, 1.0, None, "int8")
    assert iv is None and why == "8 held-out shapes: a 90% interval needs 9"


def test_leave_one_out_by_hand():
    # t = call + mac * m: shapes m = 1, 2, 4 timed 2, 3, 6. Left out m=1: (2,3), (4,6) give
    # mac 1.5, call 0, so 1.5 for 2; m=2: (1,2), (4,6) give call 2/3, mac 4/3, 10/3 for 3;
    # m=4: (1,2), (2,3) give call 1, mac 1, 5 for 6
    samples = [({"call": 1, "mac": m}, s) for m, s in ((1, 2.0), (2, 3.0), (4, 6.0))]
    errs = cost_model.cross_validate(["call", "mac"], samples)
    assert errs == pytest.approx((math.log(1.5 / 2), math.log(10 / 9), math.log(5 / 6)))


def test_a_held_out_shape_predicted_at_no_time_counts_as_100x_off():
    # the last shape alone pays `output`: the others' fit gives it no time
    samples = [({"call": 1, "mac": m}, 1.0 + m) for m in (1, 2, 3)] + [({"output": 5}, 1.0)]
    errs = cost_model.cross_validate(["call", "mac", "output"], samples)
    assert errs[3] == pytest.approx(-math.log(100))
    assert errs[:3] == pytest.approx((0, 0, 0), abs=1e-9)


def test_the_range_check_is_the_largest_ratio_past_either_end():
    m = Model("f", {}, 9, 0.0, ranges={"macs": (10.0, 100.0), "channels": (1.0, 64.0)})
    assert m.ratio({"macs": 50.0, "channels": 8.0}) == 1.0
    assert m.ratio({"macs": 400.0, "channels": 8.0}) == 4.0
    assert m.ratio({"macs": 2.0, "channels": 8.0}) == 5.0  # under the least: 10 / 2
    assert m.ratio({"macs": 400.0, "channels": 512.0}) == 8.0


def test_the_widening_by_hand():
    # half-width = spread + slope x log(ratio); past 4x (TESTED) at least log(1.05)
    assert intervals.half_width(0.02, 4.0, 0.1) == pytest.approx(0.02 + 0.1 * math.log(4))
    assert intervals.half_width(0.02, 4.0, 0.0) == 0.02  # 4x is still tested ground: no floor
    assert intervals.half_width(0.02, 4.5, 0.0) == pytest.approx(math.log(1.05))  # past it: +-5 %
    assert intervals.half_width(0.02, 1.0, 0.5) == 0.02  # in range: the spread
    assert intervals.floor(16.0) == pytest.approx(math.log(1.05)) and intervals.floor(3.9) == 0.0
    # nine held-out largest shapes at ratio e (log 1), errors 0.1 past a spread of 0.05 .. 0.9 past it
    pts = [(math.e, 0.05 + k / 10, 0.05) for k in range(1, 10)]
    assert intervals.slope(pts) == pytest.approx(0.9)  # rank 9 of 9
    assert intervals.slope(pts[:8]) is None


def test_a_layer_interval_in_range_widened_and_refused():
    m = Model("f", {"call": 1.0}, 9, 0.0, (0.02,) * 9)
    widen = {"slope": 0.1}
    iv, why = intervals.layer_interval(m, 1.0, 1.0, widen, "int8")
    assert iv == (pytest.approx(math.exp(-0.02)), pytest.approx(math.exp(0.02))) and why == ""
    iv, _ = intervals.layer_interval(m, 1.0, 8.0, widen, "int8")
    assert iv[1] == pytest.approx(math.exp(0.02 + 0.1 * math.log(8)))
    iv, why = intervals.layer_interval(m, 1.0, 18.2, widen, "int8")
    assert iv is None and why == "extrapolated 18.2x past its family's shapes (over 16x): no interval"
    assert intervals.layer_interval(m, 1.0, 16.5, widen, "int8")[0] is None
    assert intervals.layer_interval(m, 1.0, 15.9, widen, "int8")[0] is not None
    iv, why = intervals.layer_interval(m, 1.0, 2.0, widen, "float32")
    assert iv is None and why.startswith("float32 2.0x past its shapes' work")
    iv, why = intervals.layer_interval(m, 1.0, 2.0, None, "int8")
    assert iv is None and "no widening calibrated" in why


def test_the_largest_shapes_held_out_and_predicted_from_the_rest():
    # t = 1 + m for m = 1..10, but m = 10 takes 13: the rest (m <= 8) fit call 1, mac 1 exactly;
    # m = 9 is 9/8 past them and predicted exactly, m = 10 is 10/8 past and predicted 11 for 13
    samples = [({"call": 1, "mac": m}, 1.0 + m if m < 10 else 13.0) for m in range(1, 11)]
    # the largest by working set are the same two shapes: held out once
    extents = [{"macs": float(m), "channels": 4.0 + (m == 3), "work_bytes": 100.0 + m} for m in range(1, 11)]
    pts = intervals.held_largest(samples, extents)  # the rest: 8 shapes, no scale: the resolution
    assert pts[0] == (pytest.approx(9 / 8), pytest.approx(0, abs=1e-9), intervals.RESOLUTION)
    assert pts[1] == (pytest.approx(10 / 8), pytest.approx(math.log(13 / 11)), intervals.RESOLUTION)
    # by channels: m = 3 (5 channels, 5/4 past the rest, predicted exactly) and, of the 4-channel
    # shapes, the last in term order (m = 10: 10/9 past the rest's 9 MACs, predicted 11 for 13)
    assert pts[2:] == [(pytest.approx(10 / 9), pytest.approx(math.log(13 / 11)), intervals.RESOLUTION),
                       (pytest.approx(5 / 4), pytest.approx(0, abs=1e-9), intervals.RESOLUTION)]  # fmt: skip
    assert len(pts) == 4


def test_the_whole_model_combination_by_hand():
    parts = [(1.0, (0.9, 1.1)), (2.0, (1.8, 2.2))]
    assert intervals.combine(parts, 1.0) == (pytest.approx(2.7), pytest.approx(3.3))  # sum of bounds
    half = math.sqrt(0.1**2 + 0.2**2)  # independent: root of the sum of squares
    assert intervals.combine(parts, 0.0) == (pytest.approx(3 - half), pytest.approx(3 + half))
    # measured 3.25 needs a half-width of 0.25: 0.05 (1 - rho) + 0.09 rho >= 0.0625, rho >= 0.3125
    assert intervals.estimate_rho([(3.25, parts)]) == pytest.approx(0.35)
    assert intervals.estimate_rho([(3.0, parts)]) == 0.0
    assert intervals.estimate_rho([(4.0, parts)]) == 1.0  # none holds it: the sum of bounds


def test_an_emitter_with_too_few_held_out_shapes_widens_by_the_boards_pooled_slope():
    widen = {"viper/int8": {"slope": None}, "asm_thumb/int8": {"slope": 0.2}, intervals.POOLED: {"slope": 0.1}}
    assert intervals.widening_of(widen, "viper", "int8") == {"slope": 0.1}
    assert intervals.widening_of(widen, "asm_thumb", "int8") == {"slope": 0.2}
    assert intervals.widening_of({}, "viper", "int8") is None


def _family(name: str, errors) -> Model:
    return Model(name, {"call": 1.0}, len(errors), 0.0, tuple(errors))


def test_a_familys_scale_is_its_median_held_out_error():
    m = _family("viper/int8/g/dw", [0.01 * k * (-1) ** k for k in range(1, 10)])  # |e| 0.01 .. 0.09
    assert m.scale == pytest.approx(0.05)  # the 5th of 9
    assert _family("f", [0.1] * 8).scale is None  # 8 held-out shapes: no 90 % rank, no scale


def test_the_in_range_spread_pools_scale_free_errors_of_an_emitter_and_type():
    # two viper families: a's |e| 0.01 .. 0.09 (scale 0.05), b's 0.004 .. 0.036 (scale 0.02);
    # over their scales both are 0.2, 0.4 .. 1.8; pooled 18, rank ceil(19 x 0.9) = 18: 1.8
    a = _family("viper/int8/g/dw", [0.01 * k for k in range(1, 10)])
    b = _family("viper/int8/g/conv", [0.004 * k for k in range(1, 10)])
    q = intervals.spread_quantiles([a, b])
    assert q["viper/int8"] == {"quantile": pytest.approx(1.8), "held_out": 18}  # both 0.2 .. 1.8
    assert q[intervals.POOLED]["held_out"] == 18
    assert intervals.spread(a, q) == pytest.approx(0.05 * 1.8)
    assert intervals.spread(b, q) == pytest.approx(0.02 * 1.8)
    # an exact family (scale 0) shapes no quantile and gets the timing resolution, 1 in 1000
    exact = _family("viper/int8/g/add", [0.0] * 9)
    assert intervals.spread_quantiles([exact]) == {}
    assert intervals.spread(exact, q) == intervals.RESOLUTION == pytest.approx(math.log(1.001))
    # a family of another emitter with no pool of its own takes the board's pooled quantile
    other = _family("native/int8/g/dw", [0.1] * 9)
    assert intervals.spread(other, q) == pytest.approx(0.1 * 1.8)
    # and the interval a layer in range gets from it
    iv, why = intervals.layer_interval(a, 2.0, 1.0, None, "int8", q)
    assert iv == (pytest.approx(2 * math.exp(-0.09)), pytest.approx(2 * math.exp(0.09))) and why == ""


def test_the_pooled_rank_sits_below_a_single_familys_largest():
    # one family of 20 errors 0.01 .. 0.20: its own 90 % rank is 19 of 20 (0.19); pooled with
    # nine others alike, 200 errors: rank ceil(201 x 0.9) = 181, the 181st of ten 0.01 .. 0.20,
    # i.e. 0.19 again for identical families (the quantile is the same; its sampling error is not)
    fams = [_family(f"asm_thumb/int8/g/f{k}", [0.01 * j for j in range(1, 21)]) for k in range(10)]
    assert cost_model.conformal(fams[0].cv_log_errors) == pytest.approx(0.19)
    q = intervals.spread_quantiles(fams)
    assert q["asm_thumb/int8"]["held_out"] == 200
    # scale = median of 0.01 .. 0.20 = 0.105; 181st of the pooled /0.105: 0.19 / 0.105
    assert q["asm_thumb/int8"]["quantile"] == pytest.approx(0.19 / 0.105)
    assert intervals.spread(fams[0], q) == pytest.approx(0.19)


def _timed(name: str, errors, seconds, channels=()) -> Model:
    return Model(name, {"call": 1.0}, len(errors), 0.0, tuple(errors), cv_seconds=tuple(seconds),
                 cv_channels=tuple(channels))  # fmt: skip


def test_a_call_is_large_from_its_familys_median_shape_time_and_aligned_in_groups_of_8():
    m = _timed("asm_thumb/int8/g/conv", [0.1] * 9, [1, 2, 3, 4, 5, 6, 7, 8, 9], [8] * 9)  # median 5 s
    assert intervals.classes(m, 5.0, 16) == ["large aligned", "large"]  # the median itself: large
    assert intervals.classes(m, 4.9, 12) == ["small odd", "small"]
    assert intervals.classes(m, 4.9) == ["small"]  # no channel count given
    assert intervals.classes(_family("f", [0.1] * 9), 5.0, 16) == []  # no shape times kept


def test_the_quantile_of_a_layers_class_and_the_coarser_one_where_it_has_too_few():
    # 18 shapes: times 1..18 (median 9.5), |e| = 0.1 for the 9 small ones, 0.3 for the 9 large,
    # scale (median of nine 0.1 and nine 0.3) = 0.2: small 0.5, large 1.5 over it; the large
    # ones' channels: 5 aligned (16), 4 odd (12)
    errs = [0.1] * 9 + [0.3] * 9
    m = _timed("viper/int8/g/dw", errs, range(1, 19), [16] * 9 + [16] * 5 + [12] * 4)
    assert m.scale == pytest.approx(0.2)
    q = intervals.spread_quantiles([m])
    assert q["viper/int8 small"] == {"quantile": pytest.approx(0.5), "held_out": 9}
    assert q["viper/int8 large"] == {"quantile": pytest.approx(1.5), "held_out": 9}
    assert q["viper/int8"]["quantile"] == pytest.approx(1.5)  # rank 18 of 18
    assert q["viper/int8 large aligned"] == {"quantile": None, "held_out": 5}  # 5: no 90 % rank
    assert q["viper/int8 small aligned"]["held_out"] == 9
    assert intervals.spread(m, q, 2.0, 16) == pytest.approx(0.2 * 0.5)  # small aligned: 9 of them
    assert intervals.spread(m, q, 12.0, 16) == pytest.approx(0.2 * 1.5)  # large aligned: 5, so large
    assert intervals.spread(m, q) == pytest.approx(0.2 * 1.5)  # no time: the emitter/dtype's
    iv, _ = intervals.layer_interval(m, 1.0, 1.0, None, "int8", q, 2.0, 16)
    assert iv[1] == pytest.approx(math.exp(0.1))


def test_a_fit_keeps_each_shapes_time_and_channels_beside_its_held_out_error():
    # timed in another order than the canonical (by term counts): the channels follow their shape
    samples = [({"call": 1, "mac": m}, 1.0 + m) for m in (4, 1, 3, 2, 5, 7, 6, 9, 8)]
    extents = [{"macs": float(m), "channels": float(m * 8), "work_bytes": 1.0} for m in (4, 1, 3, 2, 5, 7, 6, 9, 8)]
    m = cost_model.fit("f", samples, extents)
    assert m.cv_seconds == tuple(float(k) for k in range(2, 11))
    assert m.cv_channels == tuple(8.0 * k for k in range(1, 10))
    assert cost_model.Model.from_dict(m.as_dict()) == m


def test_the_pool_a_layer_takes_is_named_with_its_n():
    m = _timed("viper/int8/g/dw", [0.1] * 9 + [0.3] * 9, range(1, 19), [16] * 14 + [12] * 4)
    q = intervals.spread_quantiles([m])
    assert intervals.pool(m, q, 2.0, 16) == ("viper/int8 small aligned", q["viper/int8 small aligned"])
    assert intervals.pool(m, q, 12.0, 16)[0] == "viper/int8 large"  # large aligned: 5, too few
    assert intervals.pool(m, {}, 2.0, 16) is None and intervals.spread(m, {}, 2.0, 16) is None
