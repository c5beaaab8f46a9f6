"""The DSP (SXTAB16) and MVE (VLDRB.S16, VADD.I16) int8 asm_thumb average pool of
layer_kernels_pool: chosen only for jobs on such cores, run on qemu-m7 (DSP) and qemu-m55
(MVE, with the DSP blocks for under 8 channels) and checked against the numpy reference: KWS's global pool, a padded
and strided 3x3 pool (windows clipped at the edges), channels not a multiple of 4 (the last
group overlapping) and under 4 (a channel at a time), and the largest window (256 values) on
the extreme inputs -128 and 127, where the int16 sums reach -32768."""

import dataclasses

import numpy as np
import pytest

from factories import DSP, MVE, _run_and_check, needs_arm
from mcuroof.kernels.ops import dispatch, layer_plan, reference
from mcuroof.kernels.ops import pool as layer_kernels_pool
from unit.test_layer_kernels_pool import POOLS, pool_jobs


@needs_arm
@pytest.mark.qemu
def test_the_dsp_pool_on_qemu_m7_matches_the_reference(tmp_path):
    _run_and_check(tmp_path, "qemu-m7", pool_jobs())


@needs_arm
@pytest.mark.qemu
def test_the_mve_pool_on_qemu_m55_matches_the_reference(tmp_path):
    jobs = [dataclasses.replace(j, isa=MVE) for j in pool_jobs()]
    assert all(dispatch.kernel_isa(j) == "mve" and "0xef1" in dispatch.generator(j).source(j) for j in jobs)
    _run_and_check(tmp_path, "qemu-m55", jobs)


# the firmware's fill gives -7..7 only: here all -128, all 127, -128/127 alternating by channel,
# and a ramp over -128..127 (sums that are not multiples of the window)
EXTREMES = ("-128", "127", "(-128,127)[i%C%2]", "i*37%256-128")


@needs_arm
@pytest.mark.qemu
@pytest.mark.parametrize("board", ["qemu-m7", "qemu-m55"])
def test_the_pool_is_exact_at_the_int16_limit(board):
    from mcuroof.links.qemu import QemuLink

    job = dataclasses.replace(
        layer_plan.plan_layer(POOLS[4], "int8", "asm_thumb", 1 << 16, None), isa=MVE if board == "qemu-m55" else DSP
    )
    t = job.tiles[0]
    c = t.params[2]
    script = (
        "from array import array\nP=array('i',%s)\nO=array('b',bytearray(%d))\nX=array('b',bytearray(%d))\n"
        "C=%d\n"
        % (list(t.params), t.no, t.nx, c)
        + "".join("for i in range(%d):X[i]=%s\nk(X,X,O,P)\nprint('out',list(O))\n" % (t.nx, v) for v in EXTREMES)
    )
    i = np.arange(t.nx)
    xs = [np.full(t.nx, -128), np.full(t.nx, 127), np.where(i % c % 2, 127, -128), i * 37 % 256 - 128]
    out = []
    link = QemuLink(6, board=board)
    try:
        link.run([layer_kernels_pool.source(job), script], out.append)
    finally:
        link.close()
    got = [eval(ln.split("out", 1)[1]) for ln in out if ln.startswith("out")]
    want = [
        reference._spatial("AVERAGE_POOL_2D", x.reshape(t.params[:3]), None, True, t.params).reshape(-1).tolist()
        for x in xs
    ]
    assert got == want and want[0][0] == -128 and want[1][0] == 127
