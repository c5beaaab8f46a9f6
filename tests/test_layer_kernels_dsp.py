"""The DSP (SMLAD/SXTB16) int8 asm_thumb layer kernels of layer_kernels_dsp and the MVE ones of
layer_kernels_mve: chosen only for jobs on such cores, and every kernel run on qemu-m7 (DSP) or
qemu-m55 (MVE) and checked against the numpy reference:
first-layer, 3x3 and 1x1 convolutions, depthwise and dense layers, with padding, strides,
negative biases (the firmware's biases span -64..64), both clamps (ReLU and none), odd channel
counts and sizes that are not multiples of 4."""
import dataclasses
import shutil

import pytest

from mcuroof import kernels, layer_kernels, layer_kernels_dsp, layer_kernels_mve, layers
from mcuroof.collect import Collector
from mcuroof.model import Layer
from mcuroof.rawlog import RawLog

needs_arm = pytest.mark.skipif(not shutil.which("qemu-system-arm") or not shutil.which("arm-none-eabi-gcc"),
                               reason="needs qemu-system-arm and gcc-arm-none-eabi")


def spatial(index, op, hwc, out, kernel, stride, act="NONE"):
    (h, w, c), (oh, ow, oc), (kh, kw) = hwc, out, kernel
    weights = ((1, kh, kw, oc), (oc,)) if op == "DEPTHWISE_CONV_2D" else ((oc, kh, kw, c), (oc,))
    macc = oh * ow * oc * kh * kw * (1 if op == "DEPTHWISE_CONV_2D" else c)
    return Layer(index=index, name=f"l{index}", op=op, dtype="int8", inputs=((1, h, w, c),), output=(1, oh, ow, oc),
                 weights=weights, kernel=kernel, stride=stride, padding="same", activation=act, macc=macc)


def dense(index, cin, cout, act="NONE"):
    return Layer(index=index, name=f"l{index}", op="FULLY_CONNECTED", dtype="int8", inputs=((1, cin),),
                 output=(1, cout), weights=((cout, cin), (cout,)), activation=act, macc=cin * cout)


LAYERS = [
    spatial(0, "CONV_2D", (9, 6, 1), (5, 3, 6), (4, 3), (2, 2), "RELU"),       # first layer: C=1, padded, K=12
    spatial(1, "CONV_2D", (5, 4, 10), (5, 4, 5), (3, 3), (1, 1)),              # K=90 (not a multiple of 4), OC odd
    spatial(2, "CONV_2D", (5, 3, 8), (5, 3, 7), (1, 1), (1, 1), "RELU"),       # 1x1 in place, 15 pixels (odd)
    spatial(3, "CONV_2D", (4, 4, 6), (2, 2, 4), (1, 1), (2, 2)),               # 1x1, C=6 gathered, strided
    spatial(4, "DEPTHWISE_CONV_2D", (5, 4, 6), (5, 4, 6), (3, 3), (1, 1), "RELU"),  # C=6: last group overlaps
    spatial(5, "DEPTHWISE_CONV_2D", (7, 5, 8), (4, 3, 8), (3, 3), (2, 2)),     # strided, padded
    spatial(11, "DEPTHWISE_CONV_2D", (6, 5, 12), (6, 5, 12), (3, 3), (1, 1), "RELU"),  # the row-slot kernel
    spatial(12, "DEPTHWISE_CONV_2D", (3, 20, 96), (3, 20, 96), (3, 3), (1, 1)),  # row slots, 3 blocks of 32 channels
    spatial(8, "DEPTHWISE_CONV_2D", (4, 4, 3), (4, 4, 3), (3, 3), (1, 1)),     # under 4 channels: one at a time
    spatial(9, "CONV_2D", (4, 4, 20), (4, 4, 3), (3, 3), (1, 1)),             # K=180: two pixels a pass, K looped
    spatial(20, "CONV_2D", (8, 5, 64), (8, 5, 9), (1, 1), (1, 1), "RELU"),     # blocks: 27 + 13 pixels, OC odd
    spatial(13, "DEPTHWISE_CONV_2D", (7, 7, 16), (7, 7, 16), (3, 3), (1, 1), "RELU"),  # planes: OW odd
    spatial(14, "DEPTHWISE_CONV_2D", (6, 10, 5), (6, 10, 5), (3, 3), (1, 1)),   # planes: OW even, C odd
    spatial(15, "DEPTHWISE_CONV_2D", (9, 10, 6), (5, 5, 6), (3, 3), (2, 2)),    # planes, strided, padded
    spatial(19, "DEPTHWISE_CONV_2D", (8, 10, 4), (4, 5, 4), (3, 3), (2, 2), "RELU"),  # planes, strided, PT=PL=0
    spatial(16, "DEPTHWISE_CONV_2D", (5, 5, 3), (3, 3, 3), (3, 3), (2, 2), "RELU"),  # strided, C=3
    spatial(30, "DEPTHWISE_CONV_2D", (6, 6, 16), (3, 3, 16), (3, 3), (2, 2), "RELU"),  # strided in place, 3x3 out
    spatial(31, "DEPTHWISE_CONV_2D", (13, 22, 4), (7, 11, 4), (3, 3), (2, 2)),  # strided in place, rows looped
    spatial(32, "DEPTHWISE_CONV_2D", (3, 3, 16), (3, 3, 16), (3, 3), (1, 1), "RELU"),  # 3x3 in registers
    spatial(34, "DEPTHWISE_CONV_2D", (3, 3, 8), (3, 3, 8), (3, 3), (1, 1)),    # 3x3 in registers, no ReLU
    spatial(35, "DEPTHWISE_CONV_2D", (2, 3, 8), (2, 3, 8), (3, 3), (1, 1)),    # planes, 2 rows: both edges
    spatial(36, "DEPTHWISE_CONV_2D", (44, 5, 4), (44, 5, 4), (3, 3), (1, 1)),  # MVE: tall columns, two bases
    spatial(37, "DEPTHWISE_CONV_2D", (9, 9, 4), (5, 5, 4), (3, 3), (2, 2), "RELU"),  # strided, two rows a pass, PL=1
    spatial(33, "DEPTHWISE_CONV_2D", (1, 5, 8), (1, 5, 8), (3, 3), (1, 1)),     # planes, one row: kernel row 1 only
    spatial(17, "DEPTHWISE_CONV_2D", (6, 5, 8), (6, 5, 8), (3, 2), (1, 1)),     # 3x2: row slots
    spatial(18, "DEPTHWISE_CONV_2D", (5, 4, 6), (3, 2, 6), (2, 3), (2, 2), "RELU"),  # 2x3 strided, C=6: per tap
    dense(6, 10, 3),
    dense(10, 200, 5, "RELU"),
    dense(7, 16, 1, "RELU"),                                                   # one output channel
    dense(21, 64, 12),                                                         # 7 channels a pass, the last overlapping
    dense(22, 256, 9, "RELU"),
]


def dsp_jobs():
    jobs, skipped = layers.plan(dataclasses.replace(_net(), layers=tuple(LAYERS)), ["int8"], ["asm_thumb"], 1 << 16)
    assert not skipped
    return [dataclasses.replace(j, dsp=True) for j in jobs]


def _net():
    from mcuroof import model
    return model.builtin_network("kws-dscnn")


def test_dsp_kernels_are_chosen_only_for_dsp_jobs():
    for job in dsp_jobs():
        assert layer_kernels_dsp.source(job) is not None, job.layer
        assert "smla" not in layer_kernels.script(dataclasses.replace(job, dsp=False))
        script = layer_kernels.script(job)
        assert all(piece in script for piece in layer_kernels_dsp.source(job).split("#--\n")), job.layer
    viper = layers.plan_layer(LAYERS[2], "int8", "viper", 1 << 16, None)
    assert layer_kernels_dsp.source(dataclasses.replace(viper, dsp=True)) is None


MVE_LAYERS = [
    spatial(0, "CONV_2D", (3, 5, 64), (3, 5, 7), (1, 1), (1, 1)),       # K=64 (four vectors), OC odd
    spatial(1, "CONV_2D", (6, 4, 16), (3, 2, 6), (1, 1), (2, 2), "RELU"),  # K=16, strided
    dense(2, 48, 5, "RELU"),
    dense(3, 32, 1),
    spatial(4, "CONV_2D", (9, 6, 1), (5, 3, 7), (4, 3), (2, 2), "RELU"),     # gathered: C=1, padded, K=12
    spatial(5, "CONV_2D", (6, 5, 3), (3, 3, 4), (3, 3), (2, 2)),             # gathered: K=27
    spatial(6, "CONV_2D", (3, 4, 24), (3, 4, 5), (1, 1), (1, 1)),            # 1x1, K=24: gathered
    spatial(7, "CONV_2D", (2, 3, 128), (2, 3, 3), (1, 1), (1, 1), "RELU"),   # K=128: inputs streamed
    spatial(8, "CONV_2D", (4, 4, 10), (4, 4, 3), (3, 3), (1, 1)),            # gathered K=90, streamed
]


def mve_jobs():
    jobs, skipped = layers.plan(dataclasses.replace(_net(), layers=tuple(MVE_LAYERS)), ["int8"], ["asm_thumb"], 1 << 16)
    assert not skipped
    return [dataclasses.replace(j, dsp=True, mve=True) for j in jobs]


def test_mve_kernels_for_convolutions_and_dense_layers():
    for job in mve_jobs():
        assert layer_kernels_mve.applies(job) and "0xeef" in layer_kernels.script(job), job.layer  # VMLADAVA
        assert not layer_kernels_mve.applies(dataclasses.replace(job, mve=False))
    for job in dsp_jobs():  # depthwise layers and K over 256 (none here): the DSP kernels
        want = job.layer.op != "DEPTHWISE_CONV_2D"
        assert layer_kernels_mve.applies(dataclasses.replace(job, mve=True)) == want, job.layer


def _run_and_check(tmp_path, board, jobs):
    from mcuroof.qemu import QemuLink

    link = QemuLink(6, board=board)
    log = RawLog(tmp_path / "raw.jsonl")
    try:
        recs = Collector(link, log).run_suite("layers", {"win_us": 500, "trials": 1, "jobs": jobs})
    finally:
        log.close()
        link.close()
    by_key = {j.key: j for j in jobs}
    runs = {kernels.record_key(r): r for r in recs if r["t"] == "layer"}
    assert set(runs) == set(by_key)
    for key, rec in runs.items():
        job = by_key[key]
        assert rec["cand"] == 0 and layers.verify(job, rec), (job.layer, rec)


@needs_arm
@pytest.mark.qemu
def test_every_dsp_kernel_on_qemu_m7_matches_the_reference(tmp_path):
    _run_and_check(tmp_path, "qemu-m7", dsp_jobs())


@needs_arm
@pytest.mark.qemu
def test_every_mve_kernel_on_qemu_m55_matches_the_reference(tmp_path):
    _run_and_check(tmp_path, "qemu-m55", mve_jobs())


@needs_arm
@pytest.mark.qemu
def test_every_mve_depthwise_kernel_on_qemu_m55_matches_the_reference(tmp_path):
    jobs = [dataclasses.replace(j, mve=True) for j in dsp_jobs() if j.layer.op == "DEPTHWISE_CONV_2D"]
    assert sum("def km" in layer_kernels_dsp.source(j) for j in jobs) >= 5   # VMLA.S32, 4 pixels a step
    _run_and_check(tmp_path, "qemu-m55", jobs)
