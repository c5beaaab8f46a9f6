"""MicroPython source of the memory suite's kernels (STREAM sweeps, the fastest movers)."""

from __future__ import annotations

from mcuroof.kernels import emitters, rv32, thumb1, thumb2
from mcuroof.kernels.asm_text import lines as asm
from mcuroof.kernels.asm_text import routine
from mcuroof.kernels.contract import SPLIT, TYPE_NAMES, Kernel, unit_key
from mcuroof.kernels.listing import sent

PTR = {"b": "ptr8", "h": "ptr16", "i": "ptr32"}
ASM_LOAD = {"b": ("ldrb", "strb", 1), "h": ("ldrh", "strh", 2), "i": ("ldr", "str", 4)}
# STREAM kernels: name, arrays touched, element statement, output array, output = factor * input
# (the firmware fills A and B with the same pattern before each sweep)
STREAM = (
    ("copy", 2, "B[i]=A[i]", 1, 1),
    ("scale", 2, "B[i]=3*A[i]", 1, 3),
    ("add", 3, "C[i]=A[i]+B[i]", 2, 2),
    ("triad", 3, "C[i]=A[i]+3*B[i]", 2, 4),
)
ASM_STREAM = {
    "copy": ["L(r4,[r0,0])", "S(r4,[r1,0])"],
    "scale": ["L(r4,[r0,0])", "mul(r4,r7)", "S(r4,[r1,0])"],
    "add": ["L(r4,[r0,0])", "L(r5,[r1,0])", "add(r4,r4,r5)", "S(r4,[r2,0])"],
    "triad": ["L(r4,[r0,0])", "L(r5,[r1,0])", "mul(r5,r7)", "add(r4,r4,r5)", "S(r4,[r2,0])"],
}
ASM_COPY4 = routine(
    "k",
    """
    mov(r4,128)
    add(r4,r4,r4)
    add(r4,r4,r4)
    add(r4,r4,r4)
    add(r4,r4,r4)  # 2048: COPY4_ELEMENTS words to move
    str(r4,[r2,12])  # C holds the pointers and counts
    str(r0,[r2,0])
    str(r1,[r2,4])
    str(r3,[r2,8])
    label(C)
    ldr(r0,[r2,0])
    ldr(r1,[r2,4])
    lsr(r3,r3,2)  # n words, 4 a step
    label(L)
    ldr(r4,[r0,0])
    ldr(r5,[r0,4])
    ldr(r6,[r0,8])
    ldr(r7,[r0,12])
    str(r4,[r1,0])
    str(r5,[r1,4])
    str(r6,[r1,8])
    str(r7,[r1,12])
    add(r0,16)
    add(r1,16)
    sub(r3,1)
    bgt(L)
    ldr(r3,[r2,8])
    ldr(r4,[r2,12])
    sub(r4,r4,r3)
    str(r4,[r2,12])
    bgt(C)  # another pass until 2048 are moved
    """,
)


# Armv6-M's fastest mover: ASM_COPY4 with LDMIA r0!,{r4-r7} and STMIA r1!,{r4-r7} (data():
# MicroPython's inline assembler has no LDM/STM), 4 pairs a loop: 16 words in 4 x (5 + 5) + 3
# cycles on a Cortex-M0+ (LDM/STM 1+N, SUBS 1, BGT 2). n is a multiple of 16 (min_n 16, doubled).
def _ldm_stm() -> thumb1.Asm:
    a = thumb1.Asm()
    for _ in range(4):
        a.ldm(0, range(4, 8))
        a.stm(1, range(4, 8))
    return a


ASM_COPY_LDM = (
    sent(ASM_COPY4)
    .replace(" lsr(r3,r3,2)\n", " lsr(r3,r3,4)\n")
    .replace(
        asm("""
            ldr(r4,[r0,0])
            ldr(r5,[r0,4])
            ldr(r6,[r0,8])
            ldr(r7,[r0,12])
            str(r4,[r1,0])
            str(r5,[r1,4])
            str(r6,[r1,8])
            str(r7,[r1,12])
            add(r0,16)
            add(r1,16)
        """),
        "".join(f" # {line}\n" for _, line in _ldm_stm().listing())
        + f" data(2,{','.join(str(hw) for hw in _ldm_stm().words())})\n",
    )
)


# MicroPython's own C copy, memmove, through a slice assignment on memoryviews of exactly n
# elements, made before the timing (views(), which the sweep calls per size): B[:]=A moves n
# bytes and allocates nothing (the VM puts a slice it subscripts at once on the stack).
# B[0:n]=A[0:n] on views of the whole buffer also moved B's tail onto itself (py/objarray.c
# array_subscr: mp_seq_replace_slice_no_grow) and made a new view each call: 3.2 ms a call from
# 32 B to 128 KiB on qemu-m55. views() lives here, not in firmware/memory.py, whose every byte
# costs the micro:bit's sweeps working set.
C_COPY = "def k(A,B,C,n):\n B[:]=A\ndef views(bufs,n):\n return [memoryview(b)[0:n] for b in bufs]\n"


# int8 on cores with SIMD, as their layer kernels move int8 (kernels.ops.dsp_*, mve): the DSP
# extension's four lanes a word (LDR, SADD8, STR), Helium's sixteen a vector register (VLDRB,
# VADD.I8, VSTRB); 3x is two adds. A byte a load would put those layer points above a roof
# they are not bound by. n is a multiple of 16 (min_n 16, doubled).
_SIMD8_OPS = {
    "copy": ("l0", "s0"),
    "scale": ("l0", "a100", "a010", "s0"),
    "add": ("l0", "l1", "a001", "s0"),
    "triad": ("l0", "l1", "a211", "a221", "a020", "s0"),
}
# lane groups a loop iteration moves: its SUB and BGT (and the DSP's pointer steps) shared by
# them. One group an iteration held Helium's copy at 8 of the 16 bytes an instruction its
# VLDRB and VSTRB move (qemu-m55: 125 MB/s at 15.625 M instructions/s); 8 groups, 14.2.
# n / 4 words is a multiple of 4; n / 16 vectors of nothing: a loop of one group does the rest.
SIMD8_UNROLL = {"dsp": 4, "mve": 8}


def _simd8_group(name: str, dst: int, mve: bool, j: int) -> str:
    """Lane group j of an unrolled iteration: l<i> loads group i from array i (r0, r1), a<d><n><m>
    adds n and m into d, s<i> stores group i to the output array (dst: its register). Kernels
    of two registers alternate between two pairs (q0-q1, q2-q3; r4-r5, r6-r7: q4-q7 are the
    caller's), so that one group's store does not wait for the next one's load."""
    ops = _SIMD8_OPS[name]
    regs = {int(c) for op in ops for c in op[1:]}
    base = 2 * (j % 2) if max(regs) < 2 else 0
    code = ""
    for op in ops:
        if op[0] == "l":
            i = int(op[1])
            code += thumb2.vldrb_post(base + i, i, 16) if mve else f" ldr(r{4 + base + i},[r{i},{4 * j}])\n"
        elif op[0] == "a":
            d, n, m = (base + int(c) for c in op[1:])
            code += thumb2.vadd_i8(d, n, m) if mve else thumb2.sadd8(4 + d, 4 + n, 4 + m)
        else:
            q = base + int(op[1])
            code += thumb2.vstrb_post(q, dst, 16) if mve else f" str(r{4 + q},[r{dst},{4 * j}])\n"
    return code


def _simd8_body(name: str, dst: int, mve: bool) -> str:
    """A SIMD int8 stream kernel, SIMD8_UNROLL lane groups an iteration."""
    u = SIMD8_UNROLL["mve" if mve else "dsp"]
    body = "".join(_simd8_group(name, dst, mve, j) for j in range(u))
    head = "@micropython.asm_thumb\ndef k(r0,r1,r2,r3):\n"
    if not mve:
        arrays = sorted({int(op[1]) for op in _SIMD8_OPS[name] if op[0] == "l"} | {dst})
        step = "".join(f" add(r{i},{4 * u})\n" for i in arrays)
        return (
            head
            + asm("""
                lsr(r3,r3,4)  # 16-byte groups
                label(L)
            """)
            + body
            + step
            + asm("""
                sub(r3,1)
                bgt(L)
            """)
        )
    # r3: iterations of u vectors, r4 the vectors left over (VLDRB and VSTRB step the pointers)
    return (
        head
        + asm(f"""
            lsr(r3,r3,4)  # vectors
            mov(r4,{u - 1})
            and_(r4,r3)  # vectors left over
            lsr(r3,r3,{u.bit_length() - 1})  # iterations of {u}
            beq(R)
            label(L)
        """)
        + body
        + asm("""
            sub(r3,1)
            bgt_w(L)
            label(R)
            cmp(r4,0)
            beq(E)
            label(S)
        """)
        + _simd8_group(name, dst, True, 0)
        + asm("""
            sub(r4,1)
            bgt(S)
            label(E)
        """)
    )


def python_movers(em: str, tc: str, isa) -> list[tuple[tuple, str | None]]:
    """bytecode and native: the STREAM loops in Python."""
    dec = emitters.get(em).decorator
    return [(op, f"{dec}def k(A,B,C,n):\n for i in range(n):\n  {op[2]}\n") for op in STREAM]


def viper_movers(em: str, tc: str, isa) -> list[tuple[tuple, str | None]]:
    if tc not in PTR:
        return [(op, None) for op in STREAM]
    p = PTR[tc]
    head = f"@micropython.viper\ndef k(a,b,c,n:int):\n A={p}(a)\n B={p}(b)\n C={p}(c)\n for i in range(n):\n  "
    return [(op, head + op[2] + "\n") for op in STREAM]


def _thumb_stream(tc: str, op: tuple, simd8: str) -> str | None:
    name = op[0]
    if tc == "b" and simd8:
        return _simd8_body(name, op[3], simd8 == "mve")
    if tc in ASM_LOAD:
        ld, st, z = ASM_LOAD[tc]
        body = "\n".join(ASM_STREAM[name]).replace("L(", ld + "(").replace("S(", st + "(")
        return routine("k", "mov(r7,3)\nlabel(L)\n" + body) + asm(f"""
            add(r0,{z})
            add(r1,{z})
            add(r2,{z})
            sub(r3,1)
            bgt(L)
        """)
    return None


def thumb_movers(em: str, tc: str, isa) -> list[tuple[tuple, str | None]]:
    """The STREAM loops (int8 by the core's SIMD where it has one), and for words the copies
    that repeat: copy4x, and LDM/STM's on a known Armv6-M core."""
    ops = [(op, _thumb_stream(tc, op, _simd8(isa))) for op in STREAM]
    if tc == "i":
        ops.append((("copy4x", 2, "", 1, 1), ASM_COPY4 + SPLIT))  # its source freed before the sweep
        if "muls" in isa:  # a known Armv6-M core
            ops.append((("copy-ldm", 2, "", 1, 1), ASM_COPY_LDM + SPLIT))
    return ops


def rv32_movers(em: str, tc: str, isa) -> list[tuple[tuple, str | None]]:
    ops = [(op, rv32.stream(op[0], tc)) for op in STREAM]
    if tc == "i":
        ops.append((("copy-lw", 2, "", 1, 1), rv32.COPY_LW + SPLIT))
    return ops


def c_movers(em: str, tc: str, isa) -> list[tuple[tuple, str | None]]:
    """MicroPython's own memoryview copy: int8 copy only."""
    return [(op, C_COPY if tc == "b" and op[0] == "copy" else None) for op in STREAM]


def _simd8(isa) -> str:
    """The int8 SIMD of the core, from the ISA kernels the compute suite runs there: "mve", "dsp" or ""."""
    return "mve" if "vmladava" in isa else "dsp" if "smlad" in isa else ""


def memory_kernels(cfg: dict) -> list[Kernel]:
    out = []
    for em in cfg["emitters"]:
        maxws = cfg["max_ws"].get(em, 1 << 30)
        movers = emitters.hook(em, "movers")
        views = "views" if emitters.get(em).found == "memoryview" else 0  # the C copy: memoryview slices
        for tc in cfg["types"]:
            for (name, na, _, dst, f), body in movers(em, tc, cfg.get("isa", ())) if movers else ():
                if body:
                    call = f"sweep(k,'{name}','{em}','{TYPE_NAMES[tc]}','{tc}',{na},{dst},{f},{maxws},{views})\n"
                    out.append(Kernel.listed(unit_key("memory", em, TYPE_NAMES[tc], name), body + call))
    return out
