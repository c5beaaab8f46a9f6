"""An immediate the encoding has no room for raises, rather than becoming another instruction."""

import pytest

from mcuroof.kernels import thumb2 as t


@pytest.mark.parametrize(
    "encode, good, bad",
    [
        (lambda i: t.vldrb_imm(1, 1, i), 112, 128),  # VLDRB's 7-bit offset
        (lambda i: t.vldrb_post(0, 4, i), 16, 128),
        (lambda i: t.ldr_imm(0, 13, i), 4092, 4096),
        (lambda i: t.ldr_post(0, 1, i), 255, 256),
        (lambda i: t.ldrd_imm(0, 1, 13, i), 1020, 1022),  # a multiple of 4 below 1024
        (lambda i: t.vldrh_s32(0, 1, i), 254, 255),  # even, below 256
        (lambda i: t.addw(13, 13, i), 4095, -4),
    ],
)
def test_immediate_out_of_range_raises(encode, good, bad):
    assert encode(good).startswith(" data(2,")
    with pytest.raises(ValueError, match=f"immediate {bad} out of range"):
        encode(bad)


@pytest.mark.parametrize(
    "encode, message",
    [
        (lambda: t.vmladava(8, 8, 1, 8), "no such MVE register: q8"),  # Qn << 1 would set the size bit
        (lambda: t.vldrb_post(8, 1, 16), "no such MVE register: q8"),
        (lambda: t.vldrh_s32(0, 8, 2), "r8: this encoding takes r0-r7 only"),
        (lambda: t.mla(1, 2, 3, 16), "do not fit 16 bits"),  # Ra = r16
    ],
)
def test_a_register_out_of_its_field_raises(encode, message):
    with pytest.raises(ValueError, match=message):
        encode()
