"""The DSP (SMLAD/SXTB16) int8 asm_thumb layer kernels of layer_kernels_dsp and the MVE ones of
layer_kernels_mve: chosen only for jobs on such cores, and every kernel run on qemu-m7 (DSP) or
qemu-m55 (MVE) and checked against the numpy reference:
first-layer, 3x3 and 1x1 convolutions, depthwise and dense layers, with padding, strides,
negative biases (the firmware's biases span -64..64), both clamps (ReLU and none), odd channel
counts and sizes that are not multiples of 4."""

import dataclasses

from factories import DSP, LAYERS, MVE, dsp_jobs, mve_jobs
from mcuroof.kernels.listing import sent
from mcuroof.kernels.ops import dispatch, layer_plan
from mcuroof.kernels.ops import mve as layer_kernels_mve


def test_dsp_kernels_are_chosen_only_for_dsp_jobs():
    for job in dsp_jobs():
        assert dispatch.generator(job).needs == {"dsp"}, job.layer
        assert "smla" in dispatch.listing(job) and "smla" not in dispatch.script(job)  # the mnemonics, stripped
        assert "smla" not in dispatch.listing(dataclasses.replace(job, isa=frozenset()))
        script = dispatch.script(job)
        source = dispatch.guarded(dispatch.generator(job).source(job))[0]
        assert all(piece in script for piece in sent(source).split("#--\n")), job.layer
    viper = layer_plan.plan_layer(LAYERS[2], "int8", "viper", 1 << 16, None)
    assert dispatch.generator(dataclasses.replace(viper, isa=DSP)).name == "generic"


def test_mve_kernels_for_convolutions_and_dense_layers():
    for job in mve_jobs():
        assert layer_kernels_mve.applies(job) and "0xeef" in dispatch.script(job), job.layer  # VMLADAVA
        assert not layer_kernels_mve.applies(dataclasses.replace(job, isa=DSP))
    for job in dsp_jobs():  # depthwise layers and K over 256 (none here): the DSP kernels
        want = job.layer.op != "DEPTHWISE_CONV_2D"
        assert layer_kernels_mve.applies(dataclasses.replace(job, isa=MVE)) == want, job.layer
