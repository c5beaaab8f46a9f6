"""MicroPython source of the asm_rv32 kernels (@micropython.asm_rv32, RV32IMC): the compute suite's
dot products and MUL+ADD peak, the memory suite's STREAM loops and LW/SW copy mover.

One instruction per line. Under QEMU -icount every instruction costs the same 2^K ns, so each
kernel's bound per instruction follows from its loop, derived beside it. Arguments arrive in
a0-a3 (k(x, w, c, n)): buffers as their data's address, ints as their value; a0 is returned.
"""

from __future__ import annotations

EMITTER = "asm_rv32"
LOAD = {"b": ("lb", "sb", 1), "h": ("lh", "sh", 2), "i": ("lw", "sw", 4)}  # sign-extending loads
HEAD = "@micropython.asm_rv32\ndef k(a0,a1,a2,a3):\n"
# loop tail: count n (a3) down, branch back while not zero: 2 instructions an iteration
LOOP_BACK = " addi(a3,a3,-1)\n bne(a3,zero,L)\n"


def dot(tc: str, u: int) -> str | None:
    """A dot product of u elements of x (a0) and w (a1), n (a3) times over, summed in a2.
    Per MAC: 2 loads, MUL, ADD; per iteration ADDI + BNE: u MACs in 4u + 2 instructions
    (u = 16: 16 / 66 = 0.242 MAC/instr, the layer kernels' inner loop with its loads)."""
    if tc not in LOAD:
        return None
    ld, _, z = LOAD[tc]
    macs = "".join(f" {ld}(a4,{j * z}(a0))\n {ld}(a5,{j * z}(a1))\n mul(a4,a4,a5)\n add(a2,a2,a4)\n" for j in range(u))
    return f"{HEAD} li(a2,0)\n label(L)\n{macs}{LOOP_BACK} mv(a0,a2)\n"


# The int8 dot product with LW loads: 4 int8 a word, each unpacked by shifts (RV32I has no
# sign-extending byte extract): byte 0 SLLI 24 + SRAI 24, byte 1 SLLI 16 + SRAI 24, byte 2
# SLLI 8 + SRAI 24, byte 3 SRAI 24 alone: 7 instructions a word. Per 4 MACs: 2 LW, 14 shifts,
# 4 MUL, 4 ADD = 24 instructions (the LB loop's 16); per iteration ADDI + BNE.
LW_KERNEL = "lw16x"  # its ceiling's name: "int8 asm_rv32 lw16x" (compute.rv32_peak_kernels)
_UNPACK = ((24, 24), (16, 24), (8, 24), (None, 24))  # (SLLI, SRAI) per byte, low byte first


def _unpack(dst: str, word: str, byte: int) -> str:
    left, right = _UNPACK[byte]
    src = word
    out = ""
    if left:
        out += f" slli({dst},{word},{left})\n"
        src = dst
    return out + f" srai({dst},{src},{right})\n"


def dot_lw(u: int) -> str:
    """The int8 dot product of u (a multiple of 4) elements by LW loads and shifts, n (a3) times
    over, summed in a2: u MACs in 6u + 2 instructions (u = 16: 16 / 98 = 0.163 MAC/instr). The
    words stay in t0 (x) and t1 (w); each byte is unpacked into a4 and a5."""
    words = ""
    for j in range(u // 4):
        words += f" lw(t0,{4 * j}(a0))\n lw(t1,{4 * j}(a1))\n"
        for b in range(4):
            words += _unpack("a4", "t0", b) + _unpack("a5", "t1", b) + " mul(a4,a4,a5)\n add(a2,a2,a4)\n"
    return f"{HEAD} li(a2,0)\n label(L)\n{words}{LOOP_BACK} mv(a0,a2)\n"


def peak_mul(tc: str, rep: int) -> tuple[int, int, str] | None:
    """The MUL+ADD peak: (u, dot products per iteration, source). x[0..1], w[0..1] loaded once
    into a4-a7; each iteration does rep dot products of u = 2 on registers: MUL, ADD, MUL, ADD
    (RV32IM has no multiply-accumulate: 2 instructions a MAC, the bound 0.5 MAC/instr), then
    ADDI + BNE: 2 rep MACs in 4 rep + 2 instructions (rep 16: 32 / 66 = 0.485 MAC/instr, 0.97
    of the bound)."""
    if tc not in LOAD:
        return None
    ld, _, z = LOAD[tc]
    setup = f" {ld}(a4,0(a0))\n {ld}(a5,{z}(a0))\n {ld}(a6,0(a1))\n {ld}(a7,{z}(a1))\n li(a2,0)\n"
    body = " mul(t0,a4,a6)\n add(a2,a2,t0)\n mul(t1,a5,a7)\n add(a2,a2,t1)\n" * rep
    return 2, rep, f"{HEAD}{setup} label(L)\n{body}{LOOP_BACK} mv(a0,a2)\n"


# STREAM: one element an iteration, a (A), a1 (B), a2 (C) advanced by its size; t2 holds 3
STREAM = {
    "copy": ["L(a4,0(a0))", "S(a4,0(a1))"],
    "scale": ["L(a4,0(a0))", "mul(a4,a4,t2)", "S(a4,0(a1))"],
    "add": ["L(a4,0(a0))", "L(a5,0(a1))", "add(a4,a4,a5)", "S(a4,0(a2))"],
    "triad": ["L(a4,0(a0))", "L(a5,0(a1))", "mul(a5,a5,t2)", "add(a4,a4,a5)", "S(a4,0(a2))"],
}


def stream(name: str, tc: str) -> str | None:
    if tc not in LOAD or name not in STREAM:
        return None
    ld, st, z = LOAD[tc]
    body = "".join(f" {ins}\n" for ins in STREAM[name]).replace("L(", ld + "(").replace("S(", st + "(")
    step = f" addi(a0,a0,{z})\n addi(a1,a1,{z})\n addi(a2,a2,{z})\n"
    return f"{HEAD} li(t2,3)\n label(L)\n{body}{step}{LOOP_BACK}"


# The LW/SW copy mover: 4 words an iteration, n (int32 elements, a multiple of 16) / 4 iterations:
# 4 LW + 4 SW + 2 ADDI (pointers) + ADDI + BNE = 12 instructions for 32 bytes moved (16 read, 16
# written): 2.67 B/instr is its loop's bound (a LW or SW alone moves 4 B an instruction, the
# profile's bus figure; RV32I has no load/store multiple).
COPY_LW = (
    HEAD
    + " srli(a3,a3,2)\n label(L)\n"
    + "".join(f" lw(a{4 + j},{4 * j}(a0))\n" for j in range(4))
    + "".join(f" sw(a{4 + j},{4 * j}(a1))\n" for j in range(4))
    + " addi(a0,a0,16)\n addi(a1,a1,16)\n"
    + LOOP_BACK
)
