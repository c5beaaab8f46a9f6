// machine: freq(), reset(), soft_reset() and mem8/mem16/mem32 (the regions suite reads memory with them).
#include "py/runtime.h"
#include "hal.h"

typedef struct {
    mp_obj_base_t base;
    unsigned width;
} mem_obj_t;

static uintptr_t mem_address(mp_obj_t index, unsigned width) {
    uintptr_t addr = mp_obj_get_int_truncated(index);
    if (addr & (width - 1)) {
        mp_raise_msg_varg(&mp_type_ValueError, MP_ERROR_TEXT("address %08x is not aligned to %d bytes"), addr, width);
    }
    return addr;
}

static mp_obj_t mem_subscr(mp_obj_t self_in, mp_obj_t index, mp_obj_t value) {
    mem_obj_t *self = MP_OBJ_TO_PTR(self_in);
    if (value == MP_OBJ_NULL) {
        return MP_OBJ_NULL;  // delete: not supported
    }
    uintptr_t addr = mem_address(index, self->width);
    if (value == MP_OBJ_SENTINEL) {  // load
        switch (self->width) {
            case 1: return MP_OBJ_NEW_SMALL_INT(*(volatile uint8_t *)addr);
            case 2: return MP_OBJ_NEW_SMALL_INT(*(volatile uint16_t *)addr);
            default: return mp_obj_new_int_from_uint(*(volatile uint32_t *)addr);
        }
    }
    uint32_t v = mp_obj_get_int_truncated(value);
    switch (self->width) {
        case 1: *(volatile uint8_t *)addr = v; break;
        case 2: *(volatile uint16_t *)addr = v; break;
        default: *(volatile uint32_t *)addr = v; break;
    }
    return mp_const_none;
}

static MP_DEFINE_CONST_OBJ_TYPE(mem_type, MP_QSTR_mem, MP_TYPE_FLAG_NONE, subscr, mem_subscr);
static const mem_obj_t mem8_obj = {{&mem_type}, 1};
static const mem_obj_t mem16_obj = {{&mem_type}, 2};
static const mem_obj_t mem32_obj = {{&mem_type}, 4};

static mp_obj_t machine_freq(size_t n_args, const mp_obj_t *args) {
    if (n_args) {
        mp_raise_NotImplementedError(MP_ERROR_TEXT("the emulated clock is fixed"));
    }
    return mp_obj_new_int_from_uint(hal_cpu_hz());
}
static MP_DEFINE_CONST_FUN_OBJ_VAR_BETWEEN(machine_freq_obj, 0, 1, machine_freq);

static mp_obj_t machine_reset(void) {
    hal_reset();
}
static MP_DEFINE_CONST_FUN_OBJ_0(machine_reset_obj, machine_reset);

static mp_obj_t machine_soft_reset(void) {
    mp_raise_type(&mp_type_SystemExit);  // pyexec answers SystemExit with a soft reset
}
static MP_DEFINE_CONST_FUN_OBJ_0(machine_soft_reset_obj, machine_soft_reset);

static const mp_rom_map_elem_t machine_globals_table[] = {
    { MP_ROM_QSTR(MP_QSTR___name__), MP_ROM_QSTR(MP_QSTR_machine) },
    { MP_ROM_QSTR(MP_QSTR_freq), MP_ROM_PTR(&machine_freq_obj) },
    { MP_ROM_QSTR(MP_QSTR_reset), MP_ROM_PTR(&machine_reset_obj) },
    { MP_ROM_QSTR(MP_QSTR_soft_reset), MP_ROM_PTR(&machine_soft_reset_obj) },
    { MP_ROM_QSTR(MP_QSTR_mem8), MP_ROM_PTR(&mem8_obj) },
    { MP_ROM_QSTR(MP_QSTR_mem16), MP_ROM_PTR(&mem16_obj) },
    { MP_ROM_QSTR(MP_QSTR_mem32), MP_ROM_PTR(&mem32_obj) },
};
static MP_DEFINE_CONST_DICT(machine_globals, machine_globals_table);

const mp_obj_module_t mp_module_machine = {
    .base = { &mp_type_module },
    .globals = (mp_obj_dict_t *)&machine_globals,
};
MP_REGISTER_MODULE(MP_QSTR_machine, mp_module_machine);
