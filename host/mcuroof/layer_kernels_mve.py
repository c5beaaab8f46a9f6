"""int8 asm_thumb layer kernels for cores with MVE (Helium, Armv8.1-M: the Cortex-M55), for
convolutions and dense layers with up to 256 inputs per output (K).

Per output pixel, its K int8 inputs (gathered on the stack as layer_kernels_dsp's im2col does,
except for 1x1 convolutions and dense layers with K a multiple of 16) are loaded once into up
to four vector registers (VLDRB, 16 lanes each); per output channel, its K weights are loaded
into four more and VMLADAVA.S8 adds 16 products per instruction into the accumulator, which
starts at the channel's bias (K over 64: the inputs are loaded again with each channel's
weights, 3 instructions per 16 MACs); then
(acc * M) >> S clamped (MUL, SSAT/USAT with the shift) and stored. Same contract as
layer_kernels (k(X, W, O, P), P's layout); the layer's K, M, S and LO are rendered into the code.
"""
from __future__ import annotations

from . import layer_kernels_dsp as dsp
from . import thumb2 as t

SP = 13
MAX_K = 256           # the gathered inputs (16 bytes a vector) stay a small stack frame


def applies(job) -> bool:
    """A job MVE kernels can run: an int8 asm_thumb convolution or dense layer with K <= 256."""
    layer = job.layer
    if job.emitter != "asm_thumb" or job.dtype != "int8" or not getattr(job, "mve", False):
        return False
    const = dsp._constants(job) if layer.op in ("CONV_2D", "FULLY_CONNECTED") else None
    return bool(const) and const[0] <= MAX_K


def source(job) -> str:
    k, m, s, lo = dsp._constants(job)
    p = job.tiles[0].params
    c, kh, kw = p[2], p[6], p[7]
    nq = -(-k // 16)
    direct = kh == kw == 1 and k % 16 == 0
    boff, frame = 32, 32 + (0 if direct else 16 * nq)
    if direct:  # the pixel's K inputs in place
        inputs = (" ldr(r5,[r0,32])\n mul(r6,r5)\n ldr(r5,[r0,4])\n mul(r6,r5)\n"
                  " ldr(r5,[r0,36])\n mul(r7,r5)\n add(r6,r6,r7)\n" + f" movw(r5,{k})\n mul(r6,r5)\n"
                  + t.ldr_imm(7, SP, 4) + " add(r1,r6,r7)\n")
        weights = "".join(t.vldrb_post(4 + q, 1, 16) for q in range(nq))
        pad = ""
        if nq > 4:  # K over 64: the inputs stream from memory with the weights, per channel
            weights = "".join(t.vldrb_post(0, 4, 16) + t.vldrb_post(1, 1, 16) + t.vmladava(8, 0, 1, 8) for _ in range(nq))
    else:  # gathered (zeros where the window leaves the input) into K bytes on the stack, then
        # zeros up to 16 * nq: the weights read past a channel's K are multiplied by them
        inputs = dsp._gather(c, kh, kw, boff) + t.addw(1, SP, boff)
        weights = "".join(t.vldrb_imm(4 + q, 1, 16 * q) for q in range(nq)) + t.addw(1, 1, k)
        pad = " movw(r4,0)\n" + "".join(t.str_imm(4, SP, boff + o) for o in range(k // 4 * 4, 16 * nq, 4))
        if nq > 4:
            weights = "".join(t.vldrb_post(0, 4, 16) + t.vldrb_imm(1, 1, 16 * q) + t.vmladava(8, 0, 1, 8)
                              for q in range(nq)) + t.addw(1, 1, k)
    return ("@micropython.asm_thumb\ndef k(r0,r1,r2,r3):\n push({r8,r9,r10,r11})\n" + t.subw(SP, SP, frame)
            + t.str_imm(3, SP, 0) + t.str_imm(0, SP, 4) + t.str_imm(1, SP, 8) + t.str_imm(2, SP, 12)
            + " ldr(r4,[r3,12])\n ldr(r5,[r3,16])\n mul(r4,r5)\n" + t.str_imm(4, SP, 16)    # N = OH*OW
            + " mov(r4,0)\n" + t.str_imm(4, SP, 20) + pad
            + " label(PIX)\n" + t.ldr_imm(4, SP, 20) + t.ldr_imm(0, SP, 0)
            + " ldr(r5,[r0,16])\n udiv(r6,r4,r5)\n" + t.mul(7, 6, 5) + " sub(r7,r4,r7)\n"   # oy, ox
            + inputs + ("".join(t.vldrb_post(q, 1, 16) for q in range(nq)) if nq <= 4 else " mov(r2,r1)\n")
            + t.ldr_imm(0, SP, 0) + t.ldr_imm(4, SP, 20)
            + t.ldr_imm(1, SP, 8) + " mov(r3,r0)\n add(r3,64)\n"                          # weights, biases
            + " ldr(r6,[r0,20])\n mov(r5,r4)\n mul(r5,r6)\n" + t.ldr_imm(7, SP, 12) + " add(r5,r5,r7)\n"
            + f" movw(r7,{m})\n label(CH)\n" + t.ldr_post(8, 3, 4) + (" mov(r4,r2)\n" if nq > 4 else "") + weights
            + ("".join(t.vmladava(8, q, 4 + q, 8) for q in range(nq)) if nq <= 4 else "")
            + t.mul(8, 8, 7) + (t.usat(8, 7, 8, s) if lo == 0 else t.ssat(8, 8, 8, s)) + t.strb_post(8, 5, 1)
            + " sub(r6,1)\n bne_w(CH)\n"
            + t.ldr_imm(4, SP, 20) + " add(r4,1)\n" + t.str_imm(4, SP, 20) + t.ldr_imm(5, SP, 16)
            + " cmp(r4,r5)\n blt_w(PIX)\n" + t.addw(SP, SP, frame) + " pop({r8,r9,r10,r11})\n")
