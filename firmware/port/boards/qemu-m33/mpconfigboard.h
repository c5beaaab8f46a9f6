#define MCUROOF_BOARD "qemu-m33"
#define MCUROOF_MACHINE "mps2-an505"
#define MCUROOF_CORE "Cortex-M33"
#define MCUROOF_CPU_HZ (25000000)  /* the clock where the cycle model gives none */
#define MCUROOF_UART_BASE (0x50200000)  /* UART0 through the Secure alias of the expansion APB */
#define MCUROOF_FPU (1)
#define MICROPY_EMIT_INLINE_THUMB_FLOAT (1)
/* time is the cycle model's (firmware/cycles): read at the mark, no SysTick */
#define MCUROOF_MODELLED_TIME (1)
#define MCUROOF_MARK_ADDR (0x38000000)
