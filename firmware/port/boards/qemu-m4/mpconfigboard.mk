CPU_FLAGS = -mthumb -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard
AFLAGS = -mthumb -mcpu=cortex-m4 -mfpu=fpv4-sp-d16
