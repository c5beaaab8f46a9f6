"""int8 asm_thumb layer kernels for cores with the DSP extension (Armv7E-M, Armv8-M: SMLAD,
SXTB16, SSAT), in the manner of CMSIS-NN: a whole tile per assembler call, loops and
requantization inside the routine, operands widened once and reused from registers.

`source(job)` renders the kernel `k(X, W, O, P)` of layer_kernels' contract (same P layout,
same requantization (acc * M) >> S clamped to [LO, 127]) for dense layers and convolutions, or
None where these kernels do not apply (the Cortex-M0 kernels of layer_kernels run instead).
The layer's constants (K, M, S, LO) are rendered into the code; the tile's sizes are read from P.

Convolutions and dense layers (`conv`): im2col and a register-blocked matrix product. Each
output pixel's K = KH*KW*C inputs are gathered (zeros where the window leaves the input; 1x1
convolutions and dense layers with C % 4 == 0 are read in place) and widened by SXTB16 into an
int16 row on the stack, interleaved so that one LDRD loads a pixel's 4 inputs as two halfword
pairs. Convolutions with K <= 164 (`conv_block_source`) widen a block of up to ~4 KB of pixels
at once; per pair of output channels, the pair's weights are widened once into the frame and
serve every pass over the block: a pass takes 3 pixels x 2 channels with K unrolled, per 4
inputs two LDRD of weights, one LDRD per pixel and 12 SMLAD: 17 instructions per 24 MACs
(KWS's 1x1 layers: 1.63x under the SMLAD roof; widening the weights in the pass, 21 per 24,
gave 1.92x). Dense layers take 1 pixel a pass with the weights widened in the pass (each
weight serves one pixel); K over 156 2 pixels with K looped. An odd pixel or channel count
runs its last pass over the previous one (same values stored twice); a tile of one channel
has its own loop (the block kernel pairs the last channel with itself).

Depthwise 3x3, stride 1 or 2 (`depthwise_planes_source`, a kernel per tile shape C, V, OW):
a channel at a time, its input widened once per call into a zero-padded int16 plane on the
stack, its 9 weights packed in 6 registers as halfword pairs along the row; each output row
swept two pixels a pass, per kernel row one LDRD and SMLAD, SMLATB, SMLABT, SMLAD (6 MACs),
requantized and stored in the pass: ~24 instructions per 18 MACs (stride 2: one more load);
kernel rows on the top or bottom padding left out.
Depthwise 3x3, stride 2 (`depthwise_direct_source`, a kernel per tile shape): no plane; the
int8 input read in place a channel at a time (LDRSB, PKHBT into a pair, SMLAD, LDRSB, SMLAxB:
5 instructions per kernel row and pixel), taps on padding left out: a stride-2 input serves
~2.25 MACs, too few to pay for widening it into a plane (2 instructions an input).
On MVE cores the tiles of 4 output rows or more run layer_kernels_mve's depthwise kernel
(strided ones whose height is no multiple of 4 excepted: the in-place kernel is faster there).
Other depthwise layers (`depthwise_rows_source`, strided ones): input rows widened once per call into a ring of KH
zero-padded row slots on the stack, weights widened once per call; per pixel and 4 channels a
tap is 2 LDRD and 4 SMLABB/SMLATT (a tap's weight serves one output per channel: nothing to
pair for SMLAD). Tiles whose channels are not a multiple of 4 use `depthwise_source` (pointers
walked tap by tap), under 4 channels LDRSB and MLA.

Instruction counts are what QEMU -icount charges; the choices hold on a real Cortex-M4/M7 too
(LDRD is one 64-bit access on the M7; no LDM; weights are widened only inside the timed call,
into the kernel's stack frame, never stored widened).
"""
from __future__ import annotations

import itertools

from . import thumb2 as t

LR = 14
SP = 13
FRAME_HEAD = 64       # saved arguments and loop state, below the int16 rows
PIXEL_ACCS = ((10, 11), (12, LR), (5, 6))   # accumulators of channels c, c+1 per pixel of the pass
OC_SLOT = 48          # frame: P, X, W, O, N, p, the pass's output addresses (24 + 4j), OC
# frame of the block kernel, beside P, X, W, O, N, p and OC: the triple being filled, the channel
# pair's channels c and c2 (c + 1, or c where that is the last channel), the block's passes and
# their countdown, the pair's biases
B_TB, B_C, B_PASSES, B_COUNT, B_BIAS, B_C2 = 24, 28, 32, 36, 40, 52
BLOCK_FRAME = 4000    # the block kernel's whole frame (head, widened weights, block, gather row)
MAX_K = 768           # inputs per output: the int16 rows (4 bytes per input and pixel pair) stay under 4 KB of stack


def _rq(reg: int, s: int, lo: int) -> str:
    """(reg * M) >> S clamped to [LO, 127], M in r4: MUL, then SSAT/USAT with the shift."""
    return t.mul(reg, reg, 4) + (t.usat(reg, 7, reg, s) if lo == 0 else t.ssat(reg, 8, reg, s))


def _constants(job):
    """(K, M, S, LO) shared by every tile of the job (K: inputs per output of a convolution or
    dense layer, 0 for depthwise), or None where they differ or do not fit."""
    depthwise = job.layer.op == "DEPTHWISE_CONV_2D"
    seen = {(0 if depthwise else p[6] * p[7] * p[2], p[12], p[13], p[14]) for p in (tl.params for tl in job.tiles)}
    if len(seen) != 1:
        return None
    k, m, s, lo = seen.pop()
    if not ((depthwise or 0 < k <= MAX_K) and 0 < m < 65536 and 0 < s < 32 and lo in (0, -128)):
        return None
    return k, m, s, lo


def conv_applies(job) -> bool:
    layer = job.layer
    return (job.emitter == "asm_thumb" and job.dtype == "int8" and layer.op in ("CONV_2D", "FULLY_CONNECTED")
            and _constants(job) is not None)


def _copy(c: int, zero: bool) -> str:
    """C bytes from r10 (or zeros from r11) to the byte row at r1 (advanced)."""
    if c <= 8:
        return "".join((t.strb_post(11, 1, 1) if zero else t.ldrb_imm(12, 10, j) + t.strb_post(12, 1, 1))
                       for j in range(c))
    body = t.strb_post(11, 1, 1) if zero else t.ldrb_post(12, 10, 1) + t.strb_post(12, 1, 1)
    name = "GCZ" if zero else "GCX"
    return f" movw(r5,{c})\n label({name})\n" + body + f" sub(r5,1)\n bne_w({name})\n"


def _whole_row(c: int, kw: int) -> str:
    """A window row wholly inside the input (x0 >= 0, x0 + KW <= V): its KW*C bytes copied a
    word at a time (unaligned loads), then on to the next row; else on to GS, tap by tap."""
    n = kw * c
    if n > 64:
        return ""
    return (f" cmp(r7,0)\n blt_w(GS)\n ldr(r5,[r0,4])\n sub(r5,{kw})\n cmp(r7,r5)\n bgt_w(GS)\n"
            + f" movw(r5,{c})\n mul(r5,r7)\n" + t.add_lsl(10, 9, 5, 0)
            + "".join(t.ldr_imm(12, 10, 4 * i) + t.str_post(12, 1, 4) for i in range(n // 4))
            + "".join(t.ldrb_imm(12, 10, i) + t.strb_post(12, 1, 1) for i in range(n // 4 * 4, n))
            + " b(GR)\n label(GS)\n")


def _gather(c: int, kh: int, kw: int, boff: int) -> str:
    """One pixel's window (KH x KW x C bytes) into the byte row at sp+boff; r0 = P, r6 = oy,
    r7 = ox. Taps outside the input are zeros. r9: the input row's first byte."""
    return (" ldr(r5,[r0,32])\n mul(r6,r5)\n ldr(r5,[r0,40])\n sub(r6,r6,r5)\n"      # y = oy*SH - PT
            " ldr(r5,[r0,36])\n mul(r7,r5)\n ldr(r5,[r0,44])\n sub(r7,r7,r5)\n"      # x0 = ox*SW - PL
            + t.addw(1, SP, boff) + " movw(r11,0)\n" + f" mov(r2,{kh})\n"
            " label(GY)\n ldr(r5,[r0,0])\n cmp(r6,r5)\n bcs_w(GZ)\n"                 # row outside: zeros
            " ldr(r5,[r0,4])\n" + f" movw(r4,{c})\n mul(r5,r4)\n" + t.mul(10, 6, 5)
            + t.ldr_imm(9, SP, 4) + t.add_lsl(9, 9, 10, 0)                             # X + y*V*C
            + _whole_row(c, kw)
            + f" mov(r3,{kw})\n mov(r4,r7)\n"
            " label(GX)\n ldr(r5,[r0,4])\n cmp(r4,r5)\n bcs_w(GO)\n"
            + f" movw(r5,{c})\n mul(r5,r4)\n" + t.add_lsl(10, 9, 5, 0) + _copy(c, False)
            + " b(GN)\n label(GO)\n" + _copy(c, True)
            + " label(GN)\n add(r4,1)\n sub(r3,1)\n bne_w(GX)\n b(GR)\n"
            " label(GZ)\n" + f" movw(r3,{kw * c})\n label(GW)\n" + t.strb_post(11, 1, 1) + " sub(r3,1)\n bne_w(GW)\n"
            " label(GR)\n add(r6,1)\n sub(r2,1)\n bne_w(GY)\n")


def _pixel(j: int, px: int, direct: bool, c: int, kh: int, kw: int, groups: int, qoff: int, boff: int,
           block: bool = False) -> str:
    """Pixel j of the pass (p + j, at most N - 1; px pixels a pass): its output address to the
    frame, its inputs widened into the int16 rows (per group of 4 inputs, [x0,x2] [x1,x3] at
    sp + qoff + 8*px*g + 8j). In a `block`, both go to the triple at frame[B_TB] instead: the
    address to its word j, the inputs from its byte 16 + 8j on."""
    out = t.ldr_imm(5, SP, B_TB) + t.str_imm(6, 5, 4 * j) if block else t.str_imm(6, SP, 24 + 4 * j)
    dest = t.ldr_imm(2, SP, B_TB) + t.addw(2, 2, 16 + 8 * j) if block else t.addw(2, SP, qoff + 8 * j)
    code = t.ldr_imm(4, SP, 20)
    if j:
        code += (t.ldr_imm(5, SP, 16) + f" add(r4,{j})\n cmp(r4,r5)\n blt(PL{j})\n mov(r4,r5)\n sub(r4,1)\n"
                 f" label(PL{j})\n")
    code += (t.ldr_imm(5, SP, OC_SLOT) + t.mul(6, 4, 5) + t.ldr_imm(7, SP, 12) + " add(r6,r6,r7)\n"
             + out                                                                    # O + p*OC
             + t.ldr_imm(0, SP, 0) + " ldr(r5,[r0,16])\n udiv(r6,r4,r5)\n" + t.mul(7, 6, 5)
             + " sub(r7,r4,r7)\n")                                                    # oy, ox
    if direct:  # 1x1 convolution or dense layer: the pixel's C inputs in place
        code += (" ldr(r5,[r0,32])\n mul(r6,r5)\n ldr(r5,[r0,4])\n mul(r6,r5)\n"
                 " ldr(r5,[r0,36])\n mul(r7,r5)\n add(r6,r6,r7)\n" + f" movw(r5,{c})\n mul(r6,r5)\n"
                 + t.ldr_imm(7, SP, 4) + " add(r1,r6,r7)\n")
    else:
        code += _gather(c, kh, kw, boff).replace("(G", f"(G{j}") + t.addw(1, SP, boff)
    return (code + dest + f" movw(r3,{groups})\n label(WD{j})\n"
            + t.ldr_post(8, 1, 4) + t.sxtb16(9, 8) + t.sxtb16(8, 8, 8) + t.strd_post(9, 8, 2, 8 * px)
            + f" sub(r3,1)\n bne_w(WD{j})\n")


def _unroll(groups: int, most: int = 15) -> int:
    return max(u for u in range(1, most + 1) if groups % u == 0)


def _mac_pair(k: int, groups: int, qoff: int, single: bool = False) -> str:
    """Output channels c and c+1 (r3 = c; only c where `single`) of the pixel pair: biases and
    the K loop. Accumulators r10, r11 (pixel 0), r12, lr (pixel 1)."""
    u = _unroll(groups)
    pairs = (((0, (10, 12)),) if single else ((0, (10, 12)), (k, (11, LR))))
    body = ""
    for g in range(u):
        body += t.ldrd_imm(4, 5, 0, 16 * g) + t.ldrd_imm(6, 7, 0, 16 * g + 8)
        for wofs, (a0, a1) in pairs:
            body += (t.ldr_imm(8, 1, wofs + 4 * g) + t.sxtb16(9, 8) + t.sxtb16(8, 8, 8)
                     + t.smlad(a0, 9, 4, a0) + t.smlad(a0, 8, 5, a0) + t.smlad(a1, 9, 6, a1) + t.smlad(a1, 8, 7, a1))
    bias = (t.ldr_imm(10, 8, 64) + " mov(r12,r10)\n" if single
            else t.ldrd_imm(10, 11, 8, 64) + " mov(r12,r10)\n mov(lr,r11)\n")
    loop = "K1" if single else "KL"
    return (t.ldr_imm(8, SP, 0) + t.add_lsl(8, 8, 3, 2) + bias                        # biases of c, c+1
            + t.ldr_imm(1, SP, 8) + f" movw(r2,{k})\n" + t.mla(1, 3, 2, 1)             # W + c*K
            + t.addw(0, SP, qoff) + f" mov(r2,{groups // u})\n label({loop})\n" + body
            + f" add(r0,{16 * u})\n add(r1,{4 * u})\n sub(r2,1)\n bne_w({loop})\n")


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
    bias = (t.ldr_imm(10, 8, 64) + " mov(r12,r10)\n mov(r5,r10)\n" if single
            else t.ldrd_imm(10, 11, 8, 64) + " mov(r12,r10)\n mov(lr,r11)\n mov(r5,r10)\n mov(r6,r11)\n")
    return (t.ldr_imm(8, SP, 0) + t.add_lsl(8, 8, 0, 2) + bias
            + t.ldr_imm(1, SP, 8) + f" movw(r2,{k})\n" + t.mla(1, 0, 2, 1) + body)


def _requant(m: int, s: int, lo: int, accs) -> str:
    return f" movw(r4,{m})\n" + "".join(_rq(a, s, lo) for a in accs)


def _store(pixels, cr: int) -> str:
    """Accumulators to the pass's pixels' outputs at channel r<cr> (and the next one)."""
    return "".join(t.ldr_imm(7, SP, 24 + 4 * j) + f" add(r7,r7,r{cr})\n"
                   + "".join(t.strb_imm(a, 7, i) for i, a in enumerate(accs)) for j, accs in enumerate(pixels))


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
            code += (t.ldrd_imm(4, 7, 1, 16 + 24 * g + 8 * j)
                     + t.smlad(a0, 8, 4, 10 if g == 0 else a0) + t.smlad(a0, 9, 7, a0)
                     + t.smlad(a1, 2, 4, 11 if g == 0 else a1) + t.smlad(a1, 3, 7, a1))
    return code


def _block_weights(k: int, groups: int, woff: int) -> str:
    """Channels c (frame[B_C]) and c2 = min(c + 1, OC - 1) (to frame[B_C2]): weights widened into
    the frame (per group of 4, c's [w0,w2] [w1,w3] at woff + 16g, c2's after them), biases to
    frame[B_BIAS]."""
    code = (t.ldr_imm(0, SP, B_C) + t.ldr_imm(6, SP, OC_SLOT) + " sub(r6,1)\n add(r5,r0,1)\n cmp(r5,r6)\n"
            " ble(C2)\n mov(r5,r6)\n label(C2)\n" + t.str_imm(5, SP, B_C2)
            + t.ldr_imm(1, SP, 8) + f" movw(r2,{k})\n" + t.mla(7, 5, 2, 1) + t.mla(1, 0, 2, 1))  # W + c*K, W + c2*K
    for g in range(groups):
        code += (t.ldr_imm(8, 1, 4 * g) + t.sxtb16(9, 8, 8) + t.sxtb16(8, 8)
                 + t.ldr_imm(2, 7, 4 * g) + t.sxtb16(3, 2, 8) + t.sxtb16(2, 2)
                 + t.strd_imm(8, 9, SP, woff + 16 * g) + t.strd_imm(2, 3, SP, woff + 16 * g + 8))
    return (code + t.ldr_imm(8, SP, 0) + t.add_lsl(9, 8, 5, 2) + t.add_lsl(8, 8, 0, 2)
            + t.ldr_imm(10, 8, 64) + t.ldr_imm(11, 9, 64) + t.strd_imm(10, 11, SP, B_BIAS))


def _block_store() -> str:
    """The pass's 6 requantized outputs: pixel j's address is word j of its triple (r1)."""
    code = t.ldr_imm(8, SP, B_C) + t.ldr_imm(9, SP, B_C2)
    for j, (a0, a1) in enumerate(PIXEL_ACCS):
        code += t.ldr_imm(2, 1, 4 * j) + t.strb_reg(a0, 2, 8) + t.strb_reg(a1, 2, 9)
    return code


def _block_applies(job, groups: int) -> bool:
    """The block kernel takes convolutions (not dense layers) with K unrolled in LDRD's reach."""
    dense = all(tl.params[3] * tl.params[4] == 1 for tl in job.tiles)
    return not dense and 16 + 24 * groups <= 1020


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
    passes = max(1, (BLOCK_FRAME - goff - gather) // tsize)
    boff = goff + gather
    frame = boff + passes * tsize
    pad = "" if direct or kp == k else " mov(r4,0)\n" + t.str_imm(4, SP, goff + kp - 4)
    widen = (" label(BLK)\n" + t.ldr_imm(4, SP, 16) + t.ldr_imm(5, SP, 20) + " sub(r4,r4,r5)\n add(r4,2)\n"
             f" movw(r5,3)\n udiv(r4,r4,r5)\n movw(r5,{passes})\n cmp(r4,r5)\n ble(BA)\n mov(r4,r5)\n label(BA)\n"
             + t.str_imm(4, SP, B_PASSES) + t.str_imm(4, SP, B_COUNT) + t.addw(4, SP, boff) + t.str_imm(4, SP, B_TB)
             + " label(TRI)\n" + "".join(_pixel(j, 3, direct, c, kh, kw, groups, 0, goff, True) for j in range(3))
             + t.ldr_imm(4, SP, 20) + " add(r4,3)\n" + t.str_imm(4, SP, 20)
             + t.ldr_imm(4, SP, B_TB) + t.addw(4, 4, tsize) + t.str_imm(4, SP, B_TB)
             + t.ldr_imm(4, SP, B_COUNT) + " sub(r4,1)\n" + t.str_imm(4, SP, B_COUNT) + " bne_w(TRI)\n")
    pairs = (" mov(r4,0)\n" + t.str_imm(4, SP, B_C) + " label(CH)\n" + _block_weights(k, groups, woff)
             + t.ldr_imm(0, SP, B_PASSES) + t.addw(1, SP, boff)
             + " label(PASS)\n" + _block_pass(groups, woff)
             + _requant(m, s, lo, [a for acc in PIXEL_ACCS for a in acc]) + _block_store()
             + t.addw(1, 1, tsize) + " sub(r0,1)\n bne_w(PASS)\n"
             + t.ldr_imm(0, SP, B_C) + " add(r0,2)\n" + t.str_imm(0, SP, B_C) + t.ldr_imm(4, SP, OC_SLOT)
             + " cmp(r0,r4)\n blt_w(CH)\n")
    return ("@micropython.asm_thumb\ndef k(r0,r1,r2,r3):\n push({r8,r9,r10,r11})\n" + t.subw(SP, SP, frame)
            + t.str_imm(3, SP, 0) + t.str_imm(0, SP, 4) + t.str_imm(1, SP, 8) + t.str_imm(2, SP, 12)
            + " ldr(r4,[r3,12])\n ldr(r5,[r3,16])\n mul(r4,r5)\n" + t.str_imm(4, SP, 16)   # N = OH*OW
            + " ldr(r4,[r3,20])\n" + t.str_imm(4, SP, OC_SLOT) + " mov(r4,0)\n" + t.str_imm(4, SP, 20) + pad
            + widen + pairs
            + t.ldr_imm(4, SP, 20) + t.ldr_imm(5, SP, 16) + " cmp(r4,r5)\n blt_w(BLK)\n"
            + t.addw(SP, SP, frame) + " pop({r8,r9,r10,r11})\n")


DENSE_ACCS = (6, 7, 8, 9, 10, 11, 12)   # the accumulators of a dense pass's channels
DENSE_UNROLL = 32                        # groups of 4 inputs a loop step, at most


def _dense_pass(k: int, groups: int, n: int, m: int, s: int, lo: int, tag: str) -> str:
    """Output channels c..c+n-1 (c in r7 on entry) of a dense layer: per 4 inputs, one LDR and
    two SXTB16 widen the inputs for the n channels, whose 4 weights are an LDR and two SXTB16
    each, then 2 SMLAD: 3 + 5n instructions per 4n MACs. r0 walks X up to lr, r1 the weights;
    c is kept at frame 12."""
    u = _unroll(groups, DENSE_UNROLL)
    accs = DENSE_ACCS[:n]
    body = ""
    for g in range(u):
        body += t.ldr_imm(4, 0, 4 * g) + t.sxtb16(5, 4, 8) + t.sxtb16(4, 4)
        for j, a in enumerate(accs):
            body += (t.ldr_imm(2, 1, j * k + 4 * g) + t.sxtb16(3, 2, 8) + t.sxtb16(2, 2)
                     + t.smlad(a, 2, 4, a) + t.smlad(a, 3, 5, a))
    return (t.str_imm(7, SP, 12) + t.ldr_imm(1, SP, 4) + f" movw(r2,{k})\n" + t.mla(1, 7, 2, 1)   # W + c*K
            + t.ldr_imm(2, SP, 0) + t.add_lsl(2, 2, 7, 2)
            + "".join(t.ldr_imm(a, 2, 64 + 4 * j) for j, a in enumerate(accs))           # biases
            + t.ldr_imm(0, SP, 16) + f" movw(r2,{k})\n" + t.add_lsl(LR, 0, 2, 0)
            + f" label(DL{tag})\n" + body + f" add(r0,{4 * u})\n add(r1,{4 * u})\n" + t.cmp_reg(0, LR) + f" bne_w(DL{tag})\n"
            + _requant(m, s, lo, accs) + t.ldr_imm(5, SP, 8) + t.ldr_imm(4, SP, 12) + " add(r5,r5,r4)\n"
            + "".join(t.strb_imm(a, 5, j) for j, a in enumerate(accs)))


def _dense_applies(job, direct: bool) -> bool:
    return direct and all(tl.params[3] * tl.params[4] == 1 for tl in job.tiles)


def dense_source(job) -> str:
    """Dense layers (and 1x1 convolutions of one pixel) with K % 4 == 0, inputs read in place:
    passes of n channels (up to 7, the first tile's channels and those LDR reaches from one
    register), the last one over the previous (same values stored twice); tiles of fewer
    channels one at a time. Each input serves the n channels once: no reuse to widen for."""
    k, m, s, lo = _constants(job)
    groups = k // 4
    reach = (4095 - 4 * _unroll(groups, DENSE_UNROLL)) // k + 1   # channels whose weights LDR reaches from r1
    n = max(1, min(len(DENSE_ACCS), reach, job.tiles[0].params[5]))
    wide = (" mov(r7,0)\n label(DW)\n" + t.ldr_imm(4, SP, 0) + " ldr(r4,[r4,20])\n" + f" sub(r4,{n})\n"
            " cmp(r7,r4)\n ble(DA)\n mov(r7,r4)\n label(DA)\n"                        # c = min(c, OC - n)
            + _dense_pass(k, groups, n, m, s, lo, "N") + t.ldr_imm(7, SP, 12) + f" add(r7,{n})\n"
            + t.ldr_imm(4, SP, 0) + " ldr(r4,[r4,20])\n cmp(r7,r4)\n blt_w(DW)\n b(DE)\n")
    one = (" label(DO)\n mov(r7,0)\n label(D1)\n" + _dense_pass(k, groups, 1, m, s, lo, "1")
           + t.ldr_imm(7, SP, 12) + " add(r7,1)\n" + t.ldr_imm(4, SP, 0) + " ldr(r4,[r4,20])\n cmp(r7,r4)\n"
           " blt_w(D1)\n label(DE)\n")
    return ("@micropython.asm_thumb\ndef k(r0,r1,r2,r3):\n push({r8,r9,r10,r11})\n" + t.subw(SP, SP, 24)
            + t.str_imm(3, SP, 0) + t.str_imm(1, SP, 4) + t.str_imm(2, SP, 8) + t.str_imm(0, SP, 16)
            + f" ldr(r4,[r3,20])\n cmp(r4,{n})\n blt_w(DO)\n" + wide + one
            + t.addw(SP, SP, 24) + " pop({r8,r9,r10,r11})\n")


def _conv_shape(job):
    """(K, M, S, LO, C, KH, KW, direct, K rounded up to 4, groups of 4 inputs) of a convolution
    or dense job; direct: its inputs read in place (1x1, C a multiple of 4)."""
    k, m, s, lo = _constants(job)
    p = job.tiles[0].params
    c, kh, kw = p[2], p[6], p[7]
    kp = -(-k // 4) * 4
    return k, m, s, lo, c, kh, kw, kh == kw == 1 and c % 4 == 0, kp, kp // 4


def conv_source(job) -> str:
    k, m, s, lo, c, kh, kw, direct, kp, groups = _conv_shape(job)
    if _block_applies(job, groups):
        return conv_block_source(job)
    if _dense_applies(job, direct):
        return dense_source(job)
    # pixels a pass: three where their rows are within LDRD's reach of sp, one for dense layers
    dense = all(tl.params[3] * tl.params[4] == 1 for tl in job.tiles)
    px = 1 if dense and FRAME_HEAD + 8 * groups <= 1020 else 3 if not dense and FRAME_HEAD + 24 * groups <= 1020 else 2
    qoff = FRAME_HEAD
    boff = qoff + 8 * px * groups
    frame = boff + (0 if direct else -(-kp // 8) * 8)
    pad = "" if direct or kp == k else " mov(r4,0)\n" + t.str_imm(4, SP, boff + kp - 4)
    cr = 3 if px == 2 else 0
    pixels = PIXEL_ACCS[:px]
    mac = (lambda single=False: _mac_pair(k, groups, qoff, single)) if px == 2 else (
        lambda single=False: _mac_rows(k, groups, qoff, px, single))
    return ("@micropython.asm_thumb\ndef k(r0,r1,r2,r3):\n push({r8,r9,r10,r11})\n" + t.subw(SP, SP, frame)
            + t.str_imm(3, SP, 0) + t.str_imm(0, SP, 4) + t.str_imm(1, SP, 8) + t.str_imm(2, SP, 12)
            + " ldr(r4,[r3,12])\n ldr(r5,[r3,16])\n mul(r4,r5)\n" + t.str_imm(4, SP, 16)   # N = OH*OW
            + " ldr(r4,[r3,20])\n" + t.str_imm(4, SP, OC_SLOT) + " mov(r4,0)\n" + t.str_imm(4, SP, 20) + pad
            + " label(PIX)\n" + "".join(_pixel(j, px, direct, c, kh, kw, groups, qoff, boff) for j in range(px))
            + f" mov(r{cr},0)\n" + t.ldr_imm(4, SP, OC_SLOT) + " cmp(r4,1)\n beq_w(ONE)\n"
            " label(CH)\n" + mac() + _requant(m, s, lo, [a for acc in pixels for a in acc])
            + _store(pixels, cr)
            + f" add(r{cr},2)\n" + t.ldr_imm(4, SP, OC_SLOT) + f" sub(r4,1)\n cmp(r{cr},r4)\n blt_w(CH)\n bne_w(CE)\n"
            f" sub(r{cr},1)\n bgt_w(CH)\n b(CE)\n"
            " label(ONE)\n" + mac(True) + _requant(m, s, lo, [acc[0] for acc in pixels])
            + _store([acc[:1] for acc in pixels], cr) + " label(CE)\n"
            + t.ldr_imm(4, SP, 20) + f" add(r4,{px})\n" + t.str_imm(4, SP, 20) + t.ldr_imm(5, SP, 16)
            + " cmp(r4,r5)\n blt_w(PIX)\n" + t.addw(SP, SP, frame) + " pop({r8,r9,r10,r11})\n")


def depthwise_applies(job) -> bool:
    return (job.emitter == "asm_thumb" and job.dtype == "int8" and job.layer.op == "DEPTHWISE_CONV_2D"
            and _constants(job) is not None)


def _window(axis: int) -> str:
    """The clipped window along one axis of the output position in the frame (axis 0: rows,
    frame 16, P's H, SH, PT, KH; 1: columns, frame 20, V, SW, PL, KW): r4 = first input row
    (column), r6 = first tap, r7 = taps. r0 = P."""
    size, stride, pad, ker = (0, 32, 40, 24) if axis == 0 else (4, 36, 44, 28)
    lab = "YX"[axis]
    return (t.ldr_imm(4, SP, 16 + 4 * axis) + f" ldr(r5,[r0,{stride}])\n mul(r4,r5)\n ldr(r5,[r0,{pad}])\n"
            " sub(r4,r4,r5)\n mov(r6,0)\n sub(r6,r6,r4)\n cmp(r6,0)\n"         # first tap max(0, -start)
            f" bge(A{lab})\n mov(r6,0)\n label(A{lab})\n ldr(r7,[r0,{size}])\n sub(r7,r7,r4)\n"
            f" ldr(r5,[r0,{ker}])\n cmp(r7,r5)\n ble(B{lab})\n mov(r7,r5)\n label(B{lab})\n"  # end min(K, size - start)
            " sub(r7,r7,r6)\n add(r4,r4,r6)\n")


def depthwise_source(job) -> str:
    """Depthwise: per output pixel, 4 channels at a time (the last 4 overlap where C % 4 != 0):
    each tap's 4 inputs and 4 weights widened by SXTB16, 4 SMLABB/SMLATT into 4 accumulators,
    requantized and stored; the whole tile in one call. 10 instructions per 4 MACs per tap: a
    tap's weights serve one output per channel, so they are not reused from registers."""
    _, m, s, lo = _constants(job)
    frame = 64
    tap = (t.ldr_imm(4, 1, 0) + t.ldr_imm(6, 2, 0) + t.add_lsl(1, 1, 9, 0) + t.add_lsl(2, 2, 9, 0)
           + t.sxtb16(5, 4, 8) + t.sxtb16(4, 4) + t.sxtb16(7, 6, 8) + t.sxtb16(6, 6)
           + t.smlabb(10, 4, 6, 10) + t.smlatt(12, 4, 6, 12) + t.smlabb(11, 5, 7, 11) + t.smlatt(LR, 5, 7, LR))
    pixel = (t.ldr_imm(0, SP, 0) + _window(0) + t.str_imm(7, SP, 28)                    # rows of taps
             + " ldr(r5,[r0,28])\n mul(r6,r5)\n" + t.str_imm(4, SP, 36) + t.str_imm(6, SP, 40)
             + _window(1) + t.str_imm(7, SP, 32)                                       # taps per row
             + t.ldr_imm(5, SP, 36) + " ldr(r1,[r0,4])\n mul(r5,r1)\n add(r5,r5,r4)\n ldr(r1,[r0,8])\n"
             " mul(r5,r1)\n" + t.ldr_imm(2, SP, 4) + " add(r5,r5,r2)\n" + t.str_imm(5, SP, 36)  # X + (y*V+x)*C
             + t.ldr_imm(5, SP, 40) + " add(r5,r5,r6)\n mul(r5,r1)\n" + t.ldr_imm(2, SP, 8)
             + " add(r5,r5,r2)\n" + t.str_imm(5, SP, 40)                              # W + (ky*KW+kx)*C
             + " ldr(r5,[r0,4])\n sub(r5,r5,r7)\n mul(r5,r1)\n" + t.str_imm(5, SP, 44)  # (V - n)*C
             + " ldr(r5,[r0,28])\n sub(r5,r5,r7)\n mul(r5,r1)\n" + t.str_imm(5, SP, 48)  # (KW - n)*C
             + " mov(r9,r1)\n movw(r8,0)\n")
    group = (t.ldr_imm(0, SP, 0) + t.add_lsl(0, 0, 8, 2) + t.ldrd_imm(10, 11, 0, 64) + t.ldrd_imm(12, LR, 0, 72)
             + t.ldr_imm(1, SP, 36) + t.add_lsl(1, 1, 8, 0) + t.ldr_imm(2, SP, 40) + t.add_lsl(2, 2, 8, 0)
             + t.ldr_imm(0, SP, 28) + " label(R)\n" + t.ldr_imm(3, SP, 32) + " label(T)\n" + tap
             + " sub(r3,1)\n bne_w(T)\n" + t.ldr_imm(4, SP, 44) + t.ldr_imm(5, SP, 48)
             + " add(r1,r1,r4)\n add(r2,r2,r5)\n sub(r0,1)\n bne_w(R)\n"
             + f" movw(r4,{m})\n" + "".join(_rq(a, s, lo) for a in (10, 11, 12, LR))
             + t.ldr_imm(5, SP, 24) + t.add_lsl(5, 5, 8, 0)
             + "".join(t.strb_imm(a, 5, i) for i, a in enumerate((10, 11, 12, LR))))
    nxt = (t.addw(8, 8, 4) + " mov(r5,r8)\n mov(r4,r9)\n cmp(r5,r4)\n beq_w(GE)\n sub(r4,3)\n cmp(r5,r4)\n"
           " blt_w(G)\n sub(r4,1)\n mov(r8,r4)\n bne_w(G)\n label(GE)\n")
    step = (t.ldr_imm(4, SP, 24) + " mov(r5,r9)\n add(r4,r4,r5)\n" + t.str_imm(4, SP, 24)            # next pixel's output
            + t.ldr_imm(0, SP, 0) + t.ldr_imm(4, SP, 20) + " add(r4,1)\n ldr(r5,[r0,16])\n cmp(r4,r5)\n"
            " blt(NX)\n mov(r4,0)\n" + t.ldr_imm(6, SP, 16) + " add(r6,1)\n" + t.str_imm(6, SP, 16)
            + " label(NX)\n" + t.str_imm(4, SP, 20) + t.ldr_imm(6, SP, 16) + " ldr(r5,[r0,12])\n cmp(r6,r5)\n"
            " blt_w(PIX)\n")
    # tiles of fewer than 4 channels: a channel at a time, LDRSB and MLA
    single = (t.ldr_imm(0, SP, 0) + t.add_lsl(0, 0, 8, 2) + t.ldr_imm(10, 0, 64)
              + t.ldr_imm(1, SP, 36) + t.add_lsl(1, 1, 8, 0) + t.ldr_imm(2, SP, 40) + t.add_lsl(2, 2, 8, 0)
              + t.ldr_imm(0, SP, 28) + " label(R1)\n" + t.ldr_imm(3, SP, 32) + " label(T1)\n"
              + t.ldrsb_post(4, 1, 0) + t.ldrsb_post(6, 2, 0) + t.add_lsl(1, 1, 9, 0) + t.add_lsl(2, 2, 9, 0)
              + t.mla(10, 4, 6, 10) + " sub(r3,1)\n bne_w(T1)\n" + t.ldr_imm(4, SP, 44) + t.ldr_imm(5, SP, 48)
              + " add(r1,r1,r4)\n add(r2,r2,r5)\n sub(r0,1)\n bne_w(R1)\n"
              + f" movw(r4,{m})\n" + _rq(10, s, lo)
              + t.ldr_imm(5, SP, 24) + t.add_lsl(5, 5, 8, 0) + t.strb_imm(10, 5, 0)
              + t.addw(8, 8, 1) + " mov(r5,r8)\n mov(r4,r9)\n cmp(r5,r4)\n blt_w(G1)\n beq_w(GE)\n")
    return ("@micropython.asm_thumb\ndef k(r0,r1,r2,r3):\n push({r8,r9,r10,r11})\n" + t.subw(SP, SP, frame)
            + t.str_imm(3, SP, 0) + t.str_imm(0, SP, 4) + t.str_imm(1, SP, 8) + t.str_imm(2, SP, 24)
            + " mov(r4,0)\n" + t.str_imm(4, SP, 16) + t.str_imm(4, SP, 20)
            + " label(PIX)\n" + pixel + " mov(r4,r9)\n cmp(r4,4)\n blt_w(G1)\n label(G)\n" + group + nxt + step
            + " b(END)\n label(G1)\n" + single + " label(END)\n"
            + t.addw(SP, SP, frame) + " pop({r8,r9,r10,r11})\n")


# Depthwise with widened, zero-padded input rows. Frame: 64 bytes of state, then per channel
# group of 4 its taps' widened weights (8 bytes a tap) and its 4 biases (WP bytes a group), then
# KH row slots: one input row each, as PWM columns of GM groups of widened [c0,c2] [c1,c3]
# words (zeros where the window leaves the input). Each input row is widened once per call
# into slot y % KH; every tap is then two LDRD and four SMLABB/SMLATT.
D_P, D_X, D_W, D_OUT, D_OY, D_OX, D_LAST, D_Y0, D_RB, D_COL = 0, 4, 8, 12, 16, 20, 24, 28, 32, 44
D_PAD = 48            # (GB - GN) * 8: the rest of a column after the block's GN groups
D_G0, D_GN = 52, 56   # the block's first channel group and its group count
MAX_FRAME = 6144


def _dw_rows_geometry(job):
    """(GB, PWM, T, WP, woff, roff, slot, frame) of the row-slot depthwise kernel, or None where
    it does not apply (channels not a multiple of 4, windows over 3 rows, offsets out of reach).
    GB: channel groups a block (all of them where they fit, else 16, 8 or 4: the kernel runs
    the tile a block of channels at a time)."""
    ps = [tl.params for tl in job.tiles if tl.params[2] % 4 == 0]
    if not ps:
        return None
    kh, kw = ps[0][6], ps[0][7]
    if kh > 3 or len({p[6:12] for p in ps}) != 1:
        return None
    pwm = max((p[4] - 1) * p[9] + kw for p in ps)
    taps = kh * kw
    wp = taps * 8 + 16
    gm = max(p[2] for p in ps) // 4
    for gb in [gm] + [g for g in (16, 8, 4) if g < gm]:
        woff, roff = 64, 64 + gb * wp
        slot = pwm * gb * 8
        frame = roff + kh * slot
        if (kw - 1) * gb * 8 <= 1016 and taps * 8 + 8 <= 1020 and roff + (kh - 1) * slot <= 4095 and frame <= MAX_FRAME:
            return gb, pwm, taps, wp, woff, roff, slot, frame
    return None


def _dw_build(ky: int, kh: int, pl: int, gm: int, roff: int, slot: int, unroll: int) -> str:
    """Input row y = y0 + ky into slot y % KH, unless built already: columns x = col - PL of the
    pass's (OW-1)*SW + KW, each G widened groups (zeros outside the input), then the column's
    unused groups skipped. Its slot address to the frame."""
    lab = f"B{ky}"
    return (t.ldr_imm(4, SP, D_Y0) + (f" add(r4,{ky})\n" if ky else "") + t.ldr_imm(5, SP, D_LAST)
            + f" cmp(r4,r5)\n ble_w({lab}S)\n" + t.str_imm(4, SP, D_LAST)
            + t.ldr_imm(0, SP, D_P) + f" movw(r5,{4 * kh})\n add(r5,r5,r4)\n movw(r6,{kh})\n udiv(r7,r5,r6)\n"
            " mul(r7,r6)\n sub(r5,r5,r7)\n" + f" movw(r6,{slot})\n mul(r5,r6)\n" + t.addw(1, SP, roff)
            + " add(r1,r1,r5)\n"                                                   # dst: slot (y % KH)
            + t.ldr_imm(2, SP, D_X) + " ldr(r5,[r0,4])\n ldr(r6,[r0,8])\n mov(r10,r6)\n mul(r5,r6)\n"
            " mul(r5,r4)\n add(r2,r2,r5)\n" + t.ldr_imm(5, SP, D_G0) + t.add_lsl(9, 2, 5, 2)   # X + y*V*C + 4*g0
            + t.ldr_imm(11, SP, D_PAD) + " movw(r8,0)\n movw(r12,0)\n"
            " ldr(r5,[r0,16])\n sub(r5,1)\n ldr(r6,[r0,36])\n mul(r5,r6)\n ldr(r6,[r0,28])\n add(r5,r5,r6)\n"
            " mov(r4,r5)\n"                                                             # columns
            + f" movw(r5,{pl})\n neg(r5,r5)\n"                                          # x = -PL
            f" label({lab}C)\n" + t.ldr_imm(3, SP, D_GN) + (f" lsr(r3,r3,{unroll.bit_length() - 1})\n" if unroll > 1 else "")
            + t.ldr_imm(6, SP, D_Y0) + (f" add(r6,{ky})\n" if ky else "") + " ldr(r7,[r0,0])\n cmp(r6,r7)\n"
            f" bcs_w({lab}Z)\n ldr(r7,[r0,4])\n cmp(r5,r7)\n bcs_w({lab}Z)\n"
            + t.mul(2, 5, 10) + t.add_lsl(2, 2, 9, 0)
            + f" label({lab}G)\n" + (t.ldr_post(6, 2, 4) + t.sxtb16(7, 6, 8) + t.sxtb16(6, 6)
                                      + t.strd_post(6, 7, 1, 8)) * unroll
            + f" sub(r3,1)\n bne_w({lab}G)\n b({lab}N)\n"
            f" label({lab}Z)\n" + t.strd_post(8, 12, 1, 8) * unroll + f" sub(r3,1)\n bne_w({lab}Z)\n"
            f" label({lab}N)\n" + t.add_lsl(1, 1, 11, 0) + f" add(r5,1)\n sub(r4,1)\n bne_w({lab}C)\n"
            f" label({lab}S)\n" + t.ldr_imm(4, SP, D_Y0) + (f" add(r4,{ky})\n" if ky else "")
            + f" movw(r5,{4 * kh})\n add(r5,r5,r4)\n movw(r6,{kh})\n udiv(r7,r5,r6)\n mul(r7,r6)\n"
            f" sub(r5,r5,r7)\n movw(r6,{slot})\n mul(r5,r6)\n" + t.addw(1, SP, roff) + " add(r1,r1,r5)\n"
            + t.str_imm(1, SP, D_RB + 4 * ky))


def depthwise_rows_source(job) -> str:
    """Depthwise, the whole tile per call, input rows widened once (see the frame above): per
    pixel and group of 4 channels, each tap is LDRD inputs, LDRD weights, SMLABB/SMLATT x 4
    (6 instructions per 4 MACs); biases, requantization and a 4-byte store per group. Columns
    of the window on the left or right padding are skipped (one group loop per span of taps
    the tiles' columns have); rows on the top or bottom padding are multiplied as zeros."""
    _, m, s, lo = _constants(job)
    gm, pwm, taps, wp, woff, roff, slot, frame = _dw_rows_geometry(job)   # gm: groups a block
    p = job.tiles[0].params
    kh, kw, sh, sw, pt, pl = p[6:12]
    rb = (1, 2, 3)[:kh]
    groups = {tl.params[2] // 4 for tl in job.tiles if tl.params[2] % 4 == 0}
    unroll = 4 if all(g % 4 == 0 for g in groups) else 2 if all(g % 2 == 0 for g in groups) else 1
    big = frame > 4095
    grow = t.subw(SP, SP, 4092) + t.subw(SP, SP, frame - 4092) if big else t.subw(SP, SP, frame)
    shrink = t.addw(SP, SP, 4092) + t.addw(SP, SP, frame - 4092) if big else t.addw(SP, SP, frame)
    weights = (t.ldr_imm(4, SP, D_P) + " ldr(r0,[r4,8])\n" + t.ldr_imm(3, SP, D_GN) + t.addw(1, SP, woff)
               + t.ldr_imm(9, SP, D_P) + t.ldr_imm(8, SP, D_G0)
               + " label(WG)\n" + t.ldr_imm(2, SP, D_W) + t.add_lsl(2, 2, 8, 2) + f" mov(r4,{taps})\n label(WT)\n"
               + t.ldr_imm(6, 2, 0) + t.add_lsl(2, 2, 0, 0) + t.sxtb16(7, 6, 8) + t.sxtb16(6, 6)
               + t.strd_post(6, 7, 1, 8) + " sub(r4,1)\n bne_w(WT)\n"
               + t.add_lsl(2, 9, 8, 4) + t.ldrd_imm(6, 7, 2, 64) + t.strd_imm(6, 7, 1, 0)
               + t.ldrd_imm(6, 7, 2, 72) + t.strd_imm(6, 7, 1, 8) + " add(r1,16)\n"
               + t.addw(8, 8, 1) + " sub(r3,1)\n bne_w(WG)\n")
    def loop(v: int, kx0: int, kx1: int, last: bool) -> str:
        """The group loop of a pixel whose window keeps the taps kx0 <= kx < kx1 (the others
        fall on zero padding: skipped, not multiplied)."""
        taps_code = "".join(t.ldrd_imm(4, 5, rb[ky], kx * gm * 8) + t.ldrd_imm(6, 7, 8, (ky * kw + kx) * 8)
                            + t.smlabb(10, 4, 6, 10) + t.smlatt(12, 4, 6, 12)
                            + t.smlabb(11, 5, 7, 11) + t.smlatt(LR, 5, 7, LR)
                            for ky in range(kh) for kx in range(kx0, kx1))
        return (f" label(GL{v})\n" + t.ldrd_imm(10, 11, 8, taps * 8) + t.ldrd_imm(12, LR, 8, taps * 8 + 8)
                + taps_code + f" movw(r4,{m})\n" + "".join(_rq(a, s, lo) for a in (10, 11, 12, LR))
                + "".join(t.strb_imm(a, 9, i) for i, a in enumerate((10, 11, 12, LR))) + t.addw(9, 9, 4)
                + "".join(f" add(r{r},8)\n" for r in rb) + t.addw(8, 8, wp) + f" sub(r0,1)\n bne_w(GL{v})\n"
                + ("" if last else " beq_w(GD)\n"))
    cands = [tl.params for tl in job.tiles if tl.params[2] % 4 == 0]
    spans = sorted({(max(0, pl - ox * sw), min(kw, q[1] + pl - ox * sw)) for q in cands for ox in range(q[4])})
    dispatch = (t.ldr_imm(4, SP, D_OX) + f" movw(r5,{sw})\n mul(r4,r5)\n movw(r5,{pl})\n sub(r4,r4,r5)\n"
                " mov(r6,0)\n sub(r6,r6,r4)\n cmp(r6,0)\n bge(DA)\n mov(r6,0)\n label(DA)\n"   # kx0
                + t.ldr_imm(5, SP, D_P) + " ldr(r7,[r5,4])\n sub(r7,r7,r4)\n" + f" movw(r5,{kw})\n"
                " cmp(r7,r5)\n ble(DB)\n mov(r7,r5)\n label(DB)\n"                                 # kx1
                + "".join(f" cmp(r6,{a})\n bne(DN{v})\n cmp(r7,{b})\n beq_w(GL{v})\n label(DN{v})\n"
                          for v, (a, b) in enumerate(spans[:-1])))
    order = [len(spans) - 1] + list(range(len(spans) - 1))
    group = dispatch + "".join(loop(v, *spans[v], i == len(order) - 1) for i, v in enumerate(order)) + " label(GD)\n"
    pixel = (" label(PX)\n" + t.ldr_imm(5, SP, D_P) + t.ldr_imm(4, SP, D_OY) + " ldr(r6,[r5,16])\n mul(r4,r6)\n"
             + t.ldr_imm(6, SP, D_OX) + " add(r4,r4,r6)\n ldr(r6,[r5,8])\n mul(r4,r6)\n" + t.ldr_imm(6, SP, D_G0)
             + t.add_lsl(4, 4, 6, 2) + t.ldr_imm(6, SP, D_OUT) + t.add_lsl(9, 4, 6, 0)   # O + pixel*C + 4*g0
             + t.ldr_imm(0, SP, D_GN) + t.ldr_imm(5, SP, D_COL)
             + "".join(t.ldr_imm(r, SP, D_RB + 4 * i) + f" add(r{r},r{r},r5)\n" for i, r in enumerate(rb))
             + t.addw(8, SP, woff) + group
             + t.ldr_imm(5, SP, D_COL) + t.addw(5, 5, sw * gm * 8) + t.str_imm(5, SP, D_COL)
             + t.ldr_imm(4, SP, D_OX) + " add(r4,1)\n" + t.str_imm(4, SP, D_OX) + t.ldr_imm(0, SP, D_P)
             + " ldr(r5,[r0,16])\n cmp(r4,r5)\n blt_w(PX)\n")
    row = (" label(ROW)\n" + t.ldr_imm(4, SP, D_OY) + f" movw(r5,{sh})\n mul(r4,r5)\n" + f" movw(r5,{pt})\n"
           " sub(r4,r4,r5)\n" + t.str_imm(4, SP, D_Y0)
           + "".join(_dw_build(ky, kh, pl, gm, roff, slot, unroll) for ky in range(kh))
           + " mov(r4,0)\n" + t.str_imm(4, SP, D_COL) + t.str_imm(4, SP, D_OX) + pixel
           + t.ldr_imm(4, SP, D_OY) + " add(r4,1)\n" + t.str_imm(4, SP, D_OY) + t.ldr_imm(0, SP, D_P)
           + " ldr(r5,[r0,12])\n cmp(r4,r5)\n blt_w(ROW)\n")
    return ("@micropython.asm_thumb\ndef kr(r0,r1,r2,r3):\n push({r8,r9,r10,r11})\n" + grow
            + t.str_imm(3, SP, D_P) + t.str_imm(0, SP, D_X) + t.str_imm(1, SP, D_W) + t.str_imm(2, SP, D_OUT)
            + " mov(r4,0)\n" + t.str_imm(4, SP, D_G0)
            + " label(BLK)\n" + t.ldr_imm(0, SP, D_P) + " ldr(r4,[r0,8])\n lsr(r4,r4,2)\n" + t.ldr_imm(5, SP, D_G0)
            + f" sub(r4,r4,r5)\n movw(r6,{gm})\n cmp(r4,r6)\n ble(BA)\n mov(r4,r6)\n label(BA)\n"    # GN
            + t.str_imm(4, SP, D_GN) + " sub(r6,r6,r4)\n lsl(r6,r6,3)\n" + t.str_imm(6, SP, D_PAD)
            + weights + " mov(r4,0)\n" + t.str_imm(4, SP, D_OY) + " movw(r4,0x8000)\n neg(r4,r4)\n"
            + t.str_imm(4, SP, D_LAST) + row
            + t.ldr_imm(4, SP, D_G0) + f" add(r4,{gm})\n" + t.str_imm(4, SP, D_G0) + t.ldr_imm(0, SP, D_P)
            + " ldr(r5,[r0,8])\n lsr(r5,r5,2)\n cmp(r4,r5)\n blt_w(BLK)\n"
            + shrink + " pop({r8,r9,r10,r11})\n")


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
    c, v, ow, st = p[2], p[1], p[4], p[8]
    if any(q[6:10] != (3, 3, st, st) or q[10] > 1 or q[11] > 1 for q in ps) or st not in STRIDES:
        return None
    lp = -(-(st * ow + 2) // 4) * 4
    frame = 64 + 2 * lp * (st * max(q[3] for q in ps) + 3 - st)
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
    return (code + "".join(sat(a) for a in accs)
            + "".join(t.strb_imm(a, 1, (2 * k + i) * c) for i, a in enumerate(accs)))


P_END = 48
MAX_ROW = 64          # output pixels of an unrolled row (~1000-1200 instructions): compiling longer ones risks the heap


def _pairs_fit(lp: int, ow: int, c: int, st: int) -> bool:
    """Two output rows a pass: stride 1, four plane lines in LDRD's reach, both rows' outputs in
    STRB's."""
    return st == 1 and 6 * lp + 4 * (ow // 2) + 8 <= 1020 and 2 * ow * c <= 4095 and ow <= MAX_ROW


def _row_pairs(p):
    """[(span, span2, n)]: runs of n pairs of output rows with the kernel-row spans (ja, jb) of
    their first and second row; an odd last row as (span, None, 1)."""
    spans = [(ja, jb) for ja, jb, n in _row_runs(p) for _ in range(n)]
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
    outs = [(12, 2 * k * c), (2, (ow + 2 * k) * c)] + ([(LR, (2 * k + 1) * c), (3, (ow + 2 * k + 1) * c)] if pair else [])
    return code + "".join(sat(r) for r, _ in outs) + "".join(t.strb_imm(r, 1, at) for r, at in outs)


def _add(rd: int, imm: int) -> str:
    return t.addw(rd, rd, imm) if imm < 4096 else f" movw(r5,{imm})\n" + t.add_lsl(rd, rd, 5, 0)


def depthwise_planes_source(job, ps, name: str) -> str:
    _, m, s, lo = _constants(job)
    lp, frame = _planes_shape(ps)
    p = ps[0]
    c, v, ow, st, pt, pl = p[2], p[1], p[4], p[8], p[10], p[11]
    h_rows, cols = min(p[0], st * p[3] + 3 - st - pt), min(v, st * (ow - 1) + 3 - pl)   # input rows, columns read
    big = frame > 4095
    grow = t.subw(SP, SP, 4092) + t.subw(SP, SP, frame - 4092) if big else t.subw(SP, SP, frame)
    shrink = t.addw(SP, SP, 4092) + t.addw(SP, SP, frame - 4092) if big else t.addw(SP, SP, frame)
    zero = (" ldr(r4,[r3,12])\n" + (" add(r4,r4,r4)\n add(r4,1)\n" if st == 2 else " add(r4,2)\n") + f" movw(r5,{lp // 4})\n" + t.mul(4, 4, 5) + t.addw(0, SP, 64)
            + " movw(r6,0)\n movw(r7,0)\n label(Z)\n" + t.strd_post(6, 7, 0, 8) + " sub(r4,1)\n bne_w(Z)\n")
    widen = (t.ldr_imm(0, SP, 0) + " ldr(r2,[r0,0])\n ldr(r5,[r0,12])\n" + (" add(r5,r5,r5)\n" if st == 2 else "")
             + f" add(r5,{3 - st - pt})\n"
             + " cmp(r2,r5)\n ble(WA)\n mov(r2,r5)\n label(WA)\n"                      # rows: min(H, ST*OH + 3 - ST - PT)
             + t.ldr_imm(1, SP, 4) + t.ldr_imm(5, SP, 16) + t.add_lsl(1, 1, 5, 0)       # X + c
             + t.addw(3, SP, 64 + 2 * (pt * lp + pl)) + " label(WR)\n"
             + "".join(t.ldrsb_imm(4, 1, x * c) + t.strh_imm(4, 3, 2 * x) for x in range(cols))
             + _add(1, v * c) + t.addw(3, 3, 2 * lp) + " sub(r2,1)\n bne_w(WR)\n")
    if h_rows * cols <= 160:   # unrolled: no count, the plane's offsets rendered
        widen = (t.ldr_imm(1, SP, 4) + t.ldr_imm(5, SP, 16) + t.add_lsl(1, 1, 5, 0) + t.addw(3, SP, 64 + 2 * (pt * lp + pl))
                 + "".join("".join(t.ldrsb_imm(4, 1, x * c) + t.strh_imm(4, 3, 2 * (y * lp + x)) for x in range(cols))
                           + _add(1, v * c) for y in range(h_rows)))
    weights = (t.ldr_imm(1, SP, 8) + t.ldr_imm(5, SP, 16) + t.add_lsl(1, 1, 5, 0) + f" movw(r2,{m})\n"
               + "".join(_scaled(4, 3 * j * c, 1, 2) + _scaled(5, (3 * j + 1) * c, 1, 2) + _scaled(12, (3 * j + 2) * c, 1, 2)
                         + t.pkhbt(6 + 2 * j, 4, 5) + t.pkhbt(7 + 2 * j, 5, 12) for j in range(3))
               + t.ldr_imm(0, SP, 0) + t.ldr_imm(5, SP, 16) + t.add_lsl(0, 0, 5, 2) + t.ldr_imm(4, 0, 64) + t.mul(4, 4, 2)
               + t.str_imm(4, SP, P_BIAS) + t.str_imm(4, SP, P_BIAS + 4))
    def row(ja, jb):
        return ("".join(_planes_pass(k, lp, c, s, lo, True, st, range(ja, jb)) for k in range(ow // 2))
                + (_planes_pass(ow // 2, lp, c, s, lo, False, st, range(ja, jb)) if ow % 2 else "")
                + t.addw(0, 0, 2 * lp * st) + _add(1, ow * c))
    def rows2(a, b):
        return ("".join(_planes_pass2(k, lp, ow, c, s, lo, True, a, b) for k in range(ow // 2))
                + (_planes_pass2(ow // 2, lp, ow, c, s, lo, False, a, b) if ow % 2 else "")
                + t.addw(0, 0, 4 * lp) + _add(1, 2 * ow * c))
    lines = t.ldr_imm(1, SP, 12) + t.add_lsl(1, 1, 5, 0) + t.addw(0, SP, 64)
    if _pairs_fit(lp, ow, c, st):
        for i, (a, b, n) in enumerate(_row_pairs(p)):
            if b is None:
                lines += row(*a)
            elif n == 1 or n * ow <= 12:
                lines += rows2(a, b) * n
            else:   # looped: r2 is an accumulator here, the count is r1 against its end
                lines += (f" movw(r4,{2 * n * ow * c})\n" + t.add_lsl(4, 4, 1, 0) + t.str_imm(4, SP, P_END)
                          + f" label(LP{i})\n" + rows2(a, b) + t.ldr_imm(4, SP, P_END) + f" cmp(r1,r4)\n blt_w(LP{i})\n")
    else:
        for i, (ja, jb, n) in enumerate(_row_runs(p)):
            lines += (row(ja, jb) * n if n == 1 or n * ow <= 24
                      else f" movw(r2,{n})\n label(LN{i})\n" + row(ja, jb) + f" sub(r2,1)\n bne_w(LN{i})\n")
    return (f"@micropython.asm_thumb\ndef {name}(r0,r1,r2,r3):\n push({{r8,r9,r10,r11}})\n" + grow
            + t.str_imm(3, SP, 0) + t.str_imm(0, SP, 4) + t.str_imm(1, SP, 8) + t.str_imm(2, SP, 12)
            + zero + " mov(r4,0)\n" + t.str_imm(4, SP, 16)
            + " label(CH)\n" + widen + weights + lines
            + t.ldr_imm(4, SP, 16) + " add(r4,1)\n" + t.str_imm(4, SP, 16) + f" movw(r5,{c})\n cmp(r4,r5)\n blt_w(CH)\n"
            + shrink + " pop({r8,r9,r10,r11})\n")


def _planes_tiles(job):
    """The job's tile shapes that the plane kernel takes (params, first seen first)."""
    seen = []
    for tl in job.tiles:
        p = tuple(tl.params[:12])
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


def _direct_applies(p) -> bool:
    """Tile p (params) fits the in-place kernel: 3x3, stride 2, offsets in reach."""
    h, v, c, oh, ow = p[:5]
    return (p[6:10] == (3, 3, 2, 2) and p[10] <= 1 and p[11] <= 1
            and 3 * v * c <= 4095 and 8 * c <= 4095 and ow * c <= 4095 and ow <= MAX_ROW)


def _row_runs(p):
    """[(ja, jb, n)]: runs of n output rows whose kernel rows ja <= j < jb fall inside the input."""
    h, oh, st, pt = p[0], p[3], p[8], p[10]
    runs = []
    for oy in range(p[3]):
        y0 = st * oy - pt
        span = (max(0, -y0), min(3, h - y0))
        if runs and tuple(runs[-1][:2]) == span:
            runs[-1][2] += 1
        else:
            runs.append([*span, 1])
    return [tuple(r) for r in runs]


def _grow(rd: int, imm: int) -> str:
    """rd += imm (r12 scratch above 4095)."""
    return t.addw(rd, rd, imm) if imm < 4096 else f" movw(r12,{imm})\n" + t.add_lsl(rd, rd, 12, 0)


def _tap(rd: int, j: int, i: int, rm: int, ra: int) -> str:
    """rd = ra + w[j][i] * rm.lo, the weight from its packed register."""
    reg, half = _VW[j][i]
    return (t.smlatb if half == "t" else t.smlabb)(rd, reg, rm, ra)


def _direct_row(p, ja: int, jb: int, s: int, lo: int, out0: int, in0: int = 0) -> str:
    """One output row: its input row y0 (X + c + y0*V*C) at r0 + in0, outputs at r1 + out0."""
    v, c, ow, pl = p[1], p[2], p[4], p[11]
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
                    code += (t.ldrsb_imm(r, 0, in0 + x * c) + t.ldrsb_imm(12, 0, in0 + vc + x * c) + t.pkhbt(r, r, 12)
                             + t.smlad(LR, 2 + i, r, acc))
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


def _scaled(rd: int, at: int, rn: int = 12, rm: int = 8) -> str:
    """rd = the weight byte at rn + at times M (in rm)."""
    return t.ldrsb_imm(rd, rn, at) + t.mul(rd, rd, rm)


def _direct_rows2(p, s: int, lo: int, out0: int, in0: int) -> str:
    """Two output rows whose kernel rows all fall inside the input, a pixel column at a time:
    input row y0 + 2 is kernel row 2 of the first and, as the bottom halves of the second's
    vertical pairs (rows y0 + 2, y0 + 3, carried in r8), it is loaded once for both; row y0 + 4
    horizontally (x0 carried in r9). Accumulators r12, lr from the bias pair at sp + Q_BIAS;
    r7 carries the first row's pairs (the bias is reloaded after)."""
    v, c, ow, pl = p[1], p[2], p[4], p[11]
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
    _, m, s, lo = _constants(job)
    v, c, oh, ow, pt = p[1], p[2], p[3], p[4], p[10]
    weights = lambda two_rows: (t.ldr_imm(12, SP, 20) + (f" movw(r8,{m})\n" if two_rows else "")   # r8: M, a carry there
               + "".join(_scaled(2 + i, i * c) + _scaled(LR, (3 + i) * c) + t.pkhbt(2 + i, 2 + i, LR) for i in range(3))
               + _scaled(5, 6 * c) + _scaled(LR, 7 * c) + t.pkhbt(5, 5, LR) + _scaled(6, 8 * c)
               + t.addw(12, 12, 1) + t.str_imm(12, SP, 20)
               + t.ldr_imm(12, SP, 24) + t.ldr_post(7, 12, 4) + t.mul(7, 7, 8) + t.str_imm(12, SP, 24)
               + (t.str_imm(7, SP, Q_BIAS) + t.str_imm(7, SP, Q_BIAS + 4) if two_rows else ""))
    # two rows a pass: rows y0..y0+4 and both rows' outputs in reach; not for rows of 3 pixels (VWW
    # DW23: the bias kept on the stack and M reloaded cost more than the shared loads save)
    two = 5 * v * c <= 4096 and 2 * ow * c <= 4096 and ow >= 4
    rows, out0, moved, in0, moved_in, used = "", 0, 0, 0, 0, ""   # offsets not yet added to r1, r0
    for i, (ja, jb, n) in enumerate(_row_runs(p)):
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
            rows += (_grow(1, out0) + _grow(0, in0) + f" movw(r12,{(n // 2) * 2 * ow * c})\n" + t.add_lsl(12, 12, 1, 0)
                     + t.str_imm(12, SP, Q_END) + f" label(T{i})\n" + _direct_rows2(p, s, lo, 0, 0)
                     + _grow(0, 4 * v * c) + _grow(1, 2 * ow * c) + t.ldr_imm(12, SP, Q_END) + t.cmp_reg(1, 12) + f" blt_w(T{i})\n")
            moved, out0 = moved + out0 + (n // 2) * 2 * ow * c, 0
            moved_in, in0 = moved_in + in0 + (n // 2) * 4 * v * c, 0
            n %= 2
        if not n:
            continue
        if n == 1 or n * ow <= 40:   # unrolled up to ~600 instructions (larger ones ran out of heap compiling)
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
            rows += (_grow(1, out0) + _grow(0, in0) + f" movw(r12,{n * ow * c})\n" + t.add_lsl(12, 12, 1, 0)
                     + t.str_imm(12, SP, Q_END) + f" label(R{i})\n" + _direct_row(p, ja, jb, s, lo, 0)
                     + _grow(0, 2 * v * c) + _grow(1, ow * c) + t.ldr_imm(12, SP, Q_END) + t.cmp_reg(1, 12) + f" blt_w(R{i})\n")
            moved, out0, moved_in, in0 = moved + out0 + n * ow * c, 0, moved_in + in0 + n * 2 * v * c, 0
    back_in, back_out = moved_in - 1, moved - 1     # to the next channel's X + c, O + c
    rewind = (t.subw(0, 0, back_in) if 0 <= back_in < 4096 else f" movw(r12,{back_in})\n" + t.sub_reg(0, 0, 12)
              if back_in >= 0 else t.addw(0, 0, -back_in))
    rewind += t.subw(1, 1, back_out) if 0 <= back_out < 4096 else f" movw(r12,{back_out})\n" + t.sub_reg(1, 1, 12) if back_out >= 0 else t.addw(1, 1, -back_out)
    return (f"@micropython.asm_thumb\ndef {name}(r0,r1,r2,r3):\n push({{r8,r9,r10,r11}})\n" + t.subw(SP, SP, Q_FRAME)
            + t.str_imm(3, SP, 0) + t.str_imm(0, SP, 4) + t.str_imm(1, SP, 8) + t.str_imm(2, SP, 12)
            + t.str_imm(1, SP, 20) + " add(r3,64)\n" + t.str_imm(3, SP, 24)
            + t.addw(4, 2, c) + t.str_imm(4, SP, Q_CEND)
            + " mov(r1,r2)\n" + (t.subw(0, 0, v * c) if pt else "")
            + (f" movw(r8,{m})\n" if "T" not in used else "")
            + " label(CH)\n" + weights("T" in used) + rows + rewind
            + t.ldr_imm(12, SP, Q_CEND) + t.cmp_reg(1, 12) + " blt_w(CH)\n"
            + t.addw(SP, SP, Q_FRAME) + " pop({r8,r9,r10,r11})\n")


def _direct_tiles(job):
    """The job's tile shapes that the in-place stride-2 kernel takes (params, first seen first)."""
    seen = []
    for tl in job.tiles:
        p = tuple(tl.params[:12])
        if _direct_applies(p) and p not in seen:
            seen.append(p)
    return seen


def source(job) -> str | None:
    """The DSP (or, on MVE cores, MVE) kernel of this job, or None (layer_kernels' Cortex-M0
    kernels run it)."""
    from . import layer_kernels_mve, layer_kernels_pool

    if layer_kernels_mve.applies(job):
        return layer_kernels_mve.source(job)
    if conv_applies(job):
        return conv_source(job)
    if depthwise_applies(job):
        return _depthwise_dispatch(job)
    return layer_kernels_pool.source(job) if layer_kernels_pool.applies(job) else None


def kernel_isa(job) -> str | None:
    """The extension this job's kernel uses, as source() picks it: "mve", "dsp", or None (the
    Cortex-M0 kernels; also where the core has no DSP extension)."""
    from . import layer_kernels_mve, layer_kernels_pool

    if not job.dsp:
        return None
    if layer_kernels_mve.applies(job) or (depthwise_applies(job) and _mve_groups(job)):
        return "mve"
    if layer_kernels_pool.applies(job):
        return layer_kernels_pool.isa(job)
    return "dsp" if conv_applies(job) or depthwise_applies(job) else None


def _depthwise_other(job) -> str:
    """The row-slot or per-tap depthwise kernel of the job, as k."""
    if not _dw_rows_geometry(job):
        return depthwise_source(job)
    if all(tl.params[2] % 4 == 0 for tl in job.tiles):
        return depthwise_rows_source(job).replace("def kr(", "def k(")
    # tiles whose channels are not a multiple of 4 run the other kernel
    return (depthwise_rows_source(job) + "#--\n" + depthwise_source(job).replace("def k(", "def kg(")
            + "#--\ndef k(X,W,O,P):\n if P[2]&3:\n  kg(X,W,O,P)\n else:\n  kr(X,W,O,P)\n")


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
    return tuple(p[:12]) == (3, 3, p[2], 3, 3, p[2], 3, 3, 1, 1, 1, 1) and 8 * p[2] <= 4095


def _k3_outputs(c: int, s: int, lo: int, ys) -> str:
    """Outputs of rows ys: r0 the sum (from the bias: at sp + 32, in r10 before row 2 of the
    input is loaded, in r8 once row 0 is done with), then SSAT/USAT, STRB at r1."""
    code = ""
    for y in ys:
        rows = [(j, y + j - 1) for j in range(3) if 0 <= y + j - 1 < 3]
        if y == 2:
            code += t.ldr_imm(8, SP, 32)   # input row 0 (r8) is done with
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
    _, m, s, lo = _constants(job)
    c = p[2]

    def row(r: int, tmp: int) -> str:
        pr, qr = 8 + r, (11, 12, LR)[r]
        return (t.ldrsb_imm(pr, 0, 3 * r * c) + t.ldrsb_imm(qr, 0, (3 * r + 1) * c) + t.ldrsb_imm(tmp, 0, (3 * r + 2) * c)
                + t.pkhbt(pr, pr, qr) + t.pkhbt(qr, qr, tmp))
    weights = (t.ldr_imm(8, SP, 20) + f" movw(r11,{m})\n"
               + "".join(_scaled(2 + j, 3 * j * c, 8, 11) + _scaled(9, (3 * j + 1) * c, 8, 11) + _scaled(5 + j, (3 * j + 2) * c, 8, 11)
                         + t.pkhbt(2 + j, 2 + j, 9) + t.pkhbt(5 + j, 9, 5 + j) for j in range(3))
               + t.addw(8, 8, 1) + t.str_imm(8, SP, 20)
               + t.ldr_imm(8, SP, 24) + t.ldr_post(9, 8, 4) + t.str_imm(8, SP, 24) + t.mul(9, 9, 11) + t.str_imm(9, SP, 32))
    inputs = (t.ldr_imm(0, SP, 28) + t.addw(1, 0, 1) + t.str_imm(1, SP, 28) + row(0, 1) + row(1, 1)
              + t.ldr_imm(1, SP, 36) + t.ldr_imm(10, SP, 32))
    rest = t.ldr_imm(0, SP, 28) + t.subw(0, 0, 1) + row(2, 0)    # input row 2 after output row 0 (r10 held the bias)
    return (f"@micropython.asm_thumb\ndef {name}(r0,r1,r2,r3):\n push({{r8,r9,r10,r11}})\n" + t.subw(SP, SP, K3_FRAME)
            + t.str_imm(3, SP, 0) + t.str_imm(0, SP, 4) + t.str_imm(1, SP, 8) + t.str_imm(2, SP, 12)
            + t.str_imm(1, SP, 20) + " add(r3,64)\n" + t.str_imm(3, SP, 24) + t.str_imm(0, SP, 28) + t.str_imm(2, SP, 36)
            + t.addw(4, 2, c) + t.str_imm(4, SP, 16)
            + " label(CH)\n" + weights + inputs + _k3_outputs(c, s, lo, (0,)) + rest + _k3_outputs(c, s, lo, (1, 2))
            + " add(r1,1)\n" + t.str_imm(1, SP, 36) + t.ldr_imm(0, SP, 16) + " cmp(r1,r0)\n blt_w(CH)\n"
            + t.addw(SP, SP, K3_FRAME) + " pop({r8,r9,r10,r11})\n")


def _test(p, ps) -> str:
    """The shortest test of P that tells tile shape p from the shapes ps of the other tiles
    (each comparison costs the interpreter a few hundred instructions per call)."""
    for n in range(1, 8):
        for fields in itertools.combinations((2, 3, 0, 4, 1, 10, 11), n):
            if not any(all(q[j] == p[j] for j in fields) for q in ps if q != p):
                return " and ".join(f"P[{i}]=={p[i]}" for i in fields)
    return "True"


def _mve_groups(job) -> dict:
    """layer_kernels_mve's depthwise groups, less the strided ones whose heights are no multiple
    of 4 (its last step of 4 rows overlaps the one before): the in-place kernel is faster there
    (qemu-m55, VWW DW11: 2.41 ms against 3.04)."""
    from . import layer_kernels_mve

    return {key: ps for key, ps in layer_kernels_mve.depthwise_groups(job).items()
            if not all(q[8] == 2 and q[3] % 4 and _direct_applies(tuple(q[:12])) for q in ps if q[3] >= 4)}


def _depthwise_dispatch(job) -> str:
    """The MVE kernels, the in-place stride-2 kernels and the plane kernels (one per tile
    shape) for the tile shapes they take, the other depthwise kernels (as
    kd) for the rest; k picks by P."""
    from . import layer_kernels_mve

    mve = _mve_groups(job)
    whole = {key for key, ps in mve.items() if min(q[3] for q in ps) >= 4}   # no tile left to the DSP
    shapes = {tuple(tl.params[:12]) for tl in job.tiles}
    fold = _constants(job)[1] < FOLD_M
    direct = [p for p in _direct_tiles(job) if (p[2], p[1], p[4]) not in whole] if fold else []
    k3 = [p for p in dict.fromkeys(tuple(tl.params[:12]) for tl in job.tiles) if _k3_applies(p) and (p[2], p[1], p[4]) not in whole] if fold else []
    planes = [p for p in _planes_tiles(job) if (p[2], p[1], p[4]) not in whole and p not in direct + k3] if fold else []
    if not planes and not mve and not direct and not k3:
        return _depthwise_other(job)
    code = "".join(layer_kernels_mve.depthwise_source(job, ps, f"km{i}") + "#--\n" for i, ps in enumerate(mve.values()))
    code += "".join(depthwise_direct_source(job, p, f"kq{i}") + "#--\n" for i, p in enumerate(direct))
    code += "".join(depthwise_3x3_source(job, p, f"k3{i}") + "#--\n" for i, p in enumerate(k3))
    code += "".join(depthwise_planes_source(job, [p], f"kp{i}") + "#--\n" for i, p in enumerate(planes))
    taken = set(direct) | set(planes) | set(k3)
    rest = {p for p in shapes - taken if (p[2], p[1], p[4]) not in whole}
    if rest:
        code += _depthwise_other(job).replace("def k(", "def kd(") + "#--\n"
    order = list(dict.fromkeys(tuple(tl.params[:12]) for tl in job.tiles))   # the first tile's test first
    named = sorted([(p, f"kq{i}") for i, p in enumerate(direct)] + [(p, f"k3{i}") for i, p in enumerate(k3)]
                   + [(p, f"kp{i}") for i, p in enumerate(planes)], key=lambda pn: order.index(pn[0]))
    tests = ([(f"P[2]=={c} and P[1]=={v} and P[4]=={ow} and P[3]>=4", f"km{i}") for i, (c, v, ow) in enumerate(mve)]
             + [(_test(p, shapes), name) for p, name in named])
    code += "def k(X,W,O,P):\n" + "".join(f" {'if' if i == 0 else 'elif'} {cond}:\n  {name}(X,W,O,P)\n"
                                          for i, (cond, name) in enumerate(tests))
    return code + (" else:\n  kd(X,W,O,P)\n" if rest else "")
