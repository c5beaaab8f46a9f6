#define MCUROOF_BOARD "qemu-m55"
#define MCUROOF_MACHINE "mps3-an547"
#define MCUROOF_CORE "Cortex-M55"
#define MCUROOF_CPU_HZ (32000000)
#define MCUROOF_UART_BASE (0x49303000)  /* Non-Secure alias; works from Secure state */
#define MCUROOF_FPU (1)
#define MICROPY_EMIT_INLINE_THUMB_FLOAT (1)
