// The console every board shares: the UART receive ring that the board's receive interrupt fills
// (console_rx_put, which turns Ctrl-C into a KeyboardInterrupt for running code), the REPL's reads
// from it, and hal_puts. The board's HAL (hal.h) owns the UART itself.
#include <string.h>
#include "py/mphal.h"
#include "py/runtime.h"
#include "shared/runtime/interrupt_char.h"
#include "hal.h"

#define RX_SIZE 512  // a power of two
static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint32_t rx_head, rx_tail;

void console_rx_put(int c) {
    if (c == mp_interrupt_char) {
        mp_sched_keyboard_interrupt();
    } else if (rx_head - rx_tail < RX_SIZE) {
        rx_buf[rx_head++ & (RX_SIZE - 1)] = c;
    }
}

bool console_rx_empty(void) {
    return rx_head == rx_tail;
}

int mp_hal_stdin_rx_chr(void) {
    for (;;) {
        if (rx_tail != rx_head) {
            return rx_buf[rx_tail++ & (RX_SIZE - 1)];
        }
        mp_event_wait_indefinite();  // MICROPY_INTERNAL_WFE: the board sleeps until an interrupt
    }
}

#if !defined(__riscv)
// Sleep until a byte comes, for an Arm board that has no timer interrupt to wake it (the cycle
// model's boards, the emulated Pico): only if no byte came in since the ring was checked, with
// interrupts masked between the check and WFI, which a pending interrupt wakes masked or not
// (else a byte received just before WFI leaves the board asleep on it)
void console_wait_rx(void) {
    __asm volatile ("cpsid i" ::: "memory");
    if (console_rx_empty()) {
        __asm volatile ("wfi");
    }
    __asm volatile ("cpsie i" ::: "memory");
}
#endif

void hal_puts(const char *s) {
    mp_hal_stdout_tx_strn(s, strlen(s));
}
