#define MCUROOF_BOARD "rp2040js-pico"
#define MCUROOF_MACHINE "rp2040js"
#define MCUROOF_CORE "RP2040 Cortex-M0+"
#define MCUROOF_CPU_HZ (125000000)
#define MCUROOF_FPU (0)
#define MICROPY_HW_BOARD_NAME "Raspberry Pi Pico (rp2040js emulator, no boot2)"
// Armv6-M: the native emitters and the inline assembler without the Thumb-2 instructions
#define MICROPY_EMIT_THUMB_ARMV7M (0)
#define MICROPY_EMIT_INLINE_THUMB_ARMV7M (0)
#define MICROPY_EMIT_INLINE_THUMB_FLOAT (0)
