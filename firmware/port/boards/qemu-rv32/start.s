# QEMU virt starts hart 0 at 0x80000000 (-bios none): the first words of the image (.isr_vector,
# which common.ld puts first). Harts other than 0 park; hart 0 takes the stack and runs Reset_Handler
# (main.c: .data, .bss, main).
    .section .isr_vector, "ax"
    .global _start
_start:
    csrr    t0, mhartid
    bnez    t0, park
    la      sp, _estack
    j       Reset_Handler
park:
    wfi
    j       park
