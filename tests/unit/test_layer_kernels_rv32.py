"""The asm_rv32 int8 layer kernels (kernels.ops.rv32) without a board: which generator takes
which job, their inner loops counted by hand, and the inline assembler's limits they must keep
(branch reach, unique labels, C.MV never given x0). tests/board/test_layer_kernels_rv32.py runs
them on qemu-rv32 against the numpy reference."""

import dataclasses
import re

import pytest

from factories import LAYERS, _net, dense, spatial
from mcuroof.kernels.ops import contract, dispatch, layer_plan, rv32

RV32 = frozenset({"rv32imc", "rv32m", "rv32a", "rv32c"})
OPS = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "AVERAGE_POOL_2D", "MAX_POOL_2D", "ADD", "RELU")


def _job(layer):
    job = layer_plan.plan_layer(layer, "int8", "asm_rv32", 1 << 18, None)
    return dataclasses.replace(job, isa=RV32)


def test_every_op_has_an_int8_kernel_and_no_float32_one():
    for op in OPS:
        assert rv32.source(op, "int8").startswith("@micropython.asm_rv32\ndef k(a0,a1,a2,a3):\n"), op
        assert rv32.source(op, "float32") is None and contract.runs(op, "asm_rv32", "int8")
    assert rv32.source("SOFTMAX", "int8") is None


def test_stride_1_1x1_convolutions_take_pixel_pairs_the_rest_the_tile_kernels():
    """Pixel pairs for stride-1 1x1; 8 channels a block where KH * KW * C fits the immediate
    offsets (rv32.IMM_MAX_KK, 291), else 4 channels by 4 pointers; depthwise its own."""
    pointwise = spatial(2, "CONV_2D", (5, 3, 8), (5, 3, 7), (1, 1), (1, 1))
    strided = spatial(3, "CONV_2D", (4, 4, 6), (2, 2, 4), (1, 1), (2, 2))
    assert dispatch.generator(_job(pointwise)).name == "rv32-pointwise"
    for layer in (strided, LAYERS[0], dense(6, 10, 3), dense(7, 291, 3)):
        assert dispatch.generator(_job(layer)).name == "rv32-conv", layer
        assert f"lb(t4,{7 * rv32.weights_apart(_job(layer))}(t1))" in dispatch.generator(_job(layer)).source(
            _job(layer)
        )
    wide = spatial(4, "CONV_2D", (4, 4, 40), (4, 4, 5), (3, 3), (1, 1))  # 360 apart
    for layer in (wide, dense(8, 292, 3), LAYERS[4]):
        assert dispatch.generator(_job(layer)).name == "rv32", layer
    arm = layer_plan.plan_layer(pointwise, "int8", "asm_thumb", 1 << 18, None)
    assert not dispatch.generator(arm).name.startswith("rv32")


def _loop(src: str, label_stem: str) -> list[str]:
    """The instructions of the first loop whose label starts with label_stem, to its branch back."""
    lines = [ln.split("#")[0].strip() for ln in src.splitlines()]
    start = next(i for i, ln in enumerate(lines) if re.fullmatch(rf"label\({label_stem}\d+\)", ln))
    name = lines[start][6:-1]
    end = next(i for i in range(start + 1, len(lines)) if lines[i].endswith(f",{name})"))
    return lines[start + 1 : end + 1]


def test_the_pair_loop_by_hand():
    """8 elements of 2 pixels x 4 channels: per element 2 LB x, 4 x (LB w, MUL, ADD, MUL, ADD) =
    22 instructions for 8 MACs; 6 pointer ADDIs and the BNE an iteration: 64 MACs in 183
    instructions, 0.350 MAC/instr (the single-pixel loop's 0.29; KWS's 1x1 layers measured 0.328
    with their requantization and blocks)."""
    loop = _loop(rv32.pointwise(), "M")
    assert len(loop) == 8 * 22 + 6 + 1 == 183
    assert sum(i.startswith("mul(") for i in loop) == 64 and sum(i.startswith("lb(") for i in loop) == 8 * 6
    conv = _loop(rv32.conv(), "M")  # one pixel, 4 channels: 13 an element, 5 ADDIs and BNE
    assert len(conv) == 8 * 13 + 5 + 1 and sum(i.startswith("mul(") for i in conv) == 32
    # 8 channels at immediate offsets: 25 an element, 2 ADDIs and BNE: 64 MACs in 203 (0.315)
    conv = _loop(rv32.conv(40), "M")
    assert len(conv) == 8 * 25 + 2 + 1 and sum(i.startswith("mul(") for i in conv) == 64


def test_the_depthwise_tap_by_hand():
    """A tap of 8 channels: 8 x (LB x, LB w, MUL, ADD), 2 pointer ADDs, the count's ADDI, BNE."""
    loop = _loop(rv32.source("DEPTHWISE_CONV_2D", "int8"), "K")
    assert len(loop) == 8 * 4 + 4 and sum(i.startswith("mul(") for i in loop) == 8


def _instructions(src: str) -> list[str]:
    return [ln.split("#")[0].strip() for ln in src.splitlines()[2:] if ln.split("#")[0].strip()]


@pytest.mark.parametrize("op", OPS + ("POINTWISE", "CONV_KK291"))
def test_the_assemblers_limits_are_kept(op):
    """Conditional branches reach +-4 KB (at most 1024 4-byte instructions away; JAL is used past
    that), every label is defined once, C.MV never reads x0 (its encoding would be C.JR), and the
    callee-saved registers used are saved: every s register and ra is restored at the end."""
    src = {"POINTWISE": rv32.pointwise(), "CONV_KK291": rv32.conv(291)}.get(op) or rv32.source(op, "int8")
    ins = _instructions(src)
    labels = [i[6:-1] for i in ins if i.startswith("label(")]
    assert len(labels) == len(set(labels))
    where, n = {}, 0
    for i in ins:
        if i.startswith("label("):
            where[i[6:-1]] = n
        else:
            n += 1
    n = 0
    for i in ins:
        if i.startswith("label("):
            continue
        m = re.fullmatch(r"b(?:eq|ne|lt|ge|ltu|geu)\(\w+,\w+,(\w+)\)", i)
        if m:
            assert abs(where[m.group(1)] - n) < 1024, i
        n += 1
    assert not any(re.fullmatch(r"mv\(\w+,zero\)", i) for i in ins)
    used = {r for i in ins for r in re.findall(r"\b(s\d+|ra)\b", i)}
    if used:
        assert all(f"sw({r}," in src and f"lw({r}," in src for r in used) and ins[-1].startswith("addi(sp,sp,")


def test_kws_runs_every_layer_with_a_kernel_in_asm_rv32():
    jobs, skipped = layer_plan.plan(_net(), ["int8"], ["asm_rv32"], 290_000)
    assert {j.layer.op for j in jobs} == {"CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "FULLY_CONNECTED"}
    assert len(jobs) == 11 and {s["op"] for s in skipped} == {"RESHAPE", "SOFTMAX"}
    assert all(j.tiles[0].fraction == 1 for j in jobs)  # whole layers: 290 KB of heap
