"""Thumb-2 instructions MicroPython's inline assembler lacks, as `data(2, hw1, hw2)` lines.

MLA, SMLAD, SXTB16 (Armv7-M and its DSP extension, ARM DDI 0403E), VFMA.F32 (FPv5), and the
MVE (Helium, Armv8.1-M, ARM DDI 0553) loads, VMLADAVA and vector VFMA. tests/test_thumb2.py
checks every encoder against the GNU assembler. Pure computation.
"""
from __future__ import annotations

MVE_SIZE = {8: (0, 0x100), 16: (0, 0), 32: (1, 0)}  # VMLADAV size bits: (first halfword, second)
MVE_LOAD = {8: 0x000, 16: 0x080, 32: 0x100}          # VLDRB / VLDRH / VLDRW size field


def data(hw1: int, hw2: int) -> str:
    return f" data(2,{hw1:#06x},{hw2:#06x})\n"


def mla(rd: int, rn: int, rm: int, ra: int) -> str:
    """MLA Rd, Rn, Rm, Ra: Rd = Ra + Rn * Rm."""
    return data(0xFB00 | rn, ra << 12 | rd << 8 | rm)


def smlad(rd: int, rn: int, rm: int, ra: int) -> str:
    """SMLAD Rd, Rn, Rm, Ra: Rd = Ra + Rn.lo * Rm.lo + Rn.hi * Rm.hi (signed halfwords)."""
    return data(0xFB20 | rn, ra << 12 | rd << 8 | rm)


def sxtb16(rd: int, rm: int, ror: int = 0) -> str:
    """SXTB16 Rd, Rm, ROR #ror: bytes 0 and 2 of Rm rotated, sign-extended to halfwords."""
    return data(0xFA2F, 0xF080 | rd << 8 | (ror // 8) << 4 | rm)


def vfma_f32(sd: int, sn: int, sm: int) -> str:
    """VFMA.F32 Sd, Sn, Sm: Sd += Sn * Sm (fused)."""
    return data(0xEEA0 | (sd & 1) << 6 | sn >> 1, (sd >> 1) << 12 | 0x0A00 | (sn & 1) << 7 | (sm & 1) << 5 | sm >> 1)


def vldr_q(qd: int, rn: int, bits: int) -> str:
    """VLDRB.U8 / VLDRH.U16 / VLDRW.U32 Qd, [Rn]: 16 bytes as lanes of `bits`."""
    return data(0xED90 | rn, qd << 13 | 0x1E00 | MVE_LOAD[bits])


def vmladava(rda: int, qn: int, qm: int, bits: int) -> str:
    """VMLADAVA.S<bits> Rda, Qn, Qm: Rda += the sum over lanes of Qn * Qm (Rda even)."""
    lo, hi = MVE_SIZE[bits]
    return data(0xEEF0 | qn << 1 | lo, (rda >> 1) << 13 | 0x0E00 | hi | 0x20 | qm << 1)


def vfma_q_f32(qd: int, qn: int, qm: int) -> str:
    """VFMA.F32 Qd, Qn, Qm (MVE): four float32 lanes, Qd += Qn * Qm."""
    return data(0xEF00 | qn << 1, qd << 13 | 0x0C50 | qm << 1)
