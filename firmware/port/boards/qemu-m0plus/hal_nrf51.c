// QEMU's microbit machine (nRF51822, a Cortex-M0) as qemu-m0plus uses it: the nRF51's legacy UART
// (no EasyDMA) with its RXDRDY interrupt, so Ctrl-C reaches running code; reset by
// AIRCR.SYSRESETREQ. Time is the cycle model's (modelled_time.c): the nRF51 has no SysTick.
#include "py/mphal.h"
#include "py/runtime.h"
#include "hal.h"

#define UART_BASE (0x40002000)
#define UART_STARTRX REG(UART_BASE + 0x000)
#define UART_STARTTX REG(UART_BASE + 0x008)
#define UART_RXDRDY REG(UART_BASE + 0x108)
#define UART_TXDRDY REG(UART_BASE + 0x11c)
#define UART_INTENSET REG(UART_BASE + 0x304)
#define UART_ENABLE REG(UART_BASE + 0x500)
#define UART_RXD REG(UART_BASE + 0x518)
#define UART_TXD REG(UART_BASE + 0x51c)
#define UART_INTEN_RXDRDY (1 << 2)
#define UART0_IRQ (2)  // the peripheral's ID: its base's bits 12-16 (nRF51 reference manual 9.1)
#define NVIC_ISER REG(0xe000e100)
#define AIRCR REG(0xe000ed0c)

void hal_init(void) {
    UART_ENABLE = 4;
    UART_STARTTX = 1;
    UART_STARTRX = 1;
    UART_INTENSET = UART_INTEN_RXDRDY;
    NVIC_ISER = 1 << UART0_IRQ;
    __asm volatile ("cpsie i");
}

void UART_IRQHandler(void) {
    // reading RXD takes the byte from the receive FIFO and raises RXDRDY again if another is there
    while (UART_RXDRDY) {
        UART_RXDRDY = 0;
        console_rx_put(UART_RXD & 0xff);
    }
}

mp_uint_t mp_hal_stdout_tx_strn(const char *str, size_t len) {
    // one byte at a time: TXD takes a byte only once the previous one has gone (TXDRDY)
    for (size_t i = 0; i < len; ++i) {
        UART_TXDRDY = 0;
        UART_TXD = (uint8_t)str[i];
        while (!UART_TXDRDY) {
        }
    }
    return len;
}

void hal_reset(void) {
    __asm volatile ("dsb");
    AIRCR = 0x05fa0004;  // SYSRESETREQ
    for (;;) {
    }
}
