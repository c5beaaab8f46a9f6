"""int8 layer kernels for cores with MVE (Helium, Armv8.1-M: the Cortex-M55): convolutions and
dense layers with up to 256 inputs per output (VMLADAVA), and 3x3 depthwise layers (VMLA).
docs/kernels.md."""

from __future__ import annotations

from mcuroof.kernels import thumb2 as t
from mcuroof.kernels.listing import said
from mcuroof.kernels.ops import dsp_common
from mcuroof.kernels.ops.asm_text import lines as asm
from mcuroof.kernels.ops.contract import Grain, Variant

SP = 13
LR = 14
MAX_K = 256  # the gathered inputs (16 bytes a vector) stay a small stack frame


def applies(job) -> bool:
    """A job MVE kernels can run: an int8 asm_thumb convolution or dense layer with K <= 256."""
    layer = job.layer
    if job.emitter != "asm_thumb" or job.dtype != "int8" or "mve" not in job.isa:
        return False
    const = dsp_common.constants(job) if layer.op in ("CONV_2D", "FULLY_CONNECTED") else None
    return bool(const) and const[0] <= MAX_K


def _direct(k: int, kh: int, kw: int) -> bool:
    """The pixel's K inputs read in place: a 1x1 kernel and K a multiple of 16."""
    return kh == kw == 1 and k % 16 == 0


def variant(job) -> Variant:
    """source's path: inputs in place ("direct") or gathered; per channel, a vector of 16 inputs
    a VMLADAVA, streamed from memory with the weights where K is over 64 (4 vectors)."""
    k = dsp_common.constants(job)[0]
    p = job.tiles[0].params
    direct = _direct(k, p.KH, p.KW)
    return Variant("direct" if direct else "", Grain(1, 1, 16, stream=-(-k // 16) > 4, direct=direct))


def source(job) -> str:
    k, m, s, lo = dsp_common.constants(job)
    p = job.tiles[0].params
    c, kh, kw = p.C, p.KH, p.KW
    nq = -(-k // 16)
    direct = _direct(k, kh, kw)
    boff, frame = 32, 32 + (0 if direct else 16 * nq)
    if direct:  # the pixel's K inputs in place
        inputs = dsp_common.direct_inputs(k)
        pad = ""
        if nq <= 4:
            weights = "".join(t.vldrb_post(4 + q, 1, 16) for q in range(nq))
        else:  # K over 64: the inputs stream from memory with the weights, per channel
            weights = "".join(
                t.vldrb_post(0, 4, 16) + t.vldrb_post(1, 1, 16) + t.vmladava(8, 0, 1, 8) for _ in range(nq)
            )
    else:  # gathered (zeros where the window leaves the input) into K bytes on the stack, then
        # zeros up to 16 * nq: the weights read past a channel's K are multiplied by them
        inputs = dsp_common.gather(c, kh, kw, boff) + t.addw(1, SP, boff)
        pad = " movw(r4,0)\n" + "".join(t.str_imm(4, SP, boff + o) for o in range(k // 4 * 4, 16 * nq, 4))
        if nq <= 4:
            weights = "".join(t.vldrb_imm(4 + q, 1, 16 * q) for q in range(nq)) + t.addw(1, 1, k)
        else:  # the weights stream too (VLDRB's offset stops at 127), then back to the next channel's
            weights = "".join(
                t.vldrb_post(0, 4, 16) + t.vldrb_post(1, 1, 16) + t.vmladava(8, 0, 1, 8) for _ in range(nq)
            ) + (t.subw(1, 1, 16 * nq - k) if 16 * nq > k else "")
    return (
        dsp_common.head()
        + t.subw(SP, SP, frame)
        + dsp_common.store_args()
        + asm("""
            ldr(r4,[r3,P.OH])
            ldr(r5,[r3,P.OW])
            mul(r4,r5)
        """)
        + said(t.str_imm(4, SP, 16), "N = OH*OW")
        + " mov(r4,0)\n"
        + t.str_imm(4, SP, 20)
        + pad
        + " label(PIX)\n"
        + t.ldr_imm(4, SP, 20)
        + t.ldr_imm(0, SP, 0)
        + asm("""
            ldr(r5,[r0,P.OW])
            udiv(r6,r4,r5)
        """)
        + t.mul(7, 6, 5)
        + " sub(r7,r4,r7)\n"  # oy, ox
        + inputs
        + ("".join(t.vldrb_post(q, 1, 16) for q in range(nq)) if nq <= 4 else " mov(r2,r1)\n")
        + t.ldr_imm(0, SP, 0)
        + t.ldr_imm(4, SP, 20)
        + t.ldr_imm(1, SP, 8)
        + asm("""
            mov(r3,r0)
            add(r3,P.BIASES)  # weights, biases
            ldr(r6,[r0,P.OC])
            mov(r5,r4)
            mul(r5,r6)
        """)
        + t.ldr_imm(7, SP, 12)
        + asm(f"""
            add(r5,r5,r7)
            movw(r7,{m})
            label(CH)
        """)
        + t.ldr_post(8, 3, 4)
        + (" mov(r4,r2)\n" if nq > 4 else "")
        + weights
        + ("".join(t.vmladava(8, q, 4 + q, 8) for q in range(nq)) if nq <= 4 else "")
        + t.mul(8, 8, 7)
        + (t.usat(8, 7, 8, s) if lo == 0 else t.ssat(8, 8, 8, s))
        + t.strb_post(8, 5, 1)
        + asm("""
            sub(r6,1)
            bne_w(CH)
        """)
        + dsp_common.while_pixels("PIX", 1)
        + dsp_common.leave(frame)
    )


# Depthwise 3x3, stride 1 or 2: lanes are four output pixels of a column (oy..oy+3). Per channel the
# input is widened once into a zero-padded int16 plane stored column by column (plane[x + PL]
# [y + PT], LP halfwords a column), the 9 weights times M go to r4-r12 (and the bias times M to
# q5: M folded in once per channel), and each column of outputs is swept four pixels a step: per
# tap VLDRH.S32 (the four rows' inputs) and VMLA.S32 by the tap's weight (2 instructions per 4
# MACs), then VSHR by S, VMAX/VMIN clamp and a
# VSTRB.32 scatter to the four pixels' outputs (OW*C apart). A column whose height is not a
# multiple of 4 ends with a step over its last four pixels (two of them stored twice). Where
# four plane columns are within VLDRH's reach, columns go in pairs: 12 loads serve 18 VMLA;
# where five are, in threes (15 loads, 27 VMLA; the third accumulator is q3, reloaded with the
# widening's gather offsets per channel). Tall columns (LP over 41) reach the farther plane
# columns from a second base, r3.
# The widening gathers four input rows a step (VLDRB.S32 with row offsets, VSTRH.32 down the
# column), its last block backed up like the columns' last step.
# Frame: P, X, W, O, c, columns left, column plane, column output (0..28), the gather and
# scatter offsets on their way to q3 and q4 (32), then the input rows widened (40), the
# back-up of the last step in the plane and in O (48, 52) and of the widening's last block in
# the plane and in X (56, 60), the plane (64).
DW_FRAME_HEAD = 80  # state, then (at 64) the widening's gather offsets, kept for q3's reload
DW_GATHER = 64


def _dw_shape(ps):
    """(LP, frame) of the MVE depthwise kernel of tiles sharing C, V and OW, or None."""
    p = ps[0]
    c, v, ow, st = p.C, p.V, p.OW, p.SH
    if st not in (1, 2) or any((q.KH, q.KW, q.SH, q.SW) != (3, 3, st, st) or q.PT > 1 or q.PL > 1 for q in ps):
        return None
    lp = -(-(st * max(q.OH for q in ps) + 3 - st) // 4) * 4
    frame = DW_FRAME_HEAD + 2 * lp * (st * ow + 3 - st)
    if lp > 60 or frame > dsp_common.MAX_FRAME or 8 * c > 4095 or 4 * v * c > 4095 or 3 * ow * c > 65535:
        return None
    return lp, frame


def depthwise_groups(job) -> dict:
    """The job's tiles by (C, V, OW) that the MVE depthwise kernel takes (tiles of fewer than
    4 output rows run the DSP kernels)."""
    if "mve" not in job.isa or job.layer.op != "DEPTHWISE_CONV_2D":
        return {}
    groups = {}
    for tl in job.tiles:
        p = tl.params
        groups.setdefault((p.C, p.V, p.OW), []).append(p)
    return {key: ps for key, ps in groups.items() if _dw_shape(ps) and max(q.OH for q in ps) >= 4}


def _dw_step(lp: int, s: int, strided: bool = False) -> str:
    """Four output pixels of the column: r0 = their plane (column ox, row oy), r1 = their
    first output; bias in q5 and weights (times M), clamps in q6/q7, scatter offsets in q4.
    `strided` (stride 2): the four pixels' rows are 2 apart in the plane column, so each tap is
    a VLDRH.S32 gather (offsets 0, 4, 8, 12 bytes in q2) from lr = r0 + the tap."""

    def load(off: int) -> str:
        return t.addw(LR, 0, off) + t.vldrh_s32_gather(1, LR, 2) if strided else t.vldrh_s32(1, 0, off)

    return (
        t.vmov_q(0, 5)
        + "".join(load(2 * (kx * lp + ky)) + t.vmla_s32(0, 1, 4 + 3 * ky + kx) for ky in range(3) for kx in range(3))
        + t.vshr_s32(0, 0, s)
        + t.vmax_s32(0, 0, 6)
        + t.vmin_s32(0, 0, 7)
        + t.vstrb_32_scatter(0, 1, 4)
    )


def _bases(n: int, lp: int):
    """How a step reaches n plane columns with VLDRH (offsets up to 254): the columns from r0,
    the rest from r3 = r0 + 2*k0*LP; k0 or None where even two bases do not reach."""
    k0 = next((k for k in range(n, 0, -1) if 2 * ((k - 1) * lp + 2) <= 254), None)
    return k0 if k0 and (k0 == n or 2 * ((n - 1 - k0) * lp + 2) <= 254) else None


def _col(cx: int, ky: int, lp: int, k0: int) -> tuple:
    return (0, 2 * (cx * lp + ky)) if cx < k0 else (3, 2 * ((cx - k0) * lp + ky))


def _dw_step2(lp: int, s: int, c: int) -> str:
    """Output columns ox and ox+1 at once, four pixels each: the 4 plane columns' 12 loads
    serve both (18 VMLA); accumulators q0 and q2; r1 left at the second column's output."""
    k0 = _bases(4, lp)
    body = t.vmov_q(0, 5) + t.vmov_q(2, 5) + (t.addw(3, 0, 2 * k0 * lp) if k0 < 4 else "")
    for cx in range(4):
        for ky in range(3):
            body += t.vldrh_s32(1, *_col(cx, ky, lp, k0))
            if cx <= 2:
                body += t.vmla_s32(0, 1, 4 + 3 * ky + cx)
            if cx >= 1:
                body += t.vmla_s32(2, 1, 4 + 3 * ky + cx - 1)
    return (
        body
        + "".join(t.vshr_s32(q, q, s) + t.vmax_s32(q, q, 6) + t.vmin_s32(q, q, 7) for q in (0, 2))
        + t.vstrb_32_scatter(0, 1, 4)
        + t.addw(1, 1, c)
        + t.vstrb_32_scatter(2, 1, 4)
    )


def _dw_step3(lp: int, s: int, c: int) -> str:
    """Output columns ox..ox+2 at once, four pixels each: the 5 plane columns' 15 loads serve
    27 VMLA; accumulators q0, q2, q3; r1 left at the third column's output."""
    accs = (0, 2, 3)
    k0 = _bases(5, lp)
    body = "".join(t.vmov_q(q, 5) for q in accs) + (t.addw(3, 0, 2 * k0 * lp) if k0 < 5 else "")
    for cx in range(5):
        for ky in range(3):
            body += t.vldrh_s32(1, *_col(cx, ky, lp, k0))
            body += "".join(t.vmla_s32(q, 1, 4 + 3 * ky + cx - o) for o, q in enumerate(accs) if 0 <= cx - o <= 2)
    return (
        body
        + "".join(t.vshr_s32(q, q, s) + t.vmax_s32(q, q, 6) + t.vmin_s32(q, q, 7) for q in accs)
        + t.vstrb_32_scatter(0, 1, 4)
        + t.addw(1, 1, c)
        + t.vstrb_32_scatter(2, 1, 4)
        + t.addw(1, 1, c)
        + t.vstrb_32_scatter(3, 1, 4)
    )


def _dw_columns(step: str, lab: str, owc: int, back: int, st: int) -> str:
    """The column (pair) at the frame's plane and output addresses: its steps down OH, the
    last one backed up where OH % 4 != 0; r1 ends `back` bytes past a step's first output."""
    return (
        t.ldr_imm(0, SP, 24)
        + t.ldr_imm(1, SP, 28)
        + t.ldr_imm(2, SP, 0)
        + asm(f"""
            ldr(r2,[r2,P.OH])
            lsr(r2,r2,2)
            label({lab}K)
        """)
        + step
        + f" add(r0,{8 * st})\n"
        + dsp_common.add_imm(1, 4 * owc - back)
        + asm(f"""
            sub(r2,1)
            bne_w({lab}K)
        """)
        + t.ldr_imm(2, SP, 48)
        + asm(f"""
            cmp(r2,0)
            beq_w({lab}N)
            sub(r0,r0,r2)
        """)
        + t.ldr_imm(2, SP, 52)
        + " sub(r1,r1,r2)\n"
        + step
        + f" label({lab}N)\n"
    )


def _column_loop(count: int, label: str, body: str, planes_step: int, out_step: int) -> str:
    """`body` run `count` times (the count at sp+20), the planes' pointer at sp+24 and the
    output's at sp+28 advanced by their steps after each run."""
    return (
        f" movw(r2,{count})\n"
        + t.str_imm(2, SP, 20)
        + f" label({label})\n"
        + body
        + t.ldr_imm(0, SP, 24)
        + t.addw(0, 0, planes_step)
        + t.str_imm(0, SP, 24)
        + t.ldr_imm(1, SP, 28)
        + t.addw(1, 1, out_step)
        + t.str_imm(1, SP, 28)
        + t.ldr_imm(2, SP, 20)
        + " sub(r2,1)\n"
        + t.str_imm(2, SP, 20)
        + f" bne_w({label})\n"
    )


def _back_up(rows: str, label: str) -> str:
    """r4 = 4 - rows % 4 (0 where rows % 4 == 0), the rows a last block of 4 backs up over; r5 = 2 * r4."""
    return asm(f"""
        lsl(r4,{rows},30)
        lsr(r4,r4,30)
        beq({label})
        neg(r4,r4)
        add(r4,4)
        label({label})
        add(r5,r4,r4)
    """)


def _dw_setup(p, lp: int, frame: int, lo: int) -> str:
    """The kernel's constants to the frame: the gather's and scatter's row offsets, the widening's
    and the last step's back-ups, the clamp vectors (q6, q7); the planes zeroed; channel 0."""
    c, v, st, pt = p.C, p.V, p.SH, p.PT
    owc = p.OW * c
    return (
        (
            "".join(f" movw(r4,{4 * i})\n" + t.str_imm(4, SP, 32 + 4 * i) for i in range(4))
            + t.addw(4, SP, 32)
            + t.vldr_q(2, 4, 32)
            if st == 2
            else ""
        )  # rows 2 apart
        + "".join(
            f" movw(r4,{i * v * c})\n" + t.str_imm(4, SP, DW_GATHER + 4 * i) for i in range(4)
        )  # gather: 4 input rows
        + "".join(f" movw(r4,{i * owc})\n" + t.str_imm(4, SP, 32 + 4 * i) for i in range(4))
        + t.addw(4, SP, 32)
        + said(t.vldr_q(4, 4, 32), "scatter: 4 output rows")
        # the widening's last block back-up: 4 - rows % 4 rows, rows = min(H, ST*OH + 3 - ST - PT) >= 4
        + dsp_common.rows_read(3, st, pt, "RA")
        + t.str_imm(2, SP, 40)
        + _back_up("r2", "RZ")
        + t.str_imm(5, SP, 56)
        + f" movw(r5,{v * c})\n"
        + t.mul(4, 4, 5)
        + t.str_imm(4, SP, 60)
        + (
            " movw(r4,0)\n"
            if lo == 0
            else asm("""
                movw(r4,128)
                neg(r4,r4)
            """)
        )
        + t.vdup_32(6, 4)
        + " movw(r4,127)\n"
        + t.vdup_32(7, 4)
        # the last step's back-up: 4 - OH % 4 rows (none where OH % 4 == 0)
        + asm("ldr(r4,[r3,P.OH])")
        + _back_up("r4", "BZ")
        + (" add(r5,r5,r5)\n" if st == 2 else "")
        + t.str_imm(5, SP, 48)
        + f" movw(r5,{owc})\n"
        + t.mul(4, 4, 5)
        + t.str_imm(4, SP, 52)
        + f" movw(r4,{(frame - DW_FRAME_HEAD) // 8})\n"
        + dsp_common.zero_pairs(DW_FRAME_HEAD)
        + " mov(r4,0)\n"
        + t.str_imm(4, SP, 16)
    )


def _dw_widen(p, lp: int) -> str:
    """Channel c's input rows gathered (4 at a time, VLDRB.S32 gather) and widened to int16 into
    its zero-padded plane; the last block backed up over the rows before it."""
    c, v, ow, st, pt, pl = p.C, p.V, p.OW, p.SH, p.PT, p.PL
    xs = min(v, st * (ow - 1) + 3 - pl)
    block = asm("""
        mov(r0,r1)
        mov(r5,r3)
    """) + (t.addw(0, 0, c)).join(t.vldrb_s32_gather(0, 0, 3) + t.vstrh_32_post(0, 5, 2 * lp) for _ in range(xs))
    return (
        t.addw(4, SP, DW_GATHER)
        + said(t.vldr_q(3, 4, 32), "q3: the gather offsets (an accumulator of _dw_step3)")
        + t.ldr_imm(2, SP, 40)
        + " lsr(r2,r2,2)\n"  # blocks of 4 input rows
        + t.ldr_imm(1, SP, 4)
        + t.ldr_imm(5, SP, 16)
        + said(t.add_lsl(1, 1, 5, 0), "X + c")
        + t.addw(3, SP, DW_FRAME_HEAD + 2 * (pl * lp + pt))
        + " label(WR)\n"
        + block
        + dsp_common.add_imm(1, 4 * v * c)
        + asm("""
            add(r3,8)
            sub(r2,1)
            bne_w(WR)
        """)
        + t.ldr_imm(2, SP, 56)
        + asm("""
            cmp(r2,0)
            beq_w(WN)
            sub(r3,r3,r2)
        """)
        + t.ldr_imm(2, SP, 60)
        + " sub(r1,r1,r2)\n"
        + block
        + " label(WN)\n"
    )


def _dw_weights(c: int, m: int) -> str:
    """Channel c's 9 weights (r4-r12) and its bias (q5) times M: folded once per channel
    (32-bit lanes: exact for any M)."""
    return (
        t.ldr_imm(1, SP, 8)
        + t.ldr_imm(5, SP, 16)
        + t.add_lsl(1, 1, 5, 0)
        + f" movw(r3,{m})\n"
        + "".join(t.ldrsb_imm(4 + i, 1, i * c) + t.mul(4 + i, 4 + i, 3) for i in range(9))
        + t.ldr_imm(0, SP, 0)
        + t.ldr_imm(2, SP, 16)
        + t.add_lsl(0, 0, 2, 2)
        + t.ldr_imm(2, 0, 64)
        + t.mul(2, 2, 3)
        + t.vdup_32(5, 2)
    )


def _dw_column_passes(p, lp: int, s: int) -> str:
    """The channel's output columns: triples, then pairs where their plane columns are within
    VLDRH's reach, then one at a time."""
    c, ow, st = p.C, p.OW, p.SH
    owc = ow * c
    step = _dw_step(lp, s, st != 1)
    triples = ow // 3 if st == 1 and _bases(5, lp) else 0  # 5 plane columns within VLDRH's reach (of r0 and r3)
    pairs = (ow - 3 * triples) // 2 if st == 1 and _bases(4, lp) else 0  # 4 plane columns
    columns = (
        t.addw(0, SP, DW_FRAME_HEAD)
        + t.str_imm(0, SP, 24)
        + t.ldr_imm(1, SP, 12)
        + t.ldr_imm(2, SP, 16)
        + " add(r1,r1,r2)\n"
        + t.str_imm(1, SP, 28)
    )
    if triples:
        columns += _column_loop(triples, "CT", _dw_columns(_dw_step3(lp, s, c), "T", owc, 2 * c, st), 6 * lp, 3 * c)
    if pairs:
        columns += _column_loop(pairs, "CP", _dw_columns(_dw_step2(lp, s, c), "P", owc, c, st), 4 * lp, 2 * c)
    if ow - 3 * triples - 2 * pairs:
        columns += _column_loop(ow - 3 * triples - 2 * pairs, "COL", _dw_columns(step, "C", owc, 0, st), 2 * lp * st, c)
    return columns


def depthwise_source(job, ps, name: str) -> str:
    _, m, s, lo = dsp_common.constants(job)
    lp, frame = _dw_shape(ps)
    p = ps[0]
    c = p.C
    return (
        dsp_common.head(name)
        + t.VPUSH_D8_D15
        + dsp_common.grow(frame)
        + dsp_common.store_args()
        + _dw_setup(p, lp, frame, lo)
        + " label(CH)\n"
        + _dw_widen(p, lp)
        + _dw_weights(c, m)
        + _dw_column_passes(p, lp, s)
        + dsp_common.next_channel(c)
        + dsp_common.shrink(frame)
        + t.VPOP_D8_D15
        + " pop({r8,r9,r10,r11})\n"
    )
