CROSS_COMPILE = riscv64-unknown-elf-
# rv32imac/ilp32 is one of picolibc's multilibs (its specs give the headers and libraries);
# -mno-relax (also --no-relax to the linker): the start-up sets no global pointer; ISA spec 2.2,
# whose I includes the CSR instructions (later specs split them off as Zicsr, which no multilib names)
CPU_FLAGS = -march=rv32imac -mabi=ilp32 -misa-spec=2.2 -mcmodel=medany -mno-relax --specs=picolibc.specs
AFLAGS = -march=rv32imac -mabi=ilp32 -misa-spec=2.2
LIBC_SPECS =
HAL_C = boards/qemu-rv32/hal_rv32.c
START_C =
START_S = boards/qemu-rv32/start.s
GCHELPER_S = shared/runtime/gchelper_rv32i.s
