/* The micro-loop harness of tests/board/test_cycle_model.py: BODY (an assembler macro) between two
 * marks of the cycle model; prints the cycles between them, the mark's magic and clock_hz as hex
 * by semihosting, and exits. Overhead around BODY: LDR 2 + NOP 1 + NOP 1 + STR 2 = 6 cycles. */
.syntax unified
.thumb
.section .vectors,"a"
.word STACK_TOP
.word reset
.word hang, hang, hang, hang, hang, hang, hang, hang, hang, hang, hang, hang, hang, hang
.text
.thumb_func
hang: b hang
.thumb_func
.global reset
reset:
  ldr r0, =MARK_AT+24
  movs r1, #10
  strb r1, [r0, #8]
  movs r1, #0
  strb r1, [r0, #9]
#ifdef FPU
  ldr r0, =0xE000ED88   @ CPACR: CP10, CP11 full access
  ldr r1, [r0]
  orr r1, r1, #(0xF << 20)
  str r1, [r0]
  dsb
  isb
#endif
  ldr r0, =0xE0001004
  ldr r5, =MARK_AT
  str r0, [r0]          @ mark 1
  ldr r6, [r5]          @ 2
  nop                   @ 1
  BODY
  nop                   @ 1
  str r0, [r0]          @ mark 2: 2
  ldr r7, [r5]
  subs r0, r7, r6
  bl print_hex
  ldr r0, [r5, #16]     @ magic
  bl print_hex
  ldr r0, [r5, #8]      @ clock_hz
  bl print_hex
  movs r0, #0x18        @ SYS_EXIT
  ldr r1, =0x20026      @ ADP_Stopped_ApplicationExit
  bkpt 0xab
  b .
.thumb_func
print_hex:
  push {r4, r5, lr}
  ldr r4, =MARK_AT+24+8
  movs r5, #8
1: movs r1, #15
  ands r1, r0
  cmp r1, #10
  blt 2f
  adds r1, #39
2: adds r1, #48
  subs r4, #1
  strb r1, [r4]
  lsrs r0, r0, #4
  subs r5, #1
  bne 1b
  movs r0, #4
  mov r1, r4
  bkpt 0xab
  pop {r4, r5, pc}
.pool
