CPU_FLAGS = -mthumb -mcpu=cortex-m33 -mfpu=fpv5-sp-d16 -mfloat-abi=hard
AFLAGS = -mthumb -mcpu=cortex-m33 -mfpu=fpv5-sp-d16
