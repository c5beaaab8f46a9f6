// RP2040 as the rp2040js emulator models it: UART0 (PL011) with an RX interrupt, so Ctrl-C reaches
// running code; reset through the runner; time from the TIMER's free-running microsecond counter (TIMERAWH/TIMERAWL), which
// the emulator advances by the Cortex-M0+ cycles the core executes at 125 MHz.
#include "py/mphal.h"
#include "py/runtime.h"
#include "hal.h"

#define UART0_BASE (0x40034000)
#define UART_DR REG(UART0_BASE + 0x000)
#define UART_FR REG(UART0_BASE + 0x018)
#define UART_IBRD REG(UART0_BASE + 0x024)
#define UART_FBRD REG(UART0_BASE + 0x028)
#define UART_LCR_H REG(UART0_BASE + 0x02c)
#define UART_CR REG(UART0_BASE + 0x030)
#define UART_IMSC REG(UART0_BASE + 0x038)
#define UART_ICR REG(UART0_BASE + 0x044)
#define UART_FR_RXFE (1 << 4)
#define UART_FR_TXFF (1 << 5)
#define UART0_IRQ (20)
#define TIMERAWH REG(0x40054024)
#define TIMERAWL REG(0x40054028)
#define NVIC_ISER REG(0xe000e100)

void hal_init(void) {
    UART_IBRD = 67;  // 115200 baud from 125 MHz (the emulator's UART has no baud rate of its own)
    UART_FBRD = 52;
    UART_LCR_H = (3 << 5) | (1 << 4);  // 8 bits, FIFOs on
    UART_CR = (1 << 9) | (1 << 8) | 1;  // RX, TX, enable
    UART_IMSC = (1 << 4) | (1 << 6);  // RX and RX timeout interrupts
    NVIC_ISER = 1 << UART0_IRQ;
    __asm volatile ("cpsie i");
}

void SysTick_Handler(void) {
}

void UART_IRQHandler(void) {
    UART_ICR = (1 << 4) | (1 << 6);
    while (!(UART_FR & UART_FR_RXFE)) {
        console_rx_put(UART_DR & 0xff);
    }
}

void hal_wait(int timeout_ms) {
    // no timer interrupt wakes the core: sleep only while waiting for input
    if (timeout_ms < 0) {
        console_wait_rx();
    }
}

mp_uint_t mp_hal_stdout_tx_strn(const char *str, size_t len) {
    for (size_t i = 0; i < len; ++i) {
        while (UART_FR & UART_FR_TXFF) {
        }
        UART_DR = (uint8_t)str[i];
    }
    return len;
}

void hal_reset(void) {
    // the emulator models no SYSRESETREQ: a breakpoint asks the runner (firmware/rp2040js) for a reset
    __asm volatile ("bkpt 0x52");
    for (;;) {
    }
}

uint32_t hal_cpu_hz(void) {
    return MCUROOF_CPU_HZ;
}

static uint64_t time_us(void) {
    uint32_t hi, lo;
    do {
        hi = TIMERAWH;
        lo = TIMERAWL;
    } while (hi != TIMERAWH);
    return ((uint64_t)hi << 32) | lo;
}

mp_uint_t mp_hal_ticks_ms(void) {
    return (mp_uint_t)(time_us() / 1000);
}

mp_uint_t mp_hal_ticks_us(void) {
    return TIMERAWL;
}

void mp_hal_delay_ms(mp_uint_t ms) {
    mp_hal_delay_us(ms * 1000);
}

void mp_hal_delay_us(mp_uint_t us) {
    uint32_t t0 = TIMERAWL;
    while (TIMERAWL - t0 < us) {
        mp_event_handle_nowait();
    }
}
