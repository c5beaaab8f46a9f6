"""The asm_rv32 int8 layer kernels (RV32IM: no SIMD, no multiply-accumulate): one assembler
function k(X, W, O, P) per op that runs a whole tile, its shape read from P, so one source serves
every tile of a layer (kernels.ops.rv32_routines has the pieces and the assembler's limits).

- convolutions (1x1 and KxK, padded and strided) and dense layers (a one-pixel 1x1 convolution
  in P's terms): per output pixel its window clipped to the input (per kernel row one contiguous
  run of (kx1 - kx0) * C inputs and weights), 8 output channels a block where the layer's
  KH * KW * C is written into the source (conv_job: immediate weight offsets), else 4 (a weight
  pointer each), then one at a time: each input byte is loaded once for the block's weights, a
  step of the run costs 1 + 3 x channels instructions; the run is unrolled UNROLL elements, then
  one step of 4, then single;
- stride-1 1x1 convolutions (pointwise): pixel pairs x 4 channels, each weight loaded once for
  two pixels;
- depthwise convolutions and average and max pools: per pixel 8 channels a block (then 4, then
  1), the taps of the clipped window looped; the average divides by DIVU (RV32M has it) exactly
  as the reference's floor division: (sum + 128 n) // n - 128, the dividend never negative;
- ADD (clamped to int8) and RELU, an element a step.

Semantics are kernels.ops.reference's: acc = bias + sum x * w; (acc * M) >> S clamped to
[LO, 127]. Pure computation.
"""

from __future__ import annotations

from mcuroof.kernels.emitters import EMITTERS as REGISTRY
from mcuroof.kernels.ops.contract import BIASES, Variant
from mcuroof.kernels.ops.rv32_routines import (
    HEAD,
    Labels,
    block,
    clamp_high,
    clamp_low,
    epilogue,
    next_pixel,
    next_row,
    prologue,
    requant,
    start_rows,
    window_cols,
    window_rows,
)

EMITTERS = tuple(e.name for e in REGISTRY if e.generic == "rv32")  # asm_rv32 (kernels.emitters)
UNROLL = 8  # elements of a convolution's run per loop iteration
NB = 4  # output channels per block
ACCS = ("a4", "a5", "a6", "a7", "s5", "s6", "s11", "ra")
CHANNEL_BLOCKS = (8, 4, 1)  # channels a depthwise or pool block takes: 8 accumulators, then 4, then 1
# the 4 channels' weight pointers in a convolution's run, KH * KW * C (s11) apart
WPTRS = ("t1", "s5", "s7", "s10")
CHANNELWISE = ("DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D")


def source(op: str, dtype: str) -> str | None:
    """The asm_rv32 kernel `k` of op, or None (int8 only: the firmware's cores have no FPU)."""
    if dtype != "int8":
        return None
    if op in ("CONV_2D", "FULLY_CONNECTED"):
        return conv()
    if op in CHANNELWISE:
        return channelwise(op)
    if op == "ADD":
        return add()
    if op == "RELU":
        return relu()
    return None


# ---------------------------------------------------------------- convolutions and dense


# With the layer's KH * KW * C (kk) in the source, channel j's weights are at j * kk from the
# first channel's: one pointer, offsets as immediates (12 bits: 7 kk + 7 <= 2047), 8 channels a
# block (8 accumulators), so a kernel row's run pays its setup once for 8 channels, not 4.
IMM_ACCS = ("a4", "a5", "a6", "a7", "s5", "s7", "s10", "ra")
IMM_MAX_KK = (2047 - (UNROLL - 1)) // 7


def _steps(nb: int, u: int, kk: int | None) -> str:
    """u elements of the run for nb channels: per element LB x, then per channel LB w, MUL, ADD."""
    out = ""
    for e in range(u):
        out += f"lb(t3,{e}(t0))\n"
        for j in range(nb):
            acc, w = (IMM_ACCS[j], f"{j * kk + e}(t1)") if kk else (ACCS[j], f"{e}({WPTRS[j]})")
            out += f"lb(t4,{w})\nmul(t5,t3,t4)\nadd({acc},{acc},t5)\n"
    return block(out)


def _advance(nb: int, u: int, kk: int | None) -> str:
    regs = ("t0", "t1") if kk else ("t0",) + WPTRS[:nb]
    return block("".join(f"addi({r},{r},{u})\n" for r in regs))


def _conv_block(nb: int, lab: Labels, kk: int | None = None) -> str:
    """nb output channels of one pixel: biases, every window row's run, requantized and stored;
    kk: the layer's KH * KW * C where the source carries it (IMM_ACCS), else s11 holds it."""
    row, main, quad, tail, single, done = (lab(s) for s in ("R", "M", "Q", "T", "S", "D"))
    accs = (IMM_ACCS if kk else ACCS)[:nb]
    ptrs = "" if kk else "".join(f"add({WPTRS[j]},{WPTRS[j - 1]},s11)\n" for j in range(1, nb))
    loads = "".join(f"lw({acc},{4 * j}(t0))\n" for j, acc in enumerate(accs))
    out = block(f"lw(t0,F.BIAS(sp))\n{loads}mv(s8,s1)\nmv(s9,s6)\nmv(t6,s4)")
    out += block(f"label({row})\nmv(t0,s8)\nmv(t1,s9)\n{ptrs}lw(t2,F.LMAIN(sp))\nadd(t2,t2,t0)\nbeq(t0,t2,{quad})")
    out += block(f"label({main})") + _steps(nb, UNROLL, kk) + _advance(nb, UNROLL, kk) + block(f"bne(t0,t2,{main})")
    out += block(f"label({quad})\nlw(t2,F.L(sp))\nadd(t2,t2,s8)\nsub(t3,t2,t0)\nli(t4,4)\nblt(t3,t4,{tail})")
    out += _steps(nb, 4, kk) + _advance(nb, 4, kk)
    out += block(f"label({tail})\nbeq(t0,t2,{done})\nlabel({single})")
    out += _steps(nb, 1, kk) + _advance(nb, 1, kk) + block(f"bne(t0,t2,{single})")
    out += block(
        f"""
        label({done})
        add(s8,s8,s0)  # the next input row
        lw(t3,F.KWC(sp))
        add(s9,s9,t3)  # the next weight row
        addi(t6,t6,-1)
        bne(t6,zero,{row})
        """
    )
    out += requant(list(accs), lab)
    return out + _next_channels(nb, "s11", "s6")


def _next_channels(nb: int, stride: str, weights: str) -> str:
    """Step the output, weight, bias pointers and the channels left past a block of nb channels
    (`stride`: the register holding a channel's weight bytes; `weights`: its weight pointer)."""
    return block(
        f"""
        addi(a2,a2,{nb})
        li(t0,{nb})
        mul(t0,t0,{stride})
        add({weights},{weights},t0)  # the next channels' weights
        """
    ) + _next_bias_and_count(nb)


def _next_bias_and_count(nb: int) -> str:
    """Past a block of nb channels: the bias pointer (int32 each) and the channels left."""
    return block(
        f"""
        lw(t0,F.BIAS(sp))
        addi(t0,t0,{4 * nb})
        sw(t0,F.BIAS(sp))
        lw(t0,F.OCLEFT(sp))
        addi(t0,t0,-{nb})
        sw(t0,F.OCLEFT(sp))
        """
    )


def _blocks(body, sizes: tuple[int, ...], lab: Labels) -> str:
    """body(n) while n or more channels are left, for each n of sizes (the last 1)."""
    out, end = "", lab("P")
    for n in sizes:
        top, nxt = lab("B"), lab("B")
        test = f"li(t1,{n})\nblt(t0,t1,{nxt})" if n > 1 else f"beq(t0,zero,{end})"
        out += block(f"label({top})\nlw(t0,F.OCLEFT(sp))\n{test}") + body(n) + block(f"jal(zero,{top})\nlabel({nxt})")
    return out + block(f"label({end})")


def weights_apart(job) -> int | None:
    """KH * KW * C of an asm_rv32 convolution or dense layer where its channels' weights are
    close enough apart for immediate offsets (IMM_MAX_KK), else None. C is the layer's input
    channels: a tile cuts output channels, never input ones."""
    layer = job.layer
    if job.emitter not in EMITTERS or job.dtype != "int8" or layer.op not in ("CONV_2D", "FULLY_CONNECTED"):
        return None
    p = job.tiles[0].params
    kk = p.KH * p.KW * p.C
    return kk if kk <= IMM_MAX_KK and all(t.params.C == p.C for t in job.tiles) else None


def conv_applies(job) -> bool:
    return weights_apart(job) is not None


def conv_job(job) -> str:
    """The convolution or dense kernel with the layer's KH * KW * C in its source: 8 channels a block."""
    return conv(weights_apart(job))


def conv(kk: int | None = None) -> str:
    """CONV_2D (any kernel, stride, padding) and FULLY_CONNECTED: see the module's docstring;
    kk: the layer's KH * KW * C, written into the source (8 channels a block), or None (4)."""
    lab = Labels()
    row, pix = lab("ROW"), lab("PIX")
    return (
        HEAD
        + prologue()
        + start_rows()
        + block("lw(t0,P.KH(a3))\nlw(t1,F.KWC(sp))\nmul(s11,t0,t1)  # KH * KW * C: one channel's weights")
        + window_rows(row, lab, "s3")
        + window_cols(pix, lab, "s3")
        + block(
            f"""
            mul(t2,t2,s3)
            sw(t2,F.L(sp))  # the run: (kx1 - kx0) * C
            andi(t4,t2,-{UNROLL})
            sw(t4,F.LMAIN(sp))
            addi(t0,a3,{BIASES})
            sw(t0,F.BIAS(sp))
            lw(t0,P.OC(a3))
            sw(t0,F.OCLEFT(sp))
            mv(s6,s2)  # the first channel's weights
            """
        )
        + _blocks(lambda nb: _conv_block(nb, lab, kk), (8, NB, 1) if kk else (NB, 1), lab)
        + next_pixel(pix, lab)
        + next_row(row, lab)
        + epilogue()
    )


# ---------------------------------------------------------------- 1x1 convolutions, stride 1

# Pixel pairs: each weight byte loaded once for two pixels (a matrix product, as a stride-1 1x1
# tile's inputs are its pixels in order, C apart): per element 2 LB x, then per channel LB w,
# MUL, ADD, MUL, ADD: 22 instructions for 8 MACs (the single-pixel kernel's 26). An odd pixel
# left takes one-pixel blocks.
PAIR_ACCS = (ACCS[:4], ("s5", "s6", "s7", "s10"))
PAIR_WPTRS = ("t1", "s9", "s11", "ra")


def _pair_steps(npx: int, nb: int, u: int) -> str:
    out = ""
    for e in range(u):
        out += f"lb(t3,{e}(t0))\n" + (f"lb(t4,{e}(s8))\n" if npx == 2 else "")
        for j in range(nb):
            out += f"lb(t5,{e}({PAIR_WPTRS[j]}))\n"
            for p, xv in enumerate(("t3", "t4")[:npx]):
                acc = PAIR_ACCS[p][j]
                out += f"mul(t6,{xv},t5)\nadd({acc},{acc},t6)\n"
    return block(out)


def _pair_advance(npx: int, nb: int, u: int) -> str:
    regs = ("t0",) + (("s8",) if npx == 2 else ()) + PAIR_WPTRS[:nb]
    return block("".join(f"addi({r},{r},{u})\n" for r in regs))


def _pair_block(npx: int, nb: int, lab: Labels) -> str:
    """nb channels of npx pixels (s1: their inputs, s2: the channels' weights, C (s3) apart)."""
    main, quad, tail, single, done = (lab(s) for s in ("M", "Q", "T", "S", "D"))
    loads = "".join(f"lw({PAIR_ACCS[0][j]},{4 * j}(t0))\n" for j in range(nb))
    if npx == 2:
        loads += "".join(f"mv({PAIR_ACCS[1][j]},{PAIR_ACCS[0][j]})\n" for j in range(nb)) + "add(s8,s1,s3)\n"
    ptrs = "".join(f"add({PAIR_WPTRS[j]},{PAIR_WPTRS[j - 1]},s3)\n" for j in range(1, nb))
    out = block(f"lw(t0,F.BIAS(sp))\n{loads}mv(t0,s1)\nmv(t1,s2)\n{ptrs}lw(t2,F.LMAIN(sp))\nadd(t2,t2,t0)")
    out += block(f"beq(t0,t2,{quad})\nlabel({main})") + _pair_steps(npx, nb, UNROLL)
    out += _pair_advance(npx, nb, UNROLL) + block(f"bne(t0,t2,{main})")
    out += block(f"label({quad})\nadd(t2,s1,s3)\nsub(t3,t2,t0)\nli(t4,4)\nblt(t3,t4,{tail})")
    out += _pair_steps(npx, nb, 4) + _pair_advance(npx, nb, 4)
    out += block(f"label({tail})\nbeq(t0,t2,{done})\nlabel({single})") + _pair_steps(npx, nb, 1)
    out += _pair_advance(npx, nb, 1) + block(f"bne(t0,t2,{single})\nlabel({done})")
    out += requant(list(PAIR_ACCS[0][:nb]), lab)
    if npx == 2:
        out += requant(list(PAIR_ACCS[1][:nb]), lab, "s4") + block(f"addi(s4,s4,{nb})")
    return out + _next_channels(nb, "s3", "s2")


def _pixels(npx: int, lab: Labels) -> str:
    """npx pixels, every channel block; then a2 and s1 past them."""
    start = block(
        f"""
        addi(t0,a3,{BIASES})
        sw(t0,F.BIAS(sp))
        lw(t0,P.OC(a3))
        sw(t0,F.OCLEFT(sp))
        add(s4,a2,t0)  # the second pixel's outputs
        mv(s2,a1)
        """
    )
    end = "mv(a2,s4)\nadd(s1,s1,s3)\nadd(s1,s1,s3)\n" if npx == 2 else "add(s1,s1,s3)\n"
    return start + _blocks(lambda nb: _pair_block(npx, nb, lab), (NB, 1), lab) + block(end)


def pointwise_applies(job) -> bool:
    """An asm_rv32 int8 1x1 convolution of stride 1: its tiles' inputs are their pixels in order."""
    layer = job.layer
    return (
        job.emitter in EMITTERS
        and job.dtype == "int8"
        and layer.op == "CONV_2D"
        and tuple(layer.kernel or ()) == (1, 1)
        and tuple(layer.stride or (1, 1)) == (1, 1)
    )


def pointwise(job=None) -> str:
    """The stride-1 1x1 convolution by pixel pairs (pointwise_applies)."""
    lab = Labels()
    pair, one, end = lab("PAIR"), lab("ONE"), lab("END")
    return (
        HEAD
        + prologue()
        + block(
            f"""
            lw(s3,P.C(a3))
            andi(t0,s3,-{UNROLL})
            sw(t0,F.LMAIN(sp))  # C less its tail
            lw(t0,P.OH(a3))
            lw(t1,P.OW(a3))
            mul(t0,t0,t1)
            sw(t0,F.COLS(sp))  # pixels left
            mv(s1,a0)
            label({pair})
            lw(t0,F.COLS(sp))
            li(t1,2)
            blt(t0,t1,{one})
            """
        )
        + _pixels(2, lab)
        + block(f"lw(t0,F.COLS(sp))\naddi(t0,t0,-2)\nsw(t0,F.COLS(sp))\njal(zero,{pair})\nlabel({one})")
        + block(f"lw(t0,F.COLS(sp))\nbeq(t0,zero,{end})")
        + _pixels(1, lab)
        + block(f"label({end})")
        + epilogue()
    )


# ---------------------------------------------------------------- depthwise and pools


def _tap(op: str, nb: int, lab: Labels) -> str:
    out = ""
    for j in range(nb):
        acc = ACCS[j]
        out += block(f"lb(t3,{j}(t0))")
        if op == "DEPTHWISE_CONV_2D":
            out += block(f"lb(t4,{j}(t1))\nmul(t5,t3,t4)\nadd({acc},{acc},t5)")
        elif op == "AVERAGE_POOL_2D":
            out += block(f"add({acc},{acc},t3)")
        else:
            out += clamp_low(acc, "t3", lab)
    return out


def _finish(op: str, nb: int, lab: Labels) -> str:
    accs = list(ACCS[:nb])
    if op == "DEPTHWISE_CONV_2D":
        return requant(accs, lab)
    if op == "MAX_POOL_2D":
        return block("".join(f"sb({a},{j}(a2))\n" for j, a in enumerate(accs)))
    # floor(sum / n) = (sum + 128 n) // n - 128, the dividend in [0, 255 n]: DIVU is exact
    out = block("li(t3,128)\nmul(t3,t3,s7)")
    for j, a in enumerate(accs):
        out += block(f"add({a},{a},t3)\ndivu({a},{a},s7)\naddi({a},{a},-128)\nsb({a},{j}(a2))")
    return out


def _channel_block(op: str, nb: int, lab: Labels) -> str:
    """nb channels of one pixel over the clipped window: s1, s2 the window's first input and
    weight, s10 its columns, s4 its rows."""
    row, tap = lab("R"), lab("K")
    dw = op == "DEPTHWISE_CONV_2D"
    if dw:
        init = "lw(t0,F.BIAS(sp))\n" + "".join(f"lw({ACCS[j]},{4 * j}(t0))\n" for j in range(nb))
    else:
        init = "".join(f"li({ACCS[j]},{0 if op == 'AVERAGE_POOL_2D' else -128})\n" for j in range(nb))
    out = block(init + f"mv(s8,s1)\nmv(s9,s2)\nmv(t6,s4)\nlabel({row})\nmv(t0,s8)\nmv(t1,s9)\nmv(t2,s10)")
    out += block(f"label({tap})") + _tap(op, nb, lab)
    out += block("add(t0,t0,s3)\n" + ("add(t1,t1,s3)\n" if dw else "") + f"addi(t2,t2,-1)\nbne(t2,zero,{tap})")
    out += block("add(s8,s8,s0)\n" + ("lw(t3,F.KWC(sp))\nadd(s9,s9,t3)\n" if dw else "") + "addi(t6,t6,-1)")
    out += block(f"bne(t6,zero,{row})") + _finish(op, nb, lab)
    return out + block(f"addi(a2,a2,{nb})\naddi(s1,s1,{nb})\naddi(s2,s2,{nb})") + _next_bias_and_count(nb)


def channelwise(op: str) -> str:
    """DEPTHWISE_CONV_2D (depth multiplier 1), AVERAGE_POOL_2D and MAX_POOL_2D."""
    lab = Labels()
    row, pix = lab("ROW"), lab("PIX")
    return (
        HEAD
        + prologue()
        + start_rows()
        + window_rows(row, lab, "s3")
        + window_cols(pix, lab, "s3")
        + block(
            f"""
            mv(s10,t2)  # the window's columns
            mul(s7,s4,s10)  # its values (the average's divisor)
            addi(t0,a3,{BIASES})
            sw(t0,F.BIAS(sp))
            sw(s3,F.OCLEFT(sp))
            """
        )
        + _blocks(lambda nb: _channel_block(op, nb, lab), CHANNEL_BLOCKS, lab)
        + next_pixel(pix, lab)
        + next_row(row, lab)
        + epilogue()
    )


# ---------------------------------------------------------------- elementwise


def _elementwise(body: str, setup: str = "") -> str:
    """N (P.N) elements of X (and W) into O, an element a step."""
    lab = Labels()
    loop, end = lab("L"), lab("END")
    return HEAD + block(
        f"lw(t6,P.N(a3))\nbeq(t6,zero,{end})\n{setup}label({loop})\n{body}"
        f"addi(a0,a0,1)\naddi(a1,a1,1)\naddi(a2,a2,1)\naddi(t6,t6,-1)\nbne(t6,zero,{loop})\nlabel({end})"
    )


def add() -> str:
    """ADD: x + w clamped to int8 (the reference's np.clip(x + w, -128, 127))."""
    lab = Labels()
    clamp = clamp_high("t0", "t5", lab) + clamp_low("t0", "t4", lab)
    return _elementwise(
        "lb(t0,0(a0))\nlb(t1,0(a1))\nadd(t0,t0,t1)\n" + clamp + "sb(t0,0(a2))\n", "li(t5,127)\nli(t4,-128)\n"
    )


def relu() -> str:
    """RELU: max(x, 0)."""
    return _elementwise("lb(t0,0(a0))\n" + clamp_low("t0", "zero", Labels()) + "sb(t0,0(a2))\n")


def applies(job) -> bool:
    """Every asm_rv32 int8 job (the layer's op has a kernel here: source)."""
    return job.emitter in EMITTERS and source(job.layer.op, job.dtype) is not None


# the generic layer module's hooks (kernels.emitters.Emitter.generic names this module; kernels.ops.dispatch calls them)
def generic(op: str, emitter: str, dtype: str) -> str | None:
    return source(op, dtype)


def limit(layer) -> str | None:
    return None  # every layer of an op it runs


def variant(job) -> Variant:
    return Variant()
