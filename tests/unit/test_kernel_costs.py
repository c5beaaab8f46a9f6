"""The per-pixel share of a fitted layer's time, and the note a point gets when only that share
keeps it far below its roof (points.call_share, points.amortize_note), by hand."""

import pytest

from mcuroof.analysis import points
from mcuroof.kernels.ops import tiles
from mcuroof.model import builtins
from mcuroof.suites import layer_plan


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
