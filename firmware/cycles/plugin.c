/* mcuroof's cycle model: a QEMU 7.2 TCG plugin that charges each executed Thumb instruction its
 * cycles on an in-order Cortex-M core (costs.c), plus the wait states of the memory it is fetched
 * from and the data it reads or writes (memory.c), and lets the guest read the count.
 *
 *   -plugin cycles.so,core=CORE,clock_hz=HZ,heap_bytes=N,mark_at=0xADDR,regions=FILE
 *                     [,mul_cycles=1|32][,refill=P][,verbose=1]
 *
 * The mark: a store by the guest to 0xE0001004 (DWT_CYCCNT's address; QEMU has no DWT) makes the
 * plugin write at guest physical address mark_at, right after that store, 24 bytes:
 * uint64 cycles, uint32 clock_hz, uint32 heap_bytes, uint32 magic 0x4352434D, uint32 version 1.
 *
 * Hot path: each block's static cost (every instruction's cycles, conditional branches counted
 * not taken, and the fetch wait states of a region without a line buffer) is one inline add.
 * Every block also runs one callback without registers (on_block): whether the previous block's
 * conditional branch was taken (this block's address says), and the line buffer. Other callbacks:
 * divides and the Cortex-M3's long multiplies (the operands' values decide, read at the
 * instruction), instructions of an IT block that cost over 1 (the flags decide), single stores (the mark) and, only where a region has data wait states, loads
 * and stores not based on SP or PC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qemu_plugin_api.h"
#include "costs.h"
#include "memory.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

#define MARK_ADDR 0xE0001004u
#define MARK_MAGIC 0x4352434Du
#define MAX_UNKNOWN 64

static struct core_model core;
static struct memory mem;
static uint64_t cycles, insns, branch_taken, branch_seen;
static uint32_t clock_hz, heap_bytes;
static uint64_t mark_at;
static int verbose;
static CPUState *cpu;
static GByteArray *regbuf;
static struct { char name[16]; uint64_t count; } unknown[MAX_UNKNOWN];
static int n_unknown;

static uint32_t read_reg(unsigned int vcpu, int n)
{
    if (!cpu) cpu = qemu_get_cpu(vcpu);
    g_byte_array_set_size(regbuf, 0);
    arm_cpu_gdb_read_register(cpu, regbuf, n);
    uint32_t v;
    memcpy(&v, regbuf->data, 4);
    return v;
}

/* what a block's execution callback knows: its address, the line buffer lines it is fetched
 * through, and, when it ends in a conditional PC write, where it falls through and branches to */
struct block {
    uint32_t start;
    uint32_t fallthrough, target; /* target: 0 when not known at translation (BX, POP {pc} in IT) */
    uint16_t taken;               /* cycles a taken branch adds */
    uint8_t ends_conditional;
    int8_t region;                /* index of the region with the line buffer, -1 if none */
    uint32_t first_line, last_line;
};

static const struct block *pending; /* the last block, when it ended in a conditional branch */

/* every block starts here: the previous block's conditional branch was taken when this block is
 * its target (or, target unknown, anything but its fall-through); then the line buffer */
static void on_block(unsigned int vcpu, void *ud)
{
    const struct block *b = ud;
    if (pending) {
        const struct block *p = pending;
        int taken = p->target ? b->start == p->target : b->start != p->fallthrough;
        branch_seen++;
        if (taken) {
            cycles += p->taken;
            branch_taken++;
        }
        pending = NULL;
    }
    if (b->ends_conditional) pending = b;
    if (b->region >= 0) {
        struct region *r = &mem.r[b->region];
        cycles += accel_fetch(r->accel, b->first_line, b->last_line, r->fetch_ws);
    }
}

static int cond_passes(uint32_t xpsr, int cond)
{
    int n = xpsr >> 31 & 1, z = xpsr >> 30 & 1, c = xpsr >> 29 & 1, v = xpsr >> 28 & 1, r;
    switch (cond >> 1) {
    case 0: r = z; break;             /* eq, ne */
    case 1: r = c; break;             /* hs, lo */
    case 2: r = n; break;             /* mi, pl */
    case 3: r = v; break;             /* vs, vc */
    case 4: r = c && !z; break;       /* hi, ls */
    case 5: r = n == v; break;        /* ge, lt */
    case 6: r = !z && n == v; break;  /* gt, le */
    default: return 1;
    }
    return (cond & 1) ? !r : r;
}

/* the execution callbacks' user data: kind, two registers, a flag */
#define UD(kind, a, b, flag) ((uintptr_t)(kind) | (uintptr_t)(a) << 4 | (uintptr_t)(b) << 12 | (uintptr_t)(flag) << 20)
#define UD_KIND(u) ((u) & 15)
#define UD_A(u) ((u) >> 4 & 255)
#define UD_B(u) ((u) >> 12 & 255)
#define UD_FLAG(u) ((u) >> 20 & 255)

static void on_insn(unsigned int vcpu, void *ud)
{
    uintptr_t u = (uintptr_t)ud;
    if (UD_KIND(u) == DYN_DIV)
        cycles += divide_cycles(read_reg(vcpu, UD_A(u)), read_reg(vcpu, UD_B(u)), UD_FLAG(u) & 1);
    else if (UD_KIND(u) == DYN_MULL)
        cycles += mull_cycles_m3(read_reg(vcpu, UD_A(u)), read_reg(vcpu, UD_B(u)), UD_FLAG(u) & 1, UD_FLAG(u) >> 1 & 1);
    else if (UD_KIND(u) == DYN_IT_SKIP && !cond_passes(read_reg(vcpu, 25), UD_A(u)))
        cycles -= UD_B(u); /* charged in full at translation: a failed condition costs 1 */
}

static void write_mark(unsigned int vcpu, uint64_t now)
{
    uint8_t rec[24];
    uint32_t words[4] = {clock_hz, heap_bytes, MARK_MAGIC, 1};
    memcpy(rec, &now, 8);
    memcpy(rec + 8, words, 16);
    if (!cpu) cpu = qemu_get_cpu(vcpu);
    /* through the CPU's own address space: a SoC such as the micro:bit's maps its RAM there only */
    cpu_memory_rw_debug(cpu, mark_at, rec, sizeof rec, true);
}

/* user data of a memory callback: the static cycles of the block after this instruction (the
 * mark must not count them), bit 0: the access may be a mark (a single store) */
static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *ud)
{
    uintptr_t u = (uintptr_t)ud;
    if (mem.any_data_ws) {
        const struct region *r = memory_find(&mem, (uint32_t)vaddr);
        if (r) cycles += r->data_ws;
    }
    if ((u & 1) && vaddr == MARK_ADDR && qemu_plugin_mem_is_store(info)) write_mark(vcpu, cycles - (u >> 1));
}

static void note_unknown(struct qemu_plugin_insn *qi, const char *name)
{
    int i = 0;
    while (i < n_unknown && strcmp(unknown[i].name, name)) i++;
    if (i == n_unknown) {
        if (n_unknown == MAX_UNKNOWN) i = MAX_UNKNOWN - 1; /* the last slot gathers the rest */
        else snprintf(unknown[n_unknown++].name, sizeof unknown[0].name, "%s", name);
    }
    qemu_plugin_register_vcpu_insn_exec_inline(qi, QEMU_PLUGIN_INLINE_ADD_U64, &unknown[i].count, 1);
}

/* the callbacks one instruction needs besides the block's inline add */
static void instrument(struct qemu_plugin_insn *qi, const struct insn *in, struct cost c, uint64_t after)
{
    int single_store = in->cls == K_STR && in->base != 13;
    int data = mem.any_data_ws && in->base != 13 && in->base != 15 &&
               (in->cls == K_LDR || in->cls == K_STR || in->cls == K_LDRD || in->cls == K_STRD ||
                in->cls == K_LDM || in->cls == K_STM || in->cls == K_VLDR || in->cls == K_VSTR ||
                in->cls == K_VLDM || in->cls == K_VSTM);
    if (single_store || data)
        qemu_plugin_register_vcpu_mem_cb(qi, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
                                         (void *)(uintptr_t)(after << 1 | single_store));
    uintptr_t ud = 0;
    if (c.kind == DYN_DIV) ud = UD(DYN_DIV, in->src1, in->src2, in->signed_op);
    if (c.kind == DYN_MULL) ud = UD(DYN_MULL, in->src1, in->src2, in->signed_op | (in->cls == K_MLAL) << 1);
    if (c.kind == DYN_IT_SKIP) ud = UD(DYN_IT_SKIP, in->cond, c.fixed - 1, 0);
    if (ud) qemu_plugin_register_vcpu_insn_exec_cb(qi, on_insn, QEMU_PLUGIN_CB_R_REGS, (void *)ud);
}

/* a literal load's address is known at translation: its data wait states are static */
static int literal_ws(const struct insn *in, uint32_t pc)
{
    if (in->base != 15 || (in->cls != K_LDR && in->cls != K_LDRD && in->cls != K_VLDR)) return 0;
    const struct region *r = memory_find(&mem, ((pc + 4) & ~3u) + in->imm);
    return r ? r->data_ws : 0;
}

/* the block's record for on_block (kept: QEMU may run the block until the end) */
static struct block *describe(struct qemu_plugin_tb *tb, const struct insn *last, struct cost c, const struct region *fetch)
{
    struct block *b = calloc(1, sizeof *b);
    size_t n = qemu_plugin_tb_n_insns(tb);
    struct qemu_plugin_insn *lastq = qemu_plugin_tb_get_insn(tb, n - 1);
    uint32_t end = (uint32_t)qemu_plugin_insn_vaddr(lastq) + qemu_plugin_insn_size(lastq);
    b->start = (uint32_t)qemu_plugin_tb_vaddr(tb);
    b->region = -1;
    if (c.kind == DYN_BRANCH) {
        b->ends_conditional = 1;
        b->fallthrough = end;
        b->target = last->has_target ? last->target : 0;
        b->taken = (uint16_t)c.taken;
    }
    if (fetch && fetch->accel) {
        int shift = __builtin_ctz(fetch->accel->line_bytes);
        b->region = (int8_t)(fetch - mem.r);
        b->first_line = b->start >> shift;
        b->last_line = (end - 1) >> shift;
    }
    return b;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);
    int cost[n ? n : 1];
    struct insn in[n ? n : 1];
    struct cost c[n ? n : 1];
    struct pipe_state st = {0, REG_NONE, 0};
    struct it_state it = {0, {0}};
    uint64_t total = 0;
    uint32_t start = (uint32_t)qemu_plugin_tb_vaddr(tb), last_word = UINT32_MAX;
    const struct region *fetch = memory_find(&mem, start);
    int buffered = fetch && fetch->accel;
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *qi = qemu_plugin_tb_get_insn(tb, i);
        uint32_t pc = (uint32_t)qemu_plugin_insn_vaddr(qi);
        int size = (int)qemu_plugin_insn_size(qi);
        char *text = qemu_plugin_insn_disas(qi);
        if (decode_insn(text, &in[i]) < 0) note_unknown(qi, in[i].mnemonic);
        apply_it(&it, &in[i]);
        c[i] = insn_cost(&core, &in[i], size, &st);
        cost[i] = c[i].fixed + literal_ws(&in[i], pc);
        const struct region *r = buffered ? NULL : memory_find(&mem, pc);
        for (uint32_t w = pc >> 2; r && w <= (pc + size - 1) >> 2; w++)
            if (w != last_word) cost[i] += r->fetch_ws;
        last_word = (pc + size - 1) >> 2;
        total += cost[i];
        if (verbose) {
            char line[160];
            snprintf(line, sizeof line, "%08x %-28s %-10s %d%s\n", pc, text, class_name(in[i].cls), cost[i],
                     c[i].kind ? " +dyn" : "");
            qemu_plugin_outs(line);
        }
        g_free(text);
    }
    uint64_t before = 0;
    for (size_t i = 0; i < n; i++) {
        before += cost[i];
        instrument(qemu_plugin_tb_get_insn(tb, i), &in[i], c[i], total - before);
    }
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &cycles, total);
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns, n);
    if (n) qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS, describe(tb, &in[n - 1], c[n - 1], fetch));
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
    char line[300];
    snprintf(line, sizeof line, "cycles: %s %" PRIu64 " cycles, %" PRIu64 " instructions, %" PRIu64
             " of %" PRIu64 " conditional branches taken\n", core.name, cycles, insns, branch_taken, branch_seen);
    qemu_plugin_outs(line);
    for (int i = 0; i < mem.n; i++)
        if (mem.r[i].accel) {
            struct accel *a = mem.r[i].accel;
            snprintf(line, sizeof line, "cycles: %s line buffer: %" PRIu64 " hits, %" PRIu64 " prefetched, %" PRIu64
                     " misses\n", mem.r[i].name, a->hits, a->prefetched, a->misses);
            qemu_plugin_outs(line);
        }
    for (int i = 0; i < n_unknown; i++) {
        snprintf(line, sizeof line, "cycles: unknown instruction %.15s executed %" PRIu64 " times (charged 1 cycle)\n",
                 unknown[i].name, unknown[i].count);
        qemu_plugin_outs(line);
    }
}

static int parse_args(int argc, char **argv, char *err, int errlen)
{
    int have_core = 0, refill = 0, mul = 0;
    const char *regions = NULL;
    for (int i = 0; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        const char *key = argv[i], *val = eq ? eq + 1 : "";
        size_t klen = eq ? (size_t)(eq - key) : strlen(key);
#define IS(k) (klen == strlen(k) && !strncmp(key, k, klen))
        if (IS("core")) {
            if (core_from_name(val, &core) < 0) {
                snprintf(err, errlen, "core=%s: one of cortex-m0plus, cortex-m3, cortex-m4, cortex-m33", val);
                return -1;
            }
            have_core = 1;
        } else if (IS("clock_hz")) clock_hz = (uint32_t)strtoul(val, NULL, 0);
        else if (IS("heap_bytes")) heap_bytes = (uint32_t)strtoul(val, NULL, 0);
        else if (IS("mark_at")) mark_at = strtoull(val, NULL, 0);
        else if (IS("regions")) regions = val;
        else if (IS("refill")) refill = atoi(val);
        else if (IS("mul_cycles")) mul = atoi(val);
        else if (IS("verbose")) verbose = atoi(val);
        else {
            snprintf(err, errlen, "unknown argument %s (core, clock_hz, heap_bytes, mark_at, regions, "
                     "mul_cycles, refill, verbose)", argv[i]);
            return -1;
        }
#undef IS
    }
    if (!have_core || !clock_hz || !mark_at) {
        snprintf(err, errlen, "core=, clock_hz= and mark_at= are required");
        return -1;
    }
    if (refill) core.refill = refill;
    if (mul == 1 || mul == 32) core.mul_cycles = mul;
    else if (mul) {
        snprintf(err, errlen, "mul_cycles=%d: 1 or 32", mul);
        return -1;
    }
    return regions && *regions ? memory_load(&mem, regions, err, errlen) : 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    char err[300];
    if (strcmp(info->target_name, "arm") || !info->system_emulation) {
        fprintf(stderr, "cycles plugin: needs qemu-system-arm (not %s)\n", info->target_name);
        return -1;
    }
    if (parse_args(argc, argv, err, sizeof err) < 0) {
        fprintf(stderr, "cycles plugin: %s\n", err);
        return -1;
    }
    regbuf = g_byte_array_new();
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
