#include <stdint.h>
#define CHAR_CTRL_C (3)
void mp_hal_set_interrupt_char(int c);
static inline mp_uint_t mp_hal_ticks_cpu(void) {
    return 0;
}
#if MCUROOF_WFI_UNTIMED
// no timer interrupt wakes the core (rp2040js-pico): sleep only while waiting for input
#define MICROPY_INTERNAL_WFE(TIMEOUT_MS) do { if ((TIMEOUT_MS) < 0) { __asm volatile ("wfi"); } } while (0)
#else
#define MICROPY_INTERNAL_WFE(TIMEOUT_MS) __asm volatile ("wfi")
#endif
