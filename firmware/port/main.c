// Start-up, REPL loop and the few hooks the MicroPython core asks of a port.
#include <string.h>
#include "py/compile.h"
#include "py/cstack.h"
#include "py/gc.h"
#include "py/mperrno.h"
#include "py/runtime.h"
#include "py/stackctrl.h"
#include "shared/readline/readline.h"
#include "shared/runtime/gchelper.h"
#include "shared/runtime/pyexec.h"
#include "hal.h"

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _heap_start, _heap_end, _estack, _sstack;

int main(void) {
    hal_init();
    for (;;) {
        mp_cstack_init_with_top(&_estack, (char *)&_estack - (char *)&_sstack);
        #if MCUROOF_MODELLED_TIME
        gc_init(&_heap_start, hal_heap_end((char *)&_heap_start, (char *)&_heap_end));
        #else
        gc_init(&_heap_start, &_heap_end);
        #endif
        mp_init();
        readline_init0();
        for (;;) {
            if (pyexec_mode_kind == PYEXEC_MODE_RAW_REPL) {
                if (pyexec_raw_repl() != 0) {
                    break;
                }
            } else if (pyexec_friendly_repl() != 0) {
                break;
            }
        }
        mp_printf(&mp_plat_print, "MPY: soft reboot\n");
        gc_sweep_all();
        mp_deinit();
    }
}

void gc_collect(void) {
    gc_collect_start();
    gc_helper_collect_regs_and_stack();
    gc_collect_end();
}

mp_lexer_t *mp_lexer_new_from_file(qstr filename) {
    mp_raise_OSError(MP_ENOENT);  // no file system
}

// newlib's malloc is never meant to run: MicroPython allocates from its own heap
void *_sbrk(int incr) {
    return (void *)-1;
}

void nlr_jump_fail(void *val) {
    hal_puts("FATAL: uncaught NLR\n");
    hal_reset();
}

void MP_NORETURN __fatal_error(const char *msg) {
    hal_puts(msg);
    hal_reset();
}

#ifndef NDEBUG
void MP_WEAK __assert_func(const char *file, int line, const char *func, const char *expr) {
    hal_puts("Assertion failed: ");
    hal_puts(expr);
    hal_puts("\n");
    hal_reset();
}
#endif

// Reset (from the vector table, or boards/<BOARD>/start.s where there is none): copy .data, clear
// .bss, enable the FPU where there is one, run main.
void Reset_Handler(void) {
    memcpy(&_sdata, &_sidata, (char *)&_edata - (char *)&_sdata);
    memset(&_sbss, 0, (char *)&_ebss - (char *)&_sbss);
    #if MCUROOF_FPU
    *(volatile uint32_t *)0xe000ed88 |= 0xf << 20;  // CPACR: CP10, CP11 full access
    __asm volatile ("dsb\n isb");
    #endif
    main();
    for (;;) {
    }
}
