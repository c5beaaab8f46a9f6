"""Thumb-2 instructions MicroPython's inline assembler lacks, as `data(2, hw1, hw2)` lines.

MLA, SMLAD, SXTB16 (Armv7-M and its DSP extension, ARM DDI 0403E), VFMA.F32 (FPv5), and the
MVE (Helium, Armv8.1-M, ARM DDI 0553) loads, VMLADAVA and vector VFMA. Each line carries the
instruction in GNU syntax as a comment (kernels.listing strips it before sending);
tests/board/test_thumb2.py checks every encoder and its comment against the GNU assembler.
Pure computation.
"""

from __future__ import annotations

from mcuroof.kernels.listing import note
from mcuroof.kernels.thumb1 import reg as r

MVE_SIZE = {8: (0, 0x100), 16: (0, 0), 32: (1, 0)}  # VMLADAV size bits: (first halfword, second)
MVE_LOAD = {8: 0x000, 16: 0x080, 32: 0x100}  # VLDRB / VLDRH / VLDRW size field
_LOAD_NAME = {8: "b.u8", 16: "h.u16", 32: "w.u32"}


def _imm(imm: int, below: int, step: int = 1) -> int:
    """imm, where the encoding has room for it (0 <= imm < below, a multiple of step): an
    immediate out of range would silently become another instruction."""
    if not (0 <= imm < below and imm % step == 0):
        raise ValueError(
            f"immediate {imm} out of range: 0 <= imm < {below}" + (f", a multiple of {step}" if step > 1 else "")
        )
    return imm


def _q(*regs: int) -> None:
    """MVE has Q0-Q7: a wider number would spill into the next field (another instruction)."""
    if not all(0 <= q < 8 for q in regs):
        raise ValueError(f"no such MVE register: q{max(regs)}")


def _low(rn: int) -> int:
    """A base register these encodings give 3 bits (r0-r7)."""
    if not 0 <= rn < 8:
        raise ValueError(f"r{rn}: this encoding takes r0-r7 only")
    return rn


def _at(rn: int, imm: int) -> str:
    """An immediate-offset address as GNU writes it ([r1] for an offset of 0)."""
    return f"[{r(rn)}, #{imm}]" if imm else f"[{r(rn)}]"


def _ror(ror: int) -> str:
    return f", ror #{ror}" if ror else ""


def data(hw1: int, hw2: int, text: str) -> str:
    """One instruction's two halfwords as a data() line, `text` (its GNU syntax) beside them."""
    if not (0 <= hw1 < 0x10000 and 0 <= hw2 < 0x10000):  # a register or field too wide for its bits
        raise ValueError(f"instruction halfwords {hw1:#x}, {hw2:#x} do not fit 16 bits")
    return f" data(2,{hw1:#06x},{hw2:#06x})" + note(text) + "\n"


def mla(rd: int, rn: int, rm: int, ra: int) -> str:
    """MLA Rd, Rn, Rm, Ra: Rd = Ra + Rn * Rm."""
    return data(0xFB00 | rn, ra << 12 | rd << 8 | rm, f"mla {r(rd)}, {r(rn)}, {r(rm)}, {r(ra)}")


def smlad(rd: int, rn: int, rm: int, ra: int) -> str:
    """SMLAD Rd, Rn, Rm, Ra: Rd = Ra + Rn.lo * Rm.lo + Rn.hi * Rm.hi (signed halfwords)."""
    return data(0xFB20 | rn, ra << 12 | rd << 8 | rm, f"smlad {r(rd)}, {r(rn)}, {r(rm)}, {r(ra)}")


def sxtb16(rd: int, rm: int, ror: int = 0) -> str:
    """SXTB16 Rd, Rm, ROR #ror: bytes 0 and 2 of Rm rotated, sign-extended to halfwords."""
    return data(0xFA2F, 0xF080 | rd << 8 | (ror // 8) << 4 | rm, f"sxtb16 {r(rd)}, {r(rm)}" + _ror(ror))


def vfma_f32(sd: int, sn: int, sm: int) -> str:
    """VFMA.F32 Sd, Sn, Sm: Sd += Sn * Sm (fused)."""
    return data(
        0xEEA0 | (sd & 1) << 6 | sn >> 1,
        (sd >> 1) << 12 | 0x0A00 | (sn & 1) << 7 | (sm & 1) << 5 | sm >> 1,
        f"vfma.f32 s{sd}, s{sn}, s{sm}",
    )


def vldr_q(qd: int, rn: int, bits: int) -> str:
    """VLDRB.U8 / VLDRH.U16 / VLDRW.U32 Qd, [Rn]: 16 bytes as lanes of `bits`."""
    _q(qd)
    return data(0xED90 | rn, qd << 13 | 0x1E00 | MVE_LOAD[bits], f"vldr{_LOAD_NAME[bits]} q{qd}, [{r(rn)}]")


def vmladava(rda: int, qn: int, qm: int, bits: int) -> str:
    """VMLADAVA.S<bits> Rda, Qn, Qm: Rda += the sum over lanes of Qn * Qm (Rda even)."""
    _q(qn, qm)
    lo, hi = MVE_SIZE[bits]
    return data(
        0xEEF0 | qn << 1 | lo,
        (rda >> 1) << 13 | 0x0E00 | hi | 0x20 | qm << 1,
        f"vmladava.s{bits} {r(rda)}, q{qn}, q{qm}",
    )


def vfma_q_f32(qd: int, qn: int, qm: int) -> str:
    """VFMA.F32 Qd, Qn, Qm (MVE): four float32 lanes, Qd += Qn * Qm."""
    _q(qd, qn, qm)
    return data(0xEF00 | qn << 1, qd << 13 | 0x0C50 | qm << 1, f"vfma.f32 q{qd}, q{qn}, q{qm}")


# Loads, stores and arithmetic on any register r0-r12 and lr (the inline assembler takes r0-r7
# for most of them), for the DSP layer kernels of kernels.ops.dsp_*.
def ldr_imm(rt: int, rn: int, imm: int) -> str:
    """LDR.W Rt, [Rn, #imm] (0 <= imm < 4096)."""
    return data(0xF8D0 | rn, rt << 12 | _imm(imm, 4096), f"ldr.w {r(rt)}, {_at(rn, imm)}")


def str_imm(rt: int, rn: int, imm: int) -> str:
    """STR.W Rt, [Rn, #imm] (0 <= imm < 4096)."""
    return data(0xF8C0 | rn, rt << 12 | _imm(imm, 4096), f"str.w {r(rt)}, {_at(rn, imm)}")


def strb_imm(rt: int, rn: int, imm: int) -> str:
    """STRB.W Rt, [Rn, #imm] (0 <= imm < 4096)."""
    return data(0xF880 | rn, rt << 12 | _imm(imm, 4096), f"strb.w {r(rt)}, {_at(rn, imm)}")


def ldr_post(rt: int, rn: int, imm: int) -> str:
    """LDR Rt, [Rn], #imm: load, then Rn += imm (0 <= imm < 256)."""
    return data(0xF850 | rn, rt << 12 | 0xB00 | _imm(imm, 256), f"ldr {r(rt)}, [{r(rn)}], #{imm}")


def ldrsb_post(rt: int, rn: int, imm: int) -> str:
    """LDRSB Rt, [Rn], #imm: a sign-extended byte, then Rn += imm (0 <= imm < 256)."""
    return data(0xF910 | rn, rt << 12 | 0xB00 | _imm(imm, 256), f"ldrsb {r(rt)}, [{r(rn)}], #{imm}")


def strb_post(rt: int, rn: int, imm: int) -> str:
    """STRB Rt, [Rn], #imm: store a byte, then Rn += imm (0 <= imm < 256)."""
    return data(0xF800 | rn, rt << 12 | 0xB00 | _imm(imm, 256), f"strb {r(rt)}, [{r(rn)}], #{imm}")


def ldrd_imm(rt: int, rt2: int, rn: int, imm: int) -> str:
    """LDRD Rt, Rt2, [Rn, #imm] (imm a multiple of 4 below 1024; Rn + imm word-aligned)."""
    return data(0xE9D0 | rn, rt << 12 | rt2 << 8 | _imm(imm, 1024, 4) >> 2, f"ldrd {r(rt)}, {r(rt2)}, {_at(rn, imm)}")


def strd_post(rt: int, rt2: int, rn: int, imm: int) -> str:
    """STRD Rt, Rt2, [Rn], #imm: store two words, then Rn += imm (a multiple of 4 below 1024)."""
    return data(
        0xE8E0 | rn, rt << 12 | rt2 << 8 | _imm(imm, 1024, 4) >> 2, f"strd {r(rt)}, {r(rt2)}, [{r(rn)}], #{imm}"
    )


def addw(rd: int, rn: int, imm: int) -> str:
    """ADDW Rd, Rn, #imm (0 <= imm < 4096; Rn may be sp)."""
    imm = _imm(imm, 4096)
    return data(
        0xF200 | (imm >> 11 & 1) << 10 | rn,
        (imm >> 8 & 7) << 12 | rd << 8 | imm & 0xFF,
        f"addw {r(rd)}, {r(rn)}, #{imm}",
    )


def subw(rd: int, rn: int, imm: int) -> str:
    """SUBW Rd, Rn, #imm (0 <= imm < 4096; Rn and Rd may be sp)."""
    imm = _imm(imm, 4096)
    return data(
        0xF2A0 | (imm >> 11 & 1) << 10 | rn,
        (imm >> 8 & 7) << 12 | rd << 8 | imm & 0xFF,
        f"subw {r(rd)}, {r(rn)}, #{imm}",
    )


def add_lsl(rd: int, rn: int, rm: int, shift: int) -> str:
    """ADD.W Rd, Rn, Rm, LSL #shift."""
    return data(
        0xEB00 | rn,
        (shift >> 2) << 12 | rd << 8 | (shift & 3) << 6 | rm,
        f"add.w {r(rd)}, {r(rn)}, {r(rm)}" + (f", lsl #{shift}" if shift else ""),
    )


def mul(rd: int, rn: int, rm: int) -> str:
    """MUL.W Rd, Rn, Rm (flags unchanged)."""
    return data(0xFB00 | rn, 0xF000 | rd << 8 | rm, f"mul.w {r(rd)}, {r(rn)}, {r(rm)}")


def asr_imm(rd: int, rm: int, shift: int) -> str:
    """ASR.W Rd, Rm, #shift (1 <= shift <= 31)."""
    return data(
        0xEA4F, (shift >> 2) << 12 | rd << 8 | (shift & 3) << 6 | 0x20 | rm, f"asr.w {r(rd)}, {r(rm)}, #{shift}"
    )


def ssat(rd: int, bits: int, rn: int, asr: int = 0) -> str:
    """SSAT Rd, #bits, Rn[, ASR #asr]: Rn (shifted right arithmetically by 1..31) clamped to
    the signed range of `bits` bits."""
    return data(
        0xF300 | (0x20 if asr else 0) | rn,
        (asr >> 2) << 12 | rd << 8 | (asr & 3) << 6 | (bits - 1),
        f"ssat {r(rd)}, #{bits}, {r(rn)}" + (f", asr #{asr}" if asr else ""),
    )


def usat(rd: int, bits: int, rn: int, asr: int = 0) -> str:
    """USAT Rd, #bits, Rn[, ASR #asr]: Rn (shifted right arithmetically by 1..31) clamped to
    [0, 2**bits - 1]."""
    return data(
        0xF380 | (0x20 if asr else 0) | rn,
        (asr >> 2) << 12 | rd << 8 | (asr & 3) << 6 | bits,
        f"usat {r(rd)}, #{bits}, {r(rn)}" + (f", asr #{asr}" if asr else ""),
    )


def sadd8(rd: int, rn: int, rm: int) -> str:
    """SADD8 Rd, Rn, Rm: the four byte lanes of Rn and Rm added (wrapping), one instruction."""
    return data(0xFA80 | rn, 0xF000 | rd << 8 | rm, f"sadd8 {r(rd)}, {r(rn)}, {r(rm)}")


def smlabb(rd: int, rn: int, rm: int, ra: int) -> str:
    """SMLABB Rd, Rn, Rm, Ra: Rd = Ra + Rn.lo * Rm.lo (signed halfwords)."""
    return data(0xFB10 | rn, ra << 12 | rd << 8 | rm, f"smlabb {r(rd)}, {r(rn)}, {r(rm)}, {r(ra)}")


def smlatt(rd: int, rn: int, rm: int, ra: int) -> str:
    """SMLATT Rd, Rn, Rm, Ra: Rd = Ra + Rn.hi * Rm.hi (signed halfwords)."""
    return data(0xFB10 | rn, ra << 12 | rd << 8 | 0x30 | rm, f"smlatt {r(rd)}, {r(rn)}, {r(rm)}, {r(ra)}")


def ldrb_imm(rt: int, rn: int, imm: int) -> str:
    """LDRB.W Rt, [Rn, #imm] (0 <= imm < 4096)."""
    return data(0xF890 | rn, rt << 12 | _imm(imm, 4096), f"ldrb.w {r(rt)}, {_at(rn, imm)}")


def ldrb_post(rt: int, rn: int, imm: int) -> str:
    """LDRB Rt, [Rn], #imm: load a byte, then Rn += imm (0 <= imm < 256)."""
    return data(0xF810 | rn, rt << 12 | 0xB00 | _imm(imm, 256), f"ldrb {r(rt)}, [{r(rn)}], #{imm}")


def strb_reg(rt: int, rn: int, rm: int) -> str:
    """STRB.W Rt, [Rn, Rm]."""
    return data(0xF800 | rn, rt << 12 | rm, f"strb.w {r(rt)}, [{r(rn)}, {r(rm)}]")


def cmp_reg(rn: int, rm: int) -> str:
    """CMP.W Rn, Rm (any registers but sp, pc)."""
    return data(0xEBB0 | rn, 0x0F00 | rm, f"cmp.w {r(rn)}, {r(rm)}")


def strd_imm(rt: int, rt2: int, rn: int, imm: int) -> str:
    """STRD Rt, Rt2, [Rn, #imm] (imm a multiple of 4 below 1024)."""
    return data(0xE9C0 | rn, rt << 12 | rt2 << 8 | _imm(imm, 1024, 4) >> 2, f"strd {r(rt)}, {r(rt2)}, {_at(rn, imm)}")


def vldrb_post(qd: int, rn: int, imm: int) -> str:
    """VLDRB.U8 Qd, [Rn], #imm (MVE): 16 bytes, then Rn += imm (0 <= imm < 128)."""
    _q(qd)
    return data(0xECB0 | rn, qd << 13 | 0x1E00 | _imm(imm, 128), f"vldrb.u8 q{qd}, [{r(rn)}], #{imm}")


def vstrb_post(qd: int, rn: int, imm: int) -> str:
    """VSTRB.8 Qd, [Rn], #imm (MVE): 16 bytes stored, then Rn += imm (0 <= imm < 128)."""
    _q(qd)
    return data(0xECA0 | rn, qd << 13 | 0x1E00 | _imm(imm, 128), f"vstrb.8 q{qd}, [{r(rn)}], #{imm}")


def vadd_i8(qd: int, qn: int, qm: int) -> str:
    """VADD.I8 Qd, Qn, Qm (MVE): sixteen byte lanes added (wrapping)."""
    _q(qd, qn, qm)
    return data(0xEF00 | qn << 1, qd << 13 | 0x0840 | qm << 1, f"vadd.i8 q{qd}, q{qn}, q{qm}")


def str_post(rt: int, rn: int, imm: int) -> str:
    """STR Rt, [Rn], #imm: store a word, then Rn += imm (0 <= imm < 256)."""
    return data(0xF840 | rn, rt << 12 | 0xB00 | _imm(imm, 256), f"str {r(rt)}, [{r(rn)}], #{imm}")


def vldrb_imm(qd: int, rn: int, imm: int) -> str:
    """VLDRB.U8 Qd, [Rn, #imm] (MVE): 16 bytes from Rn + imm (0 <= imm < 128)."""
    _q(qd)
    return data(0xED90 | rn, qd << 13 | 0x1E00 | _imm(imm, 128), f"vldrb.u8 q{qd}, {_at(rn, imm)}")


def smlabt(rd: int, rn: int, rm: int, ra: int) -> str:
    """SMLABT Rd, Rn, Rm, Ra: Rd = Ra + Rn.lo * Rm.hi (signed halfwords)."""
    return data(0xFB10 | rn, ra << 12 | rd << 8 | 0x10 | rm, f"smlabt {r(rd)}, {r(rn)}, {r(rm)}, {r(ra)}")


def smlatb(rd: int, rn: int, rm: int, ra: int) -> str:
    """SMLATB Rd, Rn, Rm, Ra: Rd = Ra + Rn.hi * Rm.lo (signed halfwords)."""
    return data(0xFB10 | rn, ra << 12 | rd << 8 | 0x20 | rm, f"smlatb {r(rd)}, {r(rn)}, {r(rm)}, {r(ra)}")


def pkhbt(rd: int, rn: int, rm: int) -> str:
    """PKHBT Rd, Rn, Rm, LSL #16: Rn's low halfword, Rm's low halfword on top."""
    return data(0xEAC0 | rn, 4 << 12 | rd << 8 | rm, f"pkhbt {r(rd)}, {r(rn)}, {r(rm)}, lsl #16")


def ldrsb_imm(rt: int, rn: int, imm: int) -> str:
    """LDRSB.W Rt, [Rn, #imm] (0 <= imm < 4096): a sign-extended byte."""
    return data(0xF990 | rn, rt << 12 | _imm(imm, 4096), f"ldrsb.w {r(rt)}, {_at(rn, imm)}")


def strh_imm(rt: int, rn: int, imm: int) -> str:
    """STRH.W Rt, [Rn, #imm] (0 <= imm < 4096)."""
    return data(0xF8A0 | rn, rt << 12 | _imm(imm, 4096), f"strh.w {r(rt)}, {_at(rn, imm)}")


# MVE (Armv8.1-M) for the depthwise kernel of kernels.ops.mve: lanes are four output pixels.
def vldrh_s32(qd: int, rn: int, imm: int) -> str:
    """VLDRH.S32 Qd, [Rn, #imm] (MVE): four halfwords sign-extended to 32-bit lanes (r0-r7,
    imm even, 0 <= imm <= 254)."""
    _q(qd)
    return data(0xED98 | _low(rn), qd << 13 | 0x0F00 | _imm(imm, 256, 2) >> 1, f"vldrh.s32 q{qd}, {_at(rn, imm)}")


def vmla_s32(qda: int, qn: int, rm: int) -> str:
    """VMLA.S32 Qda, Qn, Rm (MVE): Qda += Qn * Rm, lane by lane (a scalar)."""
    _q(qda, qn)
    return data(0xEE21 | qn << 1, qda << 13 | 0x0E40 | rm, f"vmla.s32 q{qda}, q{qn}, {r(rm)}")


def vmov_q(qd: int, qm: int) -> str:
    """VMOV Qd, Qm (VORR Qd, Qm, Qm)."""
    _q(qd, qm)
    return data(0xEF20 | qm << 1, qd << 13 | 0x0150 | qm << 1, f"vorr q{qd}, q{qm}, q{qm}")


def vdup_32(qd: int, rt: int) -> str:
    """VDUP.32 Qd, Rt: Rt in the four lanes."""
    _q(qd)
    return data(0xEEA0 | qd << 1, rt << 12 | 0x0B10, f"vdup.32 q{qd}, {r(rt)}")


def vshr_s32(qd: int, qm: int, shift: int) -> str:
    """VSHR.S32 Qd, Qm, #shift (1 <= shift <= 32)."""
    _q(qd, qm)
    return data(0xEF80 | (64 - shift), qd << 13 | 0x0050 | qm << 1, f"vshr.s32 q{qd}, q{qm}, #{shift}")


def vmax_s32(qd: int, qn: int, qm: int) -> str:
    """VMAX.S32 Qd, Qn, Qm."""
    _q(qd, qn, qm)
    return data(0xEF20 | qn << 1, qd << 13 | 0x0640 | qm << 1, f"vmax.s32 q{qd}, q{qn}, q{qm}")


def vmin_s32(qd: int, qn: int, qm: int) -> str:
    """VMIN.S32 Qd, Qn, Qm."""
    _q(qd, qn, qm)
    return data(0xEF20 | qn << 1, qd << 13 | 0x0650 | qm << 1, f"vmin.s32 q{qd}, q{qn}, q{qm}")


def vstrb_32_scatter(qd: int, rn: int, qm: int) -> str:
    """VSTRB.32 Qd, [Rn, Qm] (MVE): each lane's low byte to Rn + that lane of Qm."""
    _q(qd, qm)
    return data(0xEC80 | rn, qd << 13 | 0x0F00 | qm << 1, f"vstrb.32 q{qd}, [{r(rn)}, q{qm}]")


VPUSH_D8_D15 = data(0xED2D, 0x8B10, "vpush {d8-d15}")  # q4-q7 are callee-saved (d8-d15)
VPOP_D8_D15 = data(0xECBD, 0x8B10, "vpop {d8-d15}")


def vldrb_s32_gather(qd: int, rn: int, qm: int) -> str:
    """VLDRB.S32 Qd, [Rn, Qm] (MVE): four bytes from Rn + each lane of Qm, sign-extended."""
    _q(qd, qm)
    return data(0xEC90 | rn, qd << 13 | 0x0F00 | qm << 1, f"vldrb.s32 q{qd}, [{r(rn)}, q{qm}]")


def vstrh_32_post(qd: int, rn: int, imm: int) -> str:
    """VSTRH.32 Qd, [Rn], #imm (MVE): the lanes' low halfwords, then Rn += imm (r0-r7, imm even
    below 256)."""
    _q(qd)
    return data(0xECA8 | _low(rn), qd << 13 | 0x0F00 | _imm(imm, 256, 2) >> 1, f"vstrh.32 q{qd}, [{r(rn)}], #{imm}")


def vldrh_s32_gather(qd: int, rn: int, qm: int) -> str:
    """VLDRH.S32 Qd, [Rn, Qm] (MVE): four halfwords from Rn + each lane of Qm (bytes),
    sign-extended."""
    _q(qd, qm)
    return data(0xEC90 | rn, qd << 13 | 0x0F10 | qm << 1, f"vldrh.s32 q{qd}, [{r(rn)}, q{qm}]")


# The average pool of kernels.ops.pool: four int8 channels summed into halfword pairs per word.
def sxtab16(rd: int, rn: int, rm: int, ror: int = 0) -> str:
    """SXTAB16 Rd, Rn, Rm, ROR #ror: bytes 0 and 2 of Rm rotated, sign-extended and added to
    Rn's two halfwords (each wrapping on its own)."""
    return data(0xFA20 | rn, 0xF080 | rd << 8 | (ror // 8) << 4 | rm, f"sxtab16 {r(rd)}, {r(rn)}, {r(rm)}" + _ror(ror))


def sxth(rd: int, rm: int) -> str:
    """SXTH.W Rd, Rm: the low halfword of Rm, sign-extended."""
    return data(0xFA0F, 0xF080 | rd << 8 | rm, f"sxth.w {r(rd)}, {r(rm)}")


def vldrb_s16(qd: int, rn: int, imm: int) -> str:
    """VLDRB.S16 Qd, [Rn, #imm] (MVE): eight bytes sign-extended to halfword lanes (r0-r7,
    0 <= imm < 128)."""
    _q(qd)
    return data(0xED90 | _low(rn), qd << 13 | 0x0E80 | _imm(imm, 128), f"vldrb.s16 q{qd}, {_at(rn, imm)}")


def vadd_i16(qd: int, qn: int, qm: int) -> str:
    """VADD.I16 Qd, Qn, Qm (MVE): eight halfword lanes added (wrapping)."""
    _q(qd, qn, qm)
    return data(0xEF10 | qn << 1, qd << 13 | 0x0840 | qm << 1, f"vadd.i16 q{qd}, q{qn}, q{qm}")


def vmovl_s16(qd: int, qm: int, top: bool = False) -> str:
    """VMOVLB.S16 (VMOVLT.S16 where `top`) Qd, Qm (MVE): the even (odd) halfword lanes of Qm
    sign-extended to four word lanes."""
    _q(qd, qm)
    return data(
        0xEEB0, qd << 13 | (0x1000 if top else 0) | 0x0F40 | qm << 1, f"vmovl{'t' if top else 'b'}.s16 q{qd}, q{qm}"
    )


# The depthwise kernels of kernels.ops.dsp_*.
def sub_reg(rd: int, rn: int, rm: int) -> str:
    """SUB.W Rd, Rn, Rm (any registers but sp, pc; flags unchanged)."""
    return data(0xEBA0 | rn, rd << 8 | rm, f"sub.w {r(rd)}, {r(rn)}, {r(rm)}")
