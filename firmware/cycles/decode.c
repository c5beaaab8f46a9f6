/* Thumb/Thumb-2 instructions classified from their disassembly text (QEMU prints capstone's
 * "mnemonic operands"): only at translation, never on the executed path. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "decode.h"

struct entry { const char *name; enum insn_class cls; };

static const struct entry TABLE[] = {
    /* data processing: 1 cycle on every core modelled */
    {"adc", K_ALU}, {"add", K_ALU}, {"addw", K_ALU}, {"adr", K_ALU}, {"and", K_ALU}, {"asr", K_ALU},
    {"bfc", K_ALU}, {"bfi", K_ALU}, {"bic", K_ALU}, {"clz", K_ALU}, {"cmn", K_ALU}, {"cmp", K_ALU},
    {"eor", K_ALU}, {"lsl", K_ALU}, {"lsr", K_ALU}, {"mov", K_ALU}, {"movw", K_ALU}, {"movt", K_ALU},
    {"mvn", K_ALU}, {"neg", K_ALU}, {"orn", K_ALU}, {"orr", K_ALU}, {"rbit", K_ALU}, {"rev", K_ALU},
    {"rev16", K_ALU}, {"revsh", K_ALU}, {"ror", K_ALU}, {"rrx", K_ALU}, {"rsb", K_ALU}, {"sbc", K_ALU},
    {"sbfx", K_ALU}, {"ssat", K_ALU}, {"sub", K_ALU}, {"subw", K_ALU}, {"sxtb", K_ALU}, {"sxth", K_ALU},
    {"teq", K_ALU}, {"tst", K_ALU}, {"ubfx", K_ALU}, {"usat", K_ALU}, {"uxtb", K_ALU}, {"uxth", K_ALU},
    {"sxtab", K_ALU}, {"sxtah", K_ALU}, {"uxtab", K_ALU}, {"uxtah", K_ALU}, {"sxtb16", K_ALU},
    {"uxtb16", K_ALU}, {"sxtab16", K_ALU}, {"uxtab16", K_ALU}, {"pkhbt", K_ALU}, {"pkhtb", K_ALU},
    {"sel", K_ALU}, {"qadd", K_ALU}, {"qsub", K_ALU}, {"qdadd", K_ALU}, {"qdsub", K_ALU},
    {"qadd8", K_ALU}, {"qadd16", K_ALU}, {"qsub8", K_ALU}, {"qsub16", K_ALU}, {"qasx", K_ALU},
    {"qsax", K_ALU}, {"sadd8", K_ALU}, {"sadd16", K_ALU}, {"ssub8", K_ALU}, {"ssub16", K_ALU},
    {"sasx", K_ALU}, {"ssax", K_ALU}, {"shadd8", K_ALU}, {"shadd16", K_ALU}, {"shsub8", K_ALU},
    {"shsub16", K_ALU}, {"shasx", K_ALU}, {"shsax", K_ALU}, {"uadd8", K_ALU}, {"uadd16", K_ALU},
    {"usub8", K_ALU}, {"usub16", K_ALU}, {"uasx", K_ALU}, {"usax", K_ALU}, {"uhadd8", K_ALU},
    {"uhadd16", K_ALU}, {"uhsub8", K_ALU}, {"uhsub16", K_ALU}, {"uhasx", K_ALU}, {"uhsax", K_ALU},
    {"uqadd8", K_ALU}, {"uqadd16", K_ALU}, {"uqsub8", K_ALU}, {"uqsub16", K_ALU}, {"uqasx", K_ALU},
    {"uqsax", K_ALU}, {"usad8", K_ALU}, {"usada8", K_ALU}, {"ssat16", K_ALU}, {"usat16", K_ALU},
    {"cpy", K_ALU},
    /* multiplies and divides */
    {"mul", K_MUL}, {"mla", K_MLA}, {"mls", K_MLA}, {"smull", K_MULL}, {"umull", K_MULL},
    {"smlal", K_MLAL}, {"umlal", K_MLAL}, {"umaal", K_MLAL}, {"sdiv", K_DIV}, {"udiv", K_DIV},
    {"smlabb", K_DSP_MUL}, {"smlabt", K_DSP_MUL}, {"smlatb", K_DSP_MUL}, {"smlatt", K_DSP_MUL},
    {"smlawb", K_DSP_MUL}, {"smlawt", K_DSP_MUL}, {"smlad", K_DSP_MUL}, {"smladx", K_DSP_MUL},
    {"smlsd", K_DSP_MUL}, {"smlsdx", K_DSP_MUL}, {"smlald", K_DSP_MUL}, {"smlaldx", K_DSP_MUL},
    {"smlsld", K_DSP_MUL}, {"smlsldx", K_DSP_MUL}, {"smlalbb", K_DSP_MUL}, {"smlalbt", K_DSP_MUL},
    {"smlaltb", K_DSP_MUL}, {"smlaltt", K_DSP_MUL}, {"smmla", K_DSP_MUL}, {"smmlar", K_DSP_MUL},
    {"smmls", K_DSP_MUL}, {"smmlsr", K_DSP_MUL}, {"smmul", K_DSP_MUL}, {"smmulr", K_DSP_MUL},
    {"smuad", K_DSP_MUL}, {"smuadx", K_DSP_MUL}, {"smusd", K_DSP_MUL}, {"smusdx", K_DSP_MUL},
    {"smulbb", K_DSP_MUL}, {"smulbt", K_DSP_MUL}, {"smultb", K_DSP_MUL}, {"smultt", K_DSP_MUL},
    {"smulwb", K_DSP_MUL}, {"smulwt", K_DSP_MUL},
    /* loads and stores */
    {"ldr", K_LDR}, {"ldrb", K_LDR}, {"ldrh", K_LDR}, {"ldrsb", K_LDR}, {"ldrsh", K_LDR},
    {"ldrt", K_LDR}, {"ldrbt", K_LDR}, {"ldrht", K_LDR}, {"ldrsbt", K_LDR}, {"ldrsht", K_LDR},
    {"ldrex", K_LDR}, {"ldrexb", K_LDR}, {"ldrexh", K_LDR}, {"lda", K_LDR}, {"ldab", K_LDR},
    {"ldah", K_LDR}, {"ldaex", K_LDR}, {"pld", K_HINT}, {"pli", K_HINT},
    {"str", K_STR}, {"strb", K_STR}, {"strh", K_STR}, {"strt", K_STR}, {"strbt", K_STR},
    {"strht", K_STR}, {"strex", K_STR}, {"strexb", K_STR}, {"strexh", K_STR}, {"stl", K_STR},
    {"stlb", K_STR}, {"stlh", K_STR}, {"stlex", K_STR}, {"clrex", K_ALU},
    {"ldrd", K_LDRD}, {"strd", K_STRD},
    {"ldm", K_LDM}, {"ldmia", K_LDM}, {"ldmfd", K_LDM}, {"ldmdb", K_LDM}, {"pop", K_LDM},
    {"stm", K_STM}, {"stmia", K_STM}, {"stmea", K_STM}, {"stmdb", K_STM}, {"push", K_STM},
    /* branches */
    {"b", K_B}, {"bl", K_BL}, {"blx", K_BX}, {"bx", K_BX}, {"cbz", K_CBZ}, {"cbnz", K_CBZ},
    {"tbb", K_TB}, {"tbh", K_TB},
    {"it", K_IT}, {"itt", K_IT}, {"ite", K_IT}, {"ittt", K_IT}, {"itte", K_IT}, {"itet", K_IT},
    {"itee", K_IT}, {"itttt", K_IT}, {"ittte", K_IT}, {"ittet", K_IT}, {"ittee", K_IT},
    {"itett", K_IT}, {"itete", K_IT}, {"iteet", K_IT}, {"iteee", K_IT},
    /* system */
    {"nop", K_HINT}, {"yield", K_HINT}, {"wfe", K_HINT}, {"wfi", K_HINT}, {"sev", K_HINT},
    {"dmb", K_BARRIER}, {"dsb", K_BARRIER}, {"isb", K_ISB}, {"mrs", K_MRS}, {"msr", K_MSR},
    {"cpsid", K_CPS}, {"cpsie", K_CPS}, {"svc", K_SVC}, {"bkpt", K_SVC}, {"udf", K_SVC},
    {"dbg", K_HINT}, {"esb", K_HINT}, {"csdb", K_BARRIER}, {"ssbb", K_BARRIER}, {"pssbb", K_BARRIER},
    /* Armv8-M security extension (Cortex-M33) */
    {"sg", K_HINT}, {"bxns", K_BX}, {"blxns", K_BX}, {"tt", K_ALU}, {"ttt", K_ALU}, {"tta", K_ALU},
    {"ttat", K_ALU},
    /* FPU (FPv4-SP / FPv5) */
    {"vabs", K_VALU}, {"vadd", K_VALU}, {"vsub", K_VALU}, {"vmul", K_VALU}, {"vnmul", K_VALU},
    {"vneg", K_VALU}, {"vcmp", K_VALU}, {"vcmpe", K_VALU}, {"vcvt", K_VALU}, {"vcvtr", K_VALU},
    {"vcvtb", K_VALU}, {"vcvtt", K_VALU}, {"vcvta", K_VALU}, {"vcvtn", K_VALU}, {"vcvtp", K_VALU},
    {"vcvtm", K_VALU}, {"vrinta", K_VALU}, {"vrintn", K_VALU}, {"vrintp", K_VALU}, {"vrintm", K_VALU},
    {"vrintr", K_VALU}, {"vrintx", K_VALU}, {"vrintz", K_VALU}, {"vmaxnm", K_VALU}, {"vminnm", K_VALU},
    {"vsel", K_VALU}, {"vseleq", K_VALU}, {"vselge", K_VALU}, {"vselgt", K_VALU}, {"vselvs", K_VALU},
    {"vmla", K_VMLA}, {"vmls", K_VMLA}, {"vnmla", K_VMLA}, {"vnmls", K_VMLA}, {"vfma", K_VMLA},
    {"vfms", K_VMLA}, {"vfnma", K_VMLA}, {"vfnms", K_VMLA}, {"vdiv", K_VDIV}, {"vsqrt", K_VDIV},
    {"vldr", K_VLDR}, {"vstr", K_VSTR}, {"vldm", K_VLDM}, {"vldmia", K_VLDM}, {"vldmdb", K_VLDM},
    {"vpop", K_VLDM}, {"vstm", K_VSTM}, {"vstmia", K_VSTM}, {"vstmdb", K_VSTM}, {"vpush", K_VSTM},
    {"vmov", K_VALU}, {"vmrs", K_VSYS}, {"vmsr", K_VSYS},
};

static const char *CLASS_NAMES[K_NCLASSES] = {
    "unknown", "alu", "alu-pc", "mul", "mla", "mull", "mlal", "dsp-mul", "div",
    "ldr", "str", "ldrd", "strd", "ldm", "stm", "b", "bcond", "cbz", "bl", "bx", "tb", "it",
    "hint", "barrier", "isb", "mrs", "msr", "cps", "svc",
    "valu", "vmla", "vdiv", "vldr", "vstr", "vldm", "vstm", "vmov-core", "vmov-core2", "vsys",
};

static const char *CONDS[] = {"eq", "ne", "hs", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le"};

const char *class_name(enum insn_class cls) { return cls < K_NCLASSES ? CLASS_NAMES[cls] : "?"; }

static int cond_code(const char *s)
{
    if (!strcmp(s, "cs")) return 2;
    if (!strcmp(s, "cc")) return 3;
    for (int i = 0; i < 14; i++)
        if (!strcmp(s, CONDS[i])) return i;
    return -1;
}

static const struct entry *find(const char *name)
{
    for (size_t i = 0; i < sizeof TABLE / sizeof TABLE[0]; i++)
        if (!strcmp(TABLE[i].name, name)) return &TABLE[i];
    return NULL;
}

/* name as printed, without its width (.w/.n) or data-type (.f32) suffix; tries the bare name,
 * then without a flag-setting 's', then without an IT condition (and its 's'). */
static const struct entry *lookup(const char *name, int *cond)
{
    char base[16];
    size_t n = strlen(name);
    const struct entry *e;
    *cond = COND_AL;
    if (n == 3 && name[0] == 'b' && cond_code(name + 1) >= 0) {
        *cond = cond_code(name + n - 2); /* bne, bls: a conditional B, not BL + s */
        return find("b");
    }
    if ((e = find(name))) return e;
    if (n > 1 && n < sizeof base && name[n - 1] == 's') {
        memcpy(base, name, n - 1);
        base[n - 1] = 0;
        if ((e = find(base))) return e;
    }
    if (n > 2 && n < sizeof base && cond_code(name + n - 2) >= 0) {
        memcpy(base, name, n - 2);
        base[n - 2] = 0;
        if (!(e = find(base)) && n > 3 && base[n - 3] == 's') {
            base[n - 3] = 0;
            e = find(base);
        }
        if (e) *cond = cond_code(name + n - 2);
        return e;
    }
    return NULL;
}

static int reg_number(const char *s, size_t len)
{
    static const char *NAMED[] = {"sb", "sl", "fp", "ip", "sp", "lr", "pc"};
    if (len >= 2 && len <= 3 && s[0] == 'r' && isdigit((unsigned char)s[1])) {
        int r = atoi(s + 1);
        return r <= 15 ? r : -1;
    }
    for (int i = 0; i < 7; i++)
        if (len == 2 && !strncmp(s, NAMED[i], 2)) return 9 + i;
    return -1;
}

/* the registers of "{r4, r5-r7, pc}" (words: d registers count 2); *pc set when pc is in it */
static int count_list(const char *list, int *pc)
{
    int words = 0;
    const char *p = list + 1;
    *pc = 0;
    while (*p && *p != '}') {
        while (*p == ' ' || *p == ',') p++;
        const char *start = p;
        while (*p && *p != ',' && *p != '}' && *p != '-') p++;
        int width = (*start == 'd') ? 2 : 1;
        int first = (*start == 's' || *start == 'd') && start[1] != 'p' ? atoi(start + 1) : reg_number(start, p - start);
        if (reg_number(start, p - start) == 15) *pc = 1;
        if (*p == '-') {
            const char *end = ++p;
            while (*p && *p != ',' && *p != '}') p++;
            int last = (*end == 's' || *end == 'd') && end[1] != 'p' ? atoi(end + 1) : reg_number(end, p - end);
            if (reg_number(end, p - end) == 15) *pc = 1;
            words += (last - first + 1) * width;
        } else if (p > start) {
            words += width;
        }
    }
    return words;
}

/* the operands: registers in order (up to 4), the address's base and offset, a register list */
static void read_operands(const char *ops, struct insn *in)
{
    int regs[4] = {-1, -1, -1, -1}, nregs = 0, pc_in_list = 0;
    const char *p = ops;
    int in_bracket = 0, after_base = 0;
    while (*p) {
        if (*p == '{') {
            in->nregs = count_list(p, &pc_in_list);
            if (pc_in_list) in->writes_pc = 1;
            while (*p && *p != '}') p++;
            continue;
        }
        if (*p == '[') { in_bracket = 1; p++; continue; }
        if (*p == ']') { in_bracket = 0; p++; continue; }
        if (*p == '#' && in_bracket) in->imm = (int32_t)strtol(p + 1, NULL, 0);
        if (*p == '#' && !in_bracket) in->target = (uint32_t)strtoul(p + 1, NULL, 0);
        if (isalpha((unsigned char)*p)) {
            const char *start = p;
            while (isalnum((unsigned char)*p)) p++;
            int r = reg_number(start, p - start);
            if (r >= 0 && in_bracket) {
                if (!after_base) { in->base = r; after_base = 1; }
                else if (start[-1] != '#') in->offset_reg = 1;
            } else if (r >= 0 && nregs < 4) {
                regs[nregs++] = r;
            } else if ((*start == 's' || *start == 'd') && isdigit((unsigned char)start[1]) && nregs < 4) {
                regs[nregs++] = (*start == 'd') ? 100 : 50; /* an FPU register: a 32- or 64-bit word */
            }
            continue;
        }
        p++;
    }
    in->dest = regs[0] >= 0 && regs[0] < 16 ? regs[0] : REG_NONE;
    if (in->dest == 15) in->writes_pc = 1;
    in->src1 = regs[nregs >= 4 ? 2 : 1] >= 0 ? regs[nregs >= 4 ? 2 : 1] : REG_NONE;
    in->src2 = regs[nregs >= 4 ? 3 : 2] >= 0 ? regs[nregs >= 4 ? 3 : 2] : REG_NONE;
    if (in->cls == K_VLDR || in->cls == K_VSTR) in->nregs = regs[0] == 100 ? 2 : 1;
    if (in->cls == K_VALU && !strcmp(in->mnemonic, "vmov")) {
        int core = 0;
        for (int i = 0; i < nregs; i++) core += regs[i] >= 0 && regs[i] < 16;
        if (core == 1) in->cls = K_VMOV_CORE;
        if (core == 2) in->cls = K_VMOV_CORE2;
    }
    if (in->cls == K_ALU && (in->dest == 15)) in->cls = K_ALU_PC;
    if ((in->cls == K_MULL || in->cls == K_MLAL) && nregs == 4) { in->src1 = regs[2]; in->src2 = regs[3]; }
    if (in->cls == K_DIV || in->cls == K_MUL || in->cls == K_MLA) {
        in->src1 = nregs >= 3 ? regs[1] : regs[0];
        in->src2 = nregs >= 3 ? regs[2] : regs[1];
    }
}

int decode_insn(const char *disas, struct insn *in)
{
    char name[24];
    size_t n = 0;
    memset(in, 0, sizeof *in);
    in->cond = COND_AL;
    in->dest = in->base = in->src1 = in->src2 = REG_NONE;
    while (*disas == ' ' || *disas == '\t') disas++;
    while (*disas && !isspace((unsigned char)*disas) && n + 1 < sizeof name) name[n++] = *disas++;
    name[n] = 0;
    char *dot = strchr(name, '.');
    if (dot) *dot = 0;
    int cond;
    const struct entry *e = lookup(name, &cond);
    strncpy(in->mnemonic, e ? e->name : name, sizeof in->mnemonic - 1);
    if (!e) {
        in->cls = K_UNKNOWN;
        return -1;
    }
    in->cls = e->cls;
    in->cond = (uint8_t)cond;
    if (cond != COND_AL && e->cls != K_B) in->in_it = 1;
    if (e->cls == K_B && cond != COND_AL) in->cls = K_BCOND;
    in->signed_op = name[0] == 's' && (e->cls == K_MULL || e->cls == K_MLAL || e->cls == K_DIV);
    read_operands(disas, in);
    if (e->cls == K_IT) { /* "itte eq": the block's first condition; the mnemonic keeps the pattern */
        char c[3] = {0};
        while (*disas == ' ' || *disas == '\t') disas++;
        memcpy(c, disas, 2);
        in->cond = cond_code(c) >= 0 ? (uint8_t)cond_code(c) : COND_AL;
    }
    in->has_target = e->cls == K_B || e->cls == K_BL || e->cls == K_CBZ;
    if (e->cls == K_CBZ) in->cond = name[2] == 'n' ? 1 : 0; /* cbnz: ne, cbz: eq, on the register */
    if (e->cls == K_LDM || e->cls == K_STM || e->cls == K_VLDM || e->cls == K_VSTM) {
        int stack = !strcmp(e->name, "push") || !strcmp(e->name, "pop") || !strcmp(e->name, "vpush") || !strcmp(e->name, "vpop");
        in->base = stack ? 13 : in->dest;
    }
    return 0;
}

void apply_it(struct it_state *it, struct insn *in)
{
    if (it->left && in->cls != K_IT) {
        int k = 4 - it->left--;
        if (in->cond == COND_AL) in->cond = it->cond[k];
        if (in->cls == K_B && in->cond != COND_AL) in->cls = K_BCOND;
        else in->in_it = 1;
    }
    if (in->cls == K_IT && in->cond != COND_AL) {
        const char *pattern = in->mnemonic + 1; /* "tte" of "itte": t = the condition, e = its inverse */
        it->left = (int)strlen(pattern);
        for (int i = 0; i < it->left; i++) it->cond[4 - it->left + i] = pattern[i] == 't' ? in->cond : in->cond ^ 1;
    }
}
