"""MicroPython source of the memory suite's kernels (STREAM sweeps, the fastest movers)."""

from __future__ import annotations

from mcuroof.kernels import thumb2
from mcuroof.kernels.contract import SPLIT, TYPE_NAMES, Kernel, unit_key

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
ASM_COPY4 = (
    "@micropython.asm_thumb\ndef k(r0,r1,r2,r3):\n mov(r4,128)\n add(r4,r4,r4)\n add(r4,r4,r4)\n"
    " add(r4,r4,r4)\n add(r4,r4,r4)\n str(r4,[r2,12])\n str(r0,[r2,0])\n str(r1,[r2,4])\n"
    " str(r3,[r2,8])\n label(C)\n ldr(r0,[r2,0])\n ldr(r1,[r2,4])\n lsr(r3,r3,2)\n label(L)\n"
    " ldr(r4,[r0,0])\n ldr(r5,[r0,4])\n ldr(r6,[r0,8])\n ldr(r7,[r0,12])\n"
    " str(r4,[r1,0])\n str(r5,[r1,4])\n str(r6,[r1,8])\n str(r7,[r1,12])\n"
    " add(r0,16)\n add(r1,16)\n sub(r3,1)\n bgt(L)\n ldr(r3,[r2,8])\n ldr(r4,[r2,12])\n"
    " sub(r4,r4,r3)\n str(r4,[r2,12])\n bgt(C)\n"
)


C_COPY = "def k(A,B,C,n):\n B[0:n]=A[0:n]\n"
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


def _simd8_body(name: str, dst: int, mve: bool) -> str:
    """A SIMD int8 stream kernel: l<i> loads lane group i from array i (r0, r1), a<d><n><m>
    adds n and m into d, s<i> stores group i to the output array (dst: its register)."""
    code = ""
    for op in _SIMD8_OPS[name]:
        if op[0] == "l":
            i = int(op[1])
            code += thumb2.vldrb_post(i, i, 16) if mve else f" ldr(r{4 + i},[r{i},0])\n"
        elif op[0] == "a":
            d, n, m = (int(c) for c in op[1:])
            code += thumb2.vadd_i8(d, n, m) if mve else thumb2.sadd8(4 + d, 4 + n, 4 + m)
        else:
            code += thumb2.vstrb_post(int(op[1]), dst, 16) if mve else f" str(r{4 + int(op[1])},[r{dst},0])\n"
    step = "" if mve else " add(r0,4)\n add(r1,4)\n add(r2,4)\n"
    return (
        f"@micropython.asm_thumb\ndef k(r0,r1,r2,r3):\n lsr(r3,r3,{4 if mve else 2})\n label(L)\n{code}"
        f"{step} sub(r3,1)\n bgt(L)\n"
    )


def _stream_body(em: str, tc: str, op: tuple, simd8: str = "") -> str | None:
    name, _, stmt = op[:3]
    if em in ("bytecode", "native"):
        dec = "@micropython.native\n" if em == "native" else ""
        return f"{dec}def k(A,B,C,n):\n for i in range(n):\n  {stmt}\n"
    if em == "viper" and tc in PTR:
        p = PTR[tc]
        return (
            f"@micropython.viper\ndef k(a,b,c,n:int):\n A={p}(a)\n B={p}(b)\n C={p}(c)\n for i in range(n):\n  {stmt}\n"
        )
    if em == "asm_thumb" and tc == "b" and simd8:
        return _simd8_body(name, op[3], simd8 == "mve")
    if em == "asm_thumb" and tc in ASM_LOAD:
        ld, st, z = ASM_LOAD[tc]
        body = "\n ".join(ASM_STREAM[name]).replace("L(", ld + "(").replace("S(", st + "(")
        return (
            f"@micropython.asm_thumb\ndef k(r0,r1,r2,r3):\n mov(r7,3)\n label(L)\n {body}\n"
            f" add(r0,{z})\n add(r1,{z})\n add(r2,{z})\n sub(r3,1)\n bgt(L)\n"
        )
    if em == "c" and tc == "b" and name == "copy":
        return C_COPY
    return None


def _simd8(cfg: dict) -> str:
    """The int8 SIMD of the core, from the ISA kernels the compute suite runs there: "mve", "dsp" or ""."""
    isa = cfg.get("isa", ())
    return "mve" if "vmladava" in isa else "dsp" if "smlad" in isa else ""


def memory_kernels(cfg: dict) -> list[Kernel]:
    out = []
    for em in cfg["emitters"]:
        maxws = cfg["max_ws"].get(em, 1 << 30)
        for tc in cfg["types"]:
            ops = [(op, _stream_body(em, tc, op, _simd8(cfg))) for op in STREAM]
            if em == "asm_thumb" and tc == "i":
                ops.append((("copy4x", 2, "", 1, 1), ASM_COPY4 + SPLIT))  # its source freed before the sweep
            for (name, na, _, dst, f), body in ops:
                if body:
                    call = (
                        f"sweep(k,'{name}','{em}','{TYPE_NAMES[tc]}','{tc}',{na},{dst},{f},{maxws},{int(em == 'c')})\n"
                    )
                    out.append(Kernel(unit_key("memory", em, TYPE_NAMES[tc], name), body + call))
    return out
