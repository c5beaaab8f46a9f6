// The board's hardware as this port uses it: the CMSDK UART, SysTick, reset.
#include <stdint.h>
#include <stddef.h>

void hal_init(void);
void hal_puts(const char *s);
void hal_reset(void) __attribute__((noreturn));
uint32_t hal_cpu_hz(void);
void SysTick_Handler(void);
void UART_IRQHandler(void);
