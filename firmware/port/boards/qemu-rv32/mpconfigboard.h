#define MCUROOF_BOARD "qemu-rv32"
#define MCUROOF_MACHINE "virt"
#define MCUROOF_CORE "RV32IMAC"
// QEMU models no core clock: machine.freq() gives the CLINT timebase (virt's timebase-frequency)
#define MCUROOF_CPU_HZ (10000000)
#define MCUROOF_UART_BASE (0x10000000)
#define MCUROOF_FPU (0)
