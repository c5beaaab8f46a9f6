// The time base of boards whose time is the cycle model's (MCUROOF_MODELLED_TIME: qemu-m4,
// qemu-m33). The model (firmware/cycles, a QEMU plugin) charges each instruction its cycles on the
// modelled core. A store to 0xE0001004 (DWT_CYCCNT's address; QEMU has no DWT) is a mark: right
// after it the plugin writes, at MCUROOF_MARK_ADDR, the cycles so far, the modelled clock and the
// heap of the board it models (docs/timing.md "Modelled cycles"). There is no SysTick: its
// interrupts would come at host-time moments and make two runs differ.
#include "py/mphal.h"
#include "py/runtime.h"
#include "hal.h"

#if MCUROOF_MODELLED_TIME

#define MARK_STORE REG(0xe0001004)
#define MARK_MAGIC (0x4352434d)

typedef struct {
    uint64_t cycles;
    uint32_t clock_hz;
    uint32_t heap_bytes;
    uint32_t magic;
    uint32_t version;
} mark_t;

#define MARK ((volatile mark_t *)MCUROOF_MARK_ADDR)

static uint64_t mark_cycles(void) {
    MARK_STORE = 0;
    return MARK->cycles;
}

static bool modelled(void) {
    return MARK->magic == MARK_MAGIC;
}

uint32_t hal_cpu_hz(void) {
    return modelled() && MARK->clock_hz ? MARK->clock_hz : MCUROOF_CPU_HZ;
}

// the heap's end: sized so that gc.mem_free() + gc.mem_alloc() is about the modelled board's heap
// (the GC's block tables take 3/128 of the area beside it), within what the linker left
void *hal_heap_end(char *start, char *end) {
    MARK_STORE = 0;
    if (!modelled() || MARK->heap_bytes == 0) {
        return end;
    }
    uint32_t area = MARK->heap_bytes + MARK->heap_bytes / 128 * 3 + 64;
    return (uint32_t)(end - start) > area ? start + area : end;
}

// cycles * per / clock, modulo 2^32 (ticks wrap), by a reciprocal: a 64-bit division costs some
// hundred modelled cycles, which every read of the timer would add to what it times
static uint32_t scaled(uint64_t cycles, uint32_t per) {
    static uint32_t clock, recip[2];  // recip[i] = 2^32 * (1e6, 1e3)[i] / clock
    uint32_t hz = hal_cpu_hz();
    if (hz != clock) {
        clock = hz;
        recip[0] = (uint32_t)(((uint64_t)1000000u << 32) / hz);
        recip[1] = (uint32_t)(((uint64_t)1000u << 32) / hz);
    }
    uint32_t m = recip[per == 1000u];
    uint32_t hi = (uint32_t)(cycles >> 32), lo = (uint32_t)cycles;
    return hi * m + (uint32_t)(((uint64_t)lo * m) >> 32);
}

mp_uint_t mp_hal_ticks_us(void) {
    return scaled(mark_cycles(), 1000000u);
}

mp_uint_t mp_hal_ticks_ms(void) {
    return scaled(mark_cycles(), 1000u);
}

void SysTick_Handler(void) {  // the vector table names it; never enabled here
}

// waiting for input sleeps until the UART's interrupt, and only if no byte came in since the ring
// was checked (interrupts masked between the check and WFI, which a pending interrupt wakes masked
// or not: else a byte received just before WFI leaves the board asleep on it); a timed wait spins
// on modelled time
void hal_wait(int timeout_ms) {
    if (timeout_ms < 0) {
        __asm volatile ("cpsid i");
        if (console_rx_empty()) {
            __asm volatile ("wfi");
        }
        __asm volatile ("cpsie i");
    }
}

void mp_hal_delay_ms(mp_uint_t ms) {
    mp_hal_delay_us(ms * 1000);
}

void mp_hal_delay_us(mp_uint_t us) {
    uint64_t until = mark_cycles() + (uint64_t)us * hal_cpu_hz() / 1000000u;
    while (modelled() && mark_cycles() < until) {
        mp_event_handle_nowait();
    }
}

#endif
