// QEMU's MPS2/MPS3 boards: the CMSDK UART (interrupt-driven receive, so Ctrl-C reaches running
// code), a SysTick time base, reset. Boards whose time is the cycle model's (MCUROOF_MODELLED_TIME:
// qemu-m4, qemu-m33) take their time base from modelled_time.c instead of SysTick.
#include "py/mphal.h"
#include "py/runtime.h"
#include "hal.h"

#define UART_DATA REG(MCUROOF_UART_BASE + 0x00)
#define UART_STATE REG(MCUROOF_UART_BASE + 0x04)
#define UART_CTRL REG(MCUROOF_UART_BASE + 0x08)
#define UART_INT REG(MCUROOF_UART_BASE + 0x0c)
#define UART_BAUDDIV REG(MCUROOF_UART_BASE + 0x10)
#define SYST_CSR REG(0xe000e010)
#define SYST_RVR REG(0xe000e014)
#define SYST_CVR REG(0xe000e018)
#define NVIC_ISER(n) REG(0xe000e100 + 4 * (n))
#define AIRCR REG(0xe000ed0c)

#if !MCUROOF_MODELLED_TIME
// SysTick's period. Each interrupt under -icount woke QEMU's main loop and its I/O thread: at one
// a millisecond QEMU spent as much time in the kernel as running the board (1.3 M context
// switches in a qemu-m7 default run); its cost also landed in the timed windows
#define TICK_MS (100)
static volatile uint32_t ticks_ms;  // at the last SysTick
#endif

void hal_init(void) {
    UART_BAUDDIV = 16;  // the model needs >= 16; the pty has no real baud rate
    UART_CTRL = 0x1 | 0x2 | 0x8;  // TX, RX, RX interrupt
    for (int i = 0; i < 4; ++i) {
        NVIC_ISER(i) = 0xffffffff;  // only the UART raises interrupts on these machines
    }
    #if !MCUROOF_MODELLED_TIME
    SYST_RVR = MCUROOF_CPU_HZ / 1000 * TICK_MS - 1;
    SYST_CVR = 0;
    SYST_CSR = 0x7;  // processor clock, interrupt, enable
    #endif
}

#if !MCUROOF_MODELLED_TIME
void SysTick_Handler(void) {
    ticks_ms += TICK_MS;
}
#endif

void UART_IRQHandler(void) {
    UART_INT = 0x3;
    while (UART_STATE & 0x2) {
        console_rx_put(UART_DATA & 0xff);
    }
}

#if !MCUROOF_MODELLED_TIME
// waiting for input sleeps until the UART's interrupt; a timed wait spins (SysTick wakes the
// core only every TICK_MS)
void hal_wait(int timeout_ms) {
    if (timeout_ms < 0) {
        console_wait_rx();
    }
}
#endif

mp_uint_t mp_hal_stdout_tx_strn(const char *str, size_t len) {
    for (size_t i = 0; i < len; ++i) {
        while (UART_STATE & 0x1) {
        }
        UART_DATA = (uint8_t)str[i];
    }
    return len;
}

void hal_reset(void) {
    __asm volatile ("dsb");
    AIRCR = 0x05fa0004;  // SYSRESETREQ
    for (;;) {
    }
}

#if !MCUROOF_MODELLED_TIME
uint32_t hal_cpu_hz(void) {
    return MCUROOF_CPU_HZ;
}

// the count at the last SysTick and the cycles since, read together (again if a tick fell between)
static uint32_t cycles_since_tick(uint32_t *ms) {
    uint32_t cvr;
    do {
        *ms = ticks_ms;
        cvr = SYST_CVR;
    } while (*ms != ticks_ms);
    return SYST_RVR - cvr;
}

mp_uint_t mp_hal_ticks_ms(void) {
    uint32_t ms;
    uint32_t cycles = cycles_since_tick(&ms);
    return ms + cycles / (MCUROOF_CPU_HZ / 1000);
}

mp_uint_t mp_hal_ticks_us(void) {
    uint32_t ms;
    uint32_t cycles = cycles_since_tick(&ms);
    return ms * 1000 + cycles / (MCUROOF_CPU_HZ / 1000000);
}

void mp_hal_delay_ms(mp_uint_t ms) {
    mp_hal_delay_us(ms * 1000);
}

void mp_hal_delay_us(mp_uint_t us) {
    uint32_t t0 = mp_hal_ticks_us();
    while (mp_hal_ticks_us() - t0 < us) {
        mp_event_handle_nowait();
    }
}
#endif
