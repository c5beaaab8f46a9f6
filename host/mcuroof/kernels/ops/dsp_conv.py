"""int8 convolutions on cores with the DSP extension (SMLAD, SXTB16)."""

from __future__ import annotations

from mcuroof.kernels import thumb2 as t
from mcuroof.kernels.listing import said
from mcuroof.kernels.ops import dsp_dense
from mcuroof.kernels.ops.asm_text import lines as asm
from mcuroof.kernels.ops.contract import Grain, Variant
from mcuroof.kernels.ops.dsp_common import (
    FRAME_HEAD,
    LDRD_REACH,
    LR,
    OC_SLOT,
    PIXEL_ACCS,
    SP,
    constants,
    direct_inputs,
    gather,
    head,
    leave,
    requant,
    store_args,
    unroll,
    while_pixels,
)
from mcuroof.kernels.ops.dsp_dense import dense_applies, dense_source

# frame of the block kernel, beside P, X, W, O, N, p and OC: the triple being filled, the channel
# pair's channels c and c2 (c + 1, or c where that is the last channel), the block's passes and
# their countdown, the pair's biases
B_TB, B_C, B_PASSES, B_COUNT, B_BIAS, B_C2 = 24, 28, 32, 36, 40, 52
BLOCK_FRAME = 4000  # the block kernel's whole frame (head, widened weights, block, gather row)


def conv_applies(job) -> bool:
    layer = job.layer
    return (
        job.emitter == "asm_thumb"
        and job.dtype == "int8"
        and layer.op in ("CONV_2D", "FULLY_CONNECTED")
        and constants(job) is not None
    )


def _pixel(
    j: int, px: int, direct: bool, c: int, kh: int, kw: int, groups: int, qoff: int, boff: int, block: bool = False
) -> str:
    """Pixel j of the pass (p + j, at most N - 1; px pixels a pass): its output address to the
    frame, its inputs widened into the int16 rows (per group of 4 inputs, [x0,x2] [x1,x3] at
    sp + qoff + 8*px*g + 8j). In a `block`, both go to the triple at frame[B_TB] instead: the
    address to its word j, the inputs from its byte 16 + 8j on."""
    out = t.ldr_imm(5, SP, B_TB) + t.str_imm(6, 5, 4 * j) if block else t.str_imm(6, SP, 24 + 4 * j)
    dest = t.ldr_imm(2, SP, B_TB) + t.addw(2, 2, 16 + 8 * j) if block else t.addw(2, SP, qoff + 8 * j)
    code = t.ldr_imm(4, SP, 20)
    if j:
        code += t.ldr_imm(5, SP, 16) + asm(f"""
            add(r4,{j})
            cmp(r4,r5)
            blt(PL{j})
            mov(r4,r5)
            sub(r4,1)
            label(PL{j})
        """)
    code += (
        t.ldr_imm(5, SP, OC_SLOT)
        + t.mul(6, 4, 5)
        + t.ldr_imm(7, SP, 12)
        + " add(r6,r6,r7)\n"
        + out  # O + p*OC
        + t.ldr_imm(0, SP, 0)
        + asm("""
            ldr(r5,[r0,P.OW])
            udiv(r6,r4,r5)
        """)
        + t.mul(7, 6, 5)
        + " sub(r7,r4,r7)\n"
    )  # oy, ox
    if direct:  # 1x1 convolution or dense layer: the pixel's C inputs in place
        code += direct_inputs(c)
    else:
        code += gather(c, kh, kw, boff).replace("(G", f"(G{j}") + t.addw(1, SP, boff)
    return (
        code
        + dest
        + asm(f"""
            movw(r3,{groups})
            label(WD{j})
        """)
        + t.ldr_post(8, 1, 4)
        + t.sxtb16(9, 8)
        + t.sxtb16(8, 8, 8)
        + t.strd_post(9, 8, 2, 8 * px)
        + asm(f"""
            sub(r3,1)
            bne_w(WD{j})
        """)
    )


def _mac_pair(k: int, groups: int, qoff: int, single: bool = False) -> str:
    """Output channels c and c+1 (r3 = c; only c where `single`) of the pixel pair: biases and
    the K loop. Accumulators r10, r11 (pixel 0), r12, lr (pixel 1)."""
    u = unroll(groups)
    pairs = ((0, (10, 12)),) if single else ((0, (10, 12)), (k, (11, LR)))
    body = ""
    for g in range(u):
        body += t.ldrd_imm(4, 5, 0, 16 * g) + t.ldrd_imm(6, 7, 0, 16 * g + 8)
        for wofs, (a0, a1) in pairs:
            body += (
                t.ldr_imm(8, 1, wofs + 4 * g)
                + t.sxtb16(9, 8)
                + t.sxtb16(8, 8, 8)
                + t.smlad(a0, 9, 4, a0)
                + t.smlad(a0, 8, 5, a0)
                + t.smlad(a1, 9, 6, a1)
                + t.smlad(a1, 8, 7, a1)
            )
    bias = (
        t.ldr_imm(10, 8, 64) + " mov(r12,r10)\n"
        if single
        else t.ldrd_imm(10, 11, 8, 64)
        + asm("""
            mov(r12,r10)
            mov(lr,r11)
        """)
    )
    loop = "K1" if single else "KL"
    return (
        t.ldr_imm(8, SP, 0)
        + t.add_lsl(8, 8, 3, 2)
        + bias  # biases of c, c+1
        + t.ldr_imm(1, SP, 8)
        + f" movw(r2,{k})\n"
        + said(t.mla(1, 3, 2, 1), "W + c*K")
        + t.addw(0, SP, qoff)
        + asm(f"""
            mov(r2,{groups // u})
            label({loop})
        """)
        + body
        + asm(f"""
            add(r0,{16 * u})
            add(r1,{4 * u})
            sub(r2,1)
            bne_w({loop})
        """)
    )


def _mac_rows(k: int, groups: int, qoff: int, px: int, single: bool = False) -> str:
    """Up to three pixels, output channels c and c+1 (r0 = c; only c where `single`), K
    unrolled: per 4 inputs, each channel's 4 weights loaded and widened once (LDR, 2 SXTB16)
    serve the pixels, whose inputs are one LDRD each from the stack. Accumulators: (r10, r11)
    pixel 0, (r12, lr) pixel 1, (r5, r6) pixel 2; weights r8, r9 (c) and r2, r3 (c+1)."""
    body = ""
    for g in range(groups):
        body += t.ldr_imm(8, 1, 4 * g) + t.sxtb16(9, 8, 8) + t.sxtb16(8, 8)
        if not single:
            body += t.ldr_imm(2, 1, k + 4 * g) + t.sxtb16(3, 2, 8) + t.sxtb16(2, 2)
        for j, (a0, a1) in enumerate(PIXEL_ACCS[:px]):
            body += t.ldrd_imm(4, 7, SP, qoff + 8 * px * g + 8 * j) + t.smlad(a0, 8, 4, a0) + t.smlad(a0, 9, 7, a0)
            if not single:
                body += t.smlad(a1, 2, 4, a1) + t.smlad(a1, 3, 7, a1)
    bias = (
        t.ldr_imm(10, 8, 64)
        + asm("""
            mov(r12,r10)
            mov(r5,r10)
        """)
        if single
        else t.ldrd_imm(10, 11, 8, 64)
        + asm("""
            mov(r12,r10)
            mov(lr,r11)
            mov(r5,r10)
            mov(r6,r11)
        """)
    )
    return (
        t.ldr_imm(8, SP, 0)
        + t.add_lsl(8, 8, 0, 2)
        + bias
        + t.ldr_imm(1, SP, 8)
        + f" movw(r2,{k})\n"
        + t.mla(1, 0, 2, 1)
        + body
    )


def _store(pixels, cr: int) -> str:
    """Accumulators to the pass's pixels' outputs at channel r<cr> (and the next one)."""
    return "".join(
        t.ldr_imm(7, SP, 24 + 4 * j) + f" add(r7,r7,r{cr})\n" + "".join(t.strb_imm(a, 7, i) for i, a in enumerate(accs))
        for j, accs in enumerate(pixels)
    )


def _block_pass(groups: int, woff: int) -> str:
    """One pass of the block kernel: 3 pixels (the triple at r1) x channels c, c+1, K unrolled.
    Per 4 inputs: the pair's widened weights by two LDRD from the frame, each pixel's inputs by
    one LDRD, 12 SMLAD: 17 instructions per 24 MACs. The first group's SMLADs start from the
    biases (r10, r11; pixel 0, whose accumulators they are, last)."""
    code = t.ldrd_imm(10, 11, SP, B_BIAS)
    for g in range(groups):
        code += t.ldrd_imm(8, 9, SP, woff + 16 * g) + t.ldrd_imm(2, 3, SP, woff + 16 * g + 8)
        for j in (2, 1, 0):
            a0, a1 = PIXEL_ACCS[j]
            code += (
                t.ldrd_imm(4, 7, 1, 16 + 24 * g + 8 * j)
                + t.smlad(a0, 8, 4, 10 if g == 0 else a0)
                + t.smlad(a0, 9, 7, a0)
                + t.smlad(a1, 2, 4, 11 if g == 0 else a1)
                + t.smlad(a1, 3, 7, a1)
            )
    return code


def _block_weights(k: int, groups: int, woff: int) -> str:
    """Channels c (frame[B_C]) and c2 = min(c + 1, OC - 1) (to frame[B_C2]): weights widened into
    the frame (per group of 4, c's [w0,w2] [w1,w3] at woff + 16g, c2's after them), biases to
    frame[B_BIAS]."""
    code = (
        t.ldr_imm(0, SP, B_C)
        + t.ldr_imm(6, SP, OC_SLOT)
        + asm("""
            sub(r6,1)
            add(r5,r0,1)
            cmp(r5,r6)
            ble(C2)
            mov(r5,r6)
            label(C2)
        """)
        + t.str_imm(5, SP, B_C2)
        + t.ldr_imm(1, SP, 8)
        + f" movw(r2,{k})\n"
        + t.mla(7, 5, 2, 1)
        + t.mla(1, 0, 2, 1)
    )  # W + c*K, W + c2*K
    for g in range(groups):
        code += (
            t.ldr_imm(8, 1, 4 * g)
            + t.sxtb16(9, 8, 8)
            + t.sxtb16(8, 8)
            + t.ldr_imm(2, 7, 4 * g)
            + t.sxtb16(3, 2, 8)
            + t.sxtb16(2, 2)
            + t.strd_imm(8, 9, SP, woff + 16 * g)
            + t.strd_imm(2, 3, SP, woff + 16 * g + 8)
        )
    return (
        code
        + t.ldr_imm(8, SP, 0)
        + t.add_lsl(9, 8, 5, 2)
        + t.add_lsl(8, 8, 0, 2)
        + t.ldr_imm(10, 8, 64)
        + t.ldr_imm(11, 9, 64)
        + t.strd_imm(10, 11, SP, B_BIAS)
    )


def _block_store() -> str:
    """The pass's 6 requantized outputs: pixel j's address is word j of its triple (r1)."""
    code = t.ldr_imm(8, SP, B_C) + t.ldr_imm(9, SP, B_C2)
    for j, (a0, a1) in enumerate(PIXEL_ACCS):
        code += t.ldr_imm(2, 1, 4 * j) + t.strb_reg(a0, 2, 8) + t.strb_reg(a1, 2, 9)
    return code


def _one_pixel(job) -> bool:
    """Every tile one output pixel (a dense layer, or a convolution's last pixel)."""
    return all(tl.params.OH * tl.params.OW == 1 for tl in job.tiles)


def _block_applies(job, groups: int) -> bool:
    """The block kernel takes convolutions (not dense layers) with K unrolled in LDRD's reach."""
    return not _one_pixel(job) and 16 + 24 * groups <= LDRD_REACH


def _block_passes(groups: int, direct: bool) -> int:
    """Triples of pixels a block holds: what BLOCK_FRAME leaves beside the head, the widened
    weights and the gather row."""
    gather = 0 if direct else -(-(4 * groups) // 8) * 8
    return max(1, (BLOCK_FRAME - (FRAME_HEAD + 16 * groups) - gather) // (16 + 24 * groups))


def _pixels_a_pass(job, groups: int) -> int:
    """Pixels a pass of conv_source: three where their rows are within LDRD's reach of sp, one
    for dense layers, else two."""
    if _one_pixel(job):
        return 1 if FRAME_HEAD + 8 * groups <= LDRD_REACH else 2
    return 3 if FRAME_HEAD + 24 * groups <= LDRD_REACH else 2


def _entry(frame: int) -> str:
    """A convolution kernel's head: its frame, the arguments, N = OH*OW at sp+16, OC at OC_SLOT
    and the first pixel (0) at sp+20."""
    return (
        head()
        + t.subw(SP, SP, frame)
        + store_args()
        + asm("""
            ldr(r4,[r3,P.OH])
            ldr(r5,[r3,P.OW])
            mul(r4,r5)
        """)
        + t.str_imm(4, SP, 16)
        + asm("ldr(r4,[r3,P.OC])")
        + t.str_imm(4, SP, OC_SLOT)
        + " mov(r4,0)\n"
        + t.str_imm(4, SP, 20)
    )


def conv_block_source(job) -> str:
    """Convolutions by blocks of pixels: a block's pixels widened once into int16 rows (triples
    of pixels: their 3 output addresses, then per group of 4 inputs each pixel's [x0,x2] [x1,x3]);
    then per pair of output channels, its weights widened once into the frame and the block's
    triples swept by `_block_pass`. Weights are widened once per block and pair (inside the
    timed call; never stored widened), inputs once per call."""
    k, m, s, lo, c, kh, kw, direct, kp, groups = _conv_shape(job)
    woff = FRAME_HEAD
    tsize = 16 + 24 * groups
    goff = woff + 16 * groups
    gather = 0 if direct else -(-kp // 8) * 8
    passes = _block_passes(groups, direct)
    boff = goff + gather
    frame = boff + passes * tsize
    pad = "" if direct or kp == k else " mov(r4,0)\n" + t.str_imm(4, SP, goff + kp - 4)
    widen = (
        " label(BLK)\n"
        + t.ldr_imm(4, SP, 16)
        + t.ldr_imm(5, SP, 20)
        + asm(f"""
            sub(r4,r4,r5)
            add(r4,2)
            movw(r5,3)
            udiv(r4,r4,r5)
            movw(r5,{passes})
            cmp(r4,r5)
            ble(BA)
            mov(r4,r5)
            label(BA)
        """)
        + t.str_imm(4, SP, B_PASSES)
        + t.str_imm(4, SP, B_COUNT)
        + t.addw(4, SP, boff)
        + t.str_imm(4, SP, B_TB)
        + " label(TRI)\n"
        + "".join(_pixel(j, 3, direct, c, kh, kw, groups, 0, goff, True) for j in range(3))
        + t.ldr_imm(4, SP, 20)
        + " add(r4,3)\n"
        + t.str_imm(4, SP, 20)
        + t.ldr_imm(4, SP, B_TB)
        + t.addw(4, 4, tsize)
        + t.str_imm(4, SP, B_TB)
        + t.ldr_imm(4, SP, B_COUNT)
        + " sub(r4,1)\n"
        + t.str_imm(4, SP, B_COUNT)
        + " bne_w(TRI)\n"
    )
    pairs = (
        " mov(r4,0)\n"
        + t.str_imm(4, SP, B_C)
        + " label(CH)\n"
        + _block_weights(k, groups, woff)
        + t.ldr_imm(0, SP, B_PASSES)
        + t.addw(1, SP, boff)
        + " label(PASS)\n"
        + _block_pass(groups, woff)
        + requant(m, s, lo, [a for acc in PIXEL_ACCS for a in acc])
        + _block_store()
        + t.addw(1, 1, tsize)
        + asm("""
            sub(r0,1)
            bne_w(PASS)
        """)
        + t.ldr_imm(0, SP, B_C)
        + " add(r0,2)\n"
        + t.str_imm(0, SP, B_C)
        + t.ldr_imm(4, SP, OC_SLOT)
        + asm("""
            cmp(r0,r4)
            blt_w(CH)
        """)
    )
    return _entry(frame) + pad + widen + pairs + while_pixels("BLK") + leave(frame)


def _conv_shape(job):
    """(K, M, S, LO, C, KH, KW, direct, K rounded up to 4, groups of 4 inputs) of a convolution
    or dense job; direct: its inputs read in place (1x1, C a multiple of 4)."""
    k, m, s, lo = constants(job)
    p = job.tiles[0].params
    c, kh, kw = p.C, p.KH, p.KW
    kp = -(-k // 4) * 4
    return k, m, s, lo, c, kh, kw, kh == kw == 1 and c % 4 == 0, kp, kp // 4


def conv_source(job) -> str:
    k, m, s, lo, c, kh, kw, direct, kp, groups = _conv_shape(job)
    if _block_applies(job, groups):
        return conv_block_source(job)
    if dense_applies(job, direct):
        return dense_source(job)
    px = _pixels_a_pass(job, groups)
    qoff = FRAME_HEAD
    boff = qoff + 8 * px * groups
    frame = boff + (0 if direct else -(-kp // 8) * 8)
    pad = "" if direct or kp == k else " mov(r4,0)\n" + t.str_imm(4, SP, boff + kp - 4)
    cr = 3 if px == 2 else 0
    pixels = PIXEL_ACCS[:px]
    mac = (
        (lambda single=False: _mac_pair(k, groups, qoff, single))
        if px == 2
        else (lambda single=False: _mac_rows(k, groups, qoff, px, single))
    )
    return (
        _entry(frame)
        + pad
        + " label(PIX)\n"
        + "".join(_pixel(j, px, direct, c, kh, kw, groups, qoff, boff) for j in range(px))
        + f" mov(r{cr},0)\n"
        + t.ldr_imm(4, SP, OC_SLOT)
        + asm("""
            cmp(r4,1)
            beq_w(ONE)
            label(CH)
        """)
        + mac()
        + requant(m, s, lo, [a for acc in pixels for a in acc])
        + _store(pixels, cr)
        + f" add(r{cr},2)\n"
        + t.ldr_imm(4, SP, OC_SLOT)
        + asm(f"""
            sub(r4,1)
            cmp(r{cr},r4)
            blt_w(CH)
            bne_w(CE)
            sub(r{cr},1)
            bgt_w(CH)
            ble_w(CE)  # always taken (bgt was not): B's 16-bit form reached 2 KB, short of a long pass
            label(ONE)
        """)
        + mac(True)
        + requant(m, s, lo, [acc[0] for acc in pixels])
        + _store([acc[:1] for acc in pixels], cr)
        + " label(CE)\n"
        + while_pixels("PIX", px)
        + leave(frame)
    )


def conv_variant(job) -> Variant:
    """conv_source's path for the job, and how it groups its work: "blocks" of pixel triples,
    "pairs" of pixels, or a "pixel" a pass (dense passes where the inputs are read in place)."""
    k, _, _, _, _, _, _, direct, _, groups = _conv_shape(job)
    if _block_applies(job, groups):
        return Variant("blocks", Grain(3, 2, 4, 3 * _block_passes(groups, direct)))
    if dense_applies(job, direct):
        return Variant("pixel", dsp_dense.grain(k, job.tiles[0].params.OC))
    if _one_pixel(job):
        # one family with one grain for every one-pixel job whose inputs are gathered, as the
        # calibration has always had it: those past LDRD's reach (K over 956) run as pixel pairs
        # (_pixels_a_pass), which would be a family of their own
        return Variant("pixel", Grain(1, 1, 4))
    px = _pixels_a_pass(job, groups)
    return Variant("pairs" if px == 2 else "rows", Grain(px, 2, 4))
