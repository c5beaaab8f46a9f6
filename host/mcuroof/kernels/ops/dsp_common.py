"""Pieces shared by the DSP (and MVE) layer kernels: frames, requantization, gathers."""

from __future__ import annotations

from mcuroof.kernels import thumb2 as t
from mcuroof.kernels.listing import said
from mcuroof.kernels.ops.asm_text import lines as asm

LR = 14
SP = 13
FRAME_HEAD = 64  # saved arguments and loop state, below the int16 rows
PIXEL_ACCS = ((10, 11), (12, LR), (5, 6))  # accumulators of channels c, c+1 per pixel of the pass
OC_SLOT = 48  # frame: P, X, W, O, N, p, the pass's output addresses (24 + 4j), OC
LDR_REACH = 4095  # bytes an LDR's (or STR's) 12-bit immediate offset reaches
LDRD_REACH = 1020  # bytes an LDRD's (or STRD's) 8-bit immediate offset, in words, reaches
MAX_K = 768  # inputs per output: the int16 rows (4 bytes per input and pixel pair) stay under 4 KB of stack


def head(name: str = "k") -> str:
    """A layer kernel's first lines: name(r0=X, r1=W, r2=O, r3=P), r8-r11 saved (the caller's)."""
    return "@micropython.asm_thumb\ndef " + name + "(r0,r1,r2,r3):\n push({r8,r9,r10,r11})\n"


def store_args(p: int = 0, x: int = 4, w: int = 8, o: int = 12) -> str:
    """The arguments P, X, W and O stored to the frame at these offsets from sp."""
    return t.str_imm(3, SP, p) + t.str_imm(0, SP, x) + t.str_imm(1, SP, w) + t.str_imm(2, SP, o)


def grow(frame: int) -> str:
    """sp lowered by a frame (two SUBW past SUBW's 4095)."""
    return t.subw(SP, SP, 4092) + t.subw(SP, SP, frame - 4092) if frame > 4095 else t.subw(SP, SP, frame)


def shrink(frame: int) -> str:
    """sp raised back by a frame (grow's inverse)."""
    return t.addw(SP, SP, 4092) + t.addw(SP, SP, frame - 4092) if frame > 4095 else t.addw(SP, SP, frame)


def leave(frame: int) -> str:
    """A layer kernel's last lines: its frame released, r8-r11 restored."""
    return t.addw(SP, SP, frame) + " pop({r8,r9,r10,r11})\n"


def rq(reg: int, s: int, lo: int) -> str:
    """(reg * M) >> S clamped to [LO, 127], M in r4: MUL, then SSAT/USAT with the shift."""
    return t.mul(reg, reg, 4) + (t.usat(reg, 7, reg, s) if lo == 0 else t.ssat(reg, 8, reg, s))


def direct_inputs(n: int) -> str:
    """r1 = the pixel's n inputs in place: X + ((oy*SH)*V + ox*SW) * n (oy in r6, ox in r7, P in
    r0, X at sp + 4)."""
    return (
        asm(f"""
            ldr(r5,[r0,P.SH])
            mul(r6,r5)
            ldr(r5,[r0,P.V])
            mul(r6,r5)
            ldr(r5,[r0,P.SW])
            mul(r7,r5)
            add(r6,r6,r7)
            movw(r5,{n})
            mul(r6,r5)
        """)
        + t.ldr_imm(7, SP, 4)
        + " add(r1,r6,r7)\n"
    )


def rows_read(p: int, st: int, pt: int, label: str) -> str:
    """r2 = the input rows a 3x3 depthwise tile reads, min(H, ST*OH + 3 - ST - PT) (P in r<p>,
    r5 scratch)."""
    return (
        asm(f"""
            ldr(r2,[r{p},P.H])
            ldr(r5,[r{p},P.OH])
        """)
        + (" add(r5,r5,r5)\n" if st == 2 else "")
        + asm(f"""
            add(r5,{3 - st - pt})
            cmp(r2,r5)
            ble({label})
            mov(r2,r5)
            label({label})  # rows: min(H, ST*OH + 3 - ST - PT)
        """)
    )


def zero_pairs(off: int) -> str:
    """r4 pairs of words from sp + off zeroed (STRD of r6, r7; r0 walks them)."""
    return (
        t.addw(0, SP, off)
        + asm("""
            movw(r6,0)
            movw(r7,0)
            label(Z)
        """)
        + t.strd_post(6, 7, 0, 8)
        + asm("""
            sub(r4,1)
            bne_w(Z)
        """)
    )


def next_channel(c: int) -> str:
    """The channel at sp + 16 up by one, back to CH while under c."""
    return (
        t.ldr_imm(4, SP, 16)
        + " add(r4,1)\n"
        + t.str_imm(4, SP, 16)
        + asm(f"""
            movw(r5,{c})
            cmp(r4,r5)
            blt_w(CH)
        """)
    )


def while_pixels(label: str, n: int = 0) -> str:
    """Back to label while the pass's pixel p (sp + 20; first moved on by n and stored) is under
    N (sp + 16)."""
    step = f" add(r4,{n})\n" + t.str_imm(4, SP, 20) if n else ""
    return (
        t.ldr_imm(4, SP, 20)
        + step
        + t.ldr_imm(5, SP, 16)
        + asm(f"""
            cmp(r4,r5)
            blt_w({label})
        """)
    )


def count_up(slot: int, field: str, label: str) -> str:
    """The count at sp + slot up by one, back to label while under P's field (P at sp + 0)."""
    return (
        t.ldr_imm(4, SP, slot)
        + " add(r4,1)\n"
        + t.str_imm(4, SP, slot)
        + t.ldr_imm(0, SP, 0)
        + asm(f"""
            ldr(r5,[r0,P.{field}])
            cmp(r4,r5)
            blt_w({label})
        """)
    )


def channel_head(name: str, frame: int) -> str:
    """A per-channel kernel's head: its frame, the arguments, W at sp + 20, the biases (P + 64)
    at sp + 24."""
    return (
        head(name)
        + t.subw(SP, SP, frame)
        + store_args()
        + t.str_imm(1, SP, 20)
        + " add(r3,64)\n"
        + t.str_imm(3, SP, 24)
    )


def constants(job):
    """(K, M, S, LO) shared by every tile of the job (K: inputs per output of a convolution or
    dense layer, 0 for depthwise), or None where they differ or do not fit."""
    depthwise = job.layer.op == "DEPTHWISE_CONV_2D"
    seen = {(0 if depthwise else p.KH * p.KW * p.C, p.M, p.S, p.LO) for p in (tl.params for tl in job.tiles)}
    if len(seen) != 1:
        return None
    k, m, s, lo = seen.pop()
    if not ((depthwise or 0 < k <= MAX_K) and 0 < m < 65536 and 0 < s < 32 and lo in (0, -128)):
        return None
    return k, m, s, lo


def copy_row(c: int, zero: bool) -> str:
    """C bytes from r10 (or zeros from r11) to the byte row at r1 (advanced)."""
    if c <= 8:
        return "".join(
            (t.strb_post(11, 1, 1) if zero else t.ldrb_imm(12, 10, j) + t.strb_post(12, 1, 1)) for j in range(c)
        )
    body = t.strb_post(11, 1, 1) if zero else t.ldrb_post(12, 10, 1) + t.strb_post(12, 1, 1)
    name = "GCZ" if zero else "GCX"
    return (
        asm(f"""
            movw(r5,{c})
            label({name})
        """)
        + body
        + asm(f"""
            sub(r5,1)
            bne_w({name})
        """)
    )


def whole_row(c: int, kw: int) -> str:
    """A window row wholly inside the input (x0 >= 0, x0 + KW <= V): its KW*C bytes copied a
    word at a time (unaligned loads), then on to the next row; else on to GS, tap by tap."""
    n = kw * c
    if n > 64:
        return ""
    return (
        asm(f"""
            cmp(r7,0)
            blt_w(GS)
            ldr(r5,[r0,P.V])
            sub(r5,{kw})
            cmp(r7,r5)
            bgt_w(GS)
            movw(r5,{c})
            mul(r5,r7)
        """)
        + t.add_lsl(10, 9, 5, 0)
        + "".join(t.ldr_imm(12, 10, 4 * i) + t.str_post(12, 1, 4) for i in range(n // 4))
        + "".join(t.ldrb_imm(12, 10, i) + t.strb_post(12, 1, 1) for i in range(n // 4 * 4, n))
        + asm("""
            b(GR)
            label(GS)
        """)
    )


def gather(c: int, kh: int, kw: int, boff: int) -> str:
    """One pixel's window (KH x KW x C bytes) into the byte row at sp+boff; r0 = P, r6 = oy,
    r7 = ox. Taps outside the input are zeros. r9: the input row's first byte."""
    return (
        asm("""
            ldr(r5,[r0,P.SH])
            mul(r6,r5)
            ldr(r5,[r0,P.PT])
            sub(r6,r6,r5)  # y = oy*SH - PT
            ldr(r5,[r0,P.SW])
            mul(r7,r5)
            ldr(r5,[r0,P.PL])
            sub(r7,r7,r5)  # x0 = ox*SW - PL
        """)
        + t.addw(1, SP, boff)
        + asm(f"""
            movw(r11,0)
            mov(r2,{kh})
            label(GY)
            ldr(r5,[r0,P.H])
            cmp(r6,r5)
            bcs_w(GZ)  # row outside: zeros
            ldr(r5,[r0,P.V])
            movw(r4,{c})
            mul(r5,r4)
        """)
        + t.mul(10, 6, 5)
        + t.ldr_imm(9, SP, 4)
        + said(t.add_lsl(9, 9, 10, 0), "X + y*V*C")
        + whole_row(c, kw)
        + asm(f"""
            mov(r3,{kw})
            mov(r4,r7)
            label(GX)
            ldr(r5,[r0,P.V])
            cmp(r4,r5)
            bcs_w(GO)
            movw(r5,{c})
            mul(r5,r4)
        """)
        + t.add_lsl(10, 9, 5, 0)
        + copy_row(c, False)
        + asm("""
            b(GN)
            label(GO)
        """)
        + copy_row(c, True)
        + asm(f"""
            label(GN)
            add(r4,1)
            sub(r3,1)
            bne_w(GX)
            b(GR)
            label(GZ)
            movw(r3,{kw * c})
            label(GW)
        """)
        + t.strb_post(11, 1, 1)
        + asm("""
            sub(r3,1)
            bne_w(GW)
            label(GR)
            add(r6,1)
            sub(r2,1)
            bne_w(GY)
        """)
    )


def unroll(groups: int, most: int = 15) -> int:
    return max(u for u in range(1, most + 1) if groups % u == 0)


def requant(m: int, s: int, lo: int, accs) -> str:
    return f" movw(r4,{m})\n" + "".join(rq(a, s, lo) for a in accs)


def pixel_offset(reg: int) -> str:
    """r5 = (y * V + x) * C, the window's first input pixel (y in r5, x in r4, P in r0; r<reg> = C after)."""
    return asm(f"""
        ldr(r{reg},[r0,P.V])
        mul(r5,r{reg})
        add(r5,r5,r4)
        ldr(r{reg},[r0,P.C])
        mul(r5,r{reg})
    """)


def window(axis: int) -> str:
    """The clipped window along one axis of the output position in the frame (axis 0: rows,
    frame 16, P's H, SH, PT, KH; 1: columns, frame 20, V, SW, PL, KW): r4 = first input row
    (column), r6 = first tap, r7 = taps. r0 = P."""
    size, stride, pad, ker = ("H", "SH", "PT", "KH") if axis == 0 else ("V", "SW", "PL", "KW")
    lab = "YX"[axis]
    return t.ldr_imm(4, SP, 16 + 4 * axis) + asm(f"""
            ldr(r5,[r0,P.{stride}])
            mul(r4,r5)
            ldr(r5,[r0,P.{pad}])
            sub(r4,r4,r5)
            mov(r6,0)
            sub(r6,r6,r4)
            cmp(r6,0)  # first tap max(0, -start)
            bge(A{lab})
            mov(r6,0)
            label(A{lab})
            ldr(r7,[r0,P.{size}])
            sub(r7,r7,r4)
            ldr(r5,[r0,P.{ker}])
            cmp(r7,r5)
            ble(B{lab})
            mov(r7,r5)
            label(B{lab})  # end min(K, size - start)
            sub(r7,r7,r6)
            add(r4,r4,r6)
        """)


MAX_FRAME = 6144


def add_imm(rd: int, imm: int) -> str:
    return t.addw(rd, rd, imm) if imm < 4096 else f" movw(r5,{imm})\n" + t.add_lsl(rd, rd, 5, 0)


def scaled(rd: int, at: int, rn: int = 12, rm: int = 8) -> str:
    """rd = the weight byte at rn + at times M (in rm)."""
    return t.ldrsb_imm(rd, rn, at) + t.mul(rd, rd, rm)
