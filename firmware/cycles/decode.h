/* One Thumb instruction as the cycle model needs it, read from QEMU's (capstone's) disassembly. */
#ifndef CYCLES_DECODE_H
#define CYCLES_DECODE_H
#include <stdint.h>

enum insn_class {
    K_UNKNOWN, K_ALU, K_ALU_PC, K_MUL, K_MLA, K_MULL, K_MLAL, K_DSP_MUL, K_DIV,
    K_LDR, K_STR, K_LDRD, K_STRD, K_LDM, K_STM, K_B, K_BCOND, K_CBZ, K_BL, K_BX, K_TB, K_IT,
    K_HINT, K_BARRIER, K_ISB, K_MRS, K_MSR, K_CPS, K_SVC,
    K_VALU, K_VMLA, K_VDIV, K_VLDR, K_VSTR, K_VLDM, K_VSTM, K_VMOV_CORE, K_VMOV_CORE2, K_VSYS,
    K_NCLASSES
};

#define COND_AL 14
#define REG_NONE 255

struct insn {
    enum insn_class cls;
    uint8_t cond;       /* 0-13: eq..le (from Bcc or an IT block's suffix), COND_AL otherwise */
    uint8_t in_it;      /* the instruction carries an IT block's condition */
    uint8_t nregs;      /* LDM/STM/PUSH/POP: registers; VLDM/VSTM/VLDR/VSTR: 32-bit words */
    uint8_t writes_pc;  /* loads PC, pops it, or writes it from the ALU */
    uint8_t dest;       /* first register operand (r0-r15), REG_NONE otherwise */
    uint8_t base;       /* the address's base register (r0-r15: 13 sp, 15 pc), REG_NONE if none */
    uint8_t offset_reg; /* the address has a register offset */
    uint8_t signed_op;  /* SMULL/SMLAL/SDIV */
    uint8_t src1, src2; /* register operands of a multiply or divide (the two multiplied/divided) */
    int32_t imm;        /* the address's immediate offset ([pc, #imm] literals) */
    uint32_t target;    /* B, B<cc>, BL, CBZ: the branch's target address */
    uint8_t has_target;
    char mnemonic[16];  /* without condition, flag-setting 's' or width suffix */
};

/* the conditions an IT instruction gives the (up to 4) instructions after it */
struct it_state {
    int left;
    uint8_t cond[4];
};

/* 0 when the text was decoded, -1 when the mnemonic is not in the tables (cls K_UNKNOWN). */
int decode_insn(const char *disas, struct insn *out);
const char *class_name(enum insn_class cls);
/* the disassembly prints an IT block's instructions without their condition: this gives it them */
void apply_it(struct it_state *it, struct insn *in);
#endif
