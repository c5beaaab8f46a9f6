// time: ticks_ms, ticks_us, ticks_cpu, ticks_diff, ticks_add, sleep, sleep_ms, sleep_us.
// Under QEMU -icount these follow virtual time: they count instructions, not cycles.
#include "py/mphal.h"
#include "py/runtime.h"
#include "py/smallint.h"

#define TICKS_PERIOD (MICROPY_PY_TIME_TICKS_PERIOD)
#define TICKS_HALF (TICKS_PERIOD / 2)

static mp_obj_t ticks(mp_uint_t t) {
    return MP_OBJ_NEW_SMALL_INT(t & (TICKS_PERIOD - 1));
}

static mp_obj_t time_ticks_ms(void) {
    return ticks(mp_hal_ticks_ms());
}
static MP_DEFINE_CONST_FUN_OBJ_0(time_ticks_ms_obj, time_ticks_ms);

static mp_obj_t time_ticks_us(void) {
    return ticks(mp_hal_ticks_us());
}
static MP_DEFINE_CONST_FUN_OBJ_0(time_ticks_us_obj, time_ticks_us);

static mp_obj_t time_ticks_diff(mp_obj_t end, mp_obj_t start) {
    mp_uint_t d = (mp_obj_get_int_truncated(end) - mp_obj_get_int_truncated(start) + TICKS_HALF)
        & (TICKS_PERIOD - 1);
    return MP_OBJ_NEW_SMALL_INT((mp_int_t)d - TICKS_HALF);
}
static MP_DEFINE_CONST_FUN_OBJ_2(time_ticks_diff_obj, time_ticks_diff);

static mp_obj_t time_ticks_add(mp_obj_t t, mp_obj_t delta) {
    return ticks(mp_obj_get_int_truncated(t) + mp_obj_get_int_truncated(delta));
}
static MP_DEFINE_CONST_FUN_OBJ_2(time_ticks_add_obj, time_ticks_add);

static mp_obj_t time_sleep(mp_obj_t s) {
    mp_hal_delay_ms((mp_uint_t)(mp_obj_get_float(s) * 1000));
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_1(time_sleep_obj, time_sleep);

static mp_obj_t time_sleep_ms(mp_obj_t ms) {
    mp_hal_delay_ms(mp_obj_get_int(ms));
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_1(time_sleep_ms_obj, time_sleep_ms);

static mp_obj_t time_sleep_us(mp_obj_t us) {
    mp_hal_delay_us(mp_obj_get_int(us));
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_1(time_sleep_us_obj, time_sleep_us);

static const mp_rom_map_elem_t time_globals_table[] = {
    { MP_ROM_QSTR(MP_QSTR___name__), MP_ROM_QSTR(MP_QSTR_time) },
    { MP_ROM_QSTR(MP_QSTR_ticks_ms), MP_ROM_PTR(&time_ticks_ms_obj) },
    { MP_ROM_QSTR(MP_QSTR_ticks_us), MP_ROM_PTR(&time_ticks_us_obj) },
    { MP_ROM_QSTR(MP_QSTR_ticks_diff), MP_ROM_PTR(&time_ticks_diff_obj) },
    { MP_ROM_QSTR(MP_QSTR_ticks_add), MP_ROM_PTR(&time_ticks_add_obj) },
    { MP_ROM_QSTR(MP_QSTR_sleep), MP_ROM_PTR(&time_sleep_obj) },
    { MP_ROM_QSTR(MP_QSTR_sleep_ms), MP_ROM_PTR(&time_sleep_ms_obj) },
    { MP_ROM_QSTR(MP_QSTR_sleep_us), MP_ROM_PTR(&time_sleep_us_obj) },
};
static MP_DEFINE_CONST_DICT(time_globals, time_globals_table);

const mp_obj_module_t mp_module_time = {
    .base = { &mp_type_module },
    .globals = (mp_obj_dict_t *)&time_globals,
};
MP_REGISTER_MODULE(MP_QSTR_time, mp_module_time);
