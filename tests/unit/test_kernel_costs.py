"""The per-pixel share of a fitted layer's time, and the note a point gets when only that share
keeps it far below its roof (points.call_share, points.amortize_note), by hand."""

import pytest

from mcuroof.analysis import points
from mcuroof.kernels.ops import layer_plan, tiles
from mcuroof.model import builtins
from unit.test_tile_projection import conv


def test_call_share_recovers_the_per_pixel_cost_by_hand():
    kws = builtins.builtin_network("kws-dscnn")
    jobs, _ = layer_plan.plan(kws, ["int8"], ["asm_thumb"], heap=3184)
    job = next(j for j in jobs if j.layer.index == 1)
    t8 = next(t for t in job.tiles if t.chans == 8)
    t4 = next(t for t in job.tiles if t.chans == 4 and t.rows == t8.rows and t.cols == t8.cols)
    a, b = 2e-5, 1e-6  # seconds per pixel-tap unit (W / c) and per MAC
    timed = [
        (t, a * tiles.executed_work(job.layer, t) / t.chans + b * tiles.executed_work(job.layer, t)) for t in (t8, t4)
    ]
    seconds, how = points.project(job, timed)
    full = tiles.full_tile(job.layer, "int8")
    w = tiles.executed_work(job.layer, full)
    assert how == "fit" and seconds == pytest.approx(a * w / 64 + b * w)
    assert points.call_share(job, timed, seconds) == pytest.approx((a * w / 64) / (a * w / 64 + b * w))
    assert points.call_share(job, timed[:1], seconds) is None


@pytest.mark.parametrize(
    "headroom, share, noted", [(6.4, 0.39, True), (6.4, 0.30, False), (3.0, 0.9, False), (8.0, None, False)]
)
def test_the_amortize_note(headroom, share, noted):
    p = points.amortize_note({"headroom": headroom, "call_share": share, "advice": "far below"})
    assert p["advice"].startswith("tile too small to amortize the call") == noted
    assert p["advice"].endswith("far below")


def test_a_per_row_fit_with_a_negative_part_keeps_the_other_part_alone():
    layer = conv()  # 5 x 4 output, 6 channels
    two, one = tiles.tile(layer, "int8", 2, 2, 6), tiles.tile(layer, "int8", 2, 1, 6)
    w2, w1 = tiles.executed_work(layer, two), tiles.executed_work(layer, one)
    # rows -1 (2 taps) and 1 (3); columns -1 (2) and 1 (3): 5 x 5 and 5 x 2 taps, 3 in x 6 out
    assert (w2, w1) == (5 * 5 * 3 * 6, 5 * 2 * 3 * 6)
    f, b = 3e-3, 2e-5  # per output row, per MAC
    assert points.row_costs(layer, [(two, 2 * f + b * w2), (one, 2 * f + b * w1)]) == (
        pytest.approx(f),
        pytest.approx(b),
    )
    # the narrow tile nearly free: a line through both times crosses zero below no work
    assert points.row_costs(layer, [(two, 1.0), (one, 0.01)]) == (0.0, pytest.approx(1.0 / w2))
    # the narrow tile slower than the wide one: no per-MAC cost, all of it per row (2 rows)
    assert points.row_costs(layer, [(two, 1.0), (one, 1.5)]) == (0.5, 0.0)
    # a line through zero: all per MAC, nothing per row
    assert points.row_costs(layer, [(two, b * w2), (one, b * w1)]) == (pytest.approx(0.0, abs=1e-15), pytest.approx(b))


def test_a_channel_fit_with_a_negative_part_keeps_the_other_part_alone():
    layer = conv()
    six, three = tiles.tile(layer, "int8", 1, 2, 6), tiles.tile(layer, "int8", 1, 2, 3)
    w6, w3 = tiles.executed_work(layer, six), tiles.executed_work(layer, three)
    assert w6 == 2 * w3
    # t = a * W / c + b * W: W / c is the same for both tiles, so a tile twice the work in twice
    # the time is all per-MAC, and one in the same time is all per pixel
    assert points.costs(layer, [(six, 2.0), (three, 1.0)]) == (pytest.approx(0.0, abs=1e-12), pytest.approx(2.0 / w6))
    # the thinner tile slower: no per-MAC cost, all of it per pixel
    assert points.costs(layer, [(six, 2.0), (three, 2.5)]) == (pytest.approx(2.0 / (w6 / 6)), 0.0)
    # the thinner tile at a quarter of the time: a line through both crosses zero below no pixel
    assert points.costs(layer, [(six, 2.0), (three, 0.5)]) == (0.0, pytest.approx(2.0 / w6))


def test_the_per_row_share_is_at_most_the_whole_time():
    layer = conv()
    job = layer_plan.plan_layer(layer, "int8", "bytecode", tiles.tile(layer, "int8", 1, 2, 6).heap_bytes(1), None)
    f, b = 2e-3, 1e-5
    timed = [
        (t, f * t.rows + b * tiles.executed_work(layer, t))
        for t in (tiles.tile(layer, "int8", 1, c, 6) for c in (2, 1))
    ]
    assert points.call_share(job, timed, seconds=0.0334) == pytest.approx(0.01 / 0.0334)
    assert points.call_share(job, timed, seconds=0.005) == 1.0  # a time below its rows' own cost
