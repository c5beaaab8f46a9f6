"""The DSP (SMLAD/SXTB16) int8 asm_thumb layer kernels of layer_kernels_dsp and the MVE ones of
layer_kernels_mve: chosen only for jobs on such cores, and every kernel run on qemu-m7 (DSP) or
qemu-m55 (MVE) and checked against the numpy reference:
first-layer, 3x3 and 1x1 convolutions, depthwise and dense layers, with padding, strides,
negative biases (the firmware's biases span -64..64), both clamps (ReLU and none), odd channel
counts and sizes that are not multiples of 4."""

import dataclasses

import pytest

from factories import MVE, _run_and_check, dsp_jobs, mve_jobs, needs_arm
from mcuroof.kernels.ops import dispatch


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
    jobs = [dataclasses.replace(j, isa=MVE) for j in dsp_jobs() if j.layer.op == "DEPTHWISE_CONV_2D"]
    assert sum("def km" in dispatch.generator(j).source(j) for j in jobs) >= 5  # VMLA.S32, 4 pixels a step
    _run_and_check(tmp_path, "qemu-m55", jobs)
