// The Arm M-profile vector table: the initial stack pointer, Reset_Handler (main.c) and the handlers.
#include "hal.h"

extern uint32_t _estack;
void Reset_Handler(void);
void SysTick_Handler(void);  // the board's HAL
void UART_IRQHandler(void);

static void HardFault_Handler(void) {
    hal_puts("\r\nHardFault: resetting\r\n");
    hal_reset();
}

static void Default_Handler(void) {
    for (;;) {
    }
}

typedef void (*vector_t)(void);
const vector_t vectors[16 + 128] __attribute__((section(".isr_vector"), used)) = {
    [0] = (vector_t)&_estack,
    [1] = Reset_Handler,
    [2] = Default_Handler,      // NMI
    [3] = HardFault_Handler,
    [4] = HardFault_Handler,    // MemManage
    [5] = HardFault_Handler,    // BusFault
    [6] = HardFault_Handler,    // UsageFault
    [7] = HardFault_Handler,    // SecureFault (v8-M)
    [11] = Default_Handler,     // SVCall
    [14] = Default_Handler,     // PendSV
    [15] = SysTick_Handler,
    // every external interrupt serves the UART: its line differs per machine and nothing else is enabled
    [16 ... 16 + 127] = UART_IRQHandler,
};
