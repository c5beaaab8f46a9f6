"""Layer ops in asm_thumb for any Arm core (Armv6-M, the Cortex-M0's Thumb): the Python around
the routines of kernels.ops.m0_routines, and the depthwise routines assembled here (thumb1.Asm).
What each does: docs/kernels.md."""

from __future__ import annotations

from mcuroof.kernels.emitters import EMITTERS as REGISTRY
from mcuroof.kernels.ops.contract import BIASES, HEAD, MAC_OPS, P, Variant
from mcuroof.kernels.ops.m0_routines import (
    ASM_DOT,
    ASM_DWPIX,
    ASM_DWRUN,
    ASM_POOL,
    ASM_RQ,
    ASM_SROW,
    ASM_SRUN,
)
from mcuroof.kernels.ops.python import python_source
from mcuroof.kernels.thumb1 import LR, PC, SP, Asm

# the emitters whose generic layer kernels these are (kernels.emitters: asm_thumb), with their
# limits: a packed operand under ASM_PACK_LIMIT, a pool window of up to POOL_MAX_WINDOW
EMITTERS = tuple(e.name for e in REGISTRY if e.generic == "m0")
ASM_PACK_LIMIT = 1 << 15  # asm dot takes both offsets packed in one 30-bit small int


ASM_DENSE = "def k(X,W,O,P):\n P[10]=0\n P[11]=0\n rows(X,W,O,P)\n"
ASM_POINTWISE = (
    "def k(X,W,O,P):\n V=P[1];C=P[2];OH=P[3];OW=P[4];OC=P[5];SH=P[8];SW=P[9]\n o=0\n"
    " P[0]=id(rows);P[9]=SW*C\n for oy in range(OH):\n"
    "  P[10]=oy*SH*V*C;P[11]=o;P[15]=OW\n  prun(X,W,O,P)\n  o+=OW*OC\n P[9]=SW\n"
)


# the window clipped at the borders, rows once per output row, without max() and min() (a
# builtin call costs the micro:bit more than the comparisons); xb, wb: the row's first input
# and weight offsets, h: its row count
_ROW = "  y0=oy*SH-PT;ky0=0;ky1=KH\n  if y0<0:ky0=-y0\n  if H-y0<KH:ky1=H-y0\n  xb=(y0+ky0)*V*C;wb=ky0*KW*C;h=ky1-ky0\n"
_COLS = "   x0=ox*SW-PL;kx0=0;kx1=KW\n   if x0<0:kx0=-x0\n   if V-x0<KW:kx1=V-x0\n"
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


def _p(field: str, what: str = "") -> tuple[int, str]:
    """(byte offset, listing note) of a field of P (contract.PARAMS), for Asm.ldr and Asm.str."""
    return getattr(P, field), f"P.{field}" + (f": {what}" if what else "")


def _dw_block_bytes(kw: int) -> int:
    """Bytes of one kernel row's block: its column branch, KW taps, two row steps."""
    return 2 * (3 + 4 * kw)


def dw_pixel(kh: int, kw: int) -> Asm:
    """The routine for one output pixel of a KH x KW depthwise kernel (KW <= DW_MAX_KW)."""
    f = DW_FRAME
    a = Asm()
    a.ldr(4, 0, *_p("KW", "the row entry"))
    a.mov(LR, 4)
    a.ldr(4, 0, *_p("SH", "the column entry"))
    a.mov(10, 4)
    a.ldr(1, 0, *_p("N", "the window in X, less C"))
    a.ldr(2, 0, *_p("OC", "the window in W, less C"))
    a.ldr(7, 0, *_p("C"))
    a.adds(4, 2, 7)
    a.note("the last channel's end")
    a.subs(3, 3, 2)
    a.subi(3, 1)
    a.note("output address less the next W address")
    a.push([3, 4])
    a.ldr(4, 0, *_p("M"))
    a.ldr(5, 0, *_p("S"))
    a.ldr(6, 0, *_p("LO"))
    a.push([4, 5, 6])
    a.note("M, S, LO")
    a.mov(4, 0)
    a.addi(4, BIASES)
    a.ldm(4, [6])
    a.push([4])
    a.note("acc = first bias")
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
    a.ldr(4, SP, f["M"], "frame M")
    a.muls(6, 4)
    a.ldr(4, SP, f["S"], "frame S")
    a.asrs(6, 4)
    a.cmpi(6, 127)
    a.b("le", "A")
    a.movs(6, 127)
    a.label("A")
    a.ldr(4, SP, f["LO"], "frame LO")
    a.cmp(6, 4)
    a.b("ge", "B")
    a.mov(6, 4)
    a.label("B")
    a.ldr(4, SP, f["OUT"], "frame OUT")
    a.strb_reg(6, 2, 4)
    a.ldr(4, SP, f["BIAS"], "frame BIAS")
    a.ldm(4, [6])
    a.str(4, SP, f["BIAS"], "frame BIAS")
    a.ldr(4, SP, f["WEND"], "frame WEND")
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
    a.ldr(4, 0, *_p("PT", "V*C"))
    a.mov(8, 4)
    a.ldr(4, 0, *_p("PL", "KW*C"))
    a.mov(9, 4)
    a.note("V*C, KW*C")
    a.mov(4, 0)
    a.mov(7, 3)
    a.ldr(3, 4, *_p("C"))
    a.subs(5, 1, 3)
    a.subs(6, 2, 3)
    a.note("X - C, W - C")
    a.ldr(2, 4, *_p("KH", "the column table's offset in P"))
    a.adds(2, 2, 4)
    a.note("column table")
    a.ldr(3, 4, *_p("OW"))
    a.lsls(3, 3, 3)
    a.adds(3, 3, 2)
    a.note("... its end")
    a.ldr(1, 4, *_p("OH"))
    a.movs(0, pt)
    a.negs(0, 0)
    a.note("output rows, y0")
    a.push([0, 1, 2, 3])
    a.ldr(0, 4, *_p("SW", "id(dwpix)"))
    a.ldr(0, 0, 8, "its code: the function object's third word")
    a.addi(0, 1)
    a.push([0])
    a.note("dw_pixel's code")
    a.sub_sp(8)
    a.label("ROW")
    a.ldr(0, SP, f["Y0"], "frame Y0")
    a.negs(1, 0)
    a.b("pl", "T")
    a.movs(1, 0)
    a.label("T")  # r1 = ky0
    a.ldr(2, 4, *_p("H"))
    a.subs(2, 2, 0)
    a.cmpi(2, kh)
    a.b("le", "U")
    a.movs(2, kh)
    a.label("U")
    a.subs(2, 2, 1)
    a.note("r2 = rows")
    a.adds(0, 0, 1)
    a.mov(3, 8)
    a.muls(0, 3)
    a.lsls(0, 0, 15)
    a.mov(3, 9)
    a.muls(3, 1)
    a.adds(0, 0, 3)
    a.str(0, SP, f["ROWOFF"], "frame ROWOFF")
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
    a.str(3, 4, *_p("KW", "the row entry"))
    a.ldr(0, SP, f["TABLE"], "frame TABLE")
    a.str(0, SP, f["ENTRY"], "frame ENTRY")
    a.label("PX")
    a.ldr(1, SP, f["ENTRY"], "frame ENTRY")
    a.ldm(1, [0, 2])
    a.str(1, SP, f["ENTRY"], "frame ENTRY")
    a.addi(2, 8 * kw - 2)
    a.str(2, 4, *_p("SH", "the column entry"))
    a.ldr(1, SP, f["ROWOFF"], "frame ROWOFF")
    a.adds(0, 0, 1)
    a.lsrs(2, 0, 15)
    a.lsls(0, 0, 17)
    a.lsrs(0, 0, 17)
    a.adds(2, 2, 5)
    a.adds(0, 0, 6)
    a.str(2, 4, *_p("N", "the window in X, less C"))
    a.str(0, 4, *_p("OC", "the window in W, less C"))
    a.ldr(0, SP, f["CODE"], "frame CODE")
    a.mov(10, 0)
    a.mov(0, 4)
    a.mov(3, 7)
    a.blx(10)
    a.ldr(0, 4, *_p("C"))
    a.adds(7, 7, 0)
    a.ldr(1, SP, f["ENTRY"], "frame ENTRY")
    a.ldr(0, SP, f["END"], "frame END")
    a.cmp(1, 0)
    a.b("ne", "PX")
    a.ldr(0, SP, f["Y0"], "frame Y0")
    a.addi(0, sh)
    a.str(0, SP, f["Y0"], "frame Y0")
    a.ldr(0, SP, f["ROWS"], "frame ROWS")
    a.subi(0, 1)
    a.str(0, SP, f["ROWS"], "frame ROWS")
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


def limit(layer) -> str | None:
    """Why the generic kernel cannot run this layer of an op it runs (None: it can)."""
    return None if asm_pool_fits(layer) else f"pool window over {POOL_MAX_WINDOW} values"


def dw_variant(job) -> Variant:
    """asm_channels_source's path: a row kernel for windows up to DW_MAX_KW wide, else a pixel at a time."""
    return Variant("row" if dw_row_applies(job.layer) else "pixel")


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
    return ASM_DOT + "#--\n" + python_source(op, "", ty, _dot_inner)


def _dot_inner(stride: str) -> str:
    """ASM_DOT's call: dot(X, W, n | stride << 12, xi << 15 | wi); n > 0 by the window."""
    return f"a+=dot(X,W,n|({stride})<<12,xi<<15|wi)"


# the generic layer module's hooks (kernels.emitters.Emitter.generic names this module; kernels.ops.dispatch calls them)
def generic(op: str, emitter: str, dtype: str) -> str | None:
    return dot_source(op, dtype)


def variant(job) -> Variant:
    return Variant()
