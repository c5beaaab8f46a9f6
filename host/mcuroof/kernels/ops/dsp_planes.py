"""int8 depthwise planes and in-place stride-2 kernels on cores with the DSP extension."""

from __future__ import annotations

from mcuroof.kernels import thumb2 as t
from mcuroof.kernels.listing import said
from mcuroof.kernels.ops.asm_text import lines as asm
from mcuroof.kernels.ops.contract import shape
from mcuroof.kernels.ops.dsp_common import (
    LR,
    MAX_FRAME,
    SP,
    add_imm,
    channel_head,
    constants,
    grow,
    head,
    leave,
    next_channel,
    rows_read,
    scaled,
    shrink,
    store_args,
    zero_pairs,
)

# Depthwise 3x3, stride 1, on channel planes. Frame: 64 bytes of state (P, X, W, O, c at 0..16,
# the channel's bias twice at 32), then one int16 plane: OH + 2 lines of LP halfwords, the
# channel's input rows zero-padded (plane[y + PT][x + PL] = X[y][x][c]). Per channel the rows
# are widened into it (LDRSB, STRH), its 9 weights packed into 6 registers, A_j = (w[j][0],
# w[j][1]) and B_j = (w[j][1], w[j][2]), and every output row swept two pixels a pass: per
# kernel row one LDRD fetches x0..x3 and SMLAD A.(x0,x1), SMLATB w2.x2 (pixel 0), SMLABT w0.x1,
# SMLAD B.(x2,x3) (pixel 1): 5 instructions per 6 MACs, the weights reused from registers.
# Stride 1: two output rows a pass where in reach, each of the 4 plane lines loaded once for both
# (28 instructions per 4 pixels' 24 MACs instead of 30).
# A kernel per tile shape, the row unrolled: kernel rows that fall on the padding above or below
# the input are left out (the first and last output rows), not multiplied as zeros; short runs of
# rows and small planes' widening are unrolled.
P_BIAS = 32
STRIDES = (1, 2)
# The plane and in-place kernels multiply each weight and the bias by M once per channel instead
# of every output by M: the same sum (modulo 2^32, as MUL), exact while w*M fits a halfword.
FOLD_M = 256


def _planes_shape(ps):
    """(LP, frame) of the plane kernel of tiles that share C, V and OW, or None where it does
    not apply (not 3x3 stride 1, offsets out of reach, frame over MAX_FRAME)."""
    p = ps[0]
    c, v, ow, st = p.C, p.V, p.OW, p.SH
    if any((q.KH, q.KW, q.SH, q.SW) != (3, 3, st, st) or q.PT > 1 or q.PL > 1 for q in ps) or st not in STRIDES:
        return None
    lp = -(-(st * ow + 2) // 4) * 4
    frame = 64 + 2 * lp * (st * max(q.OH for q in ps) + 3 - st)
    if frame > MAX_FRAME or 8 * c > 4095 or v * c > 4095 or ow * c > 4095 or 4 * lp + 4 * st * (ow // 2) + 8 > 1020:
        return None
    return lp, frame


def _planes_pass(k: int, lp: int, c: int, s: int, lo: int, pair: bool, st: int, rows=range(3)) -> str:
    """Output pixels 2k and 2k+1 of the row (only 2k where not `pair`): r0 = the row's plane
    line, r1 = its first output, weights A_j, B_j (times M) in r6 + 2j, r7 + 2j. Stride 2:
    pixel 2k+1 is A.(x2,x3) + w2.x4 (one more load). Only the kernel rows `rows` (the others
    fall on the padding above or below the input)."""
    code = t.ldrd_imm(12, LR, SP, P_BIAS)
    for j in rows:
        at = 2 * lp * j + 4 * st * k
        code += t.ldrd_imm(4, 5, 0, at) + t.smlad(12, 6 + 2 * j, 4, 12) + t.smlatb(12, 7 + 2 * j, 5, 12)
        if pair and st == 1:
            code += t.smlabt(LR, 6 + 2 * j, 4, LR) + t.smlad(LR, 7 + 2 * j, 5, LR)
        elif pair:
            code += t.smlad(LR, 6 + 2 * j, 5, LR) + t.ldr_imm(4, 0, at + 8) + t.smlatb(LR, 7 + 2 * j, 4, LR)
    accs = (12, LR) if pair else (12,)
    sat = (lambda a: t.usat(a, 7, a, s)) if lo == 0 else (lambda a: t.ssat(a, 8, a, s))
    return code + "".join(sat(a) for a in accs) + "".join(t.strb_imm(a, 1, (2 * k + i) * c) for i, a in enumerate(accs))


P_END = 48
MAX_ROW = 64  # output pixels of an unrolled row (~1000-1200 instructions): compiling longer ones risks the heap


def _pairs_fit(lp: int, ow: int, c: int, st: int) -> bool:
    """Two output rows a pass: stride 1, four plane lines in LDRD's reach, both rows' outputs in
    STRB's."""
    return st == 1 and 6 * lp + 4 * (ow // 2) + 8 <= 1020 and 2 * ow * c <= 4095 and ow <= MAX_ROW


def _row_pairs(p):
    """[(span, span2, n)]: runs of n pairs of output rows with the kernel-row spans (ja, jb) of
    their first and second row; an odd last row as (span, None, 1)."""
    spans = [(ja, jb) for ja, jb, n in row_runs(p) for _ in range(n)]
    runs = []
    for i in range(0, len(spans) - 1, 2):
        if runs and runs[-1][:2] == [spans[i], spans[i + 1]]:
            runs[-1][2] += 1
        else:
            runs.append([spans[i], spans[i + 1], 1])
    if len(spans) % 2:
        runs.append([spans[-1], None, 1])
    return [tuple(r) for r in runs]


def _planes_pass2(k: int, lp: int, ow: int, c: int, s: int, lo: int, pair: bool, a, b) -> str:
    """Pixels 2k and 2k+1 (only 2k where not `pair`) of two output rows (stride 1): each of the
    four plane lines loaded once (LDRD) serves the first row's kernel row l (accumulators r12,
    lr) and the second's l - 1 (r2, r3); kernel rows outside the spans a, b left out."""
    code = t.ldrd_imm(12, LR, SP, P_BIAS) + t.ldrd_imm(2, 3, SP, P_BIAS)
    for line in range(4):
        uses = [(j, acc) for j, acc, (ja, jb) in ((line, (12, LR), a), (line - 1, (2, 3), b)) if ja <= j < jb]
        if not uses:
            continue
        code += t.ldrd_imm(4, 5, 0, 2 * lp * line + 4 * k)
        for j, (a0, a1) in uses:
            code += t.smlad(a0, 6 + 2 * j, 4, a0) + t.smlatb(a0, 7 + 2 * j, 5, a0)
            if pair:
                code += t.smlabt(a1, 6 + 2 * j, 4, a1) + t.smlad(a1, 7 + 2 * j, 5, a1)
    sat = (lambda r: t.usat(r, 7, r, s)) if lo == 0 else (lambda r: t.ssat(r, 8, r, s))
    outs = [(12, 2 * k * c), (2, (ow + 2 * k) * c)] + (
        [(LR, (2 * k + 1) * c), (3, (ow + 2 * k + 1) * c)] if pair else []
    )
    return code + "".join(sat(r) for r, _ in outs) + "".join(t.strb_imm(r, 1, at) for r, at in outs)


def _planes_zero(lp: int, st: int) -> str:
    """The planes zeroed (their padding stays zero): (OH*ST + 2) rows of LP int16."""
    return (
        asm("ldr(r4,[r3,P.OH])")
        + (
            asm("""
                add(r4,r4,r4)
                add(r4,1)
            """)
            if st == 2
            else " add(r4,2)\n"
        )
        + f" movw(r5,{lp // 4})\n"
        + t.mul(4, 4, 5)
        + zero_pairs(64)
    )


def _planes_widen(p, lp: int) -> str:
    """Channel c's input rows read (LDRSB) into its plane as int16: a loop over the rows
    read, or unrolled where they are few (no count, the plane's offsets rendered)."""
    c, v, ow, st, pt, pl = p.C, p.V, p.OW, p.SH, p.PT, p.PL
    h_rows, cols = min(p.H, st * p.OH + 3 - st - pt), min(v, st * (ow - 1) + 3 - pl)  # input rows, columns read
    widen = (
        t.ldr_imm(0, SP, 0)
        + rows_read(0, st, pt, "WA")
        + t.ldr_imm(1, SP, 4)
        + t.ldr_imm(5, SP, 16)
        + said(t.add_lsl(1, 1, 5, 0), "X + c")
        + t.addw(3, SP, 64 + 2 * (pt * lp + pl))
        + " label(WR)\n"
        + "".join(t.ldrsb_imm(4, 1, x * c) + t.strh_imm(4, 3, 2 * x) for x in range(cols))
        + add_imm(1, v * c)
        + t.addw(3, 3, 2 * lp)
        + asm("""
            sub(r2,1)
            bne_w(WR)
        """)
    )
    if h_rows * cols <= 160:  # unrolled: no count, the plane's offsets rendered
        widen = (
            t.ldr_imm(1, SP, 4)
            + t.ldr_imm(5, SP, 16)
            + t.add_lsl(1, 1, 5, 0)
            + t.addw(3, SP, 64 + 2 * (pt * lp + pl))
            + "".join(
                "".join(t.ldrsb_imm(4, 1, x * c) + t.strh_imm(4, 3, 2 * (y * lp + x)) for x in range(cols))
                + add_imm(1, v * c)
                for y in range(h_rows)
            )
        )
    return widen


def _planes_weights(c: int, m: int) -> str:
    """Channel c's 3x3 weights times M, paired along the rows (r6-r11), its bias times M to the frame."""
    return (
        t.ldr_imm(1, SP, 8)
        + t.ldr_imm(5, SP, 16)
        + t.add_lsl(1, 1, 5, 0)
        + f" movw(r2,{m})\n"
        + "".join(
            scaled(4, 3 * j * c, 1, 2)
            + scaled(5, (3 * j + 1) * c, 1, 2)
            + scaled(12, (3 * j + 2) * c, 1, 2)
            + t.pkhbt(6 + 2 * j, 4, 5)
            + t.pkhbt(7 + 2 * j, 5, 12)
            for j in range(3)
        )
        + t.ldr_imm(0, SP, 0)
        + t.ldr_imm(5, SP, 16)
        + t.add_lsl(0, 0, 5, 2)
        + t.ldr_imm(4, 0, 64)
        + t.mul(4, 4, 2)
        + t.str_imm(4, SP, P_BIAS)
        + t.str_imm(4, SP, P_BIAS + 4)
    )


def _planes_row(p, lp: int, s: int, lo: int, ja: int, jb: int) -> str:
    """An output row (kernel rows ja..jb-1 inside the input), by pixel pairs."""
    c, ow, st = p.C, p.OW, p.SH
    return (
        "".join(_planes_pass(k, lp, c, s, lo, True, st, range(ja, jb)) for k in range(ow // 2))
        + (_planes_pass(ow // 2, lp, c, s, lo, False, st, range(ja, jb)) if ow % 2 else "")
        + t.addw(0, 0, 2 * lp * st)
        + add_imm(1, ow * c)
    )


def _planes_rows2(p, lp: int, s: int, lo: int, a, b) -> str:
    """Two output rows at once (kernel rows a and b inside the input), by pixel pairs."""
    c, ow = p.C, p.OW
    return (
        "".join(_planes_pass2(k, lp, ow, c, s, lo, True, a, b) for k in range(ow // 2))
        + (_planes_pass2(ow // 2, lp, ow, c, s, lo, False, a, b) if ow % 2 else "")
        + t.addw(0, 0, 4 * lp)
        + add_imm(1, 2 * ow * c)
    )


def _planes_lines(p, lp: int, s: int, lo: int) -> str:
    """The channel's output rows: pairs of rows where they fit (_pairs_fit), else runs of rows
    with the same kernel rows inside the input; long runs looped."""
    c, ow, st = p.C, p.OW, p.SH
    lines = t.ldr_imm(1, SP, 12) + t.add_lsl(1, 1, 5, 0) + t.addw(0, SP, 64)
    if _pairs_fit(lp, ow, c, st):
        for i, (a, b, n) in enumerate(_row_pairs(p)):
            if b is None:
                lines += _planes_row(p, lp, s, lo, *a)
            elif n == 1 or n * ow <= 12:
                lines += _planes_rows2(p, lp, s, lo, a, b) * n
            else:  # looped: r2 is an accumulator here, the count is r1 against its end
                lines += (
                    f" movw(r4,{2 * n * ow * c})\n"
                    + t.add_lsl(4, 4, 1, 0)
                    + t.str_imm(4, SP, P_END)
                    + f" label(LP{i})\n"
                    + _planes_rows2(p, lp, s, lo, a, b)
                    + t.ldr_imm(4, SP, P_END)
                    + asm(f"""
                        cmp(r1,r4)
                        blt_w(LP{i})
                    """)
                )
    else:
        for i, (ja, jb, n) in enumerate(row_runs(p)):
            lines += (
                _planes_row(p, lp, s, lo, ja, jb) * n
                if n == 1 or n * ow <= 24
                else asm(f"""
                    movw(r2,{n})
                    label(LN{i})
                """)
                + _planes_row(p, lp, s, lo, ja, jb)
                + asm(f"""
                    sub(r2,1)
                    bne_w(LN{i})
                """)
            )
    return lines


def depthwise_planes_source(job, ps, name: str) -> str:
    _, m, s, lo = constants(job)
    lp, frame = _planes_shape(ps)
    p = ps[0]
    c, st = p.C, p.SH
    return (
        head(name)
        + grow(frame)
        + store_args()
        + _planes_zero(lp, st)
        + " mov(r4,0)\n"
        + t.str_imm(4, SP, 16)
        + " label(CH)\n"
        + _planes_widen(p, lp)
        + _planes_weights(c, m)
        + _planes_lines(p, lp, s, lo)
        + next_channel(c)
        + shrink(frame)
        + " pop({r8,r9,r10,r11})\n"
    )


def planes_tiles(job):
    """The job's tile shapes that the plane kernel takes (params, first seen first)."""
    seen = []
    for tl in job.tiles:
        p = shape(tl.params)
        if p not in seen and _planes_shape([p]):
            seen.append(p)
    return seen


# Depthwise 3x3, stride 2, read in place (`depthwise_direct_source`, a kernel per tile shape):
# no plane. A channel at a time; kernel rows 0 and 1 meet input rows that no other output row
# reads, so they are paired vertically: VW_i = (w[0][i], w[1][i]) in r2-r4 against the column
# pair (x[y0][x], x[y0+1][x]) (2 LDRSB + PKHBT, the third column's pair kept in r9 as the next
# pixel's first), kernel row 2 horizontally: A_2 = (w[2][0], w[2][1]) in r5 against (x0, x1)
# (x1 loaded, x0 kept in r10 from the previous pixel), w[2][2] in r6. Per pixel 14 instructions
# for 9 MACs, then SSAT/USAT and STRB (weights and bias times M); the bias (r7) starts the
# sum. Taps on padding (kernel rows above or below the input, columns left or right of it) are
# left out: rows without the pair take their taps one at a time (SMLAxB). Two output rows whose
# kernel rows all fall inside the input go in one pass (input row y0 + 2 loaded once: 15.5
# instructions a pixel instead of 16). Frame: P, X, W, O, the channels' end, W + c, the bias
# pointer, the rows' end, the bias twice.
Q_END, Q_CEND, Q_BIAS = 28, 16, 32
Q_FRAME = 40
_VW = ((2, "b"), (3, "b"), (4, "b")), ((2, "t"), (3, "t"), (4, "t")), ((5, "b"), (5, "t"), (6, "b"))  # w[j][i]


def direct_applies(p) -> bool:
    """Tile p (params) fits the in-place kernel: 3x3, stride 2, offsets in reach."""
    v, c, ow = p.V, p.C, p.OW
    return (
        (p.KH, p.KW, p.SH, p.SW) == (3, 3, 2, 2)
        and p.PT <= 1
        and p.PL <= 1
        and 3 * v * c <= 4095
        and 8 * c <= 4095
        and ow * c <= 4095
        and ow <= MAX_ROW
    )


def row_runs(p):
    """[(ja, jb, n)]: runs of n output rows whose kernel rows ja <= j < jb fall inside the input."""
    h, st, pt = p.H, p.SH, p.PT
    runs = []
    for oy in range(p.OH):
        y0 = st * oy - pt
        span = (max(0, -y0), min(3, h - y0))
        if runs and tuple(runs[-1][:2]) == span:
            runs[-1][2] += 1
        else:
            runs.append([*span, 1])
    return [tuple(r) for r in runs]


def _looped(label: str, out_bytes: int, body: str, in_step: int, out_step: int, out0: int, in0: int) -> str:
    """body looped over out_bytes of output (r1 against its end, at Q_END): r1 and r0 first
    moved on by the unrolled rows' out0 and in0, then by out_step and in_step a pass."""
    return (
        _grow(1, out0)
        + _grow(0, in0)
        + f" movw(r12,{out_bytes})\n"
        + t.add_lsl(12, 12, 1, 0)
        + t.str_imm(12, SP, Q_END)
        + f" label({label})\n"
        + body
        + _grow(0, in_step)
        + _grow(1, out_step)
        + t.ldr_imm(12, SP, Q_END)
        + t.cmp_reg(1, 12)
        + f" blt_w({label})\n"
    )


def _grow(rd: int, imm: int) -> str:
    """rd += imm (r12 scratch above 4095)."""
    return t.addw(rd, rd, imm) if imm < 4096 else f" movw(r12,{imm})\n" + t.add_lsl(rd, rd, 12, 0)


def _tap(rd: int, j: int, i: int, rm: int, ra: int) -> str:
    """rd = ra + w[j][i] * rm.lo, the weight from its packed register."""
    reg, half = _VW[j][i]
    return (t.smlatb if half == "t" else t.smlabb)(rd, reg, rm, ra)


def _direct_row(p, ja: int, jb: int, s: int, lo: int, out0: int, in0: int = 0) -> str:
    """One output row: its input row y0 (X + c + y0*V*C) at r0 + in0, outputs at r1 + out0."""
    v, c, ow, pl = p.V, p.C, p.OW, p.PL
    vc = v * c
    pair = ja == 0 and jb >= 2
    singles = [j for j in range(ja, jb) if not (pair and j < 2)]
    carry = {j: 10 if j == 2 or (not pair and j == singles[-1] and len(singles) == 2) else 9 for j in singles}
    code = ""
    if pl == 0:
        if pair:
            code += t.ldrsb_imm(9, 0, in0) + t.ldrsb_imm(12, 0, in0 + vc) + t.pkhbt(9, 9, 12)
        code += "".join(t.ldrsb_imm(carry[j], 0, in0 + j * vc) for j in singles)
    for k in range(ow):
        x0 = 2 * k - pl
        valid = [0 <= x < v for x in (x0, x0 + 1, x0 + 2)]
        acc = 7
        if pair:
            for i, x in enumerate((x0, x0 + 1, x0 + 2)):
                if not valid[i]:
                    continue
                if i == 0:
                    code += t.smlad(LR, 2, 9, acc)
                else:
                    r = 11 if i == 1 else 9
                    code += (
                        t.ldrsb_imm(r, 0, in0 + x * c)
                        + t.ldrsb_imm(12, 0, in0 + vc + x * c)
                        + t.pkhbt(r, r, 12)
                        + t.smlad(LR, 2 + i, r, acc)
                    )
                acc = LR
        for j in singles:
            cj = carry[j]
            if valid[0]:
                code += _tap(LR, j, 0, cj, acc)
                acc = LR
            if valid[1]:
                code += t.ldrsb_imm(11, 0, in0 + j * vc + (x0 + 1) * c) + _tap(LR, j, 1, 11, acc)
                acc = LR
            if valid[2]:
                code += t.ldrsb_imm(cj, 0, in0 + j * vc + (x0 + 2) * c) + _tap(LR, j, 2, cj, LR)
        code += (t.usat(LR, 7, acc, s) if lo == 0 else t.ssat(LR, 8, acc, s)) + t.strb_imm(LR, 1, out0 + k * c)
    return code


def _direct_rows2(p, s: int, lo: int, out0: int, in0: int) -> str:
    """Two output rows whose kernel rows all fall inside the input, a pixel column at a time:
    input row y0 + 2 is kernel row 2 of the first and, as the bottom halves of the second's
    vertical pairs (rows y0 + 2, y0 + 3, carried in r8), it is loaded once for both; row y0 + 4
    horizontally (x0 carried in r9). Accumulators r12, lr from the bias pair at sp + Q_BIAS;
    r7 carries the first row's pairs (the bias is reloaded after)."""
    v, c, ow, pl = p.V, p.C, p.OW, p.PL
    vc = v * c

    def at(j: int, x: int) -> int:
        return in0 + j * vc + x * c

    def pair(rd: int, j: int, x: int) -> str:
        return t.ldrsb_imm(rd, 0, at(j, x)) + t.ldrsb_imm(11, 0, at(j + 1, x)) + t.pkhbt(rd, rd, 11)

    code = pair(7, 0, 0) + pair(8, 2, 0) + t.ldrsb_imm(9, 0, at(4, 0)) if pl == 0 else ""
    for k in range(ow):
        x0 = 2 * k - pl
        v0, v1, v2 = (0 <= x < v for x in (x0, x0 + 1, x0 + 2))
        code += t.ldrd_imm(12, LR, SP, Q_BIAS)
        if v0:
            code += t.smlad(12, 2, 7, 12)
        if v1:
            code += pair(10, 0, x0 + 1) + t.smlad(12, 3, 10, 12)
        if v2:
            code += pair(7, 0, x0 + 2) + t.smlad(12, 4, 7, 12)
        if v0:
            code += t.smlad(LR, 2, 8, LR) + t.smlabb(12, 5, 8, 12)
        if v1:
            code += pair(10, 2, x0 + 1) + t.smlad(LR, 3, 10, LR) + t.smlatb(12, 5, 10, 12)
        if v2:
            code += pair(8, 2, x0 + 2) + t.smlad(LR, 4, 8, LR) + t.smlabb(12, 6, 8, 12)
        if v1:
            code += t.ldrsb_imm(10, 0, at(4, x0 + 1))
            code += t.pkhbt(10, 9, 10) + t.smlad(LR, 5, 10, LR) if v0 else t.smlatb(LR, 5, 10, LR)
        elif v0:
            code += t.smlabb(LR, 5, 9, LR)
        if v2:
            code += t.ldrsb_imm(9, 0, at(4, x0 + 2)) + t.smlabb(LR, 6, 9, LR)
        sat = (lambda a: t.usat(a, 7, a, s)) if lo == 0 else (lambda a: t.ssat(a, 8, a, s))
        code += sat(12) + sat(LR) + t.strb_imm(12, 1, out0 + k * c) + t.strb_imm(LR, 1, out0 + (ow + k) * c)
    return code + t.ldr_imm(7, SP, Q_BIAS)


def depthwise_direct_source(job, p, name: str) -> str:
    _, m, s, lo = constants(job)
    v, c, ow, pt = p.V, p.C, p.OW, p.PT
    weights = lambda two_rows: (
        t.ldr_imm(12, SP, 20)
        + (f" movw(r8,{m})\n" if two_rows else "")  # r8: M, a carry there
        + "".join(scaled(2 + i, i * c) + scaled(LR, (3 + i) * c) + t.pkhbt(2 + i, 2 + i, LR) for i in range(3))
        + scaled(5, 6 * c)
        + scaled(LR, 7 * c)
        + t.pkhbt(5, 5, LR)
        + scaled(6, 8 * c)
        + t.addw(12, 12, 1)
        + t.str_imm(12, SP, 20)
        + t.ldr_imm(12, SP, 24)
        + t.ldr_post(7, 12, 4)
        + t.mul(7, 7, 8)
        + t.str_imm(12, SP, 24)
        + (t.str_imm(7, SP, Q_BIAS) + t.str_imm(7, SP, Q_BIAS + 4) if two_rows else "")
    )
    # two rows a pass: rows y0..y0+4 and both rows' outputs in reach; not for rows of 3 pixels (VWW
    # DW23: the bias kept on the stack and M reloaded cost more than the shared loads save)
    two = 5 * v * c <= 4096 and 2 * ow * c <= 4096 and ow >= 4
    rows, out0, moved, in0, moved_in, used = "", 0, 0, 0, 0, ""  # offsets not yet added to r1, r0
    for i, (ja, jb, n) in enumerate(row_runs(p)):
        if two and (ja, jb) == (0, 3) and n >= 2:
            used = "T"
        if two and (ja, jb) == (0, 3) and n >= 2 and (n // 2) * 2 * ow <= 40:
            for _ in range(n // 2):
                if out0 + 2 * ow * c > 4096:
                    rows += _grow(1, out0)
                    moved, out0 = moved + out0, 0
                if in0 + 5 * v * c > 4096:
                    rows += _grow(0, in0)
                    moved_in, in0 = moved_in + in0, 0
                rows += _direct_rows2(p, s, lo, out0, in0)
                out0, in0 = out0 + 2 * ow * c, in0 + 4 * v * c
            n %= 2
        elif two and (ja, jb) == (0, 3) and n >= 2:
            body = _direct_rows2(p, s, lo, 0, 0)
            rows += _looped(f"T{i}", (n // 2) * 2 * ow * c, body, 4 * v * c, 2 * ow * c, out0, in0)
            moved, out0 = moved + out0 + (n // 2) * 2 * ow * c, 0
            moved_in, in0 = moved_in + in0 + (n // 2) * 4 * v * c, 0
            n %= 2
        if not n:
            continue
        if n == 1 or n * ow <= 40:  # unrolled up to ~600 instructions (larger ones ran out of heap compiling)
            for _ in range(n):
                if out0 + ow * c > 4096:
                    rows += _grow(1, out0)
                    moved, out0 = moved + out0, 0
                if in0 + 3 * v * c > 4096:
                    rows += _grow(0, in0)
                    moved_in, in0 = moved_in + in0, 0
                rows += _direct_row(p, ja, jb, s, lo, out0, in0)
                out0, in0 = out0 + ow * c, in0 + 2 * v * c
        else:
            rows += _looped(f"R{i}", n * ow * c, _direct_row(p, ja, jb, s, lo, 0), 2 * v * c, ow * c, out0, in0)
            moved, out0, moved_in, in0 = moved + out0 + n * ow * c, 0, moved_in + in0 + n * 2 * v * c, 0
    back_in, back_out = moved_in - 1, moved - 1  # to the next channel's X + c, O + c
    rewind = (
        t.subw(0, 0, back_in)
        if 0 <= back_in < 4096
        else f" movw(r12,{back_in})\n" + t.sub_reg(0, 0, 12)
        if back_in >= 0
        else t.addw(0, 0, -back_in)
    )
    rewind += (
        t.subw(1, 1, back_out)
        if 0 <= back_out < 4096
        else f" movw(r12,{back_out})\n" + t.sub_reg(1, 1, 12)
        if back_out >= 0
        else t.addw(1, 1, -back_out)
    )
    return (
        channel_head(name, Q_FRAME)
        + t.addw(4, 2, c)
        + t.str_imm(4, SP, Q_CEND)
        + " mov(r1,r2)\n"
        + (t.subw(0, 0, v * c) if pt else "")
        + (f" movw(r8,{m})\n" if "T" not in used else "")
        + " label(CH)\n"
        + weights("T" in used)
        + rows
        + rewind
        + t.ldr_imm(12, SP, Q_CEND)
        + t.cmp_reg(1, 12)
        + " blt_w(CH)\n"
        + leave(Q_FRAME)
    )


def direct_tiles(job):
    """The job's tile shapes that the in-place stride-2 kernel takes (params, first seen first)."""
    seen = []
    for tl in job.tiles:
        p = shape(tl.params)
        if direct_applies(p) and p not in seen:
            seen.append(p)
    return seen
