#define MCUROOF_BOARD "qemu-m0plus"
#define MCUROOF_MACHINE "microbit"
#define MCUROOF_CORE "Cortex-M0+"
#define MCUROOF_CPU_HZ (125000000)  /* the clock where the cycle model gives none */
#define MCUROOF_FPU (0)
// Armv6-M: the native emitters and the inline assembler without the Thumb-2 instructions
#define MICROPY_EMIT_THUMB_ARMV7M (0)
#define MICROPY_EMIT_INLINE_THUMB_ARMV7M (0)
#define MICROPY_EMIT_INLINE_THUMB_FLOAT (0)
/* time is the cycle model's (firmware/cycles): read at the mark, no SysTick */
#define MCUROOF_MODELLED_TIME (1)
#define MCUROOF_MARK_ADDR (0x20000000)
