"""Layer ops in asm_thumb for any Arm core (Armv6-M, the Cortex-M0's Thumb): the routines
and the Python around them. What each does: docs/kernels.md."""

from __future__ import annotations

from mcuroof.kernels.ops.contract import HEAD, MAC_OPS
from mcuroof.kernels.ops.python import python_source
from mcuroof.kernels.thumb1 import LR, PC, SP, Asm

ASM_PACK_LIMIT = 1 << 15  # asm dot takes both offsets packed in one 30-bit small int

ASM_DOT = (
    "@micropython.asm_thumb\ndef dot(r0,r1,r2,r3):\n"
    " lsr(r4,r3,15)\n add(r0,r0,r4)\n lsl(r3,r3,17)\n lsr(r3,r3,17)\n add(r1,r1,r3)\n"
    " lsr(r3,r2,12)\n lsl(r2,r2,20)\n lsr(r2,r2,20)\n mov(r7,0)\n label(L)\n"
    " ldrb(r4,[r0,0])\n lsl(r4,r4,24)\n asr(r4,r4,24)\n ldrb(r5,[r1,0])\n lsl(r5,r5,24)\n"
    " asr(r5,r5,24)\n mul(r4,r5)\n add(r7,r7,r4)\n add(r0,r0,r3)\n add(r1,r1,r3)\n"
    " sub(r2,1)\n bgt(L)\n mov(r0,r7)\n"
)


# asm_thumb rows(X, W, O, P): every output channel of one pixel in assembler, for dense layers
# and unpadded 1x1 convolutions, where a pixel's C inputs are contiguous and each channel's C
# weights follow the last: acc = bias + sum x[j] * w[j]; (acc * M) >> S clamped to [LO, 127];
# stored as a byte. Python sets P[10] = input offset and P[11] = output offset (PT and PL are 0
# in these layers); P[6] and P[7] (KH and KW, 1 here) are its scratch: the channel count-down and
# the bias pointer. The two data() words are LDRSB r5,[r0,r7] and LDRSB r6,[r1,r7] (Thumb-1
# encoding 0101011 Rm Rn Rt), which the inline assembler lacks; the micro:bit's parser cannot
# hold a routine much longer than this one (56 lines raised MemoryError, 48 compiled).
ASM_ROWS = (
    "@micropython.asm_thumb\ndef rows(r0,r1,r2,r3):\n"
    " ldr(r4,[r3,40])\n add(r0,r0,r4)\n ldr(r4,[r3,44])\n add(r2,r2,r4)\n ldr(r4,[r3,20])\n"
    " str(r4,[r3,24])\n mov(r4,r3)\n add(r4,64)\n str(r4,[r3,28])\n label(OC)\n"
    " ldr(r6,[r3,28])\n ldr(r4,[r6,0])\n add(r6,4)\n str(r6,[r3,28])\n ldr(r7,[r3,8])\n sub(r7,1)\n"
    " label(J)\n data(2,0x57C5)\n data(2,0x57CE)\n mul(r5,r6)\n add(r4,r4,r5)\n sub(r7,1)\n bge(J)\n"
    " ldr(r5,[r3,8])\n add(r1,r1,r5)\n ldr(r5,[r3,48])\n mul(r4,r5)\n ldr(r5,[r3,52])\n asr(r4,r5)\n"
    " mov(r5,127)\n cmp(r4,r5)\n ble(A)\n mov(r4,r5)\n label(A)\n ldr(r5,[r3,56])\n cmp(r4,r5)\n"
    " bge(B)\n mov(r4,r5)\n label(B)\n strb(r4,[r2,0])\n add(r2,1)\n"
    " ldr(r5,[r3,24])\n sub(r5,1)\n str(r5,[r3,24])\n bgt(OC)\n"
)
ASM_DENSE = "def k(X,W,O,P):\n P[10]=0\n P[11]=0\n rows(X,W,O,P)\n"
# prun(X, W, O, P): rows for the P[15] pixels of an output row, from assembler: P[10] steps by
# P[9] (SW*C, set by k, which puts SW back at its end) and P[11] by OC. It calls rows through
# its function object (P[0] = id(rows)) with BLX r8 (a data() word), every low register being
# an argument; r8 is the caller's, so it is kept on the stack.
ASM_PRUN = (
    "@micropython.asm_thumb\ndef prun(r0,r1,r2,r3):\n"
    " mov(r4,r0)\n mov(r5,r1)\n mov(r6,r2)\n mov(r7,r3)\n mov(r0,r8)\n push({r0})\n label(PX)\n"
    " ldr(r0,[r7,0])\n ldr(r0,[r0,8])\n add(r0,1)\n mov(r8,r0)\n"
    " mov(r0,r4)\n mov(r1,r5)\n mov(r2,r6)\n mov(r3,r7)\n data(2,0x47C0)\n"
    " ldr(r0,[r7,40])\n ldr(r1,[r7,36])\n add(r0,r0,r1)\n str(r0,[r7,40])\n"
    " ldr(r0,[r7,44])\n ldr(r1,[r7,20])\n add(r0,r0,r1)\n str(r0,[r7,44])\n"
    " ldr(r0,[r7,60])\n sub(r0,1)\n str(r0,[r7,60])\n bgt(PX)\n pop({r0})\n mov(r8,r0)\n"
)
ASM_POINTWISE = (
    "def k(X,W,O,P):\n V=P[1];C=P[2];OH=P[3];OW=P[4];OC=P[5];SH=P[8];SW=P[9]\n o=0\n"
    " P[0]=id(rows);P[9]=SW*C\n for oy in range(OH):\n"
    "  P[10]=oy*SH*V*C;P[11]=o;P[15]=OW\n  prun(X,W,O,P)\n  o+=OW*OC\n P[9]=SW\n"
)


# LDRSB with a register offset, which the inline assembler lacks, is a data() word (Thumb-1
# 0101011 Rm Rn Rt): it saves the two-shift sign extension of LDRB.
# asm_thumb depthwise: per output pixel, dwpix adds x * w over the window's taps and channels
# into an int32 accumulator row ACC, and rq then adds the biases, requantizes, stores the
# pixel's OC bytes at output offset o and clears ACC for the next one. ACC is
# P[16+OC : 16+2*OC], after the biases (each routine finds it from P[5]). Convolutions other than
# 1x1 do the same with srow, a kernel row per call.
ASM_RQ = (
    "@micropython.asm_thumb\ndef rq(r0,r1,r2,r3):\n"
    " ldr(r4,[r2,20])\n lsl(r4,r4,2)\n add(r0,r2,r4)\n add(r0,64)\n add(r1,r1,r3)\n mov(r3,r2)\n add(r3,64)\n ldr(r7,[r2,20])\n label(L)\n ldr(r4,[r0,0])\n"
    " ldr(r5,[r3,0])\n add(r4,r4,r5)\n mov(r5,0)\n str(r5,[r0,0])\n ldr(r5,[r2,48])\n mul(r4,r5)\n"
    " ldr(r5,[r2,52])\n asr(r4,r5)\n mov(r5,127)\n cmp(r4,r5)\n ble(A)\n mov(r4,r5)\n label(A)\n"
    " ldr(r5,[r2,56])\n cmp(r4,r5)\n bge(B)\n mov(r4,r5)\n label(B)\n strb(r4,[r1,0])\n"
    " add(r0,4)\n add(r1,1)\n add(r3,4)\n sub(r7,1)\n bgt(L)\n"
)
# the window clipped at the borders, rows once per output row, without max() and min() (a
# builtin call costs the micro:bit more than the comparisons); xb, wb: the row's first input
# and weight offsets, h: its row count
_ROW = "  y0=oy*SH-PT;ky0=0;ky1=KH\n  if y0<0:ky0=-y0\n  if H-y0<KH:ky1=H-y0\n  xb=(y0+ky0)*V*C;wb=ky0*KW*C;h=ky1-ky0\n"
_COLS = "   x0=ox*SW-PL;kx0=0;kx1=KW\n   if x0<0:kx0=-x0\n   if V-x0<KW:kx1=V-x0\n"
# dwpix: a whole pixel's window, every tap and channel, into ACC: P[8] = rows | columns << 8 of
# the (clipped) window, P[15] = input offset << 15 | weight offset of its first tap, P[10] and
# P[11] the input and weight row strides (V*C, KW*C).
ASM_DWPIX = (
    "@micropython.asm_thumb\ndef dwpix(r0,r1,r2,r3):\n"
    " ldr(r4,[r0,60])\n lsr(r5,r4,15)\n add(r1,r1,r5)\n lsl(r4,r4,17)\n lsr(r4,r4,17)\n add(r2,r2,r4)\n"
    " ldr(r3,[r0,32])\n label(R)\n push({r1,r2,r3})\n lsl(r3,r3,16)\n lsr(r3,r3,24)\n label(K)\n push({r3})\n"
    " ldr(r6,[r0,20])\n lsl(r6,r6,2)\n add(r6,r6,r0)\n add(r6,64)\n ldr(r7,[r0,8])\n mov(r3,0)\n"
    " label(L)\n data(2,0x56CC)\n data(2,0x56D5)\n mul(r4,r5)\n ldr(r5,[r6,0])\n add(r5,r5,r4)\n"
    " str(r5,[r6,0])\n add(r1,1)\n add(r2,1)\n add(r6,4)\n sub(r7,1)\n bgt(L)\n"
    " pop({r3})\n sub(r3,1)\n bgt(K)\n pop({r1,r2,r3})\n"
    " ldr(r4,[r0,40])\n add(r1,r1,r4)\n ldr(r4,[r0,44])\n add(r2,r2,r4)\n"
    " sub(r3,1)\n lsl(r4,r3,24)\n bne(R)\n"
)
# dwrun(P, X, W, O): the P[9] pixels of one output row, each dwpix then rq into O at offset
# P[15] (on entry), without returning to Python (a bytecode statement costs the M0 hundreds of
# instructions, an assembler call a thousand). A pixel's window comes from the row's part (P[0]
# = input offset << 15 | weight offset, P[7] = rows) plus its column's, from a table of two
# words per output column (offsets packed alike, columns << 8) at byte offset P[6] of P, which
# dwrun steps. It calls dwpix and rq through their function objects (P[3], P[4] = id(dwpix),
# id(rq): the code address is the third word; data() words are BLX r3 and BLX r0).
ASM_DWRUN = (
    "@micropython.asm_thumb\ndef dwrun(r0,r1,r2,r3):\n"
    " mov(r4,r0)\n mov(r5,r1)\n mov(r6,r2)\n ldr(r7,[r4,60])\n add(r7,r7,r3)\n label(PX)\n"
    " ldr(r1,[r4,24])\n add(r1,r1,r4)\n ldr(r0,[r1,0])\n ldr(r2,[r4,0])\n add(r0,r0,r2)\n str(r0,[r4,60])\n"
    " ldr(r0,[r1,4])\n ldr(r2,[r4,28])\n orr(r0,r2)\n str(r0,[r4,32])\n"
    " ldr(r0,[r4,24])\n add(r0,8)\n str(r0,[r4,24])\n"
    " mov(r0,r4)\n mov(r1,r5)\n mov(r2,r6)\n ldr(r3,[r4,12])\n ldr(r3,[r3,8])\n add(r3,1)\n data(2,0x4798)\n"
    " ldr(r0,[r4,16])\n ldr(r0,[r0,8])\n add(r0,1)\n mov(r1,r7)\n mov(r2,r4)\n mov(r3,0)\n data(2,0x4780)\n"
    " ldr(r0,[r4,8])\n add(r7,r7,r0)\n ldr(r0,[r4,36])\n sub(r0,1)\n str(r0,[r4,36])\n bgt(PX)\n"
)
# The column table follows ACC in P (the tiles carry it: scratch_words), then a word that marks
# it made: like the weights' layout, it depends on the layer's shape only, so it is made at the
# first call, not at every inference. That call also clears ACC (the biases' fill left values
# there; O's first pixel is written again later).
# The layer's kernel size, strides and padding are constants in the source: the micro:bit
# cannot compile k reading them from P. While k runs, P[0], P[3], P[4], P[6..11] are dwrun's
# and dwpix's (P[10], P[11]: the row strides V*C and KW*C); k puts back the ones it reads.
ASM_COLS = (
    "def cols(P,V,C,OW,i,m):\n for ox in range(OW):\n  x0=ox*{SW}-{PL};kx0=0;kx1={KW}\n"
    "  if x0<0:kx0=-x0\n  if V-x0<{KW}:kx1=V-x0\n  P[i]=(x0+kx0)*C<<15|kx0*C;P[i+1]=(kx1-kx0)*m;i+=2\n"
    " P[i]=65536+OW\n"
)
ASM_DEPTHWISE = (
    "def k(X,W,O,P):\n H=P[0];V=P[1];C=P[2];OH=P[3];OW=P[4];i=16+2*C\n"
    " if P[i+2*OW]!=65536+OW:cols(P,V,C,OW,i,256);rq(P,O,P,0)\n P[3]=id(dwpix);P[4]=id(rq);P[10]=V*C;P[11]=C*{KW}\n o=0\n"
    " for oy in range(OH):\n  y0=oy*{SH}-{PT};ky0=0;ky1={KH}\n  if y0<0:ky0=-y0\n"
    "  if H-y0<{KH}:ky1=H-y0\n"
    "  P[0]=(y0+ky0)*V*C<<15|ky0*{KW}*C;P[7]=ky1-ky0;P[6]=i*4;P[9]=OW;P[15]=o\n"
    "  dwrun(P,X,W,O)\n  o+=OW*C\n P[0]=H;P[3]=OH;P[4]=OW;P[7]={KW}\n"
)


ASM_DW_ROW = (
    "def k(X,W,O,P):\n if P[-1]!=65536+P[4]:cols(P,P[1],P[2],P[4],16+P[2],-8);"
    "P[6]=64+4*P[2];P[9]=id(dwpix);P[10]=P[1]*P[2];P[11]=P[2]*{KW}\n dwrun(P,X,W,O)\n"
)


def scratch_words(layer, emitter: str, dtype: str, tile_chans: int, tile_cols: int) -> int:
    """Words a tile's P carries after its biases for the kernels' own use: the int32
    accumulator row of dwpix and srow (one per channel; dw_row keeps its accumulator in a
    register), and dwrun's and srun's column table and its mark."""
    if not uses_accumulators(layer, emitter, dtype):
        return 0
    return (0 if dw_row_applies(layer) else tile_chans) + 2 * tile_cols + 1


# The depthwise kernel for windows up to DW_MAX_KW wide, assembled on the host (thumb1.py: one
# data() line per routine, which the micro:bit compiles where ~40 statements do not).
# dw_pixel(P, X, W, out): every channel of one output pixel, the accumulator in a register
# (started at the bias), (acc * M) >> S clamped to [LO, 127] and stored, without memory
# accumulators. A kernel row is one block of code, its taps unrolled: tap k of a row reads
# offset (k+1)*C from the window's start less C, in r3, r7, r0 (C, 2C, 3C). A window clipped at
# the borders enters the blocks later (computed branches, ADD PC: rows skipped by lr, once per
# channel; columns by r10, once per kernel row). r8, r9 step a kernel row in X and W; r11, r12
# step back to the next channel's window. P holds what dw_row leaves it: P[15], P[5] the
# window's X and W addresses less C, P[8] the column entry, P[7] the row entry. Per call the
# stack holds what the channel loop reads once per channel (DW_FRAME, byte offsets).
# dw_row(P, X, W, O): the whole tile, one call from k: per output row (P[3] of them) the
# window's rows clipped in assembler (H = P[0], y0 from -PT by SH) and the row's registers
# (r8-r12; the caller's r8-r11 kept on the stack), per pixel its column's entry in the table at
# byte offset P[6] of P (input << 15 | weight offset, packed as the row's, and -8 * its columns),
# then dw_pixel through its function object (P[9] = id(dwpix); BLX r10), output from O onwards.
# P[10], P[11] = V*C, KW*C (k sets them with the table, at the first call); its row state is
# on the stack (DW_ROW_FRAME), so P keeps what k reads.
DW_FRAME = dict(BIAS=0, M=4, S=8, LO=12, OUT=16, WEND=20)
DW_ROW_FRAME = dict(ROWOFF=0, ENTRY=4, CODE=8, Y0=12, ROWS=16, TABLE=20, END=24)
DW_MAX_KW = 3


def _dw_block_bytes(kw: int) -> int:
    """Bytes of one kernel row's block: its column branch, KW taps, two row steps."""
    return 2 * (3 + 4 * kw)


def dw_pixel(kh: int, kw: int) -> Asm:
    """The routine for one output pixel of a KH x KW depthwise kernel (KW <= DW_MAX_KW)."""
    f = DW_FRAME
    a = Asm()
    a.ldr(4, 0, 28)
    a.mov(LR, 4)
    a.ldr(4, 0, 32)
    a.mov(10, 4)
    a.ldr(1, 0, 60)
    a.ldr(2, 0, 20)
    a.ldr(7, 0, 8)
    a.adds(4, 2, 7)  # the last channel's end
    a.subs(3, 3, 2)
    a.subi(3, 1)  # output address less the next W address
    a.push([3, 4])
    a.ldr(4, 0, 48)
    a.ldr(5, 0, 52)
    a.ldr(6, 0, 56)
    a.push([4, 5, 6])  # M, S, LO
    a.mov(4, 0)
    a.addi(4, 64)
    a.ldm(4, [6])
    a.push([4])  # acc = first bias
    a.mov(3, 7)
    a.adds(7, 3, 3)
    a.adds(0, 7, 3)
    a.label("CH")
    a.add(PC, LR)
    for _ in range(kh):
        a.add(PC, 10)
        for off in (3, 7, 0)[kw - 1 :: -1]:
            a.ldrsb(4, 1, off)
            a.ldrsb(5, 2, off)
            a.muls(4, 5)
            a.adds(6, 6, 4)
        a.add(1, 8)
        a.add(2, 9)
    a.add(1, 11)
    a.add(2, 12)
    a.ldr(4, SP, f["M"])
    a.muls(6, 4)
    a.ldr(4, SP, f["S"])
    a.asrs(6, 4)
    a.cmpi(6, 127)
    a.b("le", "A")
    a.movs(6, 127)
    a.label("A")
    a.ldr(4, SP, f["LO"])
    a.cmp(6, 4)
    a.b("ge", "B")
    a.mov(6, 4)
    a.label("B")
    a.ldr(4, SP, f["OUT"])
    a.strb_reg(6, 2, 4)
    a.ldr(4, SP, f["BIAS"])
    a.ldm(4, [6])
    a.str(4, SP, f["BIAS"])
    a.ldr(4, SP, f["WEND"])
    a.cmp(2, 4)
    a.b("ne", "CH")
    a.add_sp(4 * len(f))
    return a


def dw_row(kh: int, kw: int, sh: int, pt: int) -> Asm:
    """The tile routine: per output row its window rows, per pixel dw_pixel's entries."""
    f = DW_ROW_FRAME
    a = Asm()
    rb = _dw_block_bytes(kw)
    for i, h in enumerate((8, 9, 10, 11)):
        a.mov(4 + i, h)
    a.push([4, 5, 6, 7])
    a.ldr(4, 0, 40)
    a.mov(8, 4)
    a.ldr(4, 0, 44)
    a.mov(9, 4)  # V*C, KW*C
    a.mov(4, 0)
    a.mov(7, 3)
    a.ldr(3, 4, 8)
    a.subs(5, 1, 3)
    a.subs(6, 2, 3)  # X - C, W - C
    a.ldr(2, 4, 24)
    a.adds(2, 2, 4)  # column table
    a.ldr(3, 4, 16)
    a.lsls(3, 3, 3)
    a.adds(3, 3, 2)  # ... its end
    a.ldr(1, 4, 12)
    a.movs(0, pt)
    a.negs(0, 0)  # output rows, y0
    a.push([0, 1, 2, 3])
    a.ldr(0, 4, 36)
    a.ldr(0, 0, 8)
    a.addi(0, 1)
    a.push([0])  # dw_pixel's code
    a.sub_sp(8)
    a.label("ROW")
    a.ldr(0, SP, f["Y0"])
    a.negs(1, 0)
    a.b("pl", "T")
    a.movs(1, 0)
    a.label("T")  # r1 = ky0
    a.ldr(2, 4, 0)
    a.subs(2, 2, 0)
    a.cmpi(2, kh)
    a.b("le", "U")
    a.movs(2, kh)
    a.label("U")
    a.subs(2, 2, 1)  # r2 = rows
    a.adds(0, 0, 1)
    a.mov(3, 8)
    a.muls(0, 3)
    a.lsls(0, 0, 15)
    a.mov(3, 9)
    a.muls(3, 1)
    a.adds(0, 0, 3)
    a.str(0, SP, f["ROWOFF"])
    a.mov(3, 8)
    a.muls(3, 2)
    a.mov(1, 9)
    a.muls(1, 2)
    a.movs(0, 1)
    a.subs(3, 0, 3)
    a.mov(11, 3)
    a.subs(1, 0, 1)
    a.mov(12, 1)
    a.movs(1, rb)
    a.muls(1, 2)
    a.movs(3, kh * rb - 2)
    a.subs(3, 3, 1)
    a.str(3, 4, 28)  # row entry
    a.ldr(0, SP, f["TABLE"])
    a.str(0, SP, f["ENTRY"])
    a.label("PX")
    a.ldr(1, SP, f["ENTRY"])
    a.ldm(1, [0, 2])
    a.str(1, SP, f["ENTRY"])
    a.addi(2, 8 * kw - 2)
    a.str(2, 4, 32)  # column entry
    a.ldr(1, SP, f["ROWOFF"])
    a.adds(0, 0, 1)
    a.lsrs(2, 0, 15)
    a.lsls(0, 0, 17)
    a.lsrs(0, 0, 17)
    a.adds(2, 2, 5)
    a.adds(0, 0, 6)
    a.str(2, 4, 60)
    a.str(0, 4, 20)
    a.ldr(0, SP, f["CODE"])
    a.mov(10, 0)
    a.mov(0, 4)
    a.mov(3, 7)
    a.blx(10)
    a.ldr(0, 4, 8)
    a.adds(7, 7, 0)
    a.ldr(1, SP, f["ENTRY"])
    a.ldr(0, SP, f["END"])
    a.cmp(1, 0)
    a.b("ne", "PX")
    a.ldr(0, SP, f["Y0"])
    a.addi(0, sh)
    a.str(0, SP, f["Y0"])
    a.ldr(0, SP, f["ROWS"])
    a.subi(0, 1)
    a.str(0, SP, f["ROWS"])
    a.b("gt", "ROW")
    a.add_sp(4 * len(f))
    a.pop([4, 5, 6, 7])
    for i, h in enumerate((8, 9, 10, 11)):
        a.mov(h, 4 + i)
    return a


def dw_row_applies(layer) -> bool:
    """dw_row for depthwise kernels up to DW_MAX_KW wide whose channel loop a branch spans."""
    if layer.op != "DEPTHWISE_CONV_2D" or not layer.kernel:
        return False
    kh, kw = layer.kernel
    if kw > DW_MAX_KW:
        return False
    if kh * _dw_block_bytes(kw) - 2 > 255:
        return False
    try:
        dw_pixel(kh, kw).words()
    except ValueError:
        return False
    return True


# srow: one kernel row of a (not 1x1) convolution, P[11] inputs from P[15]'s offsets: each
# input value times the OC weights of its tap (P[10] = KH*KW*C apart) into ACC; then P[15]
# steps to the next kernel row (P[8] = V*C << 15 | KW*C). 0x5699 = LDRSB r1,[r3,r2] with r2 = 0
# (data(): the inline assembler lacks it); P and the loop state are pushed around the channel
# loop, which needs every low register.
ASM_SROW = (
    "@micropython.asm_thumb\ndef srow(r0,r1,r2,r3):\n"
    " ldr(r3,[r0,44])\n ldr(r4,[r0,60])\n lsr(r5,r4,15)\n add(r1,r1,r5)\n lsl(r4,r4,17)\n lsr(r4,r4,17)\n"
    " add(r2,r2,r4)\n label(V)\n ldr(r6,[r0,20])\n mov(r7,r6)\n lsl(r6,r6,2)\n add(r6,r6,r0)\n add(r6,64)\n"
    " ldr(r4,[r0,40])\n"
    " ldrb(r5,[r1,0])\n lsl(r5,r5,24)\n asr(r5,r5,24)\n push({r0,r1,r2,r3})\n mov(r3,r2)\n mov(r2,0)\n"
    " label(L)\n data(2,0x5699)\n mul(r1,r5)\n ldr(r0,[r6,0])\n add(r0,r0,r1)\n str(r0,[r6,0])\n"
    " add(r6,4)\n add(r3,r3,r4)\n sub(r7,1)\n bgt(L)\n pop({r0,r1,r2,r3})\n"
    " add(r1,1)\n add(r2,1)\n sub(r3,1)\n bgt(V)\n"
    " ldr(r4,[r0,60])\n ldr(r5,[r0,32])\n add(r4,r4,r5)\n str(r4,[r0,60])\n"
)
# srun(P, X, W, O): like dwrun, the P[9] pixels of an output row, each its window's rows
# (P[7] of them: srow called that many times, counted in P[1]) then rq; the column table's
# second word is the pixel's input count per kernel row.
ASM_SRUN = (
    "@micropython.asm_thumb\ndef srun(r0,r1,r2,r3):\n"
    " mov(r4,r0)\n mov(r5,r1)\n mov(r6,r2)\n ldr(r7,[r4,60])\n add(r7,r7,r3)\n label(PX)\n"
    " ldr(r1,[r4,24])\n mov(r0,r1)\n add(r0,8)\n str(r0,[r4,24])\n add(r1,r1,r4)\n"
    " ldr(r0,[r1,0])\n ldr(r2,[r4,0])\n add(r0,r0,r2)\n str(r0,[r4,60])\n"
    " ldr(r0,[r1,4])\n str(r0,[r4,44])\n ldr(r0,[r4,28])\n str(r0,[r4,4])\n label(KY)\n"
    " mov(r0,r4)\n mov(r1,r5)\n mov(r2,r6)\n ldr(r3,[r4,12])\n ldr(r3,[r3,8])\n add(r3,1)\n data(2,0x4798)\n"
    " ldr(r0,[r4,4])\n sub(r0,1)\n str(r0,[r4,4])\n bgt(KY)\n"
    " ldr(r0,[r4,16])\n ldr(r0,[r0,8])\n add(r0,1)\n mov(r1,r7)\n mov(r2,r4)\n mov(r3,0)\n data(2,0x4780)\n"
    " ldr(r0,[r4,20])\n add(r7,r7,r0)\n ldr(r0,[r4,36])\n sub(r0,1)\n str(r0,[r4,36])\n bgt(PX)\n"
)
ASM_SROW_CONV = (
    "def k(X,W,O,P):\n H=P[0];V=P[1];C=P[2];OH=P[3];OW=P[4];i=16+2*P[5]\n"
    " if P[i+2*OW]!=65536+OW:cols(P,V,C,OW,i,C);rq(P,O,P,0)\n P[3]=id(srow);P[4]=id(rq);P[8]=V*C<<15|{KW}*C;P[10]={KH}*{KW}*C\n o=0\n"
    " for oy in range(OH):\n  y0=oy*{SH}-{PT};ky0=0;ky1={KH}\n  if y0<0:ky0=-y0\n"
    "  if H-y0<{KH}:ky1=H-y0\n"
    "  P[0]=(y0+ky0)*V*C<<15|ky0*{KW}*C;P[7]=ky1-ky0;P[6]=i*4;P[9]=OW;P[15]=o\n"
    "  srun(P,X,W,O)\n  o+=OW*P[5]\n P[0]=H;P[1]=V;P[3]=OH;P[4]=OW\n"
)


# asm_thumb int8 average pool: apool sums one output pixel's (clipped) window for each of its C
# channels and divides without a divide instruction (the M0 has none), exactly as kernels/ops/reference.py's
# floor division: a = sum + 128 * n is in [0, 255 * n] for a window of n values, and
# floor(a / n) = (a * ceil(2**24 / n)) >> 24 for every such a when n <= POOL_MAX_WINDOW
# (2**24 > 255 * n * n; the product stays under 2**32: unsigned multiply, logical shift).
# r3 = columns << 8 | rows of the window; P[15] = input offset << 15 | output offset; Python
# sets P[12] = ceil(2**24 / n), P[13] = 128 * n and P[14] = V * C (a pool uses no M, S, LO).
POOL_MAX_WINDOW = 256
ASM_POOL = (
    "@micropython.asm_thumb\ndef apool(r0,r1,r2,r3):\n"
    " ldr(r4,[r0,60])\n lsr(r5,r4,15)\n add(r1,r1,r5)\n lsl(r4,r4,17)\n lsr(r4,r4,17)\n add(r2,r2,r4)\n"
    " ldr(r7,[r0,8])\n label(CH)\n ldr(r4,[r0,52])\n push({r1,r3})\n label(R)\n lsr(r6,r3,8)\n push({r1})\n"
    " label(K)\n ldrb(r5,[r1,0])\n lsl(r5,r5,24)\n asr(r5,r5,24)\n add(r4,r4,r5)\n"
    " ldr(r5,[r0,8])\n add(r1,r1,r5)\n sub(r6,1)\n bgt(K)\n pop({r1})\n ldr(r5,[r0,56])\n add(r1,r1,r5)\n"
    " sub(r3,1)\n lsl(r5,r3,24)\n bne(R)\n pop({r1,r3})\n"
    " ldr(r5,[r0,48])\n mul(r4,r5)\n lsr(r4,r4,24)\n sub(r4,128)\n strb(r4,[r2,0])\n"
    " add(r1,1)\n add(r2,1)\n sub(r7,1)\n bgt(CH)\n"
)
ASM_AVGPOOL = (
    "def k(X,W,O,P):\n"
    + HEAD
    + " P[14]=V*C\n o=0\n for oy in range(OH):\n"
    + _ROW
    + "  for ox in range(OW):\n"
    + _COLS
    + "   n=kx1-kx0;m=h*n\n"
    "   P[12]=(16777215+m)//m;P[13]=m<<7\n   P[15]=(xb+(x0+kx0)*C)<<15|o\n   apool(P,X,O,n<<8|h)\n   o+=C\n"
)


def asm_pool_fits(layer) -> bool:
    """apool's division is exact for windows of up to POOL_MAX_WINDOW values."""
    return layer.op != "AVERAGE_POOL_2D" or layer.kernel[0] * layer.kernel[1] <= POOL_MAX_WINDOW


def smac_apply(job) -> bool:
    """An int8 asm_thumb convolution other than 1x1: one srow call per kernel row (all its
    inputs times all output channels) beats one dot call per channel and kernel row, also where
    the rows are longer than the channels (VWW's first layer: 9 inputs, 8 channels: 20x)."""
    return uses_accumulators(job.layer, job.emitter, job.dtype) and job.layer.op == "CONV_2D"


def uses_accumulators(layer, emitter: str, dtype: str) -> bool:
    """Kernels (dwpix, srow) whose int32 accumulator row follows the biases in P: their tiles
    carry twice the biases (layer_plan.plan_layer), so the row costs no allocation on the board."""
    if emitter != "asm_thumb" or dtype != "int8" or not layer.kernel:
        return False
    if layer.op == "DEPTHWISE_CONV_2D":
        return True
    return layer.op == "CONV_2D" and tuple(layer.kernel) != (1, 1)


def _layer_constants(job) -> dict:
    """The layer's kernel size, strides and padding, written into the source (see ASM_COLS)."""
    (kh, kw), (sh, sw) = job.layer.kernel, job.layer.stride or (1, 1)
    pt, pl = job.tiles[0].params.PT, job.tiles[0].params.PL
    return dict(KH=kh, KW=kw, SH=sh, SW=sw, PT=pt, PL=pl)


def asm_smac_source(job) -> str:
    """The asm_thumb convolution kernel: srow, rq, srun and cols compiled apart, then k."""
    const = _layer_constants(job)
    return "#--\n".join((ASM_SROW, ASM_RQ, ASM_SRUN, ASM_COLS.format(**const), ASM_SROW_CONV.format(**const)))


def asm_channels_source(job) -> str:
    """The asm_thumb depthwise kernel: dw_row (as dwrun) and cols compiled apart, then k; for
    kernels wider than DW_MAX_KW dwpix, rq, dwrun and cols, then k."""
    const = _layer_constants(job)
    if dw_row_applies(job.layer):
        kh, kw = const["KH"], const["KW"]
        # the trailing split puts a collection before the call too (script()): without it the
        # next pieces' compiles failed (MemoryError) on VWW 9 times in 29 layers, each re-run
        return "#--\n".join(
            (
                dw_pixel(kh, kw).source("dwpix"),
                dw_row(kh, kw, const["SH"], const["PT"]).source("dwrun"),
                ASM_COLS.format(**const),
                ASM_DW_ROW.format(**const),
                "",
            )
        )
    return "#--\n".join((ASM_DWPIX, ASM_RQ, ASM_DWRUN, ASM_COLS.format(**const), ASM_DEPTHWISE.format(**const)))


def rows_apply(job) -> bool:
    """Whether a job runs on ASM_ROWS: int8 asm_thumb dense layers and 1x1 convolutions whose
    tiles have no padding."""
    layer = job.layer
    pointwise = layer.op == "CONV_2D" and tuple(layer.kernel or ()) == (1, 1)
    return (
        job.emitter == "asm_thumb"
        and job.dtype == "int8"
        and (layer.op == "FULLY_CONNECTED" or pointwise)
        and all(t.params.PT == t.params.PL == 0 for t in job.tiles)
    )


def dot_source(op: str, ty: str) -> str | None:
    """The generic int8 asm_thumb kernel of op: average pools a pixel per apool call, MAC layers
    Python loops around ASM_DOT (compiled apart: together they overflow the micro:bit's heap);
    None for other ops and types (Cortex-M0 has no FPU)."""
    if ty != "int8":
        return None
    if op == "AVERAGE_POOL_2D":
        return ASM_POOL + "#--\n" + ASM_AVGPOOL
    if op not in MAC_OPS:
        return None
    return ASM_DOT + "#--\n" + python_source(op, "asm_thumb", ty)
