/* Each instruction's cycles on an in-order Cortex-M core, from its Technical Reference Manual. */
#ifndef CYCLES_COSTS_H
#define CYCLES_COSTS_H
#include "decode.h"

enum core_id { CORE_M0P, CORE_M3, CORE_M4, CORE_M33 };

struct core_model {
    enum core_id id;
    const char *name;
    int refill;     /* P: cycles to refill the pipeline after a taken branch */
    int mul_cycles; /* Cortex-M0+ MULS: 1 (fast multiplier) or 32 (small) */
};

/* DYN_BRANCH: a conditional PC write, taken or not as the next block's address says;
 * DYN_DIV, DYN_MULL: the operands' values decide (read at the instruction);
 * DYN_IT_SKIP: an instruction of an IT block costing over 1: 1 when its condition fails */
enum dynamic_kind { DYN_NONE, DYN_BRANCH, DYN_DIV, DYN_MULL, DYN_IT_SKIP };

struct cost {
    int fixed;              /* charged at translation: the whole cost, or a conditional branch not taken */
    int taken;              /* added when the instruction's condition passes and it writes PC */
    enum dynamic_kind kind; /* what the execution callback decides */
};

/* what the previous instruction of the block leaves for the next (load/store pipelining, IT folding) */
struct pipe_state {
    int after_load; /* the previous instruction was a single LDR: the next LDR/STR may pipeline */
    int load_dest;  /* its destination register */
    int after_16bit;
};

int core_from_name(const char *name, struct core_model *out);
struct cost insn_cost(const struct core_model *core, const struct insn *in, int size, struct pipe_state *st);
/* cycles of a divide, multiply-long: operand values known (execution callback) */
int divide_cycles(uint32_t n, uint32_t d, int is_signed);
int mull_cycles_m3(uint32_t a, uint32_t b, int is_signed, int accumulate);
#endif
