#define MCUROOF_BOARD "qemu-m4"
#define MCUROOF_MACHINE "mps2-an386"
#define MCUROOF_CORE "Cortex-M4"
#define MCUROOF_CPU_HZ (25000000)  /* the clock where the cycle model gives none */
#define MCUROOF_UART_BASE (0x40004000)
#define MCUROOF_FPU (1)
#define MICROPY_EMIT_INLINE_THUMB_FLOAT (1)
/* time is the cycle model's (firmware/cycles): read at the mark, no SysTick */
#define MCUROOF_MODELLED_TIME (1)
#define MCUROOF_MARK_ADDR (0x20000000)
