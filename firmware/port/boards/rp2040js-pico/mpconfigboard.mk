CPU_FLAGS = -mthumb -mcpu=cortex-m0plus -mfloat-abi=soft
AFLAGS = -mthumb -mcpu=cortex-m0plus
HAL_C = boards/rp2040js-pico/hal_rp2040.c
GCHELPER_S = shared/runtime/gchelper_thumb1.s
