// QEMU virt (RV32): the NS16550A UART at 0x10000000, whose receive interrupt (PLIC source 10) fills
// the console ring, so Ctrl-C reaches running code; time from the CLINT's mtime (10 MHz of QEMU
// virtual time: under -icount it counts instructions); reset through the SiFive test device.
#include "py/mphal.h"
#include "py/runtime.h"
#include "hal.h"

#define UART_BYTE(off) (*(volatile uint8_t *)(MCUROOF_UART_BASE + (off)))
#define UART_RBR UART_BYTE(0)  // receive buffer (read), transmit holding (write)
#define UART_THR UART_BYTE(0)
#define UART_IER UART_BYTE(1)
#define UART_FCR UART_BYTE(2)
#define UART_MCR UART_BYTE(4)
#define UART_LSR UART_BYTE(5)
#define LSR_DR (0x01)  // a received byte is ready
#define LSR_THRE (0x20)  // the transmit holding register is empty
#define UART_IRQ (10)
#define PLIC_PRIORITY(src) REG(0x0c000000 + 4 * (src))
#define PLIC_ENABLE REG(0x0c002000)  // hart 0, M mode: sources 0-31
#define PLIC_THRESHOLD REG(0x0c200000)
#define PLIC_CLAIM REG(0x0c200004)
#define MTIME_LO REG(0x0200bff8)
#define MTIME_HI REG(0x0200bffc)
#define MTIME_HZ (10000000)
#define TEST_DEVICE REG(0x00100000)  // SiFive test: 0x7777 resets the machine
#define MCAUSE_INTERRUPT (0x80000000u)
#define MCAUSE_MEI (11)

static void trap_handler(void);

void hal_init(void) {
    UART_FCR = 0x07;  // FIFOs on and cleared; interrupt at the first byte
    UART_MCR = 0x08;  // OUT2: the 16550's interrupt line
    UART_IER = 0x01;  // received data available
    PLIC_PRIORITY(UART_IRQ) = 1;
    PLIC_THRESHOLD = 0;
    PLIC_ENABLE = 1u << UART_IRQ;
    __asm volatile ("csrw mtvec, %0" : : "r" (trap_handler));  // direct mode (the handler is 4-aligned)
    __asm volatile ("csrs mie, %0" : : "r" (1u << MCAUSE_MEI));  // machine external interrupts
    __asm volatile ("csrsi mstatus, 8");  // MIE
}

static void uart_irq(void) {
    uint32_t src = PLIC_CLAIM;
    while (UART_LSR & LSR_DR) {
        console_rx_put(UART_RBR);
    }
    PLIC_CLAIM = src;  // complete
}

static void fault(uint32_t cause) {
    uint32_t epc, tval;
    __asm volatile ("csrr %0, mepc" : "=r" (epc));
    __asm volatile ("csrr %0, mtval" : "=r" (tval));
    mp_printf(&mp_plat_print, "\r\nFault: mcause %u at %08x (mtval %08x): resetting\r\n",
        (unsigned)cause, (unsigned)epc, (unsigned)tval);
    hal_reset();
}

__attribute__((interrupt("machine"), aligned(4))) static void trap_handler(void) {
    uint32_t cause;
    __asm volatile ("csrr %0, mcause" : "=r" (cause));
    if (cause == (MCAUSE_INTERRUPT | MCAUSE_MEI)) {
        uart_irq();
    } else {
        fault(cause);
    }
}

void hal_wait(int timeout_ms) {
    // no timer interrupt wakes the hart: sleep only while waiting for input, and only if no byte
    // came in since the ring was checked (WFI wakes on a pending interrupt, mstatus.MIE or not)
    if (timeout_ms < 0) {
        __asm volatile ("csrci mstatus, 8");
        if (console_rx_empty()) {
            __asm volatile ("wfi");
        }
        __asm volatile ("csrsi mstatus, 8");
    }
}

mp_uint_t mp_hal_stdout_tx_strn(const char *str, size_t len) {
    for (size_t i = 0; i < len; ++i) {
        while (!(UART_LSR & LSR_THRE)) {
        }
        UART_THR = (uint8_t)str[i];
    }
    return len;
}

void hal_reset(void) {
    TEST_DEVICE = 0x7777;
    for (;;) {
    }
}

uint32_t hal_cpu_hz(void) {
    return MCUROOF_CPU_HZ;
}

static uint64_t mtime(void) {
    uint32_t hi, lo;
    do {
        hi = MTIME_HI;
        lo = MTIME_LO;
    } while (hi != MTIME_HI);
    return ((uint64_t)hi << 32) | lo;
}

mp_uint_t mp_hal_ticks_ms(void) {
    return (mp_uint_t)(mtime() / (MTIME_HZ / 1000));
}

mp_uint_t mp_hal_ticks_us(void) {
    return (mp_uint_t)(mtime() / (MTIME_HZ / 1000000));
}

void mp_hal_delay_ms(mp_uint_t ms) {
    uint64_t t0 = mtime();
    while (mtime() - t0 < (uint64_t)ms * (MTIME_HZ / 1000)) {
        mp_event_handle_nowait();
    }
}

void mp_hal_delay_us(mp_uint_t us) {
    uint64_t t0 = mtime();
    while (mtime() - t0 < (uint64_t)us * (MTIME_HZ / 1000000)) {
        mp_event_handle_nowait();
    }
}
