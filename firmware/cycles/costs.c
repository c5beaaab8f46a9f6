/* Instruction cycles per core. The sources, section by section, are in docs/timing.md:
 *   Cortex-M0+: DDI 0484C, section 3.3, table 3-1 ("Cortex-M0+ instruction summary");
 *   Cortex-M3:  DDI 0337H, section 3.3.1 (table 3-1) and 3.3.2 (load/store timings);
 *   Cortex-M4:  DDI 0439B, section 3.3.1 (table 3-1) and 3.3.2, the FPU's table 7-1;
 *   Cortex-M33: no published table: the M4's timings (see docs/timing.md).
 * Every cost is for a core that is not stalled by memory: wait states are added by plugin.c. */
#include <string.h>
#include "costs.h"

int core_from_name(const char *name, struct core_model *out)
{
    static const struct core_model CORES[] = {
        {CORE_M0P, "cortex-m0plus", 1, 1},
        {CORE_M3, "cortex-m3", 2, 1},
        {CORE_M4, "cortex-m4", 2, 1},
        {CORE_M33, "cortex-m33", 2, 1},
    };
    for (size_t i = 0; i < sizeof CORES / sizeof CORES[0]; i++)
        if (!strcmp(CORES[i].name, name)) {
            *out = CORES[i];
            return 0;
        }
    return -1;
}

static struct cost fixed(int cycles) { return (struct cost){cycles, 0, DYN_NONE}; }

/* a PC write inside an IT block: its cost when the condition fails is charged at translation
 * (taken = what a passing condition adds) */
static struct cost conditional_pc(struct cost c, int refill)
{
    c.fixed -= refill;
    c.taken = refill;
    c.kind = DYN_BRANCH;
    return c;
}

/* Cortex-M0+ (2-stage pipeline, ARMv6-M): DDI 0484C table 3-1 (loads 2: the single-cycle I/O port's 1 is not modelled) */
static struct cost m0plus(const struct core_model *core, const struct insn *in)
{
    switch (in->cls) {
    case K_ALU_PC: return fixed(2);                 /* ADD/MOV PC: 2 */
    case K_MUL: return fixed(core->mul_cycles);     /* MULS: 1 or 32 */
    case K_LDR: case K_STR: return fixed(2);        /* LDR/STR (any): 2 */
    case K_LDM: return fixed(in->writes_pc ? 3 + in->nregs : 1 + in->nregs); /* POP {..,pc}: 3+N */
    case K_STM: return fixed(1 + in->nregs);        /* STM, PUSH: 1+N */
    case K_B: return fixed(2);                      /* B: 2 */
    case K_BCOND: return (struct cost){1, 1, DYN_BRANCH}; /* B<cc>: 1 not taken, 2 taken */
    case K_BL: return fixed(3);                     /* BL: 3 */
    case K_BX: return fixed(2);                     /* BX, BLX: 2 */
    case K_BARRIER: case K_ISB: case K_MRS: case K_MSR: return fixed(3); /* DMB/DSB/ISB, MRS, MSR: 3 */
    default: return fixed(1);                       /* ALU, extend, reverse, hints, CPS: 1 */
    }
}

/* loads and stores of the Cortex-M3/M4: 2 cycles, one less when pipelined after a single LDR
 * whose destination is not the new address's base (DDI 0337H 3.3.2, DDI 0439B 3.3.2) */
static struct cost load_store(const struct core_model *core, const struct insn *in, struct pipe_state *st)
{
    int refill = core->refill;
    switch (in->cls) {
    case K_LDR:
        if (in->writes_pc) return fixed(2 + refill);      /* LDR PC: 2+P */
        return fixed(st->after_load && in->base != st->load_dest ? 1 : 2);
    case K_STR: return fixed(st->after_load && in->base != st->load_dest ? 1 : 2);
    case K_LDRD: case K_STRD: return fixed(3);             /* 1+N, N = 2 */
    case K_LDM: return fixed(1 + in->nregs + (in->writes_pc ? refill : 0)); /* LDM, POP: 1+N (+P) */
    case K_STM: return fixed(1 + in->nregs);               /* STM, PUSH: 1+N */
    case K_VLDR: case K_VSTR: case K_VLDM: case K_VSTM: return fixed(1 + in->nregs); /* 1+N words */
    default: return fixed(1);
    }
}

/* Cortex-M3, M4 and (assumed) M33: 3-stage pipeline, ARMv7-M/ARMv8-M Mainline */
static struct cost m3_family(const struct core_model *core, const struct insn *in, struct pipe_state *st)
{
    int m3 = core->id == CORE_M3, refill = core->refill;
    switch (in->cls) {
    case K_ALU_PC: return fixed(1 + refill);               /* ADD/MOV PC: 1+P */
    case K_MUL: return fixed(1);                           /* MUL: 1 */
    case K_MLA: return fixed(m3 ? 2 : 1);                  /* MLA, MLS: M3 2, M4 1 */
    case K_MULL: case K_MLAL:                              /* M3: 3-5, 4-7; M4: 1 */
        return m3 ? (struct cost){0, 0, DYN_MULL} : fixed(1);
    case K_DSP_MUL: return fixed(1);                       /* M4 DSP multiplies: 1 */
    case K_DIV: return (struct cost){0, 0, DYN_DIV};        /* SDIV, UDIV: 2-12 */
    case K_B: return fixed(1 + refill);                    /* B: 1+P */
    case K_BCOND: return (struct cost){1, refill, DYN_BRANCH}; /* B<cc>: 1, or 1+P taken */
    case K_CBZ: return (struct cost){1, refill, DYN_BRANCH};  /* CBZ/CBNZ: 1, or 1+P taken */
    case K_BL: case K_BX: return fixed(1 + refill);        /* BL, BX, BLX: 1+P */
    case K_TB: return fixed(2 + refill);                   /* TBB, TBH: 2+P */
    case K_ISB: return fixed(1 + refill);                  /* ISB: 1+B, B at least a refill */
    case K_IT: return fixed(st->after_16bit ? 0 : 1);      /* IT: 1, folded after a 16-bit instruction */
    case K_VMLA: return fixed(3);                          /* VMLA/VMLS/VNMLA/VFMA...: 3 */
    case K_VDIV: return fixed(14);                         /* VDIV, VSQRT: 14 */
    case K_VMOV_CORE2: return fixed(2);                    /* VMOV two core registers: 2 */
    case K_LDR: case K_STR: case K_LDRD: case K_STRD: case K_LDM: case K_STM:
    case K_VLDR: case K_VSTR: case K_VLDM: case K_VSTM:
        return load_store(core, in, st);
    default: return fixed(1); /* ALU, DSP SIMD, saturation, hints, DMB/DSB (1+B, B = 0), MRS/MSR, FPU ALU: 1 */
    }
}

struct cost insn_cost(const struct core_model *core, const struct insn *in, int size, struct pipe_state *st)
{
    struct cost c = core->id == CORE_M0P ? m0plus(core, in) : m3_family(core, in, st);
    int refill = core->id == CORE_M0P ? (in->cls == K_LDM ? 2 : 1) : core->refill;
    if (in->in_it && in->writes_pc && c.kind == DYN_NONE) c = conditional_pc(c, refill);
    if (in->in_it && (in->cls == K_B || in->cls == K_BX || in->cls == K_BL) && c.kind == DYN_NONE)
        c = conditional_pc(c, refill);
    if (in->in_it && c.kind == DYN_NONE && c.fixed > 1) c.kind = DYN_IT_SKIP; /* a failed one costs 1 */
    st->after_load = core->id != CORE_M0P && in->cls == K_LDR && !in->writes_pc;
    st->load_dest = in->dest;
    st->after_16bit = size == 2;
    return c;
}

static int bits(uint32_t v) { return v ? 32 - __builtin_clz(v) : 0; }

/* The TRMs give 2-12 cycles, fewer when the operands are close in size, with no formula. Model:
 * 2 cycles, plus the quotient's significant bits spread linearly over the other 10 cycles. */
int divide_cycles(uint32_t n, uint32_t d, int is_signed)
{
    if (is_signed) {
        n = (int32_t)n < 0 ? -n : n;
        d = (int32_t)d < 0 ? -d : d;
    }
    int q = (d == 0 || n < d) ? 0 : bits(n) - bits(d) + 1;
    return 2 + (q * 10 + 31) / 32;
}

/* Cortex-M3 UMULL/SMULL 3-5, UMLAL/SMLAL 4-7 (signed one longer): early termination by the
 * operands' size, with no formula published. Model: 3, +1 when the larger operand needs over 16
 * significant bits, +1 over 24 (signed: magnitude); accumulate +1, signed accumulate +1 more. */
int mull_cycles_m3(uint32_t a, uint32_t b, int is_signed, int accumulate)
{
    if (is_signed) {
        a = (int32_t)a < 0 ? ~a : a;
        b = (int32_t)b < 0 ? ~b : b;
    }
    int wide = bits(a > b ? a : b);
    int c = 3 + (wide > 16) + (wide > 24);
    return accumulate ? c + 1 + is_signed : c;
}
