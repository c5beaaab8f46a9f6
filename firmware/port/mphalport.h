#include <stdint.h>
#define CHAR_CTRL_C (3)
void mp_hal_set_interrupt_char(int c);
static inline mp_uint_t mp_hal_ticks_cpu(void) {
    return 0;
}
void hal_wait(int timeout_ms);
#define MICROPY_INTERNAL_WFE(TIMEOUT_MS) hal_wait(TIMEOUT_MS)
