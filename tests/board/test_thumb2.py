"""The Thumb-2 encoders of thumb2.py against the GNU assembler (arm-none-eabi-as)."""

import re
import shutil
import subprocess

import pytest

from mcuroof.kernels import thumb2
from mcuroof.kernels.listing import sent

CASES = [  # (encoder output, assembler source)
    (thumb2.mla(2, 4, 6, 2), "mla r2, r4, r6, r2"),
    (thumb2.mla(3, 8, 9, 1), "mla r3, r8, r9, r1"),
    (thumb2.smlad(2, 5, 7, 2), "smlad r2, r5, r7, r2"),
    (thumb2.smlad(3, 10, 11, 3), "smlad r3, r10, r11, r3"),
    (thumb2.sxtb16(4, 6), "sxtb16 r4, r6"),
    (thumb2.sxtb16(7, 7, 8), "sxtb16 r7, r7, ror #8"),
    (thumb2.vfma_f32(0, 2, 4), "vfma.f32 s0, s2, s4"),
    (thumb2.vfma_f32(1, 4, 31), "vfma.f32 s1, s4, s31"),
    (thumb2.vfma_f32(7, 3, 5), "vfma.f32 s7, s3, s5"),
    (thumb2.vldr_q(0, 0, 8), "vldrb.u8 q0, [r0]"),
    (thumb2.vldr_q(1, 1, 16), "vldrh.u16 q1, [r1]"),
    (thumb2.vldr_q(2, 1, 32), "vldrw.u32 q2, [r1]"),
    (thumb2.vmladava(2, 0, 1, 8), "vmladava.s8 r2, q0, q1"),
    (thumb2.vmladava(4, 2, 3, 16), "vmladava.s16 r4, q2, q3"),
    (thumb2.vmladava(6, 5, 7, 32), "vmladava.s32 r6, q5, q7"),
    (thumb2.vfma_q_f32(0, 1, 2), "vfma.f32 q0, q1, q2"),
    (thumb2.vfma_q_f32(3, 4, 5), "vfma.f32 q3, q4, q5"),
    (thumb2.ldr_imm(8, 1, 68), "ldr.w r8, [r1, #68]"),
    (thumb2.ldr_imm(4, 13, 4095), "ldr.w r4, [sp, #4095]"),
    (thumb2.str_imm(14, 13, 32), "str.w lr, [sp, #32]"),
    (thumb2.strb_imm(10, 5, 1), "strb.w r10, [r5, #1]"),
    (thumb2.ldr_post(8, 1, 4), "ldr r8, [r1], #4"),
    (thumb2.ldrsb_post(9, 11, 3), "ldrsb r9, [r11], #3"),
    (thumb2.strb_post(12, 2, 1), "strb r12, [r2], #1"),
    (thumb2.ldrd_imm(4, 5, 0, 1016), "ldrd r4, r5, [r0, #1016]"),
    (thumb2.ldrd_imm(10, 14, 8, 64), "ldrd r10, lr, [r8, #64]"),
    (thumb2.strd_post(9, 8, 2, 16), "strd r9, r8, [r2], #16"),
    (thumb2.addw(2, 13, 2056), "addw r2, sp, #2056"),
    (thumb2.addw(13, 13, 300), "addw sp, sp, #300"),
    (thumb2.subw(13, 13, 4000), "subw sp, sp, #4000"),
    (thumb2.add_lsl(8, 8, 3, 2), "add.w r8, r8, r3, lsl #2"),
    (thumb2.add_lsl(1, 9, 12, 0), "add.w r1, r9, r12"),
    (thumb2.mul(14, 14, 4), "mul.w lr, lr, r4"),
    (thumb2.asr_imm(10, 10, 9), "asr.w r10, r10, #9"),
    (thumb2.asr_imm(11, 3, 31), "asr.w r11, r3, #31"),
    (thumb2.ssat(12, 8, 12), "ssat r12, #8, r12"),
    (thumb2.usat(14, 7, 14), "usat lr, #7, lr"),
    (thumb2.ssat(10, 8, 10, 9), "ssat r10, #8, r10, asr #9"),
    (thumb2.usat(5, 7, 6, 31), "usat r5, #7, r6, asr #31"),
    (thumb2.smlabb(10, 9, 4, 10), "smlabb r10, r9, r4, r10"),
    (thumb2.sadd8(4, 4, 5), "sadd8 r4, r4, r5"),
    (thumb2.vadd_i8(0, 0, 1), "vadd.i8 q0, q0, q1"),
    (thumb2.vadd_i8(7, 1, 6), "vadd.i8 q7, q1, q6"),
    (thumb2.vstrb_post(0, 1, 16), "vstrb.8 q0, [r1], #16"),
    (thumb2.vstrb_post(5, 10, 32), "vstrb.8 q5, [r10], #32"),
    (thumb2.sadd8(9, 10, 12), "sadd8 r9, r10, r12"),
    (thumb2.smlatt(11, 8, 5, 11), "smlatt r11, r8, r5, r11"),
    (thumb2.ldrb_imm(12, 10, 3), "ldrb.w r12, [r10, #3]"),
    (thumb2.ldrb_post(12, 10, 1), "ldrb r12, [r10], #1"),
    (thumb2.strb_reg(14, 2, 9), "strb.w lr, [r2, r9]"),
    (thumb2.strb_reg(5, 7, 8), "strb.w r5, [r7, r8]"),
    (thumb2.cmp_reg(0, 14), "cmp.w r0, lr"),
    (thumb2.str_post(12, 1, 4), "str r12, [r1], #4"),
    (thumb2.vldrb_post(4, 1, 16), "vldrb.u8 q4, [r1], #16"),
    (thumb2.vldrb_post(7, 11, 16), "vldrb.u8 q7, [r11], #16"),
    (thumb2.vldrb_imm(6, 1, 48), "vldrb.u8 q6, [r1, #48]"),
    (thumb2.strd_imm(6, 7, 13, 1016), "strd r6, r7, [sp, #1016]"),
    (thumb2.smlabt(14, 6, 4, 14), "smlabt lr, r6, r4, lr"),
    (thumb2.smlatb(12, 11, 5, 12), "smlatb r12, r11, r5, r12"),
    (thumb2.pkhbt(6, 4, 5), "pkhbt r6, r4, r5, lsl #16"),
    (thumb2.pkhbt(11, 5, 12), "pkhbt r11, r5, r12, lsl #16"),
    (thumb2.ldrsb_imm(12, 1, 4095), "ldrsb.w r12, [r1, #4095]"),
    (thumb2.ldrsb_imm(4, 1, 64), "ldrsb.w r4, [r1, #64]"),
    (thumb2.strh_imm(4, 3, 2), "strh.w r4, [r3, #2]"),
    (thumb2.strh_imm(10, 13, 4094), "strh.w r10, [sp, #4094]"),
    (thumb2.vldrh_s32(1, 0, 2), "vldrh.s32 q1, [r0, #2]"),
    (thumb2.vldrh_s32(2, 3, 254), "vldrh.s32 q2, [r3, #254]"),
    (thumb2.vmla_s32(0, 1, 4), "vmla.s32 q0, q1, r4"),
    (thumb2.vmla_s32(3, 2, 14), "vmla.s32 q3, q2, lr"),
    (thumb2.vmov_q(0, 5), "vorr q0, q5, q5"),
    (thumb2.vdup_32(6, 14), "vdup.32 q6, lr"),
    (thumb2.vshr_s32(0, 0, 1), "vshr.s32 q0, q0, #1"),
    (thumb2.vshr_s32(2, 1, 31), "vshr.s32 q2, q1, #31"),
    (thumb2.vmax_s32(1, 2, 6), "vmax.s32 q1, q2, q6"),
    (thumb2.vmin_s32(0, 0, 7), "vmin.s32 q0, q0, q7"),
    (thumb2.vstrb_32_scatter(2, 5, 4), "vstrb.32 q2, [r5, q4]"),
    (thumb2.VPUSH_D8_D15, "vpush {d8-d15}"),
    (thumb2.VPOP_D8_D15, "vpop {d8-d15}"),
    (thumb2.vldrb_s32_gather(0, 1, 3), "vldrb.s32 q0, [r1, q3]"),
    (thumb2.vldrb_s32_gather(2, 4, 1), "vldrb.s32 q2, [r4, q1]"),
    (thumb2.vstrh_32_post(0, 3, 254), "vstrh.32 q0, [r3], #254"),
    (thumb2.vstrh_32_post(1, 5, 56), "vstrh.32 q1, [r5], #56"),
    (thumb2.vldrh_s32_gather(1, 14, 2), "vldrh.s32 q1, [lr, q2]"),
    (thumb2.vldrh_s32_gather(0, 3, 5), "vldrh.s32 q0, [r3, q5]"),
    (thumb2.sxtab16(4, 4, 12), "sxtab16 r4, r4, r12"),
    (thumb2.sxtab16(11, 11, 12, 8), "sxtab16 r11, r11, r12, ror #8"),
    (thumb2.sxtab16(9, 3, 14, 24), "sxtab16 r9, r3, lr, ror #24"),
    (thumb2.sxth(12, 4), "sxth.w r12, r4"),
    (thumb2.sxth(14, 11), "sxth.w lr, r11"),
    (thumb2.sub_reg(0, 0, 12), "sub.w r0, r0, r12"),
    (thumb2.sub_reg(9, 14, 3), "sub.w r9, lr, r3"),
    (thumb2.vldrb_s16(0, 1, 0), "vldrb.s16 q0, [r1]"),
    (thumb2.vldrb_s16(3, 7, 120), "vldrb.s16 q3, [r7, #120]"),
    (thumb2.vadd_i16(0, 0, 4), "vadd.i16 q0, q0, q4"),
    (thumb2.vadd_i16(3, 1, 7), "vadd.i16 q3, q1, q7"),
    (thumb2.vmovl_s16(5, 3), "vmovlb.s16 q5, q3"),
    (thumb2.vmovl_s16(7, 2, top=True), "vmovlt.s16 q7, q2"),
]


@pytest.fixture(scope="module")
def assembled(tmp_path_factory):
    if not shutil.which("arm-none-eabi-as"):
        pytest.skip("arm-none-eabi-as not installed (apt-get install gcc-arm-none-eabi)")
    d = tmp_path_factory.mktemp("as")
    (d / "t.s").write_text(".syntax unified\n.thumb\n" + "\n".join(src for _, src in CASES) + "\n")
    subprocess.run(["arm-none-eabi-as", "-march=armv8.1-m.main+mve.fp+fp.dp", "-o", d / "t.o", d / "t.s"], check=True)
    dump = subprocess.run(["arm-none-eabi-objdump", "-d", d / "t.o"], capture_output=True, text=True, check=True).stdout
    return [
        (int(a, 16), int(b, 16)) for a, b in re.findall(r"^\s+[0-9a-f]+:\s+([0-9a-f]{4}) ([0-9a-f]{4})\s", dump, re.M)
    ]


def test_every_encoder_matches_the_assembler(assembled):
    assert len(assembled) == len(CASES)
    for (line, src), words in zip(CASES, assembled):
        got = tuple(int(x, 16) for x in re.findall(r"0x[0-9a-f]+", sent(line)))
        assert got == words, src


def test_every_data_word_names_its_instruction():
    """The comment beside each data() word (stripped before sending) is the instruction in GNU
    syntax: the one the assembler encodes to those halfwords (the test above)."""
    for line, src in CASES:
        assert line.endswith("  # " + src + "\n"), line


def test_the_mnemonics_in_generated_kernels_assemble_to_their_words(tmp_path):
    """Every data() word of the DSP and MVE layer kernels of the built-in networks (and of the
    ISA ceilings) carries a comment that GNU as encodes to exactly those halfwords."""
    if not shutil.which("arm-none-eabi-as"):
        pytest.skip("arm-none-eabi-as not installed (apt-get install gcc-arm-none-eabi)")
    import dataclasses

    from mcuroof.kernels import compute
    from mcuroof.kernels.ops import dispatch, layer_plan
    from mcuroof.model import builtins

    texts = [k.listing for k in compute.isa_kernels(["mla", "smlad", "vfma", "vmladava", "vmla", "vfma-q"], "bhif", 9)]
    for name in builtins.BUILTINS:
        jobs, _ = layer_plan.plan(builtins.builtin_network(name), ["int8"], ["asm_thumb"], 400_000, None)
        for job in jobs:
            for isa in ({"dsp"}, {"dsp", "mve"}):
                texts.append(dispatch.listing(dataclasses.replace(job, isa=frozenset(isa))))
    found = set(re.findall(r"data\(2,(0x[0-9a-f]{4}),(0x[0-9a-f]{4})\)  # ([^\n]*)", "".join(texts)))
    lines = sorted(found, key=lambda f: f[2])
    assert len({src for _, _, src in lines}) == len(lines), "one text, two encodings"
    (tmp_path / "k.s").write_text(".syntax unified\n.thumb\n" + "".join(src + "\n" for _, _, src in lines))
    obj = tmp_path / "k.o"
    subprocess.run(["arm-none-eabi-as", "-march=armv8.1-m.main+mve.fp+fp.dp", "-o", obj, tmp_path / "k.s"], check=True)
    dump = subprocess.run(["arm-none-eabi-objdump", "-d", obj], capture_output=True, text=True, check=True).stdout
    words = re.findall(r"^\s+[0-9a-f]+:\s+([0-9a-f]{4}) ([0-9a-f]{4})\s", dump, re.M)
    assert len(lines) > 300
    assert [(int(a, 16), int(b, 16)) for a, b in words] == [(int(a, 16), int(b, 16)) for a, b, _ in lines]
