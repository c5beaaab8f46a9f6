// qemu-rv32's firmware with sys.platform "esp32", the name MicroPython's esp32 port gives an
// ESP32-C3 or -C6: a RISC-V board the tool does not know, reached with --port and no profile
// (tests/board/test_qemu_rv32.py). Everything else is qemu-rv32's.
#include "../qemu-rv32/mpconfigboard.h"
#undef MCUROOF_BOARD
#define MCUROOF_BOARD "esp32"
