// The board's hardware as this port uses it. Each board's HAL file provides these functions,
// mp_hal_stdout_tx_strn, the ticks and delays, and a UART receive interrupt that hands every byte
// to console_rx_put (console.c, shared by every board):
// - hal.c (qemu-m3, qemu-m7, qemu-m55): the CMSDK UART through the NVIC, SysTick every millisecond,
//   reset by AIRCR.SYSRESETREQ;
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

// console.c
void console_rx_put(int c);
bool console_rx_empty(void);
void hal_puts(const char *s);
