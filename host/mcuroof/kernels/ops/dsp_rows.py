"""int8 depthwise layers on cores with the DSP extension, from widened input rows: each input
row is widened once per call into a row slot, every tap is then two LDRD and four SMLAxB."""

from __future__ import annotations

from typing import NamedTuple

from mcuroof.kernels import thumb2 as t
from mcuroof.kernels.listing import said
from mcuroof.kernels.ops.asm_text import lines as asm
from mcuroof.kernels.ops.dsp_common import LR, MAX_FRAME, SP, constants, count_up, grow, head, rq, shrink, store_args

# Depthwise with widened, zero-padded input rows. Frame: 64 bytes of state, then per channel
# group of 4 its taps' widened weights (8 bytes a tap) and its 4 biases (WP bytes a group), then
# KH row slots: one input row each, as PWM columns of GM groups of widened [c0,c2] [c1,c3]
# words (zeros where the window leaves the input). Each input row is widened once per call
# into slot y % KH; every tap is then two LDRD and four SMLABB/SMLATT.
D_P, D_X, D_W, D_OUT, D_OY, D_OX, D_LAST, D_Y0, D_RB, D_COL = 0, 4, 8, 12, 16, 20, 24, 28, 32, 44
D_PAD = 48  # (GB - GN) * 8: the rest of a column after the block's GN groups
D_G0, D_GN = 52, 56  # the block's first channel group and its group count


def dw_rows_geometry(job):
    """(GB, PWM, T, WP, woff, roff, slot, frame) of the row-slot depthwise kernel, or None where
    it does not apply (channels not a multiple of 4, windows over 3 rows, offsets out of reach).
    GB: channel groups a block (all of them where they fit, else 16, 8 or 4: the kernel runs
    the tile a block of channels at a time)."""
    ps = [tl.params for tl in job.tiles if tl.params.C % 4 == 0]
    if not ps:
        return None
    kh, kw = ps[0].KH, ps[0].KW
    if kh > 3 or len({(p.KH, p.KW, p.SH, p.SW, p.PT, p.PL) for p in ps}) != 1:
        return None
    pwm = max((p.OW - 1) * p.SW + kw for p in ps)
    taps = kh * kw
    wp = taps * 8 + 16
    gm = max(p.C for p in ps) // 4
    for gb in [gm] + [g for g in (16, 8, 4) if g < gm]:
        woff, roff = 64, 64 + gb * wp
        slot = pwm * gb * 8
        frame = roff + kh * slot
        if (kw - 1) * gb * 8 <= 1016 and taps * 8 + 8 <= 1020 and roff + (kh - 1) * slot <= 4095 and frame <= MAX_FRAME:
            return gb, pwm, taps, wp, woff, roff, slot, frame
    return None


def _slot_address(kh: int, roff: int, slot: int) -> str:
    """r1 = the row slot of input row y (in r4): sp + roff + (y % KH) * slot (y + 4*KH: y >= -PT)."""
    return (
        asm(f"""
            movw(r5,{4 * kh})
            add(r5,r5,r4)
            movw(r6,{kh})
            udiv(r7,r5,r6)
            mul(r7,r6)
            sub(r5,r5,r7)
            movw(r6,{slot})
            mul(r5,r6)
        """)
        + t.addw(1, SP, roff)
        + " add(r1,r1,r5)\n"
    )


def _dw_build(ky: int, kh: int, pl: int, gm: int, roff: int, slot: int, unroll: int) -> str:
    """Input row y = y0 + ky into slot y % KH, unless built already: columns x = col - PL of the
    pass's (OW-1)*SW + KW, each G widened groups (zeros outside the input), then the column's
    unused groups skipped. Its slot address to the frame."""
    lab = f"B{ky}"
    return (
        t.ldr_imm(4, SP, D_Y0)
        + (f" add(r4,{ky})\n" if ky else "")
        + t.ldr_imm(5, SP, D_LAST)
        + asm(f"""
            cmp(r4,r5)
            ble_w({lab}S)
        """)
        + t.str_imm(4, SP, D_LAST)
        + t.ldr_imm(0, SP, D_P)
        + _slot_address(kh, roff, slot)  # dst: slot (y % KH)
        + t.ldr_imm(2, SP, D_X)
        + asm("""
            ldr(r5,[r0,P.V])
            ldr(r6,[r0,P.C])
            mov(r10,r6)
            mul(r5,r6)
            mul(r5,r4)
            add(r2,r2,r5)
        """)
        + t.ldr_imm(5, SP, D_G0)
        + said(t.add_lsl(9, 2, 5, 2), "X + y*V*C + 4*g0")
        + t.ldr_imm(11, SP, D_PAD)
        + asm(f"""
            movw(r8,0)
            movw(r12,0)
            ldr(r5,[r0,P.OW])
            sub(r5,1)
            ldr(r6,[r0,P.SW])
            mul(r5,r6)
            ldr(r6,[r0,P.KW])
            add(r5,r5,r6)
            mov(r4,r5)  # columns
            movw(r5,{pl})
            neg(r5,r5)  # x = -PL
            label({lab}C)
        """)
        + t.ldr_imm(3, SP, D_GN)
        + (f" lsr(r3,r3,{unroll.bit_length() - 1})\n" if unroll > 1 else "")
        + t.ldr_imm(6, SP, D_Y0)
        + (f" add(r6,{ky})\n" if ky else "")
        + asm(f"""
            ldr(r7,[r0,P.H])
            cmp(r6,r7)
            bcs_w({lab}Z)
            ldr(r7,[r0,P.V])
            cmp(r5,r7)
            bcs_w({lab}Z)
        """)
        + t.mul(2, 5, 10)
        + t.add_lsl(2, 2, 9, 0)
        + f" label({lab}G)\n"
        + (t.ldr_post(6, 2, 4) + t.sxtb16(7, 6, 8) + t.sxtb16(6, 6) + t.strd_post(6, 7, 1, 8)) * unroll
        + asm(f"""
            sub(r3,1)
            bne_w({lab}G)
            b({lab}N)
            label({lab}Z)
        """)
        + t.strd_post(8, 12, 1, 8) * unroll
        + asm(f"""
            sub(r3,1)
            bne_w({lab}Z)
            label({lab}N)
        """)
        + t.add_lsl(1, 1, 11, 0)
        + asm(f"""
            add(r5,1)
            sub(r4,1)
            bne_w({lab}C)
            label({lab}S)
        """)
        + t.ldr_imm(4, SP, D_Y0)
        + (f" add(r4,{ky})\n" if ky else "")
        + _slot_address(kh, roff, slot)
        + t.str_imm(1, SP, D_RB + 4 * ky)
    )


class _Rows(NamedTuple):
    """What the routines of depthwise_rows_source share: the window, the geometry of
    dw_rows_geometry, the requantization, the row slots' frame words and the widening unroll."""

    kh: int
    kw: int
    sh: int
    sw: int
    pt: int
    pl: int
    gm: int
    taps: int
    wp: int
    woff: int
    roff: int
    slot: int
    m: int
    s: int
    lo: int
    rb: tuple
    unroll: int


def _rows_weights(taps: int, woff: int) -> str:
    """The block's weights widened into the frame (8 bytes a tap per group of 4), each group's
    4 biases after its taps."""
    return (
        t.ldr_imm(4, SP, D_P)
        + asm("ldr(r0,[r4,P.C])")
        + t.ldr_imm(3, SP, D_GN)
        + t.addw(1, SP, woff)
        + t.ldr_imm(9, SP, D_P)
        + t.ldr_imm(8, SP, D_G0)
        + " label(WG)\n"
        + t.ldr_imm(2, SP, D_W)
        + t.add_lsl(2, 2, 8, 2)
        + asm(f"""
            mov(r4,{taps})
            label(WT)
        """)
        + t.ldr_imm(6, 2, 0)
        + t.add_lsl(2, 2, 0, 0)
        + t.sxtb16(7, 6, 8)
        + t.sxtb16(6, 6)
        + t.strd_post(6, 7, 1, 8)
        + asm("""
            sub(r4,1)
            bne_w(WT)
        """)
        + t.add_lsl(2, 9, 8, 4)
        + t.ldrd_imm(6, 7, 2, 64)
        + t.strd_imm(6, 7, 1, 0)
        + t.ldrd_imm(6, 7, 2, 72)
        + t.strd_imm(6, 7, 1, 8)
        + " add(r1,16)\n"
        + t.addw(8, 8, 1)
        + asm("""
            sub(r3,1)
            bne_w(WG)
        """)
    )


def _rows_group_loop(r: _Rows, v: int, kx0: int, kx1: int, last: bool) -> str:
    """The group loop of a pixel whose window keeps the taps kx0 <= kx < kx1 (the others
    fall on zero padding: skipped, not multiplied)."""
    taps_code = "".join(
        t.ldrd_imm(4, 5, r.rb[ky], kx * r.gm * 8)
        + t.ldrd_imm(6, 7, 8, (ky * r.kw + kx) * 8)
        + t.smlabb(10, 4, 6, 10)
        + t.smlatt(12, 4, 6, 12)
        + t.smlabb(11, 5, 7, 11)
        + t.smlatt(LR, 5, 7, LR)
        for ky in range(r.kh)
        for kx in range(kx0, kx1)
    )
    return (
        f" label(GL{v})\n"
        + t.ldrd_imm(10, 11, 8, r.taps * 8)
        + t.ldrd_imm(12, LR, 8, r.taps * 8 + 8)
        + taps_code
        + f" movw(r4,{r.m})\n"
        + "".join(rq(a, r.s, r.lo) for a in (10, 11, 12, LR))
        + "".join(t.strb_imm(a, 9, i) for i, a in enumerate((10, 11, 12, LR)))
        + t.addw(9, 9, 4)
        + "".join(f" add(r{reg},8)\n" for reg in r.rb)
        + t.addw(8, 8, r.wp)
        + asm(f"""
            sub(r0,1)
            bne_w(GL{v})
        """)
        + ("" if last else " beq_w(GD)\n")
    )


def _rows_span_dispatch(r: _Rows, spans: list) -> str:
    """kx0, kx1 of the pixel's window (the taps inside the input's columns), and a branch to the
    group loop of that span (the last span falls through to its loop, placed first)."""
    return (
        t.ldr_imm(4, SP, D_OX)
        + asm(f"""
            movw(r5,{r.sw})
            mul(r4,r5)
            movw(r5,{r.pl})
            sub(r4,r4,r5)
            mov(r6,0)
            sub(r6,r6,r4)
            cmp(r6,0)
            bge(DA)
            mov(r6,0)
            label(DA)  # kx0
        """)
        + t.ldr_imm(5, SP, D_P)
        + asm(f"""
            ldr(r7,[r5,P.V])
            sub(r7,r7,r4)
            movw(r5,{r.kw})
            cmp(r7,r5)
            ble(DB)
            mov(r7,r5)
            label(DB)  # kx1
        """)
        + "".join(
            asm(f"""
                cmp(r6,{a})
                bne(DN{v})
                cmp(r7,{b})
                beq_w(GL{v})
                label(DN{v})
            """)
            for v, (a, b) in enumerate(spans[:-1])
        )
    )


def _rows_groups(r: _Rows, spans: list) -> str:
    """The pixel's group loops, one per span of taps, entered by _rows_span_dispatch."""
    order = [len(spans) - 1] + list(range(len(spans) - 1))
    loops = "".join(_rows_group_loop(r, v, *spans[v], i == len(order) - 1) for i, v in enumerate(order))
    return _rows_span_dispatch(r, spans) + loops + " label(GD)\n"


def _rows_pixel(r: _Rows, spans: list) -> str:
    """The pixel pass of a row: per output pixel, its output address, the row slots' columns,
    its group loops; to PX until the row's pixels are done."""
    return (
        " label(PX)\n"
        + t.ldr_imm(5, SP, D_P)
        + t.ldr_imm(4, SP, D_OY)
        + asm("""
            ldr(r6,[r5,P.OW])
            mul(r4,r6)
        """)
        + t.ldr_imm(6, SP, D_OX)
        + asm("""
            add(r4,r4,r6)
            ldr(r6,[r5,P.C])
            mul(r4,r6)
        """)
        + t.ldr_imm(6, SP, D_G0)
        + t.add_lsl(4, 4, 6, 2)
        + t.ldr_imm(6, SP, D_OUT)
        + said(t.add_lsl(9, 4, 6, 0), "O + pixel*C + 4*g0")
        + t.ldr_imm(0, SP, D_GN)
        + t.ldr_imm(5, SP, D_COL)
        + "".join(t.ldr_imm(reg, SP, D_RB + 4 * i) + f" add(r{reg},r{reg},r5)\n" for i, reg in enumerate(r.rb))
        + t.addw(8, SP, r.woff)
        + _rows_groups(r, spans)
        + t.ldr_imm(5, SP, D_COL)
        + t.addw(5, 5, r.sw * r.gm * 8)
        + t.str_imm(5, SP, D_COL)
        + count_up(D_OX, "OW", "PX")
    )


def _rows_row(r: _Rows, spans: list) -> str:
    """An output row: its input rows built (_dw_build), its pixels; to ROW until the tile's rows are done."""
    return (
        " label(ROW)\n"
        + t.ldr_imm(4, SP, D_OY)
        + asm(f"""
            movw(r5,{r.sh})
            mul(r4,r5)
            movw(r5,{r.pt})
            sub(r4,r4,r5)
        """)
        + t.str_imm(4, SP, D_Y0)
        + "".join(_dw_build(ky, r.kh, r.pl, r.gm, r.roff, r.slot, r.unroll) for ky in range(r.kh))
        + " mov(r4,0)\n"
        + t.str_imm(4, SP, D_COL)
        + t.str_imm(4, SP, D_OX)
        + _rows_pixel(r, spans)
        + count_up(D_OY, "OH", "ROW")
    )


def depthwise_rows_source(job) -> str:
    """Depthwise, the whole tile per call, input rows widened once (see the frame above): per
    pixel and group of 4 channels, each tap is LDRD inputs, LDRD weights, SMLABB/SMLATT x 4
    (6 instructions per 4 MACs); biases, requantization and a 4-byte store per group. Columns
    of the window on the left or right padding are skipped (one group loop per span of taps
    the tiles' columns have); rows on the top or bottom padding are multiplied as zeros."""
    _, m, s, lo = constants(job)
    gm, pwm, taps, wp, woff, roff, slot, frame = dw_rows_geometry(job)  # gm: groups a block
    p = job.tiles[0].params
    groups = {tl.params.C // 4 for tl in job.tiles if tl.params.C % 4 == 0}
    unroll = 4 if all(g % 4 == 0 for g in groups) else 2 if all(g % 2 == 0 for g in groups) else 1
    r = _Rows(p.KH, p.KW, p.SH, p.SW, p.PT, p.PL, gm, taps, wp, woff, roff, slot, m, s, lo, (1, 2, 3)[: p.KH], unroll)
    cands = [tl.params for tl in job.tiles if tl.params.C % 4 == 0]
    spans = sorted({(max(0, r.pl - ox * r.sw), min(r.kw, q.V + r.pl - ox * r.sw)) for q in cands for ox in range(q.OW)})
    return (
        head("kr")
        + grow(frame)
        + store_args(D_P, D_X, D_W, D_OUT)
        + " mov(r4,0)\n"
        + t.str_imm(4, SP, D_G0)
        + " label(BLK)\n"
        + t.ldr_imm(0, SP, D_P)
        + asm("""
            ldr(r4,[r0,P.C])
            lsr(r4,r4,2)
        """)
        + t.ldr_imm(5, SP, D_G0)
        + asm(f"""
            sub(r4,r4,r5)
            movw(r6,{gm})
            cmp(r4,r6)
            ble(BA)
            mov(r4,r6)
            label(BA)  # GN
        """)
        + t.str_imm(4, SP, D_GN)
        + asm("""
            sub(r6,r6,r4)
            lsl(r6,r6,3)
        """)
        + t.str_imm(6, SP, D_PAD)
        + _rows_weights(taps, woff)
        + " mov(r4,0)\n"
        + t.str_imm(4, SP, D_OY)
        + asm("""
            movw(r4,0x8000)
            neg(r4,r4)
        """)
        + t.str_imm(4, SP, D_LAST)
        + _rows_row(r, spans)
        + t.ldr_imm(4, SP, D_G0)
        + f" add(r4,{gm})\n"
        + t.str_imm(4, SP, D_G0)
        + t.ldr_imm(0, SP, D_P)
        + asm("""
            ldr(r5,[r0,P.C])
            lsr(r5,r5,2)
            cmp(r4,r5)
            blt_w(BLK)
        """)
        + shrink(frame)
        + " pop({r8,r9,r10,r11})\n"
    )
