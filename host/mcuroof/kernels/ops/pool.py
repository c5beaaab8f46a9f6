"""int8 average pools in one assembler call per tile, for cores with the DSP extension and,
on the Cortex-M55, MVE. docs/kernels.md."""

from __future__ import annotations

from mcuroof.kernels import thumb2 as t
from mcuroof.kernels.listing import said
from mcuroof.kernels.ops import dsp_common, m0
from mcuroof.kernels.ops.asm_text import lines as asm

SP, LR = dsp_common.SP, dsp_common.LR
# frame: P, X, W, O as the other DSP kernels, oy and ox where dsp_common.window reads them
F_P, F_X, F_O, F_OY, F_OX = 0, 4, 12, 16, 20
F_START, F_H, F_W, F_SKIP, F_M, F_B, F_OUT, F_C = 24, 28, 32, 36, 40, 44, 48, 52
F_OFFS = 64  # MVE: the scatter offsets, 4 words
FRAME = 80
ACCS = ((4, 5), (6, 7), (8, 9), (10, 11))  # halfword pairs [c0, c2], [c1, c3] of each group of 4


def applies(job) -> bool:
    layer = job.layer
    return (
        job.emitter == "asm_thumb"
        and job.dtype == "int8"
        and layer.op == "AVERAGE_POOL_2D"
        and all(tl.params.KH * tl.params.KW <= m0.POOL_MAX_WINDOW for tl in job.tiles)
    )


def _jump(label: str) -> str:
    return asm(f"""
        cmp(r0,r0)
        beq_w({label})
    """)


def _window() -> str:
    """The pixel's clipped window: its first input byte, rows, columns, the bytes from a row's
    last column to the next row's first (SKIP), the divisor's m and the MLA's addend B. A
    window of whole input rows (SKIP 0: a global pool) is one row of all its pixels."""
    return (
        t.ldr_imm(0, SP, F_P)
        + dsp_common.window(0)
        + t.str_imm(7, SP, F_H)
        + t.str_imm(4, SP, F_START)
        + dsp_common.window(1)
        + t.str_imm(7, SP, F_W)
        + t.ldr_imm(5, SP, F_START)
        + dsp_common.pixel_offset(6)
        + t.ldr_imm(1, SP, F_X)
        + " add(r5,r5,r1)\n"
        + t.str_imm(5, SP, F_START)
        + asm("""
            ldr(r5,[r0,P.V])
            sub(r5,r5,r7)
            mul(r5,r6)
        """)
        + said(t.str_imm(5, SP, F_SKIP), "(V - w) * C")
        + t.ldr_imm(5, SP, F_H)
        + asm("""
            mul(r5,r7)  # n
            movw(r6,0xffff)
            movt(r6,0xff)
            add(r6,r6,r5)
            udiv(r6,r6,r5)  # m
        """)
        + t.str_imm(6, SP, F_M)
        + asm("""
            mul(r5,r6)
            lsl(r5,r5,7)
            movw(r7,0)
            movt(r7,0x8000)
            add(r5,r5,r7)
        """)
        + t.str_imm(5, SP, F_B)
        + " mov(r4,0)\n"
        + t.str_imm(4, SP, F_C)
        + t.ldr_imm(5, SP, F_SKIP)
        + asm("""
            cmp(r5,0)
            bne(FL)
        """)
        + t.ldr_imm(5, SP, F_H)
        + t.ldr_imm(6, SP, F_W)
        + " mul(r5,r6)\n"
        + t.str_imm(5, SP, F_W)
        + " mov(r5,1)\n"
        + t.str_imm(5, SP, F_H)
        + " label(FL)\n"
    )


def _loops(name: str, zero: str, step: str) -> str:
    """The window's rows and columns from the block's first input (r0 = C, the column step):
    `zero` clears the accumulators, `step` adds a column's bytes into them. Then r1 = the
    block's first output, r2 = m, r3 = B."""
    return (
        t.ldr_imm(0, SP, F_P)
        + asm("ldr(r0,[r0,P.C])")
        + t.ldr_imm(1, SP, F_START)
        + t.ldr_imm(12, SP, F_C)
        + t.add_lsl(1, 1, 12, 0)
        + t.ldr_imm(3, SP, F_H)
        + t.ldr_imm(LR, SP, F_SKIP)
        + zero
        + f" label(R{name})\n"
        + t.ldr_imm(2, SP, F_W)
        + f" label(C{name})\n"
        + step
        + asm(f"""
            add(r1,r1,r0)
            sub(r2,1)
            bne_w(C{name})
        """)
        + t.add_lsl(1, 1, LR, 0)
        + asm(f"""
            sub(r3,1)
            bne_w(R{name})
        """)
        + t.ldr_imm(2, SP, F_M)
        + t.ldr_imm(3, SP, F_B)
        + t.ldr_imm(1, SP, F_OUT)
        + t.ldr_imm(12, SP, F_C)
        + t.add_lsl(1, 1, 12, 0)
    )


def _divide(src: str, off: int) -> str:
    """r12 (a sum, put there by `src`) divided by the window's n, stored at r1 + off."""
    return src + t.mla(12, 12, 2, 3) + t.asr_imm(12, 12, 24) + t.strb_imm(12, 1, off)


def _groups(g: int) -> str:
    """A block of g groups of 4 channels from channel c (frame), then c += 4g."""
    accs = ACCS[:g]
    step = "".join(
        t.ldr_imm(12, 1, 4 * i) + t.sxtab16(e, e, 12) + t.sxtab16(o, o, 12, 8) for i, (e, o) in enumerate(accs)
    )
    store = "".join(
        _divide(t.sxth(12, e), 4 * i)
        + _divide(t.sxth(12, o), 4 * i + 1)
        + _divide(t.asr_imm(12, e, 16), 4 * i + 2)
        + _divide(t.asr_imm(12, o, 16), 4 * i + 3)
        for i, (e, o) in enumerate(accs)
    )
    return (
        f" label(Q{g})\n"
        + _loops(str(g), "".join(f" movw(r{a},0)\n" for pair in accs for a in pair), step)
        + store
        + t.ldr_imm(4, SP, F_C)
        + f" add(r4,{4 * g})\n"
        + t.str_imm(4, SP, F_C)
        + _jump("NX")
    )


def _single() -> str:
    """One channel (tiles of under 4 channels): LDRSB and a 32-bit sum, then c += 1."""
    step = t.ldrsb_imm(12, 1, 0) + t.add_lsl(4, 4, 12, 0)
    return (
        " label(Q0)\n"
        + _loops("0", " movw(r4,0)\n", step)
        + _divide(" mov(r12,r4)\n", 0)
        + t.ldr_imm(4, SP, F_C)
        + " add(r4,1)\n"
        + t.str_imm(4, SP, F_C)
        + _jump("NX")
    )


def _vectors(g: int) -> str:
    """MVE: a block of g groups of 8 channels (q0..q3): per column VLDRB.S16 and VADD.I16 a
    group; then per group its even and odd channels widened to words (VMOVLB/VMOVLT), divided
    (VMLA.S32 by m onto B, VSHR.S32 24) and stored by VSTRB.32 at offsets 0, 2, 4, 6 (q6)."""
    step = "".join(t.vldrb_s16(4, 1, 8 * i) + t.vadd_i16(i, i, 4) for i in range(g))
    half = lambda q, top, rn: (
        t.vmovl_s16(4, q, top)
        + t.vdup_32(5, 3)
        + t.vmla_s32(5, 4, 2)
        + t.vshr_s32(5, 5, 24)
        + t.vstrb_32_scatter(5, rn, 6)
    )
    store = "".join(half(i, False, 1) + t.addw(12, 1, 1) + half(i, True, 12) + " add(r1,8)\n" for i in range(g))
    zero = " movw(r12,0)\n" + "".join(t.vdup_32(i, 12) for i in range(g))
    return (
        f" label(V{g})\n"
        + _loops(f"V{g}", zero, step)
        + store
        + t.ldr_imm(4, SP, F_C)
        + f" add(r4,{8 * g})\n"
        + t.str_imm(4, SP, F_C)
        + _jump("NX")
    )


# MVE: the next block by the channels left: 32 or more, 24, 16, 8; 1 to 7 left: the last 8
# channels again (C >= 8), else on to the DSP blocks
_VDISPATCH = (
    asm("""
        cmp(r6,32)
        bge_w(V4)
        cmp(r6,24)
        bge_w(V3)
        cmp(r6,16)
        bge_w(V2)
        cmp(r6,8)
        bge_w(V1)
        cmp(r6,0)
        beq_w(PE)
        cmp(r5,8)
        blt_w(ND)
        mov(r4,r5)
        sub(r4,8)
    """)
    + t.str_imm(4, SP, F_C)
    + _jump("V1")
    + " label(ND)\n"
)
# the next block of the pixel by the channels left: 16 or more, 12, 8, 4; 1 to 3 left: the last
# 4 channels again (C >= 4) or one channel at a time
_HEAD = " label(NX)\n" + t.ldr_imm(0, SP, F_P) + asm("ldr(r5,[r0,P.C])") + t.ldr_imm(4, SP, F_C) + " sub(r6,r5,r4)\n"
_DISPATCH = (
    asm("""
        cmp(r6,16)
        bge_w(Q4)
        cmp(r6,12)
        bge_w(Q3)
        cmp(r6,8)
        bge_w(Q2)
        cmp(r6,4)
        bge_w(Q1)
        cmp(r6,0)
        beq_w(PE)
        cmp(r5,4)
        blt_w(Q0)
        sub(r4,r5,4)
    """)
    + t.str_imm(4, SP, F_C)
    + _jump("Q1")
)
# the pixel done: its output address steps by C, then the next column, or the next row
_NEXT = (
    " label(PE)\n"
    + t.ldr_imm(4, SP, F_OUT)
    + " add(r4,r4,r5)\n"
    + t.str_imm(4, SP, F_OUT)
    + t.ldr_imm(4, SP, F_OX)
    + asm("""
        add(r4,1)
        ldr(r5,[r0,P.OW])
        cmp(r4,r5)
        blt(NC)
        mov(r4,0)
    """)
    + t.ldr_imm(6, SP, F_OY)
    + " add(r6,1)\n"
    + t.str_imm(6, SP, F_OY)
    + " label(NC)\n"
    + t.str_imm(4, SP, F_OX)
    + t.ldr_imm(6, SP, F_OY)
    + asm("""
        ldr(r5,[r0,P.OH])
        cmp(r6,r5)
        blt_w(PIX)
        bge_w(END)
    """)
)


def isa(job) -> str:
    """The extension this job's kernel uses: MVE blocks (8 channels a vector) where the core has
    it, else the DSP ones."""
    return "mve" if "mve" in job.isa else "dsp"


def source(job) -> str:
    mve = isa(job) == "mve"
    # MVE: q4-q7 are callee-saved; the scatter offsets 0, 2, 4, 6 to q6 through the frame
    offsets = (
        "".join(f" mov(r5,{2 * i})\n" + t.str_imm(5, SP, F_OFFS + 4 * i) for i in range(4))
        + t.addw(5, SP, F_OFFS)
        + t.vldr_q(6, 5, 32)
    )
    return (
        dsp_common.head()
        + (t.VPUSH_D8_D15 if mve else "")
        + t.subw(SP, SP, FRAME)
        + (offsets if mve else "")
        + dsp_common.store_args(F_P, F_X, 8, F_O)
        + t.str_imm(2, SP, F_OUT)
        + " mov(r4,0)\n"
        + t.str_imm(4, SP, F_OY)
        + t.str_imm(4, SP, F_OX)
        + " label(PIX)\n"
        + _window()
        + _HEAD
        + (_VDISPATCH if mve else "")
        + _DISPATCH
        + _NEXT
        + "".join(_groups(g) for g in (4, 3, 2, 1))
        + _single()
        + ("".join(_vectors(g) for g in (4, 3, 2, 1)) if mve else "")
        + " label(END)\n"
        + t.addw(SP, SP, FRAME)
        + (t.VPOP_D8_D15 if mve else "")
        + " pop({r8,r9,r10,r11})\n"
    )
