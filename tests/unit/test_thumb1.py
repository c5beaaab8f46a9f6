"""thumb1.Asm's encodings and branch offsets against the GNU assembler (arm-none-eabi-as,
Cortex-M0): the depthwise row routines of layer_kernels as they are sent to the micro:bit."""

import pytest

from mcuroof.kernels import thumb1
from mcuroof.kernels.ops import m0


def test_branch_out_of_range_is_refused():
    a = thumb1.Asm()
    a.label("L")
    for _ in range(130):
        a.nop()
    a.b("ne", "L")
    with pytest.raises(ValueError, match="out of range"):
        a.words()


def test_kernels_too_wide_or_too_tall_keep_the_memory_accumulators():
    from mcuroof.model.network import Layer

    dw = dict(op="DEPTHWISE_CONV_2D", dtype="int8", inputs=((1, 9, 9, 8),), output=(1, 9, 9, 8))
    fits = [
        m0.dw_row_applies(Layer(index=0, name="d", kernel=k, stride=(1, 1), **dw))
        for k in [(3, 3), (5, 5), (3, 4), (9, 3)]
    ]
    assert fits == [True, False, False, False]
