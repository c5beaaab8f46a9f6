"""int8 depthwise layers on cores with the DSP extension (SMLAD, SXTB16): the per-tap and
row-slot kernels, the 3x3 one of a whole channel in registers, and the dispatch by tile shape
over them, the plane and in-place kernels (dsp_planes) and the MVE ones. docs/kernels.md."""

from __future__ import annotations

import itertools

from mcuroof.kernels import thumb2 as t
from mcuroof.kernels.listing import said
from mcuroof.kernels.ops.asm_text import lines as asm
from mcuroof.kernels.ops.contract import PARAMS, Variant, shape
from mcuroof.kernels.ops.dsp_common import (
    LR,
    SP,
    channel_head,
    constants,
    head,
    leave,
    pixel_offset,
    rq,
    scaled,
    store_args,
    window,
)
from mcuroof.kernels.ops.dsp_planes import (
    FOLD_M,
    depthwise_direct_source,
    depthwise_planes_source,
    direct_applies,
    direct_tiles,
    planes_tiles,
)
from mcuroof.kernels.ops.dsp_rows import depthwise_rows_source, dw_rows_geometry


def depthwise_applies(job) -> bool:
    return (
        job.emitter == "asm_thumb"
        and job.dtype == "int8"
        and job.layer.op == "DEPTHWISE_CONV_2D"
        and constants(job) is not None
    )


def _dw_tap() -> str:
    """One tap of 4 channels: inputs at r1 and weights at r2 (advanced by C, r9), widened by
    SXTB16, 4 SMLABB/SMLATT into r10, r11, r12, lr."""
    return (
        t.ldr_imm(4, 1, 0)
        + t.ldr_imm(6, 2, 0)
        + t.add_lsl(1, 1, 9, 0)
        + t.add_lsl(2, 2, 9, 0)
        + t.sxtb16(5, 4, 8)
        + t.sxtb16(4, 4)
        + t.sxtb16(7, 6, 8)
        + t.sxtb16(6, 6)
        + t.smlabb(10, 4, 6, 10)
        + t.smlatt(12, 4, 6, 12)
        + t.smlabb(11, 5, 7, 11)
        + t.smlatt(LR, 5, 7, LR)
    )


def _dw_pixel() -> str:
    """The pixel's window (its rows and taps per row to the frame), the first tap's input and
    weight addresses and the strides past a row's taps; r9 = C, r8 = 0 (the first group)."""
    return (
        t.ldr_imm(0, SP, 0)
        + window(0)
        + said(t.str_imm(7, SP, 28), "rows of taps")
        + asm("""
            ldr(r5,[r0,P.KW])
            mul(r6,r5)
        """)
        + t.str_imm(4, SP, 36)
        + t.str_imm(6, SP, 40)
        + window(1)
        + said(t.str_imm(7, SP, 32), "taps per row")
        + t.ldr_imm(5, SP, 36)
        + pixel_offset(1)
        + t.ldr_imm(2, SP, 4)
        + " add(r5,r5,r2)\n"
        + said(t.str_imm(5, SP, 36), "X + (y*V+x)*C")
        + t.ldr_imm(5, SP, 40)
        + asm("""
            add(r5,r5,r6)
            mul(r5,r1)
        """)
        + t.ldr_imm(2, SP, 8)
        + " add(r5,r5,r2)\n"
        + said(t.str_imm(5, SP, 40), "W + (ky*KW+kx)*C")
        + asm("""
            ldr(r5,[r0,P.V])
            sub(r5,r5,r7)
            mul(r5,r1)
        """)
        + said(t.str_imm(5, SP, 44), "(V - n)*C")
        + asm("""
            ldr(r5,[r0,P.KW])
            sub(r5,r5,r7)
            mul(r5,r1)
        """)
        + said(t.str_imm(5, SP, 48), "(KW - n)*C")
        + asm("""
            mov(r9,r1)
            movw(r8,0)
        """)
    )


def _dw_window(tag: str, biases: str, tap: str, accs: tuple, m: int, s: int, lo: int) -> str:
    """Channels from g (in r8) of the pixel: the accumulators from their biases (P + 64 + 4g,
    in r0), the window's rows of taps (tap: one tap, to T{tag}; its rows to R{tag}), each
    accumulator requantized and stored to the pixel's output + g."""
    return (
        t.ldr_imm(0, SP, 0)
        + t.add_lsl(0, 0, 8, 2)
        + biases
        + t.ldr_imm(1, SP, 36)
        + t.add_lsl(1, 1, 8, 0)
        + t.ldr_imm(2, SP, 40)
        + t.add_lsl(2, 2, 8, 0)
        + t.ldr_imm(0, SP, 28)
        + f" label(R{tag})\n"
        + t.ldr_imm(3, SP, 32)
        + f" label(T{tag})\n"
        + tap
        + asm(f"""
            sub(r3,1)
            bne_w(T{tag})
        """)
        + t.ldr_imm(4, SP, 44)
        + t.ldr_imm(5, SP, 48)
        + asm(f"""
            add(r1,r1,r4)
            add(r2,r2,r5)
            sub(r0,1)
            bne_w(R{tag})
            movw(r4,{m})
        """)
        + "".join(rq(a, s, lo) for a in accs)
        + t.ldr_imm(5, SP, 24)
        + t.add_lsl(5, 5, 8, 0)
        + "".join(t.strb_imm(a, 5, i) for i, a in enumerate(accs))
    )


def _dw_group(m: int, s: int, lo: int) -> str:
    """Channels g..g+3 (g in r8) of the pixel: 4 accumulators, a tap SXTB16 and SMLAxB."""
    biases = t.ldrd_imm(10, 11, 0, 64) + t.ldrd_imm(12, LR, 0, 72)
    return _dw_window("", biases, _dw_tap(), (10, 11, 12, LR), m, s, lo)


def _dw_next_group() -> str:
    """The next 4 channels (the last 4 overlap the ones before where C % 4 != 0), to G until all are done."""
    return t.addw(8, 8, 4) + asm("""
        mov(r5,r8)
        mov(r4,r9)
        cmp(r5,r4)
        beq_w(GE)
        sub(r4,3)
        cmp(r5,r4)
        blt_w(G)
        sub(r4,1)
        mov(r8,r4)
        bne_w(G)
        label(GE)
    """)


def _dw_next_pixel() -> str:
    """The next pixel's output address, column and row, back to PIX until the tile is done."""
    return (
        t.ldr_imm(4, SP, 24)
        + asm("""
            mov(r5,r9)
            add(r4,r4,r5)
        """)
        + said(t.str_imm(4, SP, 24), "next pixel's output")
        + t.ldr_imm(0, SP, 0)
        + t.ldr_imm(4, SP, 20)
        + asm("""
            add(r4,1)
            ldr(r5,[r0,P.OW])
            cmp(r4,r5)
            blt(NX)
            mov(r4,0)
        """)
        + t.ldr_imm(6, SP, 16)
        + " add(r6,1)\n"
        + t.str_imm(6, SP, 16)
        + " label(NX)\n"
        + t.str_imm(4, SP, 20)
        + t.ldr_imm(6, SP, 16)
        + asm("""
            ldr(r5,[r0,P.OH])
            cmp(r6,r5)
            blt_w(PIX)
        """)
    )


def _dw_single(m: int, s: int, lo: int) -> str:
    """Tiles of fewer than 4 channels: a channel at a time, LDRSB and MLA."""
    tap = t.ldrsb_post(4, 1, 0) + t.ldrsb_post(6, 2, 0) + t.add_lsl(1, 1, 9, 0) + t.add_lsl(2, 2, 9, 0)
    return (
        _dw_window("1", t.ldr_imm(10, 0, 64), tap + t.mla(10, 4, 6, 10), (10,), m, s, lo)
        + t.addw(8, 8, 1)
        + asm("""
            mov(r5,r8)
            mov(r4,r9)
            cmp(r5,r4)
            blt_w(G1)
            beq_w(GE)
        """)
    )


def depthwise_source(job) -> str:
    """Depthwise: per output pixel, 4 channels at a time (the last 4 overlap where C % 4 != 0):
    each tap's 4 inputs and 4 weights widened by SXTB16, 4 SMLABB/SMLATT into 4 accumulators,
    requantized and stored; the whole tile in one call. 10 instructions per 4 MACs per tap: a
    tap's weights serve one output per channel, so they are not reused from registers."""
    _, m, s, lo = constants(job)
    frame = 64
    return (
        head()
        + t.subw(SP, SP, frame)
        + store_args(0, 4, 8, 24)
        + " mov(r4,0)\n"
        + t.str_imm(4, SP, 16)
        + t.str_imm(4, SP, 20)
        + " label(PIX)\n"
        + _dw_pixel()
        + asm("""
            mov(r4,r9)
            cmp(r4,4)
            blt_w(G1)
            label(G)
        """)
        + _dw_group(m, s, lo)
        + _dw_next_group()
        + _dw_next_pixel()
        + asm("""
            b(END)
            label(G1)
        """)
        + _dw_single(m, s, lo)
        + " label(END)\n"
        + leave(frame)
    )


def _depthwise_other(job) -> str:
    """The row-slot or per-tap depthwise kernel of the job, as k."""
    if not dw_rows_geometry(job):
        return depthwise_source(job)
    if all(tl.params.C % 4 == 0 for tl in job.tiles):
        return depthwise_rows_source(job).replace("def kr(", "def k(")
    # tiles whose channels are not a multiple of 4 run the other kernel
    return (
        depthwise_rows_source(job)
        + "#--\n"
        + depthwise_source(job).replace("def k(", "def kg(")
        + "#--\ndef k(X,W,O,P):\n if P[2]&3:\n  kg(X,W,O,P)\n else:\n  kr(X,W,O,P)\n"
    )


# Depthwise 3x3, stride 1, on 3x3 inputs and outputs (VWW's last depthwise layer;
# `depthwise_3x3_source`): a channel's whole input and weights in registers, as pairs along the
# row: weights A_j = (w[j][0], w[j][1]) in r2-r4, B_j = (w[j][1], w[j][2]) in r5-r7 (times M),
# inputs P_r = (x[r][0], x[r][1]) in r8-r10, Q_r = (x[r][1], x[r][2]) in r11, r12, lr. Output
# (y, 0) is sum B_j.P_r, (y, 1) A_j.P_r + w[j][2]*x[r][2] (SMLATT B_j, Q_r), (y, 2) A_j.Q_r over
# the kernel rows j whose input row r = y + j - 1 exists: 28 MAC instructions for the 49 MACs
# that miss the padding, against ~75 to load, pair and scale a channel's weights and inputs and
# store its 9 outputs. Frame: P, X, W, O, the channels' end, W + c, the bias pointer, X + c,
# the bias times M, O + c.
K3_FRAME = 40


def _k3_applies(p) -> bool:
    return tuple(p[:12]) == (3, 3, p.C, 3, 3, p.C, 3, 3, 1, 1, 1, 1) and 8 * p.C <= 4095


def _k3_outputs(c: int, s: int, lo: int, ys) -> str:
    """Outputs of rows ys: r0 the sum (from the bias: at sp + 32, in r10 before row 2 of the
    input is loaded, in r8 once row 0 is done with), then SSAT/USAT, STRB at r1."""
    code = ""
    for y in ys:
        rows = [(j, y + j - 1) for j in range(3) if 0 <= y + j - 1 < 3]
        if y == 2:
            code += t.ldr_imm(8, SP, 32)  # input row 0 (r8) is done with
        for x in range(3):
            ra = (10, 0, 8)[y]
            if y == 1:
                code += t.ldr_imm(0, SP, 32)
            for j, r in rows:
                pr, qr = 8 + r, (11, 12, LR)[r]
                if x == 0:
                    code += t.smlad(0, 5 + j, pr, ra)
                elif x == 1:
                    code += t.smlad(0, 2 + j, pr, ra) + t.smlatt(0, 5 + j, qr, 0)
                else:
                    code += t.smlad(0, 2 + j, qr, ra)
                ra = 0
            code += (t.usat(0, 7, 0, s) if lo == 0 else t.ssat(0, 8, 0, s)) + t.strb_imm(0, 1, (3 * y + x) * c)
    return code


def depthwise_3x3_source(job, p, name: str) -> str:
    _, m, s, lo = constants(job)
    c = p.C

    def row(r: int, tmp: int) -> str:
        pr, qr = 8 + r, (11, 12, LR)[r]
        return (
            t.ldrsb_imm(pr, 0, 3 * r * c)
            + t.ldrsb_imm(qr, 0, (3 * r + 1) * c)
            + t.ldrsb_imm(tmp, 0, (3 * r + 2) * c)
            + t.pkhbt(pr, pr, qr)
            + t.pkhbt(qr, qr, tmp)
        )

    weights = (
        t.ldr_imm(8, SP, 20)
        + f" movw(r11,{m})\n"
        + "".join(
            scaled(2 + j, 3 * j * c, 8, 11)
            + scaled(9, (3 * j + 1) * c, 8, 11)
            + scaled(5 + j, (3 * j + 2) * c, 8, 11)
            + t.pkhbt(2 + j, 2 + j, 9)
            + t.pkhbt(5 + j, 9, 5 + j)
            for j in range(3)
        )
        + t.addw(8, 8, 1)
        + t.str_imm(8, SP, 20)
        + t.ldr_imm(8, SP, 24)
        + t.ldr_post(9, 8, 4)
        + t.str_imm(8, SP, 24)
        + t.mul(9, 9, 11)
        + t.str_imm(9, SP, 32)
    )
    inputs = (
        t.ldr_imm(0, SP, 28)
        + t.addw(1, 0, 1)
        + t.str_imm(1, SP, 28)
        + row(0, 1)
        + row(1, 1)
        + t.ldr_imm(1, SP, 36)
        + t.ldr_imm(10, SP, 32)
    )
    rest = t.ldr_imm(0, SP, 28) + t.subw(0, 0, 1) + row(2, 0)  # input row 2 after output row 0 (r10 held the bias)
    return (
        channel_head(name, K3_FRAME)
        + t.str_imm(0, SP, 28)
        + t.str_imm(2, SP, 36)
        + t.addw(4, 2, c)
        + t.str_imm(4, SP, 16)
        + " label(CH)\n"
        + weights
        + inputs
        + _k3_outputs(c, s, lo, (0,))
        + rest
        + _k3_outputs(c, s, lo, (1, 2))
        + " add(r1,1)\n"
        + t.str_imm(1, SP, 36)
        + t.ldr_imm(0, SP, 16)
        + asm("""
            cmp(r1,r0)
            blt_w(CH)
        """)
        + leave(K3_FRAME)
    )


def _test(p, ps) -> str:
    """The shortest test of P that tells tile shape p from the shapes ps of the other tiles
    (each comparison costs the interpreter a few hundred instructions per call)."""
    for n in range(1, 8):
        for fields in itertools.combinations(("C", "OH", "H", "OW", "V", "PT", "PL"), n):
            if not any(all(getattr(q, f) == getattr(p, f) for f in fields) for q in ps if q != p):
                return " and ".join(f"P[{PARAMS.index(f)}]=={getattr(p, f)}" for f in fields)
    return "True"


def _mve_groups(job) -> dict:
    """kernels.ops.mve's depthwise groups, less the strided ones whose heights are no multiple
    of 4 (its last step of 4 rows overlaps the one before): the in-place kernel is faster there
    (docs/kernels.md)."""
    from mcuroof.kernels.ops import mve as layer_kernels_mve

    return {
        key: ps
        for key, ps in layer_kernels_mve.depthwise_groups(job).items()
        if not all(q.SH == 2 and q.OH % 4 and direct_applies(shape(q)) for q in ps if q.OH >= 4)
    }


def _depthwise_dispatch(job) -> str:
    """The MVE kernels, the in-place stride-2 kernels and the plane kernels (one per tile
    shape) for the tile shapes they take, the other depthwise kernels (as
    kd) for the rest; k picks by P."""
    from mcuroof.kernels.ops import mve as layer_kernels_mve

    mve = _mve_groups(job)
    whole = {key for key, ps in mve.items() if min(q.OH for q in ps) >= 4}  # no tile left to the DSP
    shapes = {shape(tl.params) for tl in job.tiles}
    fold = constants(job)[1] < FOLD_M
    direct = [p for p in direct_tiles(job) if (p.C, p.V, p.OW) not in whole] if fold else []
    k3 = (
        [
            p
            for p in dict.fromkeys(shape(tl.params) for tl in job.tiles)
            if _k3_applies(p) and (p.C, p.V, p.OW) not in whole
        ]
        if fold
        else []
    )
    planes = [p for p in planes_tiles(job) if (p.C, p.V, p.OW) not in whole and p not in direct + k3] if fold else []
    if not planes and not mve and not direct and not k3:
        return _depthwise_other(job)
    code = "".join(layer_kernels_mve.depthwise_source(job, ps, f"km{i}") + "#--\n" for i, ps in enumerate(mve.values()))
    code += "".join(depthwise_direct_source(job, p, f"kq{i}") + "#--\n" for i, p in enumerate(direct))
    code += "".join(depthwise_3x3_source(job, p, f"k3{i}") + "#--\n" for i, p in enumerate(k3))
    code += "".join(depthwise_planes_source(job, [p], f"kp{i}") + "#--\n" for i, p in enumerate(planes))
    taken = set(direct) | set(planes) | set(k3)
    rest = {p for p in shapes - taken if (p.C, p.V, p.OW) not in whole}
    if rest:
        code += _depthwise_other(job).replace("def k(", "def kd(") + "#--\n"
    order = list(dict.fromkeys(shape(tl.params) for tl in job.tiles))  # the first tile's test first
    named = sorted(
        [(p, f"kq{i}") for i, p in enumerate(direct)]
        + [(p, f"k3{i}") for i, p in enumerate(k3)]
        + [(p, f"kp{i}") for i, p in enumerate(planes)],
        key=lambda pn: order.index(pn[0]),
    )
    tests = [(f"P[2]=={c} and P[1]=={v} and P[4]=={ow} and P[3]>=4", f"km{i}") for i, (c, v, ow) in enumerate(mve)] + [
        (_test(p, shapes), name) for p, name in named
    ]
    code += "def k(X,W,O,P):\n" + "".join(
        f" {'if' if i == 0 else 'elif'} {cond}:\n  {name}(X,W,O,P)\n" for i, (cond, name) in enumerate(tests)
    )
    return code + (" else:\n  kd(X,W,O,P)\n" if rest else "")


def source(job) -> str:
    """The depthwise kernels of this job (MVE ones where the core has MVE)."""
    return _depthwise_dispatch(job)


def kernel_isa(job) -> str:
    return "mve" if _mve_groups(job) else "dsp"


def variant(job) -> Variant:
    """On an MVE core, the extension its kernels use names the family (the MVE kernel takes
    tiles of 4 rows or more); one family on a DSP core."""
    return Variant(kernel_isa(job)) if "mve" in job.isa else Variant()
