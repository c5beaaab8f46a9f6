CPU_FLAGS = -mthumb -mcpu=cortex-m55 -mfloat-abi=hard
AFLAGS = -mthumb -march=armv8.1-m.main+mve.fp+fp.dp
