CPU_FLAGS = -mthumb -mcpu=cortex-m3 -mfloat-abi=soft
AFLAGS = -mthumb -mcpu=cortex-m3
