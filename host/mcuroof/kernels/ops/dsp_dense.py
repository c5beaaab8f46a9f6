"""int8 dense layers on cores with the DSP extension."""

from __future__ import annotations

from mcuroof.kernels import thumb2 as t
from mcuroof.kernels.listing import said
from mcuroof.kernels.ops.asm_text import lines as asm
from mcuroof.kernels.ops.contract import Grain
from mcuroof.kernels.ops.dsp_common import LDR_REACH, LR, SP, constants, head, leave, requant, unroll

DENSE_ACCS = (6, 7, 8, 9, 10, 11, 12)  # the accumulators of a dense pass's channels
DENSE_UNROLL = 32  # groups of 4 inputs a loop step, at most


def _dense_pass(k: int, groups: int, n: int, m: int, s: int, lo: int, tag: str) -> str:
    """Output channels c..c+n-1 (c in r7 on entry) of a dense layer: per 4 inputs, one LDR and
    two SXTB16 widen the inputs for the n channels, whose 4 weights are an LDR and two SXTB16
    each, then 2 SMLAD: 3 + 5n instructions per 4n MACs. r0 walks X up to lr, r1 the weights;
    c is kept at frame 12."""
    u = unroll(groups, DENSE_UNROLL)
    accs = DENSE_ACCS[:n]
    body = ""
    for g in range(u):
        body += t.ldr_imm(4, 0, 4 * g) + t.sxtb16(5, 4, 8) + t.sxtb16(4, 4)
        for j, a in enumerate(accs):
            body += (
                t.ldr_imm(2, 1, j * k + 4 * g)
                + t.sxtb16(3, 2, 8)
                + t.sxtb16(2, 2)
                + t.smlad(a, 2, 4, a)
                + t.smlad(a, 3, 5, a)
            )
    return (
        t.str_imm(7, SP, 12)
        + t.ldr_imm(1, SP, 4)
        + f" movw(r2,{k})\n"
        + said(t.mla(1, 7, 2, 1), "W + c*K")
        + t.ldr_imm(2, SP, 0)
        + t.add_lsl(2, 2, 7, 2)
        + "".join(t.ldr_imm(a, 2, 64 + 4 * j) for j, a in enumerate(accs))  # biases
        + t.ldr_imm(0, SP, 16)
        + f" movw(r2,{k})\n"
        + t.add_lsl(LR, 0, 2, 0)
        + f" label(DL{tag})\n"
        + body
        + asm(f"""
            add(r0,{4 * u})
            add(r1,{4 * u})
        """)
        + t.cmp_reg(0, LR)
        + f" bne_w(DL{tag})\n"
        + requant(m, s, lo, accs)
        + t.ldr_imm(5, SP, 8)
        + t.ldr_imm(4, SP, 12)
        + " add(r5,r5,r4)\n"
        + "".join(t.strb_imm(a, 5, j) for j, a in enumerate(accs))
    )


def _next_channels(n: int, label: str) -> str:
    """c (frame 12) moved on by n to r7, back to label while under OC."""
    return (
        t.ldr_imm(7, SP, 12)
        + f" add(r7,{n})\n"
        + t.ldr_imm(4, SP, 0)
        + asm(f"""
            ldr(r4,[r4,P.OC])
            cmp(r7,r4)
            blt_w({label})
        """)
    )


def dense_applies(job, direct: bool) -> bool:
    return direct and all(tl.params.OH * tl.params.OW == 1 for tl in job.tiles)


def channels(k: int, oc: int) -> int:
    """Channels a dense pass takes: up to 7 (DENSE_ACCS), the first tile's OC, and those whose
    weights LDR reaches from one register."""
    reach = (LDR_REACH - 4 * unroll(-(-k // 4), DENSE_UNROLL)) // k + 1
    return max(1, min(len(DENSE_ACCS), reach, oc))


def grain(k: int, oc: int) -> Grain:
    """dense_source's grain: passes of `channels` channels, inputs in place, widened per pass."""
    return Grain(1, channels(k, oc), 4, direct=True, widen_per_pass=True)


def dense_source(job) -> str:
    """Dense layers (and 1x1 convolutions of one pixel) with K % 4 == 0, inputs read in place:
    passes of n channels (up to 7, the first tile's channels and those LDR reaches from one
    register), the last one over the previous (same values stored twice); tiles of fewer
    channels one at a time. Each input serves the n channels once: no reuse to widen for."""
    k, m, s, lo = constants(job)
    groups = k // 4
    n = channels(k, job.tiles[0].params.OC)
    wide = (
        asm("""
            mov(r7,0)
            label(DW)
        """)
        + t.ldr_imm(4, SP, 0)
        + asm(f"""
            ldr(r4,[r4,P.OC])
            sub(r4,{n})
            cmp(r7,r4)
            ble(DA)
            mov(r7,r4)
            label(DA)  # c = min(c, OC - n)
        """)
        + _dense_pass(k, groups, n, m, s, lo, "N")
        + _next_channels(n, "DW")
        + " b(DE)\n"
    )
    one = (
        asm("""
            label(DO)
            mov(r7,0)
            label(D1)
        """)
        + _dense_pass(k, groups, 1, m, s, lo, "1")
        + _next_channels(1, "D1")
        + " label(DE)\n"
    )
    return (
        head()
        + t.subw(SP, SP, 24)
        + t.str_imm(3, SP, 0)
        + t.str_imm(1, SP, 4)
        + t.str_imm(2, SP, 8)
        + t.str_imm(0, SP, 16)
        + asm(f"""
            ldr(r4,[r3,P.OC])
            cmp(r4,{n})
            blt_w(DO)
        """)
        + wide
        + one
        + leave(24)
    )
