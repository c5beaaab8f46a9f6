# qemu-rv32 with sys.platform "esp32" (mpconfigboard.h): qemu-rv32's toolchain, HAL and start-up
include boards/qemu-rv32/mpconfigboard.mk
