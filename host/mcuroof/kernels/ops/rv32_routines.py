"""The pieces of the asm_rv32 (RV32IM) int8 layer kernels, one instruction a line.

Each layer kernel is one `@micropython.asm_rv32` function k(a0=X, a1=W, a2=O, a3=P) that runs
the whole tile in assembler, reading its shape from P (kernels.ops.contract: `P.<field>` is
written as the field's byte offset, kernels.ops.asm_text), so one source serves every tile of a
layer. The inline assembler saves no register, so the kernel saves s0-s11 and ra in its own
frame on the stack and keeps there what it needs once per output row, pixel or channel block.
Its limits, worked around here: conditional branches reach 4 KB (every loop that may be longer
branches back by `bne` over a `jal`, which reaches 1 MB), there is no `j`, `beqz` or `ble`
(`jal(zero,L)`, `beq(r,zero,L)`, `bge` with its operands swapped), and no min or max (Zbb):
a clamp is a branch over a move. Pure computation.
"""

from __future__ import annotations

import itertools

from mcuroof.kernels.ops.asm_text import lines

SAVED = ["s%d" % i for i in range(12)] + ["ra"]
# the frame: SAVED's registers, then the kernel's state kept once per row, pixel or block
LOCALS = ("Y0", "ROWS", "X0", "COLS", "ROWB", "WROW", "L", "LMAIN", "OCLEFT", "BIAS", "KWC", "NWIN")
FRAME = {name: 4 * (len(SAVED) + i) for i, name in enumerate(LOCALS)}
FRAME_BYTES = -(-4 * (len(SAVED) + len(LOCALS)) // 16) * 16
HEAD = "@micropython.asm_rv32\ndef k(a0,a1,a2,a3):\n"


class Labels:
    """Unique label names within one kernel (the assembler refuses a label defined twice)."""

    def __init__(self):
        self._n = itertools.count()

    def __call__(self, stem: str) -> str:
        return f"{stem}{next(self._n)}"


def block(text: str) -> str:
    """Instructions one a line; `F.<local>` is the frame offset of that local, `P.<field>` the
    P block's (kernels.ops.asm_text)."""
    for name, off in FRAME.items():
        text = text.replace(f"F.{name}(", f"{off}(")
    return lines(text)


def prologue() -> str:
    """Make the frame and save the registers the kernel uses (the caller's s0-s11, ra)."""
    saves = "".join(f"sw({r},{4 * i}(sp))\n" for i, r in enumerate(SAVED))
    return block(f"addi(sp,sp,-{FRAME_BYTES})\n" + saves)


def epilogue() -> str:
    loads = "".join(f"lw({r},{4 * i}(sp))\n" for i, r in enumerate(SAVED))
    return block(loads + f"addi(sp,sp,{FRAME_BYTES})\n")


def loop_back(counter: str, target: str, lab: Labels) -> str:
    """Branch to target while counter is not zero, at any distance: BNE reaches 4 KB only."""
    out = lab("E")
    return block(f"beq({counter},zero,{out})\njal(zero,{target})\nlabel({out})")


def clamp_low(reg: str, low: str, lab: Labels) -> str:
    """reg = max(reg, low). (`mv` is C.MV, whose encoding with x0 as its source is C.JR: a
    jump to reg's value, so zero is set by LI.)"""
    ok = lab("G")
    move = f"li({reg},0)" if low == "zero" else f"mv({reg},{low})"
    return block(f"bge({reg},{low},{ok})\n{move}\nlabel({ok})")


def clamp_high(reg: str, high: str, lab: Labels) -> str:
    """reg = min(reg, high)."""
    ok = lab("H")
    return block(f"blt({reg},{high},{ok})\nmv({reg},{high})\nlabel({ok})")


def requant(accs: list[str], lab: Labels, out_reg: str = "a2") -> str:
    """Each acc: (acc * M) >> S clamped to [LO, 127], stored at out_reg + j, as the reference's
    np.clip((acc * M) >> S, LO, 127); t3-t6 are free here."""
    out = block("lw(t3,P.M(a3))\nlw(t4,P.S(a3))\nlw(t5,P.LO(a3))\nli(t6,127)")
    for j, acc in enumerate(accs):
        out += block(f"mul({acc},{acc},t3)\nsra({acc},{acc},t4)")
        out += clamp_high(acc, "t6", lab) + clamp_low(acc, "t5", lab) + block(f"sb({acc},{j}({out_reg}))")
    return out


def window_rows(row_label: str, lab: Labels, stride_c: str) -> str:
    """Per output row (at row_label): the window's rows clipped to the tile's input, ky0 = max(0,
    -y0), ky1 = min(KH, H - y0): s4 = ky1 - ky0, the frame's ROWB = X + (y0 + ky0) * V * C (s0)
    and WROW = W + ky0 * KW * C (KWC); X0 and COLS restarted. stride_c: the register holding C."""
    return (
        block(f"label({row_label})\nlw(t0,F.Y0(sp))\nli(t1,0)")
        + _max_neg("t0", "t1", lab)
        + block("lw(t2,P.H(a3))\nsub(t2,t2,t0)\nlw(t3,P.KH(a3))")
        + clamp_high("t2", "t3", lab)
        + block(
            """
            sub(s4,t2,t1)  # the window's rows
            add(t2,t0,t1)
            mul(t2,t2,s0)
            add(t2,t2,a0)
            sw(t2,F.ROWB(sp))  # X + (y0 + ky0) * V * C
            lw(t3,F.KWC(sp))
            mul(t3,t3,t1)
            add(t3,t3,a1)
            sw(t3,F.WROW(sp))  # W + ky0 * KW * C
            lw(t0,P.PL(a3))
            sub(t0,zero,t0)
            sw(t0,F.X0(sp))  # x0 = -PL
            lw(t0,P.OW(a3))
            sw(t0,F.COLS(sp))
            """
        )
    )


def window_cols(pix_label: str, lab: Labels, c: str) -> str:
    """Per output pixel (at pix_label): kx0 = max(0, -x0), kx1 = min(KW, V - x0); t2 = kx1 - kx0
    (the window's columns), s1 = ROWB + (x0 + kx0) * C, s2 = WROW + kx0 * C. c: C's register."""
    return (
        block(f"label({pix_label})\nlw(t0,F.X0(sp))\nli(t1,0)")
        + _max_neg("t0", "t1", lab)
        + block("lw(t2,P.V(a3))\nsub(t2,t2,t0)\nlw(t3,P.KW(a3))")
        + clamp_high("t2", "t3", lab)
        + block(
            f"""
            sub(t2,t2,t1)  # the window's columns
            add(t4,t0,t1)
            mul(t4,t4,{c})
            lw(t5,F.ROWB(sp))
            add(s1,t5,t4)  # the window's first input
            mul(t4,t1,{c})
            lw(t5,F.WROW(sp))
            add(s2,t5,t4)  # its first weight
            """
        )
    )


def _advance(pos: str, step: str, left: str, label: str, lab: Labels) -> str:
    """pos += step; back to label while `left` (counted down) is not 0."""
    return block(
        f"""
        lw(t0,F.{pos}(sp))
        lw(t1,P.{step}(a3))
        add(t0,t0,t1)
        sw(t0,F.{pos}(sp))
        lw(t0,F.{left}(sp))
        addi(t0,t0,-1)
        sw(t0,F.{left}(sp))
        """
    ) + loop_back("t0", label, lab)


def next_pixel(pix_label: str, lab: Labels) -> str:
    """x0 += SW; back to pix_label while columns are left."""
    return _advance("X0", "SW", "COLS", pix_label, lab)


def next_row(row_label: str, lab: Labels) -> str:
    """y0 += SH; back to row_label while output rows are left."""
    return _advance("Y0", "SH", "ROWS", row_label, lab)


def start_rows() -> str:
    """y0 = -PT, ROWS = OH; s0 = V * C, KWC = KW * C, s3 = C."""
    return block(
        """
        lw(s3,P.C(a3))
        lw(t0,P.V(a3))
        mul(s0,t0,s3)  # V * C: the next input row
        lw(t0,P.KW(a3))
        mul(t0,t0,s3)
        sw(t0,F.KWC(sp))  # KW * C: the next weight row
        lw(t0,P.PT(a3))
        sub(t0,zero,t0)
        sw(t0,F.Y0(sp))  # y0 = -PT
        lw(t0,P.OH(a3))
        sw(t0,F.ROWS(sp))
        """
    )


def _max_neg(x: str, out: str, lab: Labels) -> str:
    """out (0 on entry) = -x where x < 0: the taps a window loses at the top or left edge."""
    ok = lab("Z")
    return block(f"bge({x},zero,{ok})\nsub({out},zero,{x})\nlabel({ok})")
