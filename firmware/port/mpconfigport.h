// mcuroof's bare-metal MicroPython port for QEMU's Arm boards (mps2-an385, mps2-an500, mps3-an547),
// the rp2040js emulator's RP2040 and QEMU's RISC-V virt machine (RV32IMAC).
#include <stdint.h>
#include <alloca.h>
#include "mpconfigboard.h"

// time: the board's timer (SysTick, TIMER, mtime), or the cycle model's (modelled_time.c)
#ifndef MCUROOF_MODELLED_TIME
#define MCUROOF_MODELLED_TIME (0)
#endif

#define MICROPY_CONFIG_ROM_LEVEL            (MICROPY_CONFIG_ROM_LEVEL_EXTRA_FEATURES)

// code emitters: bytecode, native, viper and the core's inline assembler (Thumb or RV32)
#if defined(__riscv)
#define MICROPY_EMIT_RV32                   (1)
#define MICROPY_EMIT_INLINE_RV32            (1)
// sys.implementation._mpy carries the native architecture (RV32IMC): the probe's only sign of RISC-V
#define MICROPY_PERSISTENT_CODE_LOAD        (1)
#else
#define MICROPY_EMIT_THUMB                  (1)
#define MICROPY_EMIT_INLINE_THUMB           (1)
#define MICROPY_MAKE_POINTER_CALLABLE(p)    ((void *)((mp_uint_t)(p) | 1))
#endif

#define MICROPY_FLOAT_IMPL                  (MICROPY_FLOAT_IMPL_FLOAT)
#define MICROPY_LONGINT_IMPL                (MICROPY_LONGINT_IMPL_MPZ)
#define MICROPY_ENABLE_GC                   (1)
#define MICROPY_HELPER_REPL                 (1)
#define MICROPY_KBD_EXCEPTION               (1)
#define MICROPY_ENABLE_SCHEDULER            (1)
#define MICROPY_PY_ARRAY_SLICE_ASSIGN       (1)
#define MICROPY_PY_BUILTINS_MEMORYVIEW      (1)
#define MICROPY_ERROR_REPORTING             (MICROPY_ERROR_REPORTING_NORMAL)

// no file system, no extmod: what the core in the sdist offers
#define MICROPY_PY_IO                       (0)
#define MICROPY_PY_SYS_STDFILES             (0)
#define MICROPY_PY_BUILTINS_INPUT           (0)
#define MICROPY_PY_OS                       (0)
#define MICROPY_PY_TIME                     (0)
#define MICROPY_ENABLE_EXTERNAL_IMPORT      (0)
#define MICROPY_READER_VFS                  (0)
#define MICROPY_VFS                         (0)
#define MICROPY_PY_UCTYPES                  (0)
#define MICROPY_PY_SYS_PLATFORM             MCUROOF_BOARD
#ifndef MICROPY_HW_BOARD_NAME
#define MICROPY_HW_BOARD_NAME               MCUROOF_BOARD " (QEMU " MCUROOF_MACHINE ")"
#endif
#define MICROPY_HW_MCU_NAME                 MCUROOF_CORE

#define MICROPY_ALLOC_PATH_MAX              (128)
#define MICROPY_PY_SYS_PS1_PS2              (0)

#define MP_STATE_PORT                       MP_STATE_VM
typedef long mp_off_t;
#define MP_SSIZE_MAX (0x7fffffff)

#define MICROPY_BEGIN_ATOMIC_SECTION()      mcuroof_irq_off()
#define MICROPY_END_ATOMIC_SECTION(state)   mcuroof_irq_restore(state)
#if defined(__riscv)
static inline uint32_t mcuroof_irq_off(void) {
    uint32_t s;
    __asm volatile ("csrrci %0, mstatus, 8" : "=r" (s));  // mstatus.MIE off, the old value kept
    return s;
}
static inline void mcuroof_irq_restore(uint32_t s) {
    __asm volatile ("csrs mstatus, %0" : : "r" (s & 8));
}
#else
static inline uint32_t mcuroof_irq_off(void) {
    uint32_t s;
    __asm volatile ("mrs %0, primask\n cpsid i" : "=r" (s));
    return s;
}
static inline void mcuroof_irq_restore(uint32_t s) {
    __asm volatile ("msr primask, %0" : : "r" (s));
}
#endif
