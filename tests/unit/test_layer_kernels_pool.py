"""The DSP (SXTAB16) and MVE (VLDRB.S16, VADD.I16) int8 asm_thumb average pool of
layer_kernels_pool: chosen only for jobs on such cores, run on qemu-m7 (DSP) and qemu-m55
(MVE, with the DSP blocks for under 8 channels) and checked against the numpy reference: KWS's global pool, a padded
and strided 3x3 pool (windows clipped at the edges), channels not a multiple of 4 (the last
group overlapping) and under 4 (a channel at a time), and the largest window (256 values) on
the extreme inputs -128 and 127, where the int16 sums reach -32768."""

import dataclasses

from factories import DSP, _net, pool
from mcuroof.kernels.ops import dispatch, layer_plan
from mcuroof.kernels.ops import pool as layer_kernels_pool

POOLS = [
    pool(0, (25, 5, 64), (1, 1, 64), (25, 5), (25, 5), "valid"),  # KWS: 125 values, 4 blocks of 16 channels
    pool(1, (7, 6, 20), (4, 3, 20), (3, 3), (2, 2)),  # padded, strided: clipped windows; 16 + 4 channels
    pool(2, (5, 5, 6), (5, 5, 6), (3, 3), (1, 1)),  # C=6: the last group overlaps
    pool(3, (5, 4, 3), (3, 2, 3), (3, 3), (2, 2)),  # C=3: a channel at a time
    pool(4, (16, 16, 12), (1, 1, 12), (16, 16), (16, 16), "valid"),  # 256 values: 12 channels, one block
]


def pool_jobs():
    jobs, skipped = layer_plan.plan(dataclasses.replace(_net(), layers=tuple(POOLS)), ["int8"], ["asm_thumb"], 1 << 16)
    assert not skipped
    return [dataclasses.replace(j, isa=DSP) for j in jobs]


def test_the_dsp_pool_is_chosen_only_for_dsp_jobs():
    for job in pool_jobs():
        assert dispatch.generator(job).name == "dsp-pool", job.layer
        assert dispatch.kernel_isa(job) == "dsp"
        assert "def apool" in dispatch.script(dataclasses.replace(job, isa=frozenset()))
        assert dispatch.kernel_isa(dataclasses.replace(job, isa=frozenset())) is None
    big = pool(5, (17, 16, 4), (1, 1, 4), (17, 16), (17, 16), "valid")  # 272 values: int16 sums could overflow
    assert not layer_kernels_pool.applies(layer_plan.plan_layer(big, "int8", "asm_thumb", 1 << 16, None))


# the firmware's fill gives -7..7 only: here all -128, all 127, -128/127 alternating by channel,
# and a ramp over -128..127 (sums that are not multiples of the window)


def test_the_dsp_routines_of_the_previous_layer_are_deleted():
    names = {n: 0 for n in ("k", "kd", "kr", "kg", "kp0", "kp12", "km3", "kpx", "layer", "kernels")}
    exec(dispatch._FREE + dispatch._FREE_DSP, names)
    assert sorted(n for n in names if n[0] != "_") == ["kernels", "kpx", "layer"]
    assert dispatch._FREE_DSP not in dispatch.script(dataclasses.replace(pool_jobs()[0], isa=frozenset()))
