"""The Armv6-M (Cortex-M0) asm_thumb routines of the layer kernels, written one instruction a line.

kernels.ops.m0 puts them together with the Python `k` around them (and says what each layer
kernel does: docs/kernels.md). `P.<field>` is the byte offset of that field of the P block
(kernels.asm_text); several routines keep their own state in fields the layer does not
need while they run, so a line's comment says what the field holds there. The `data(2, ...)`
words are Thumb-1 instructions the inline assembler lacks: LDRSB with a register offset
(0101011 Rm Rn Rt, which saves the two-shift sign extension of LDRB) and BLX Rm.
"""

from __future__ import annotations

from mcuroof.kernels.ops.asm_text import routine

# dot(X, W, n | stride << 12, xi << 15 | wi): sum of x * w over n int8 pairs `stride` apart
ASM_DOT = routine(
    "dot",
    """
    lsr(r4,r3,15)  # X + xi
    add(r0,r0,r4)
    lsl(r3,r3,17)  # W + wi
    lsr(r3,r3,17)
    add(r1,r1,r3)
    lsr(r3,r2,12)  # r3: the stride
    lsl(r2,r2,20)  # r2: n
    lsr(r2,r2,20)
    mov(r7,0)  # the sum
    label(L)
    ldrb(r4,[r0,0])
    lsl(r4,r4,24)  # sign-extended
    asr(r4,r4,24)
    ldrb(r5,[r1,0])
    lsl(r5,r5,24)
    asr(r5,r5,24)
    mul(r4,r5)
    add(r7,r7,r4)
    add(r0,r0,r3)
    add(r1,r1,r3)
    sub(r2,1)
    bgt(L)
    mov(r0,r7)
    """,
)

# rows(X, W, O, P): every output channel of one pixel, for dense layers and unpadded 1x1
# convolutions, where a pixel's C inputs are contiguous and each channel's C weights follow the
# last: acc = bias + sum x[j] * w[j]; (acc * M) >> S clamped to [LO, 127]; stored as a byte.
# Python sets PT = the input offset and PL = the output offset (both 0 in these layers); KH and
# KW (1 here) are its scratch: the channel count-down and the bias pointer. The micro:bit's
# parser cannot hold a routine much longer than this one (56 lines raised MemoryError, 48 compiled).
ASM_ROWS = routine(
    "rows",
    """
    ldr(r4,[r3,P.PT])  # the input offset
    add(r0,r0,r4)
    ldr(r4,[r3,P.PL])  # the output offset
    add(r2,r2,r4)
    ldr(r4,[r3,P.OC])
    str(r4,[r3,P.KH])  # channels left
    mov(r4,r3)
    add(r4,P.BIASES)
    str(r4,[r3,P.KW])  # the bias pointer
    label(OC)
    ldr(r6,[r3,P.KW])  # the bias pointer
    ldr(r4,[r6,0])  # acc = the bias
    add(r6,4)
    str(r6,[r3,P.KW])
    ldr(r7,[r3,P.C])
    sub(r7,1)  # j = C - 1 .. 0
    label(J)
    data(2,0x57C5)  # ldrsb r5, [r0, r7]
    data(2,0x57CE)  # ldrsb r6, [r1, r7]
    mul(r5,r6)
    add(r4,r4,r5)
    sub(r7,1)
    bge(J)
    ldr(r5,[r3,P.C])
    add(r1,r1,r5)  # the next channel's weights
    ldr(r5,[r3,P.M])
    mul(r4,r5)
    ldr(r5,[r3,P.S])
    asr(r4,r5)
    mov(r5,127)
    cmp(r4,r5)
    ble(A)
    mov(r4,r5)
    label(A)
    ldr(r5,[r3,P.LO])
    cmp(r4,r5)
    bge(B)
    mov(r4,r5)
    label(B)
    strb(r4,[r2,0])
    add(r2,1)
    ldr(r5,[r3,P.KH])  # channels left
    sub(r5,1)
    str(r5,[r3,P.KH])
    bgt(OC)
    """,
)

# prun(X, W, O, P): rows for the N pixels of an output row, from assembler: PT steps by SW
# (SW*C while k runs, which puts SW back at its end) and PL by OC. It calls rows through its
# function object (H = id(rows): its code address is the object's third word, plus the Thumb
# bit) with BLX r8, every low register being an argument; r8 is the caller's, kept on the stack.
ASM_PRUN = routine(
    "prun",
    """
    mov(r4,r0)  # X, W, O, P
    mov(r5,r1)
    mov(r6,r2)
    mov(r7,r3)
    mov(r0,r8)
    push({r0})  # the caller's r8
    label(PX)
    ldr(r0,[r7,P.H])  # id(rows)
    ldr(r0,[r0,8])
    add(r0,1)
    mov(r8,r0)
    mov(r0,r4)
    mov(r1,r5)
    mov(r2,r6)
    mov(r3,r7)
    data(2,0x47C0)  # blx r8
    ldr(r0,[r7,P.PT])  # the input offset
    ldr(r1,[r7,P.SW])  # SW*C
    add(r0,r0,r1)
    str(r0,[r7,P.PT])
    ldr(r0,[r7,P.PL])  # the output offset
    ldr(r1,[r7,P.OC])
    add(r0,r0,r1)
    str(r0,[r7,P.PL])
    ldr(r0,[r7,P.N])  # pixels left
    sub(r0,1)
    str(r0,[r7,P.N])
    bgt(PX)
    pop({r0})
    mov(r8,r0)
    """,
)

# asm_thumb depthwise: per output pixel, dwpix adds x * w over the window's taps and channels
# into an int32 accumulator row ACC, and rq then adds the biases, requantizes, stores the
# pixel's OC bytes at output offset o and clears ACC for the next one. ACC is
# P[16+OC : 16+2*OC], after the biases (each routine finds it from OC). Convolutions other than
# 1x1 do the same with srow, a kernel row per call.
# rq(_, out, P, 0): per pixel, after dwpix or srow: ACC (the OC words after the biases) plus the
# biases, requantized ((acc * M) >> S clamped to [LO, 127]), stored as OC bytes at out; ACC
# cleared for the next pixel.
ASM_RQ = routine(
    "rq",
    """
    ldr(r4,[r2,P.OC])
    lsl(r4,r4,2)
    add(r0,r2,r4)
    add(r0,P.BIASES)  # ACC
    add(r1,r1,r3)
    mov(r3,r2)
    add(r3,P.BIASES)  # the biases
    ldr(r7,[r2,P.OC])  # channels left
    label(L)
    ldr(r4,[r0,0])
    ldr(r5,[r3,0])
    add(r4,r4,r5)  # acc + bias
    mov(r5,0)
    str(r5,[r0,0])  # ACC cleared
    ldr(r5,[r2,P.M])
    mul(r4,r5)
    ldr(r5,[r2,P.S])
    asr(r4,r5)
    mov(r5,127)
    cmp(r4,r5)
    ble(A)
    mov(r4,r5)
    label(A)
    ldr(r5,[r2,P.LO])
    cmp(r4,r5)
    bge(B)
    mov(r4,r5)
    label(B)
    strb(r4,[r1,0])
    add(r0,4)
    add(r1,1)
    add(r3,4)
    sub(r7,1)
    bgt(L)
    """,
)

# dwpix(P, X, W, _): a whole pixel's window, every tap and channel, into ACC: SH = rows |
# columns << 8 of the (clipped) window, N = input offset << 15 | weight offset of its first tap,
# PT and PL the input and weight row strides (V*C, KW*C).
ASM_DWPIX = routine(
    "dwpix",
    """
    ldr(r4,[r0,P.N])  # input offset << 15 | weight offset
    lsr(r5,r4,15)
    add(r1,r1,r5)
    lsl(r4,r4,17)
    lsr(r4,r4,17)
    add(r2,r2,r4)
    ldr(r3,[r0,P.SH])  # rows | columns << 8
    label(R)
    push({r1,r2,r3})
    lsl(r3,r3,16)
    lsr(r3,r3,24)  # columns
    label(K)
    push({r3})
    ldr(r6,[r0,P.OC])
    lsl(r6,r6,2)
    add(r6,r6,r0)
    add(r6,P.BIASES)  # ACC
    ldr(r7,[r0,P.C])
    mov(r3,0)
    label(L)
    data(2,0x56CC)  # ldrsb r4, [r1, r3]
    data(2,0x56D5)  # ldrsb r5, [r2, r3]
    mul(r4,r5)
    ldr(r5,[r6,0])
    add(r5,r5,r4)
    str(r5,[r6,0])
    add(r1,1)
    add(r2,1)
    add(r6,4)
    sub(r7,1)
    bgt(L)
    pop({r3})
    sub(r3,1)
    bgt(K)
    pop({r1,r2,r3})
    ldr(r4,[r0,P.PT])  # V*C: the next input row
    add(r1,r1,r4)
    ldr(r4,[r0,P.PL])  # KW*C: the next weight row
    add(r2,r2,r4)
    sub(r3,1)
    lsl(r4,r3,24)
    bne(R)
    """,
)

# dwrun(P, X, W, O): the SW pixels of one output row, each dwpix then rq into O at offset N (on
# entry), without returning to Python (a bytecode statement costs the M0 hundreds of
# instructions, an assembler call a thousand). A pixel's window comes from the row's part (H =
# input offset << 15 | weight offset, KW = rows) plus its column's, from a table of two words per
# output column (offsets packed alike, columns << 8) at byte offset KH of P, which dwrun steps.
# It calls dwpix and rq through their function objects (OH, OW = id(dwpix), id(rq)).
ASM_DWRUN = routine(
    "dwrun",
    """
    mov(r4,r0)  # P, X, W
    mov(r5,r1)
    mov(r6,r2)
    ldr(r7,[r4,P.N])  # the output offset
    add(r7,r7,r3)
    label(PX)
    ldr(r1,[r4,P.KH])  # the column's entry
    add(r1,r1,r4)
    ldr(r0,[r1,0])
    ldr(r2,[r4,P.H])  # the row's offsets
    add(r0,r0,r2)
    str(r0,[r4,P.N])
    ldr(r0,[r1,4])
    ldr(r2,[r4,P.KW])  # the row's rows
    orr(r0,r2)
    str(r0,[r4,P.SH])
    ldr(r0,[r4,P.KH])
    add(r0,8)
    str(r0,[r4,P.KH])  # the next column's entry
    mov(r0,r4)
    mov(r1,r5)
    mov(r2,r6)
    ldr(r3,[r4,P.OH])  # id(dwpix)
    ldr(r3,[r3,8])
    add(r3,1)
    data(2,0x4798)  # blx r3
    ldr(r0,[r4,P.OW])  # id(rq)
    ldr(r0,[r0,8])
    add(r0,1)
    mov(r1,r7)
    mov(r2,r4)
    mov(r3,0)
    data(2,0x4780)  # blx r0
    ldr(r0,[r4,P.C])
    add(r7,r7,r0)
    ldr(r0,[r4,P.SW])  # pixels left
    sub(r0,1)
    str(r0,[r4,P.SW])
    bgt(PX)
    """,
)

# srow(P, X, W, _): one kernel row of a (not 1x1) convolution, PL inputs from N's offsets: each
# input value times the OC weights of its tap (PT = KH*KW*C apart) into ACC; then N steps to the
# next kernel row (SH = V*C << 15 | KW*C). P and the loop state are pushed around the channel
# loop, which needs every low register.
ASM_SROW = routine(
    "srow",
    """
    ldr(r3,[r0,P.PL])  # inputs left
    ldr(r4,[r0,P.N])  # input offset << 15 | weight offset
    lsr(r5,r4,15)
    add(r1,r1,r5)
    lsl(r4,r4,17)
    lsr(r4,r4,17)
    add(r2,r2,r4)
    label(V)
    ldr(r6,[r0,P.OC])
    mov(r7,r6)
    lsl(r6,r6,2)
    add(r6,r6,r0)
    add(r6,P.BIASES)  # ACC
    ldr(r4,[r0,P.PT])  # KH*KW*C
    ldrb(r5,[r1,0])
    lsl(r5,r5,24)
    asr(r5,r5,24)  # the input value
    push({r0,r1,r2,r3})
    mov(r3,r2)
    mov(r2,0)
    label(L)
    data(2,0x5699)  # ldrsb r1, [r3, r2]
    mul(r1,r5)
    ldr(r0,[r6,0])
    add(r0,r0,r1)
    str(r0,[r6,0])
    add(r6,4)
    add(r3,r3,r4)
    sub(r7,1)
    bgt(L)
    pop({r0,r1,r2,r3})
    add(r1,1)
    add(r2,1)
    sub(r3,1)
    bgt(V)
    ldr(r4,[r0,P.N])
    ldr(r5,[r0,P.SH])  # V*C << 15 | KW*C
    add(r4,r4,r5)
    str(r4,[r0,P.N])
    """,
)

# srun(P, X, W, O): like dwrun, the SW pixels of an output row, each its window's rows (KW of
# them: srow called that many times, counted in V) then rq; the column table's second word is
# the pixel's input count per kernel row.
ASM_SRUN = routine(
    "srun",
    """
    mov(r4,r0)  # P, X, W
    mov(r5,r1)
    mov(r6,r2)
    ldr(r7,[r4,P.N])  # the output offset
    add(r7,r7,r3)
    label(PX)
    ldr(r1,[r4,P.KH])  # the column's entry
    mov(r0,r1)
    add(r0,8)
    str(r0,[r4,P.KH])
    add(r1,r1,r4)
    ldr(r0,[r1,0])
    ldr(r2,[r4,P.H])  # the row's offsets
    add(r0,r0,r2)
    str(r0,[r4,P.N])
    ldr(r0,[r1,4])
    str(r0,[r4,P.PL])  # inputs per kernel row
    ldr(r0,[r4,P.KW])  # the window's rows
    str(r0,[r4,P.V])  # rows left
    label(KY)
    mov(r0,r4)
    mov(r1,r5)
    mov(r2,r6)
    ldr(r3,[r4,P.OH])  # id(srow)
    ldr(r3,[r3,8])
    add(r3,1)
    data(2,0x4798)  # blx r3
    ldr(r0,[r4,P.V])  # rows left
    sub(r0,1)
    str(r0,[r4,P.V])
    bgt(KY)
    ldr(r0,[r4,P.OW])  # id(rq)
    ldr(r0,[r0,8])
    add(r0,1)
    mov(r1,r7)
    mov(r2,r4)
    mov(r3,0)
    data(2,0x4780)  # blx r0
    ldr(r0,[r4,P.OC])
    add(r7,r7,r0)
    ldr(r0,[r4,P.SW])  # pixels left
    sub(r0,1)
    str(r0,[r4,P.SW])
    bgt(PX)
    """,
)

# apool(P, X, O, columns << 8 | rows): one output pixel's (clipped) window summed for each of
# its C channels, then divided without a divide instruction (kernels.ops.m0 says how): N =
# input offset << 15 | output offset; M = ceil(2**24 / n), S = 128 * n, LO = V * C (a pool
# uses no requantization: Python sets them per pixel).
ASM_POOL = routine(
    "apool",
    """
    ldr(r4,[r0,P.N])  # input offset << 15 | output offset
    lsr(r5,r4,15)
    add(r1,r1,r5)
    lsl(r4,r4,17)
    lsr(r4,r4,17)
    add(r2,r2,r4)
    ldr(r7,[r0,P.C])  # channels left
    label(CH)
    ldr(r4,[r0,P.S])  # the sum starts at 128 * n
    push({r1,r3})
    label(R)
    lsr(r6,r3,8)  # columns
    push({r1})
    label(K)
    ldrb(r5,[r1,0])
    lsl(r5,r5,24)
    asr(r5,r5,24)
    add(r4,r4,r5)
    ldr(r5,[r0,P.C])
    add(r1,r1,r5)
    sub(r6,1)
    bgt(K)
    pop({r1})
    ldr(r5,[r0,P.LO])  # V*C: the next input row
    add(r1,r1,r5)
    sub(r3,1)
    lsl(r5,r3,24)
    bne(R)
    pop({r1,r3})
    ldr(r5,[r0,P.M])  # ceil(2**24 / n)
    mul(r4,r5)
    lsr(r4,r4,24)
    sub(r4,128)
    strb(r4,[r2,0])
    add(r1,1)
    add(r2,1)
    sub(r7,1)
    bgt(CH)
    """,
)
