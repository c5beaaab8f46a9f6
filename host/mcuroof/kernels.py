"""MicroPython source of every measured kernel, rendered per emitter and element type.

Each kernel is sent to the board as a script of its own: a `def k(...)` followed by the call
to the suite's helper in firmware/ (sweep or peak) that times it and emits its records. Keeping
kernels out of the resident firmware is what lets them compile in the micro:bit's 8 KB heap.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import thumb2

TYPE_NAMES = {"b": "int8", "h": "int16", "i": "int32", "f": "float32"}
PTR = {"b": "ptr8", "h": "ptr16", "i": "ptr32"}
ASM_LOAD = {"b": ("ldrb", "strb", 1), "h": ("ldrh", "strh", 2), "i": ("ldr", "str", 4)}
# STREAM kernels: name, arrays touched, element statement, output array, output = factor * input
# (the firmware fills A and B with the same pattern before each sweep)
STREAM = (("copy", 2, "B[i]=A[i]", 1, 1), ("scale", 2, "B[i]=3*A[i]", 1, 3),
          ("add", 3, "C[i]=A[i]+B[i]", 2, 2), ("triad", 3, "C[i]=A[i]+3*B[i]", 2, 4))
ASM_STREAM = {"copy": ["L(r4,[r0,0])", "S(r4,[r1,0])"],
              "scale": ["L(r4,[r0,0])", "mul(r4,r7)", "S(r4,[r1,0])"],
              "add": ["L(r4,[r0,0])", "L(r5,[r1,0])", "add(r4,r4,r5)", "S(r4,[r2,0])"],
              "triad": ["L(r4,[r0,0])", "L(r5,[r1,0])", "mul(r5,r7)", "add(r4,r4,r5)", "S(r4,[r2,0])"]}
# The fastest movers, from which the memory roof is taken. copy4x copies A to B in passes until
# COPY4_ELEMENTS elements are copied, so a small buffer's call outweighs the harness's own cost
# (records named "copy4", in raw logs from before, made one pass per call);
# it keeps its pointers in the unused C, not on the stack: no new names (push, pop, labels) to
# intern, which on the micro:bit costs the 1 KB working set.
COPY4_ELEMENTS = 2048
ASM_COPY4 = ("@micropython.asm_thumb\ndef k(r0,r1,r2,r3):\n mov(r4,128)\n add(r4,r4,r4)\n add(r4,r4,r4)\n"
             " add(r4,r4,r4)\n add(r4,r4,r4)\n str(r4,[r2,12])\n str(r0,[r2,0])\n str(r1,[r2,4])\n"
             " str(r3,[r2,8])\n label(C)\n ldr(r0,[r2,0])\n ldr(r1,[r2,4])\n lsr(r3,r3,2)\n label(L)\n"
             " ldr(r4,[r0,0])\n ldr(r5,[r0,4])\n ldr(r6,[r0,8])\n ldr(r7,[r0,12])\n"
             " str(r4,[r1,0])\n str(r5,[r1,4])\n str(r6,[r1,8])\n str(r7,[r1,12])\n"
             " add(r0,16)\n add(r1,16)\n sub(r3,1)\n bgt(L)\n ldr(r3,[r2,8])\n ldr(r4,[r2,12])\n"
             " sub(r4,r4,r3)\n str(r4,[r2,12])\n bgt(C)\n")


def passes(rec: dict) -> int:
    """Times one call runs over its buffers: ceil(COPY4_ELEMENTS / n) for copy4x, else 1 (also for
    the one-pass "copy4" of raw logs written before copy4x)."""
    return -(-COPY4_ELEMENTS // rec["n"]) if rec.get("k") == "copy4x" and rec.get("em") == "asm_thumb" else 1


C_COPY = "def k(A,B,C,n):\n B[0:n]=A[0:n]\n"
# int8 on cores with SIMD, as their layer kernels move int8 (layer_kernels_dsp, _mve): the DSP
# extension's four lanes a word (LDR, SADD8, STR), Helium's sixteen a vector register (VLDRB,
# VADD.I8, VSTRB); 3x is two adds. A byte a load would put those layer points above a roof
# they are not bound by. n is a multiple of 16 (min_n 16, doubled).
_SIMD8_OPS = {"copy": ("l0", "s0"), "scale": ("l0", "a100", "a010", "s0"), "add": ("l0", "l1", "a001", "s0"),
              "triad": ("l0", "l1", "a211", "a221", "a020", "s0")}


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
    return (f"@micropython.asm_thumb\ndef k(r0,r1,r2,r3):\n lsr(r3,r3,{4 if mve else 2})\n label(L)\n{code}"
            f"{step} sub(r3,1)\n bgt(L)\n")


SPLIT = "#--\n"


@dataclass(frozen=True)
class Kernel:
    key: str      # unique within a run: suite/emitter/type/name
    source: str   # what is sent to the board: one script, or several split at `#--` lines

    def scripts(self, tail: str = "") -> list[str]:
        """The scripts in order, `tail` appended to the last. A kernel too big to compile in
        one go with its call (the micro:bit's 8 KB heap) is sent as its def, then the call."""
        parts = [p for p in self.source.split(SPLIT) if p.strip()]
        return parts[:-1] + [parts[-1] + tail]


def _stream_body(em: str, tc: str, op: tuple, simd8: str = "") -> str | None:
    name, _, stmt = op[:3]
    if em in ("bytecode", "native"):
        dec = "@micropython.native\n" if em == "native" else ""
        return f"{dec}def k(A,B,C,n):\n for i in range(n):\n  {stmt}\n"
    if em == "viper" and tc in PTR:
        p = PTR[tc]
        return (f"@micropython.viper\ndef k(a,b,c,n:int):\n A={p}(a)\n B={p}(b)\n C={p}(c)\n"
                f" for i in range(n):\n  {stmt}\n")
    if em == "asm_thumb" and tc == "b" and simd8:
        return _simd8_body(name, op[3], simd8 == "mve")
    if em == "asm_thumb" and tc in ASM_LOAD:
        ld, st, z = ASM_LOAD[tc]
        body = "\n ".join(ASM_STREAM[name]).replace("L(", ld + "(").replace("S(", st + "(")
        return (f"@micropython.asm_thumb\ndef k(r0,r1,r2,r3):\n mov(r7,3)\n label(L)\n {body}\n"
                f" add(r0,{z})\n add(r1,{z})\n add(r2,{z})\n sub(r3,1)\n bgt(L)\n")
    if em == "c" and tc == "b" and name == "copy":
        return C_COPY
    return None


# An empty function of each compiled emitter, timed as the harness's own cost (compute.peak):
# an asm_thumb call costs about 0.4 us less than the bytecode _nop on the micro:bit.
EMPTY = {"native": "@micropython.native\ndef z(a,b,c,n):\n return 0\n",
         "viper": "@micropython.viper\ndef z(a,b,c,n:int)->int:\n return 0\n",
         "asm_thumb": "@micropython.asm_thumb\ndef z(r0,r1,r2,r3):\n mov(r0,0)\n"}


def _simd8(cfg: dict) -> str:
    """The int8 SIMD of the core, from the ISA kernels the compute suite runs there: "mve", "dsp" or ""."""
    isa = cfg.get("isa", ())
    return "mve" if "vmladava" in isa else "dsp" if "smlad" in isa else ""


def _with_empty(em: str, body: str, call: str) -> str:
    """body and call, with the empty function of em compiled first (its own script) and passed.
    Compute kernels only: memory sweeps keep the bytecode _nop (firmware/memory.py stays as
    small as it was: on the micro:bit any more code there costs the 1 KB copy4 working set)."""
    if em not in EMPTY:
        return body + call
    return EMPTY[em] + SPLIT + body + call[:-2] + ",z=z)\n"


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
                    call = (f"sweep(k,'{name}','{em}','{TYPE_NAMES[tc]}','{tc}',{na},{dst},{f},"
                            f"{maxws},{int(em == 'c')})\n")
                    out.append(Kernel(f"memory/{em}/{TYPE_NAMES[tc]}/{name}", body + call))
    return out


def _mac_body(em: str, tc: str, u: int) -> str | None:
    if em in ("bytecode", "native"):
        dec = "@micropython.native\n" if em == "native" else ""
        acc = "0.0" if tc == "f" else "0"
        macs = "".join(f"  a+=X[{j}]*W[{j}]\n" for j in range(u))
        return f"{dec}def k(X,W,C,n):\n a={acc}\n for i in range(n):\n{macs} return a\n"
    if em == "viper" and tc in PTR:
        p = PTR[tc]
        # int8 as the layers read it: ptr8 loads are unsigned, (v ^ 128) - 128 sign-extends
        term = "((X[{j}]^128)-128)*((W[{j}]^128)-128)" if tc == "b" else "X[{j}]*W[{j}]"
        macs = "".join(f"  a+={term.format(j=j)}\n" for j in range(u))
        return (f"@micropython.viper\ndef k(x,w,c,n:int)->int:\n X={p}(x)\n W={p}(w)\n a=0\n"
                f" for i in range(n):\n{macs} return a\n")
    if em == "asm_thumb" and tc in ASM_LOAD:
        ld, _, z = ASM_LOAD[tc]
        # int8: the layer kernels sign-extend with Armv6-M's register-offset LDRSB, which costs
        # what LDRB does (one instruction under -icount), so the LDRB body's rate is theirs too
        macs = "".join(f" {ld}(r4,[r0,{j * z}])\n {ld}(r5,[r1,{j * z}])\n mul(r4,r5)\n add(r2,r2,r4)\n"
                       for j in range(u))
        return (f"@micropython.asm_thumb\ndef k(r0,r1,r2,r3):\n mov(r2,0)\n label(L)\n{macs}"
                f" sub(r3,1)\n{_loop_back(macs.count(chr(10)))} mov(r0,r2)\n")
    return None


def _loop_back(n_instr: int) -> str:
    """Branch back to label L while the SUB before it left a positive count. A conditional
    branch reaches 256 bytes back (128 16-bit instructions; its wide form is Armv7-M only),
    an unconditional one 2 KB: longer bodies (int8 unrolled 16x) take the second."""
    return " bgt(L)\n" if n_instr < 120 else " ble(E)\n b(L)\n label(E)\n"


def compute_kernels(cfg: dict, again: str = "") -> list[Kernel]:
    """The compute suite's kernels. `again` ("@3"): the same ceilings measured once more (the
    layers suite, between its layers): their records carry k = again, merged by roofs.compute_roofs."""
    out = []
    for em in cfg["emitters"]:
        u = cfg["unroll_asm"] if em == "asm_thumb" else cfg["unroll"]
        n = cfg["iters"][em]
        for tc in cfg["types"]:
            body = _mac_body(em, tc, u)
            if body:
                kn = f",'{again}'" if again else ""
                call = f"peak(k,'{em}','{TYPE_NAMES[tc]}','{tc}',{u},{n}{kn})\n"
                key = f"compute/{em}/{TYPE_NAMES[tc]}" + (f"/{again}" if again else "")
                out.append(Kernel(key, _with_empty(em, body, call)))
    if again:
        return out
    if "asm_thumb" in cfg["emitters"]:
        out += isa_kernels(cfg.get("isa", ()), cfg["types"], cfg["iters"]["asm_thumb"])
    return out


# The ISA's peak: multiply-accumulate instructions on operands kept in registers (loaded once
# per call), REP times u MACs per loop iteration, so that the loop's SUB and BGT cost 2 of
# about 34 instructions. Each is a dot product of x = [1] * u and w = [1..u] like the kernels
# above, repeated: the host checks n * REP * u(u+1)/2. name -> (types, u per type, body).
ISA_REP = 16


def _isa_body(name: str, tc: str, rep: int) -> tuple | None:
    """(u, dot products per loop iteration, setup, loop body, tail) of an ISA peak kernel for
    type code tc (asm_thumb source; the sum ends in r2), None if it has none."""
    from . import thumb2 as t

    if name == "mla" and tc in ASM_LOAD:
        ld, _, z = ASM_LOAD[tc]
        setup = f" {ld}(r4,[r0,0])\n {ld}(r5,[r0,{z}])\n {ld}(r6,[r1,0])\n {ld}(r7,[r1,{z}])\n"
        return 2, rep, setup, (t.mla(2, 4, 6, 2) + t.mla(2, 5, 7, 2)) * rep, ""
    if name == "smlad" and tc in ("h", "b"):
        if tc == "h":  # two halfwords per register
            setup = " ldr(r4,[r0,0])\n ldr(r5,[r0,4])\n ldr(r6,[r1,0])\n ldr(r7,[r1,4])\n"
        else:  # four int8 per word, widened by SXTB16 into even and odd halfword pairs
            setup = (" ldr(r6,[r0,0])\n ldr(r7,[r1,0])\n" + t.sxtb16(4, 6) + t.sxtb16(5, 6, 8)
                     + t.sxtb16(6, 7) + t.sxtb16(7, 7, 8))
        return 4, rep, setup, (t.smlad(2, 4, 6, 2) + t.smlad(2, 5, 7, 2)) * rep, ""
    if name == "vfma" and tc == "f":
        setup = (" vldr(s2,[r0,0])\n vldr(s3,[r0,4])\n vldr(s4,[r1,0])\n vldr(s5,[r1,4])\n"
                 " mov(r2,0)\n vmov(s0,r2)\n")
        return 2, rep, setup, (t.vfma_f32(0, 2, 4) + t.vfma_f32(0, 3, 5)) * rep, " vcvt_s32_f32(s0,s0)\n vmov(r2,s0)\n"
    bits = {"b": 8, "h": 16, "i": 32}.get(tc)
    if name == "vmladava" and bits:
        setup = t.vldr_q(0, 0, bits) + t.vldr_q(1, 1, bits)
        return 128 // bits, 2 * rep, setup, t.vmladava(2, 0, 1, bits) * (2 * rep), ""
    if name == "vfma-q" and tc == "f":
        setup = (t.vldr_q(1, 0, 32) + t.vldr_q(2, 1, 32) + " mov(r2,0)\n"
                 + "".join(f" vmov(s{j},r2)\n" for j in range(4)))
        lanes = "".join(f" vcvt_s32_f32(s{j},s{j})\n vmov(r4,s{j})\n add(r2,r2,r4)\n" for j in range(4))
        return 4, 2 * rep, setup, t.vfma_q_f32(0, 1, 2) * (2 * rep), lanes
    return None


def isa_kernels(names, types, n: int) -> list[Kernel]:
    out = []
    for name in names:
        for tc in types:
            found = _isa_body(name, tc, ISA_REP)
            if not found:
                continue
            u, reps, setup, loop, tail = found
            body = (f"@micropython.asm_thumb\ndef k(r0,r1,r2,r3):\n{setup} mov(r2,0)\n label(L)\n{loop}"
                    f" sub(r3,1)\n bgt(L)\n{tail} mov(r0,r2)\n")
            call = f"peak(k,'asm_thumb','{TYPE_NAMES[tc]}','{tc}',{u},{n},'{name}',{reps})\n"
            out.append(Kernel(f"compute/asm_thumb/{TYPE_NAMES[tc]}/{name}", body + call))
    return out


# Region readers (firmware/regions.py): k(wa, p, 0, n) sums n x 32 bytes of words from word
# address wa (address // 4: a small int for any 32-bit address), p times over (so that a call
# reads enough for its call cost not to matter), and returns one pass's sum; w(buf) is a
# buffer's word address.
ASM_READ8 = ("@micropython.asm_thumb\ndef k(r0,r1,r2,r3):\n lsl(r0,r0,2)\n label(P)\n push({r0,r3})\n"
             " mov(r2,0)\n label(L)\n"
             + "".join(f" ldr(r{4 + j % 4},[r0,{4 * j}])\n" + (" add(r2,r2,r4)\n add(r2,r2,r5)\n"
                                                                " add(r2,r2,r6)\n add(r2,r2,r7)\n"
                                                                if j % 4 == 3 else "") for j in range(8))
             + " add(r0,32)\n sub(r3,1)\n bgt(L)\n pop({r0,r3})\n sub(r1,1)\n bgt(P)\n mov(r0,r2)\n")
ASM_WADDR = "@micropython.asm_thumb\ndef w(r0):\n lsr(r0,r0,2)\n"
VIPER_READ8 = ("@micropython.viper\ndef k(wa:int,np:int,c,n:int)->int:\n p=ptr32(wa<<2)\n m=n*8\n s=0\n"
               " while np>0:\n  s=0\n  i=0\n  while i<m:\n"
               "   s+=p[i]+p[i+1]+p[i+2]+p[i+3]+p[i+4]+p[i+5]+p[i+6]+p[i+7]\n   i+=8\n  np-=1\n return s\n")
VIPER_WADDR = "def w(b):\n import uctypes\n return uctypes.addressof(b)>>2\n"
READERS = {"asm_thumb": (ASM_READ8, ASM_WADDR), "viper": (VIPER_READ8, VIPER_WADDR)}
SKIP_REASONS = {"unix": "the unix port has no memory-mapped flash or separate RAM regions: the host's caches "
                        "and DRAM are the memory suite's levels",
                "no-reader": "no asm_thumb (or viper on ESP32) to read raw addresses with on this port",
                "no-map": "no known memory map for this platform"}


def regions_kernels(cfg: dict) -> list[Kernel]:
    if not cfg["regions"]:
        why = SKIP_REASONS.get(cfg.get("skip"), "no region to read on this port")
        return [Kernel("regions/skip", f"_skip(None,None,{why!r})\n")]
    em = cfg["emitter"]
    reader, waddr = READERS[em]
    out = []
    for rg in cfg["regions"]:
        call = f"region(k,w,'{em}','{rg['name']}',{rg['wa']!r},{rg['top']},{rg['rng']!r})\n"
        out.append(Kernel(f"regions/{em}/{rg['name']}", reader + waddr + call))
    return out


def layer_kernels_for(cfg: dict) -> list[Kernel]:
    """The layers suite: one script per layers.Job of cfg["jobs"] (kept on the host), then the
    compute ceilings of cfg["peaks"] measured again in the same interpreter (see layer_suite)."""
    from .layer_kernels import script

    peaks = cfg.get("peaks")
    if not peaks:
        return [Kernel(job.key, script(job)) for job in cfg.get("jobs", [])]
    # The host's speed moves by 2x within minutes on a shared machine: a layer's ceiling is
    # measured again right after it, so the ceiling (the best seen) samples the same moments.
    out = []
    for i, job in enumerate(cfg["jobs"]):
        out.append(Kernel(job.key, script(job)))
        one = {**peaks, "emitters": [job.emitter], "types": [layers_dtype_code(job.dtype)]}
        if job.emitter in peaks["emitters"]:
            out += compute_kernels(one, again=f"@{i}")
    return out + compute_kernels(peaks)


def layers_dtype_code(dtype: str) -> str:
    return {name: tc for tc, name in TYPE_NAMES.items()}[dtype]


def clock_kernels(cfg: dict) -> list[Kernel]:
    """`mcuroof run --clocks`: machine.freq(hz) before a clock's suites (firmware/clock.py)."""
    return [Kernel("clock", f"setclock({int(cfg['hz'])})\n")]


def user_kernels_for(cfg: dict) -> list[Kernel]:
    """`mcuroof kernel FILE.py`: one script per kernel_NAME of the user's file (user_kernel)."""
    return cfg["user_file"].kernels()


KERNELS = {"memory": memory_kernels, "compute": compute_kernels, "regions": regions_kernels,
           "layers": layer_kernels_for, "clock": clock_kernels, "user": user_kernels_for}


def for_suite(suite: str, cfg: dict) -> list[Kernel]:
    return KERNELS[suite](cfg) if suite in KERNELS else []


def record_key(rec: dict) -> str | None:
    """The Kernel.key a measurement record belongs to."""
    if rec.get("t") == "mem":
        return f"memory/{rec['em']}/{rec['ty']}/{rec['k']}"
    if rec.get("t") == "mac":
        return f"compute/{rec['em']}/{rec['ty']}" + (f"/{rec['k']}" if rec.get("k") else "")
    if rec.get("t") == "layer":
        return f"layers/{rec['em']}/{rec['ty']}/{rec['k']}"
    if rec.get("t") == "clock":
        return "clock"
    if rec.get("t") in ("uk", "uerr"):
        return f"user/{rec['k']}"
    if rec.get("t") == "reg":
        return f"regions/{rec['em']}/{rec['rg']}"
    if rec.get("t") == "skip" and rec.get("suite") == "regions":
        return f"regions/{rec['em']}/{rec['rg']}" if rec.get("rg") else "regions/skip"
    return None
