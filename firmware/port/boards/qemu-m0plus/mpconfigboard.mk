CPU_FLAGS = -mthumb -mcpu=cortex-m0plus -mfloat-abi=soft
AFLAGS = -mthumb -mcpu=cortex-m0plus
HAL_C = boards/qemu-m0plus/hal_nrf51.c
GCHELPER_S = shared/runtime/gchelper_thumb1.s
