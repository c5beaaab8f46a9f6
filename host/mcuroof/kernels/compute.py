"""MicroPython source of the compute suite's peak multiply-accumulate kernels."""

from __future__ import annotations

from mcuroof.kernels import emitters, rv32
from mcuroof.kernels.asm_text import lines as asm
from mcuroof.kernels.asm_text import routine
from mcuroof.kernels.contract import SPLIT, TYPE_NAMES, Kernel, unit_key
from mcuroof.kernels.memory import ASM_LOAD, PTR
from mcuroof.kernels.viper_int8 import GROUP, vterm

# An empty function of each compiled emitter, timed as the harness's own cost (compute.peak):
# an asm_thumb call costs about 0.4 us less than the bytecode _nop on the micro:bit.
EMPTY = {e.name: e.empty for e in emitters.EMITTERS if e.empty}


def with_empty(em: str, body: str, call: str) -> str:
    """body and call, with the empty function of em compiled first (its own script) and passed
    as z. Compute kernels, the ISA ones too (timed against the bytecode _nop, the Pico's MULS+ADDS
    ceiling was 1.002 of its loop's bound). Memory sweeps keep the bytecode _nop (firmware/memory.py
    stays as small as it was: on the micro:bit any more code there costs the 1 KB copy4 working
    set); the region readers redefine it (kernels.regions)."""
    if em not in EMPTY:
        return body + call
    return EMPTY[em] + SPLIT + body + call[:-2] + ",z=z)\n"


def _mac_body(em: str, tc: str, u: int) -> str | None:
    """The MAC ceiling's kernel of em (its row's mac_body hook), None where it has none of type tc."""
    mac = emitters.hook(em, "mac_body")
    return mac(em, tc, u) if mac else None


def python_mac(em: str, tc: str, u: int) -> str | None:
    """bytecode and native: u products a loop iteration of Python."""
    acc = "0.0" if tc == "f" else "0"
    macs = "".join(f"  a+=X[{j}]*W[{j}]\n" for j in range(u))
    return f"{emitters.get(em).decorator}def k(X,W,C,n):\n a={acc}\n for i in range(n):\n{macs} return a\n"


def viper_mac(em: str, tc: str, u: int) -> str | None:
    if tc in PTR:
        # the layer kernels' inner loop (kernels.ops.viper, kernels.viper_int8): int8 as they read it (ptr8 loads
        # are unsigned: vterm sign-extends), products summed GROUP to an expression. One
        # product to a statement made the int8 ceiling slower than a dense layer (unix port:
        # 677 against 713 MMACC/s)
        term = vterm if tc == "b" else lambda a, b: f"p[{a}]*q[{b}]"
        sums = ["+".join(term(str(j), str(j)) for j in range(g, min(g + GROUP, u))) for g in range(0, u, GROUP)]
        macs = "".join(f"  a+={s}\n" for s in sums)
        return (
            f"@micropython.viper\ndef k(x,w,c,n:int)->int:\n p={PTR[tc]}(x)\n q={PTR[tc]}(w)\n a=0\n"
            f" for i in range(n):\n{macs} return a\n"
        )
    return None


def rv32_mac(em: str, tc: str, u: int) -> str | None:
    return rv32.dot(tc, u)


def thumb_mac(em: str, tc: str, u: int) -> str | None:
    if tc in ASM_LOAD:
        ld, _, z = ASM_LOAD[tc]
        # int8: the layer kernels sign-extend with Armv6-M's register-offset LDRSB, which costs
        # what LDRB does (one instruction under -icount), so the LDRB body's rate is theirs too
        macs = "".join(
            asm(f"""
                {ld}(r4,[r0,{j * z}])
                {ld}(r5,[r1,{j * z}])
                mul(r4,r5)
                add(r2,r2,r4)
            """)
            for j in range(u)
        )
        return (
            routine("k", "mov(r2,0)\nlabel(L)")
            + macs
            + asm("sub(r3,1)")
            + _loop_back(macs.count("\n"))
            + asm("mov(r0,r2)")
        )
    return None


def _loop_back(n_instr: int) -> str:
    """Branch back to label L while the SUB before it left a positive count. A conditional
    branch reaches 256 bytes back (128 16-bit instructions; its wide form is Armv7-M only),
    an unconditional one 2 KB: longer bodies (int8 unrolled 16x) take the second."""
    return (
        " bgt(L)\n"
        if n_instr < 120
        else asm("""
            ble(E)
            b(L)
            label(E)
        """)
    )


def compute_kernels(cfg: dict, again: str = "") -> list[Kernel]:
    """The compute suite's kernels. `again` ("@3"): the same ceilings measured once more (the
    layers suite, between its layers): their records carry k = again, merged by roofs.compute_roofs."""
    out = []
    for em in cfg["emitters"]:
        u = cfg["unroll_asm"] if emitters.is_assembler(em) else cfg["unroll"]
        n = cfg["iters"][em]
        for tc in cfg["types"]:
            body = _mac_body(em, tc, u)
            if body:
                kn = f",'{again}'" if again else ""
                call = f"peak(k,'{em}','{TYPE_NAMES[tc]}','{tc}',{u},{n}{kn})\n"
                key = unit_key("compute", em, TYPE_NAMES[tc], *([again] if again else []))
                out.append(Kernel.listed(key, with_empty(em, body, call)))
    if again:
        return out
    for em in cfg["emitters"]:
        peaks = emitters.hook(em, "peaks")
        if peaks:
            out += peaks(cfg.get("isa", ()), cfg["types"], cfg["iters"][em])
    return out


def rv32_peak_kernels(names, types, n: int) -> list[Kernel]:
    """The MUL+ADD register peak of a RISC-V core with M (kernels.rv32.peak_mul), per integer type,
    and the int8 dot product by LW loads and shifts (kernels.rv32.dot_lw)."""
    out = []
    for tc in types if "mul" in names else ():
        found = rv32.peak_mul(tc, ISA_REP)
        if found:
            u, reps, body = found
            call = f"peak(k,'{rv32.EMITTER}','{TYPE_NAMES[tc]}','{tc}',{u},{n},'mul',{reps})\n"
            out.append(Kernel(unit_key("compute", rv32.EMITTER, TYPE_NAMES[tc], "mul"), body + call))
    if "b" in types and rv32.LW_KERNEL in names:  # the int8 dot product by LW loads and shifts (_mac_body: LB)
        u, name = 16, rv32.LW_KERNEL
        call = f"peak(k,'{rv32.EMITTER}','int8','b',{u},{n},'{name}',1)\n"
        body = with_empty(rv32.EMITTER, rv32.dot_lw(u), call)
        out.append(Kernel(unit_key("compute", rv32.EMITTER, "int8", name), body))
    return out


# The ISA's peak: multiply-accumulate instructions on operands kept in registers (loaded once
# per call), REP times u MACs per loop iteration, so that the loop's SUB and BGT cost 2 of
# about 34 instructions. Each is a dot product of x = [1] * u and w = [1..u] like the kernels
# above, repeated: the host checks n * REP * u(u+1)/2. name -> (types, u per type, body).
ISA_REP = 16


def _two_pairs(tc: str) -> str:
    """x[0], x[1] to r4, r5 and w[0], w[1] to r6, r7 (elements of type code tc)."""
    ld, _, z = ASM_LOAD[tc]
    return asm(f"""
        {ld}(r4,[r0,0])
        {ld}(r5,[r0,{z}])
        {ld}(r6,[r1,0])
        {ld}(r7,[r1,{z}])
    """)


def _isa_body(name: str, tc: str, rep: int) -> tuple | None:
    """(u, dot products per loop iteration, setup, loop body, tail) of an ISA peak kernel for
    type code tc (asm_thumb source; the sum ends in r2), None if it has none."""
    from mcuroof.kernels import thumb2 as t

    if name == "muls" and tc in ASM_LOAD:
        # Armv6-M: MULS Rdm, Rn (Rdm = Rn * Rdm) then ADDS, 2 instructions a MAC; x = [1] * u keeps
        # w[j] in r6 and r7 through every product, so the operands stay in registers
        macs = asm("""
            mul(r6,r4)
            add(r2,r2,r6)
            mul(r7,r5)
            add(r2,r2,r7)
        """)
        return 2, rep, _two_pairs(tc), macs * rep, ""
    if name == "mla" and tc in ASM_LOAD:
        return 2, rep, _two_pairs(tc), (t.mla(2, 4, 6, 2) + t.mla(2, 5, 7, 2)) * rep, ""
    if name == "smlad" and tc in ("h", "b"):
        if tc == "h":  # two halfwords per register
            setup = asm("""
                ldr(r4,[r0,0])
                ldr(r5,[r0,4])
                ldr(r6,[r1,0])
                ldr(r7,[r1,4])
            """)
        else:  # four int8 per word, widened by SXTB16 into even and odd halfword pairs
            setup = (
                asm("""
                    ldr(r6,[r0,0])
                    ldr(r7,[r1,0])
                """)
                + t.sxtb16(4, 6)
                + t.sxtb16(5, 6, 8)
                + t.sxtb16(6, 7)
                + t.sxtb16(7, 7, 8)
            )
        return 4, rep, setup, (t.smlad(2, 4, 6, 2) + t.smlad(2, 5, 7, 2)) * rep, ""
    if name == "vfma" and tc == "f":
        setup = asm("""
            vldr(s2,[r0,0])
            vldr(s3,[r0,4])
            vldr(s4,[r1,0])
            vldr(s5,[r1,4])
            mov(r2,0)
            vmov(s0,r2)
        """)
        return (
            2,
            rep,
            setup,
            (t.vfma_f32(0, 2, 4) + t.vfma_f32(0, 3, 5)) * rep,
            asm("""
                vcvt_s32_f32(s0,s0)
                vmov(r2,s0)
            """),
        )
    bits = {"b": 8, "h": 16, "i": 32}.get(tc)
    if name == "vmladava" and bits:
        setup = t.vldr_q(0, 0, bits) + t.vldr_q(1, 1, bits)
        return 128 // bits, 2 * rep, setup, t.vmladava(2, 0, 1, bits) * (2 * rep), ""
    if name == "vmla" and tc == "b":
        # the MAC of MVE depthwise kernels (kernels.ops.mve): VMLA.S32 Qda += Qn * Rm, four int32
        # lanes (widened int8) by a scalar weight, where no sum across lanes is wanted. Lanes
        # hold x[0] (q1), r4-r7 w[0..3]: four VMLAs add a u = 4 dot product to each lane, into
        # q0 and q2 by turns; rep / 2 groups an iteration keep the loop in BGT's reach
        setup = (
            "".join(f" ldrb(r{4 + j},[r1,{j}])\n" for j in range(4))
            + " ldrb(r2,[r0,0])\n"
            + t.vdup_32(1, 2)
            + " mov(r2,0)\n"
            + t.vdup_32(0, 2)
            + t.vdup_32(2, 2)
        )
        group = lambda q: "".join(t.vmla_s32(q, 1, 4 + j) for j in range(4))
        lanes = "".join(
            asm(f"""
                vmov(r4,s{j})
                add(r2,r2,r4)
            """)
            for j in (0, 1, 2, 3, 8, 9, 10, 11)
        )
        return 4, 4 * (rep // 2), setup, "".join(group(2 * (g % 2)) for g in range(rep // 2)), lanes
    if name == "vfma-q" and tc == "f":
        setup = (
            t.vldr_q(1, 0, 32) + t.vldr_q(2, 1, 32) + " mov(r2,0)\n" + "".join(f" vmov(s{j},r2)\n" for j in range(4))
        )
        lanes = "".join(
            asm(f"""
                vcvt_s32_f32(s{j},s{j})
                vmov(r4,s{j})
                add(r2,r2,r4)
            """)
            for j in range(4)
        )
        return 4, 2 * rep, setup, t.vfma_q_f32(0, 1, 2) * (2 * rep), lanes
    return None


# ISA peak kernels whose instruction an op kind has no use for, and why (analysis.points places
# such a layer under the fastest ceiling it can use as well, and the advice judges it there)
UNUSABLE = {
    "DEPTHWISE_CONV_2D": {
        "vmladava": "VMLADAVA sums its products across lanes, which a depthwise layer never does "
        "(its MVE kernels use VMLA)"
    }
}


def isa_kernels(names, types, n: int) -> list[Kernel]:
    out = []
    for name in names:
        for tc in types:
            found = _isa_body(name, tc, ISA_REP)
            if not found:
                continue
            u, reps, setup, loop, tail = found
            body = (
                routine("k", "")
                + setup
                + asm("""
                    mov(r2,0)
                    label(L)
                """)
                + loop
                + asm("""
                    sub(r3,1)
                    bgt(L)
                """)
                + tail
                + asm("mov(r0,r2)")
            )
            call = f"peak(k,'asm_thumb','{TYPE_NAMES[tc]}','{tc}',{u},{n},'{name}',{reps})\n"
            key = unit_key("compute", "asm_thumb", TYPE_NAMES[tc], name)
            out.append(Kernel.listed(key, with_empty("asm_thumb", body, call)))
    return out
