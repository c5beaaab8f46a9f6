// The board's hardware as this port uses it. Each board's HAL file provides these functions,
// mp_hal_stdout_tx_strn, the ticks and delays, and a UART receive interrupt that hands every byte
// to console_rx_put (console.c, shared by every board):
// - hal.c (qemu-m3, qemu-m7, qemu-m55, qemu-m4, qemu-m33): the CMSDK UART through the NVIC, SysTick
//   every millisecond (qemu-m4 and qemu-m33: modelled_time.c, the cycle model's time), reset by
//   AIRCR.SYSRESETREQ;
// - boards/rp2040js-pico/hal_rp2040.c: the RP2040's PL011 UART0, its free-running TIMER, reset by a
//   breakpoint the emulator's runner answers;
// - boards/qemu-rv32/hal_rv32.c: QEMU virt's NS16550A UART through the PLIC, the CLINT's mtime,
//   reset by the SiFive test device.
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define REG(addr) (*(volatile uint32_t *)(addr))

void hal_init(void);
void hal_reset(void) __attribute__((noreturn));
uint32_t hal_cpu_hz(void);
// sleep until an interrupt (MICROPY_INTERNAL_WFE); timeout_ms < 0: waiting for input, no timeout
void hal_wait(int timeout_ms);
// modelled_time.c (MCUROOF_MODELLED_TIME): the heap's end for the board the cycle model runs as
void *hal_heap_end(char *start, char *end);

// console.c
void console_rx_put(int c);
bool console_rx_empty(void);
void hal_puts(const char *s);
