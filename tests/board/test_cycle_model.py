"""The cycle model (firmware/cycles/, links/cycle_model.py) on bare-metal micro-loops under
qemu-system-arm: each loop's cycles worked by hand from its core's TRM (docs/timing.md "Modelled
cycles" gives the table each figure comes from), and the plugin must give them to the cycle.

Every hand count is the loop's cycles between the harness's two marks, less the harness's own 6
(tests/data/cycles/harness.S). Loops run N = 100 times unless said: B<cc> back to the loop costs 1
plus the refill P when taken (P = 2 on the M3/M4/M33, 1 on the M0+), so a loop ends in
N * (SUBS 1 + BNE 1) + (N - 1) * P.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from mcuroof.links import cycle_model

DATA = Path(__file__).resolve().parents[1] / "data" / "cycles"
HARNESS_OVERHEAD = 6  # LDR 2 + NOP 1 (before BODY) + NOP 1 + STR 2 (the second mark)

pytestmark = pytest.mark.skipif(
    not (shutil.which("qemu-system-arm") and shutil.which("arm-none-eabi-gcc") and shutil.which("cc")),
    reason="needs qemu-system-arm, arm-none-eabi-gcc and cc",
)


@dataclass(frozen=True)
class Machine:
    qemu: str
    cflags: tuple[str, ...]
    code_at: int
    stack_top: int
    mark_at: int
    clock_hz: int


MACHINES = {
    "cortex-m0plus": Machine("microbit", ("-mcpu=cortex-m0plus",), 0, 0x20004000, 0x20000100, 16_000_000),
    "cortex-m3": Machine("mps2-an385", ("-mcpu=cortex-m3",), 0, 0x20010000, 0x20000100, 25_000_000),
    "cortex-m4": Machine(
        "mps2-an386",
        ("-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard", "-DFPU"),
        0,
        0x20010000,
        0x20000100,
        25_000_000,
    ),
    # AN505 boots secure: code in the secure alias of SSRAM1, data in the secure alias of SSRAM2
    "cortex-m33": Machine(
        "mps2-an505",
        ("-mcpu=cortex-m33", "-mfpu=fpv5-sp-d16", "-mfloat-abi=hard", "-DFPU"),
        0x10000000,
        0x38010000,
        0x38000100,
        25_000_000,
    ),
}


@dataclass(frozen=True)
class Run:
    cycles: int  # between the marks, the harness's overhead taken off
    magic: int
    clock_hz: int
    log: str
    symbols: dict[str, int]


def build(core: str, body: str, tmp: Path) -> Path:
    m = MACHINES[core]
    (tmp / "body.S").write_text(".macro BODY\n" + body + "\n.endm\n")
    elf = tmp / "loop.elf"
    cmd = [
        "arm-none-eabi-gcc",
        *m.cflags,
        "-mthumb",
        "-nostdlib",
        f"-DSTACK_TOP={m.stack_top:#x}",
        f"-DMARK_AT={m.mark_at:#x}",
        "-include",
        str(tmp / "body.S"),
        "-x",
        "assembler-with-cpp",
        str(DATA / "harness.S"),
        f"-Wl,--defsym=CODE_AT={m.code_at:#x}",
        "-T",
        str(DATA / "link.ld"),
        "-o",
        str(elf),
    ]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return elf


def symbols(elf: Path) -> dict[str, int]:
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], check=True, capture_output=True, text=True).stdout
    return {parts[2]: int(parts[0], 16) for parts in (ln.split() for ln in out.splitlines()) if len(parts) == 3}


def run(core: str, body: str, tmp: Path, regions: str | None = None, **extra) -> Run:
    m = MACHINES[core]
    elf = build(core, body, tmp)
    region_file = None
    if regions is not None:
        region_file = tmp / "regions.txt"
        region_file.write_text(regions)
    log, out = tmp / "plugin.log", tmp / "semihosting.txt"
    args = cycle_model.qemu_args(core, m.clock_hz, 0, m.mark_at, region_file, **extra)
    cmd = [
        "qemu-system-arm",
        "-M",
        m.qemu,
        "-nographic",
        "-monitor",
        "none",
        "-serial",
        "none",
        "-semihosting-config",
        "enable=on,target=native,chardev=sh0",
        "-chardev",
        f"file,id=sh0,path={out}",
        "-d",
        "plugin",
        "-D",
        str(log),
        *args,
        "-kernel",
        str(elf),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    words = [int(w, 16) for w in re.findall(r"^([0-9a-f]{8})$", out.read_text(), re.M)]
    assert len(words) == 3, out.read_text()
    return Run(words[0] - HARNESS_OVERHEAD, words[1], words[2], log.read_text(), symbols(elf))


ALU_LOOP = """
  movs r3, #100
1: adds r2, r2, r3
  eor r2, r2, r3, lsl #3
  subs r3, #1
  bne 1b
"""


def test_guest_reads_modelled_cycles(tmp_path):
    """The first check of the mark protocol: the guest reads the plugin's count, magic and clock."""
    got = run("cortex-m3", ALU_LOOP, tmp_path)
    # MOVS 1 + 100 * (ADDS 1 + EOR 1 + SUBS 1 + BNE 1) + 99 * P 2
    assert got.cycles == 1 + 100 * 4 + 99 * 2
    assert got.magic == cycle_model.MARK_MAGIC
    assert got.clock_hz == MACHINES["cortex-m3"].clock_hz
    assert "cycles: cortex-m3" in got.log


@dataclass(frozen=True)
class Loop:
    name: str
    body: str
    hand: dict[str, int]  # core -> cycles worked by hand (the sum in the comment beside it)


M3_FAMILY = ("cortex-m3", "cortex-m4", "cortex-m33")


def _same(cycles: int, cores=M3_FAMILY) -> dict[str, int]:
    return dict.fromkeys(cores, cycles)


# Cortex-M3/M4/M33 (DDI 0337H table 3-1 and 3.3.2; DDI 0439B table 3-1, 3.3.2 and table 7-1; the
# M33 takes the M4's timings): P = 2. r0, r5 and r6 belong to the harness.
LOOPS_V7M = [
    # MOVS 1 + 100 * (ADDS 1 + EOR 1 + SUBS 1 + BNE 1) + 99 * P
    Loop("alu", ALU_LOOP, _same(1 + 100 * 4 + 99 * 2)),
    # LDR literal 2 + MOVS 1 + 100 * (LDR 2 + LDR 1 + LDR 1 (pipelined: N+1) + SUBS 1 + BNE 1) + 99 * P
    Loop(
        "loads pipelined",
        """
  ldr r1, =MARK_AT+64
  movs r3, #100
1: ldr r2, [r1]
  ldr r4, [r1, #4]
  ldr r7, [r1, #8]
  subs r3, #1
  bne 1b""",
        _same(2 + 1 + 100 * (2 + 1 + 1 + 2) + 99 * 2),
    ),
    # LDR literal 2 + STR 2 (its base is the load's destination: not pipelined) + MOVS 1
    # + 100 * (LDR 2 + LDR 2 (base = the previous load's destination) + SUBS 1 + BNE 1) + 99 * P
    Loop(
        "load feeds the next address",
        """
  ldr r1, =MARK_AT+64
  str r1, [r1]
  movs r3, #100
1: ldr r2, [r1]
  ldr r4, [r2]
  subs r3, #1
  bne 1b""",
        _same(2 + 2 + 1 + 100 * (2 + 2 + 2) + 99 * 2),
    ),
    # 2 + 1 + 100 * (LDR 2 + STR 1 (after a load) + STR 2 (nothing pipelines after a store) + 2) + 99 * P
    Loop(
        "store after load",
        """
  ldr r1, =MARK_AT+64
  movs r3, #100
1: ldr r2, [r1]
  str r2, [r1, #4]
  str r2, [r1, #8]
  subs r3, #1
  bne 1b""",
        _same(2 + 1 + 100 * (2 + 1 + 2 + 2) + 99 * 2),
    ),
    # 2 + 1 + 100 * (LDMIA 1+4 + STMDB 1+4 + 2) + 99 * P
    Loop(
        "ldm stm",
        """
  ldr r1, =MARK_AT+64
  movs r3, #100
1: ldmia r1!, {r2, r4, r7, r8}
  stmdb r1!, {r2, r4, r7, r8}
  subs r3, #1
  bne 1b""",
        _same(2 + 1 + 100 * (5 + 5 + 2) + 99 * 2),
    ),
    # MOVS 1 + 100 * (PUSH 1+3 + POP 1+3 + 2) + 99 * P
    Loop(
        "push pop",
        """
  movs r3, #100
1: push {r1, r2, r4}
  pop {r1, r2, r4}
  subs r3, #1
  bne 1b""",
        _same(1 + 100 * (4 + 4 + 2) + 99 * 2),
    ),
    # MOVS 1 + 100 * (MUL 1 + MLA + MLS + 2) + 99 * P; MLA and MLS: M3 2 each, M4 1 each
    Loop(
        "mul mla mls",
        """
  movs r3, #100
1: mul r2, r3, r3
  mla r4, r3, r3, r4
  mls r7, r3, r3, r7
  subs r3, #1
  bne 1b""",
        {
            "cortex-m3": 1 + 100 * (1 + 2 + 2 + 2) + 99 * 2,
            "cortex-m4": 1 + 100 * (1 + 1 + 1 + 2) + 99 * 2,
            "cortex-m33": 1 + 100 * (1 + 1 + 1 + 2) + 99 * 2,
        },
    ),
    # MOVW 1 + MOVS 1 + MOVS 1 + 100 * (UDIV + SDIV + 2) + 99 * P; both divide 1000 by 7: the
    # quotient has 10 - 3 + 1 = 8 significant bits, 2 + ceil(8 * 10 / 32) = 5 cycles (the
    # early-termination model of docs/timing.md)
    Loop(
        "divide",
        """
  movw r4, #1000
  movs r7, #7
  movs r3, #100
1: udiv r2, r4, r7
  sdiv r8, r4, r7
  subs r3, #1
  bne 1b""",
        _same(3 + 100 * (5 + 5 + 2) + 99 * 2),
    ),
    # MOVW 1 + MOV 1 + LDR literal 2 + MOVS 1 + 100 * (UMULL + SMLAL + 2) + 99 * P
    # M3 (early termination, docs/timing.md): UMULL of two 13-bit values 3; SMLAL with a 29-bit
    # operand 3 + 1 (> 16 bits) + 1 (> 24 bits) + 1 (accumulate) + 1 (signed accumulate) = 7.
    # M4: UMULL 1, SMLAL 1.
    Loop(
        "long multiply",
        """
  movw r7, #0x1234
  mov r8, r7
  ldr r9, =0x12345678
  movs r3, #100
1: umull r2, r4, r7, r8
  smlal r2, r4, r7, r9
  subs r3, #1
  bne 1b""",
        {
            "cortex-m3": 5 + 100 * (3 + 7 + 2) + 99 * 2,
            "cortex-m4": 5 + 100 * 4 + 99 * 2,
            "cortex-m33": 5 + 100 * 4 + 99 * 2,
        },
    ),
    # MOVS 1 + 100 * (CBNZ taken 1+P + SUBS 1 + BNE 1) + 99 * P; the skipped NOP never runs
    Loop(
        "cbnz taken",
        """
  movs r3, #100
1: cbnz r3, 2f
  nop
2: subs r3, #1
  bne 1b""",
        _same(1 + 100 * (3 + 2) + 99 * 2),
    ),
    # MOVS 1 + 100 * (CMP 1 + ITE 0 (folded after a 16-bit CMP) + ADDHI 1 + SUBLS 1 + 2) + 99 * P
    Loop(
        "ite",
        """
  movs r3, #100
1: cmp r3, #50
  ite hi
  addhi r2, #1
  subls r2, #1
  subs r3, #1
  bne 1b""",
        _same(1 + 100 * (1 + 0 + 1 + 1 + 2) + 99 * 2),
    ),
    # LDR literal 2 + MOVS 1 + 100 * (CMP 1 + IT 0 (folded) + LDRHI 2 + SUBS 1 + BNE 1) + 99 * P,
    # less 1 for each of the 50 passes (r3 = 1..50) whose LDRHI fails its condition (1 cycle)
    Loop(
        "it load skipped",
        """
  ldr r1, =MARK_AT+64
  movs r3, #100
1: cmp r3, #50
  it hi
  ldrhi r2, [r1]
  subs r3, #1
  bne 1b""",
        _same(3 + 100 * (1 + 0 + 2 + 2) - 50 + 99 * 2),
    ),
    # MOVS 1 + 100 * (BL 1+P + CMP 1 + IT 0 + SUBS 1 + BNE 1) + 99 * P + B 1+P, and in the
    # function: BXHI LR taken 1+P (r3 = 51..100: 50 passes), or not taken 1 then BX LR 1+P (50)
    Loop(
        "conditional return in it",
        """
  movs r3, #100
1: bl 5f
  subs r3, #1
  bne 1b
  b 6f
5: cmp r3, #50
  it hi
  bxhi lr
  bx lr
6:""",
        _same(1 + 100 * (3 + 1 + 0 + 2) + 50 * 3 + 50 * (1 + 3) + 99 * 2 + 3),
    ),
    # MOVS 1 + 100 * (BL 1+P + BX 1+P + 2) + 99 * P + B 1+P (over the function)
    Loop(
        "call return",
        """
  movs r3, #100
1: bl 5f
  subs r3, #1
  bne 1b
  b 6f
5: bx lr
6:""",
        _same(1 + 100 * (3 + 3 + 2) + 99 * 2 + 3),
    ),
    # MOVS 1 + 100 * (CMP 1 + BHI 1 (+P taken for r3 = 51..100: 50 times) + NOP 1 (50 times) + 2) + 99 * P
    Loop(
        "forward branch half taken",
        """
  movs r3, #100
1: cmp r3, #50
  bhi 2f
  nop
2: subs r3, #1
  bne 1b""",
        _same(1 + 100 * (1 + 1 + 2) + 50 * 2 + 50 * 1 + 99 * 2),
    ),
]

# Cortex-M4 and M33 only: the DSP extension and the FPU (DDI 0439B table 3-1 and table 7-1)
LOOPS_M4 = [
    # MOVS 1 + 100 * (SMLAD 1 + SMLAD 1 + SMULBB 1 + 2) + 99 * P
    Loop(
        "smlad",
        """
  movs r3, #100
1: smlad r2, r4, r7, r2
  smlad r2, r4, r7, r2
  smulbb r8, r4, r7
  subs r3, #1
  bne 1b""",
        _same(1 + 100 * (1 + 1 + 1 + 2) + 99 * 2, ("cortex-m4", "cortex-m33")),
    ),
    # MOVS 1 + 100 * (VMLA 3 + VFMA 3 + VADD 1 + VMUL 1 + 2) + 99 * P
    Loop(
        "vmla vfma",
        """
  movs r3, #100
1: vmla.f32 s0, s1, s2
  vfma.f32 s3, s4, s5
  vadd.f32 s6, s7, s8
  vmul.f32 s9, s10, s11
  subs r3, #1
  bne 1b""",
        _same(1 + 100 * (3 + 3 + 1 + 1 + 2) + 99 * 2, ("cortex-m4", "cortex-m33")),
    ),
    # LDR literal 2 + MOVS 1 + 100 * (VLDMIA 1+4 + VSTMIA 1+4 + VPUSH 1+2 (d8: 2 words) + VPOP 1+2 + 2) + 99 * P
    Loop(
        "vldm vstm",
        """
  ldr r1, =MARK_AT+64
  movs r3, #100
1: vldmia r1, {s0-s3}
  vstmia r1, {s0-s3}
  vpush {d8}
  vpop {d8}
  subs r3, #1
  bne 1b""",
        _same(3 + 100 * (5 + 5 + 3 + 3 + 2) + 99 * 2, ("cortex-m4", "cortex-m33")),
    ),
    # MOVS 1 + 100 * (VDIV 14 + VSQRT 14 + 2) + 99 * P
    Loop(
        "vdiv vsqrt",
        """
  movs r3, #100
1: vdiv.f32 s0, s1, s2
  vsqrt.f32 s3, s4
  subs r3, #1
  bne 1b""",
        _same(1 + 100 * (14 + 14 + 2) + 99 * 2, ("cortex-m4", "cortex-m33")),
    ),
    # LDR literal 2 + MOVS 1 + 100 * (VLDR 2 + VSTR 2 + VMOV r<-s 1 + VMOV s<-r 1 + VMOV r,r<-d 2 + 2) + 99 * P
    Loop(
        "vldr vstr vmov",
        """
  ldr r1, =MARK_AT+64
  movs r3, #100
1: vldr s0, [r1]
  vstr s0, [r1, #4]
  vmov r2, s0
  vmov s1, r2
  vmov r2, r4, d0
  subs r3, #1
  bne 1b""",
        _same(3 + 100 * (2 + 2 + 1 + 1 + 2 + 2) + 99 * 2, ("cortex-m4", "cortex-m33")),
    ),
]

# Cortex-M0+ (DDI 0484C table 3-1): B<cc> 1, 2 taken (P = 1); MULS 1 (the fast multiplier)
LOOPS_M0 = [
    # MOVS 1 + 100 * (ADDS 1 + EORS 1 + SUBS 1 + BNE 1) + 99 * 1
    Loop(
        "alu",
        """
  movs r3, #100
1: adds r2, r2, r3
  eors r2, r3
  subs r3, #1
  bne 1b""",
        {"cortex-m0plus": 1 + 100 * 4 + 99},
    ),
    # LDR literal 2 + MOVS 1 + 100 * (LDR 2 + LDR 2 + LDRB 2 (no pipelining) + 2) + 99
    Loop(
        "loads",
        """
  ldr r1, =MARK_AT+64
  movs r3, #100
1: ldr r2, [r1]
  ldr r4, [r1, #4]
  ldrb r7, [r1, #8]
  subs r3, #1
  bne 1b""",
        {"cortex-m0plus": 3 + 100 * (6 + 2) + 99},
    ),
    # 2 + 1 + 100 * (STR 2 + STRH 2 + STRB 2 + 2) + 99
    Loop(
        "stores",
        """
  ldr r1, =MARK_AT+64
  movs r3, #100
1: str r2, [r1]
  strh r2, [r1, #4]
  strb r2, [r1, #8]
  subs r3, #1
  bne 1b""",
        {"cortex-m0plus": 3 + 100 * (6 + 2) + 99},
    ),
    # 2 + 1 + 100 * (LDM 1+3 + SUBS 1 + STM 1+3 + SUBS 1 + 2) + 99
    Loop(
        "ldm stm",
        """
  ldr r1, =MARK_AT+64
  movs r3, #100
1: ldm r1!, {r2, r4, r7}
  subs r1, #12
  stm r1!, {r2, r4, r7}
  subs r1, #12
  subs r3, #1
  bne 1b""",
        {"cortex-m0plus": 3 + 100 * (4 + 1 + 4 + 1 + 2) + 99},
    ),
    # 1 + 100 * (PUSH 1+3 + POP 1+3 + 2) + 99
    Loop(
        "push pop",
        """
  movs r3, #100
1: push {r1, r2, r4}
  pop {r1, r2, r4}
  subs r3, #1
  bne 1b""",
        {"cortex-m0plus": 1 + 100 * (4 + 4 + 2) + 99},
    ),
    # 1 + 100 * (MULS 1 + MULS 1 + 2) + 99
    Loop(
        "muls",
        """
  movs r3, #100
1: muls r2, r3
  muls r4, r3
  subs r3, #1
  bne 1b""",
        {"cortex-m0plus": 1 + 100 * (1 + 1 + 2) + 99},
    ),
    # 1 + 100 * (BL 3 + BX 2 + 2) + 99 + B 2
    Loop(
        "call return",
        """
  movs r3, #100
1: bl 5f
  subs r3, #1
  bne 1b
  b 6f
5: bx lr
6:""",
        {"cortex-m0plus": 1 + 100 * (3 + 2 + 2) + 99 + 2},
    ),
    # 1 + 100 * (BL 3 + PUSH 1+1 + POP {pc} 3+1 + 2) + 99 + B 2
    Loop(
        "push lr pop pc",
        """
  movs r3, #100
1: bl 5f
  subs r3, #1
  bne 1b
  b 6f
5: push {lr}
  pop {pc}
6:""",
        {"cortex-m0plus": 1 + 100 * (3 + 2 + 4 + 2) + 99 + 2},
    ),
    # 1 + 100 * (CMP 1 + BHI 1 (+1 taken, r3 = 51..100) + NOP 1 (50 times) + 2) + 99
    Loop(
        "forward branch half taken",
        """
  movs r3, #100
1: cmp r3, #50
  bhi 2f
  nop
2: subs r3, #1
  bne 1b""",
        {"cortex-m0plus": 1 + 100 * (1 + 1 + 2) + 50 + 50 + 99},
    ),
    # MOVS 1 + MOVS 1 + 100 * (ADD PC 2 (skips the NOP) + 2) + 99
    Loop(
        "add pc",
        """
  movs r4, #0
  movs r3, #100
1: add pc, r4
  nop
  subs r3, #1
  bne 1b""",
        {"cortex-m0plus": 2 + 100 * (2 + 2) + 99},
    ),
    # LDR literal 2 + MOVS 1 + 100 * (LDR literal 2 + MULS 1 + 2) + 99
    Loop(
        "literal load",
        """
  movs r3, #100
1: ldr r2, =0x12345678
  muls r2, r3
  subs r3, #1
  bne 1b""",
        {"cortex-m0plus": 1 + 100 * (2 + 1 + 2) + 99},
    ),
]

CASES = [(core, loop) for loop in LOOPS_V7M + LOOPS_M4 + LOOPS_M0 for core in loop.hand]


@pytest.mark.parametrize("core,loop", CASES, ids=[f"{c}-{lp.name}" for c, lp in CASES])
def test_micro_loop_gives_the_hand_count(core, loop, tmp_path):
    got = run(core, loop.body, tmp_path)
    assert got.cycles == loop.hand[core], got.log
    assert "unknown instruction" not in got.log


def test_slow_multiplier_is_a_parameter(tmp_path):
    muls = next(lp for lp in LOOPS_M0 if lp.name == "muls")
    got = run("cortex-m0plus", muls.body, tmp_path, mul_cycles=32)
    # 1 + 100 * (MULS 32 + MULS 32 + 2) + 99
    assert got.cycles == 1 + 100 * (32 + 32 + 2) + 99


# the loop alone in its region: B over the padding to a 16-byte aligned loop of 10 bytes
# (ADDS 2, EOR.W 4, SUBS 2, BNE 2): 3 words of 32 bits, one 16-byte line
ALIGNED_LOOP = """
  movs r3, #100
  b 1f
  .balign 16
loop_start:
1: adds r2, r2, r3
  eor r2, r2, r3, lsl #3
  subs r3, #1
  bne 1b
loop_end:
"""
ALIGNED_BASE = 1 + 3 + 100 * 4 + 99 * 2  # MOVS 1 + B 1+P + the loop as ALU_LOOP's


def _loop_region(got_symbols: dict[str, int], fetch_ws: int, data_ws: int) -> str:
    return f"{got_symbols['loop_start']:#x} {got_symbols['loop_end']:#x} {fetch_ws} {data_ws} loop\n"


def test_fetch_wait_states_per_word(tmp_path):
    plain = run("cortex-m4", ALIGNED_LOOP, tmp_path)
    assert plain.cycles == ALIGNED_BASE
    got = run("cortex-m4", ALIGNED_LOOP, tmp_path, regions=_loop_region(plain.symbols, 2, 0))
    # every pass fetches the loop's 3 words, each 2 wait states: 100 * 3 * 2
    assert got.cycles == ALIGNED_BASE + 100 * 3 * 2


def test_line_buffer_misses_once(tmp_path):
    plain = run("cortex-m4", ALIGNED_LOOP, tmp_path)
    regions = _loop_region(plain.symbols, 5, 0) + "accel loop 64 16 1\n"
    got = run("cortex-m4", ALIGNED_LOOP, tmp_path, regions=regions)
    # the first pass misses the loop's one line (5 wait states), the other 99 hit
    assert got.cycles == ALIGNED_BASE + 5
    assert "loop line buffer: 99 hits, 0 prefetched, 1 misses" in got.log


def test_data_wait_states_per_access(tmp_path):
    loads = next(lp for lp in LOOPS_V7M if lp.name == "loads pipelined")
    m = MACHINES["cortex-m4"]
    got = run("cortex-m4", loads.body, tmp_path, regions=f"{m.mark_at & ~0xFFFF:#x} {m.stack_top:#x} 0 3 sram\n")
    # the hand count, plus 3 wait states for each of the loop's 300 loads and the harness's LDR of
    # the first mark (the literal loads read the code region: no wait)
    assert got.cycles == loads.hand["cortex-m4"] + 3 * (300 + 1)


def test_same_program_same_cycles(tmp_path):
    loop = next(lp for lp in LOOPS_V7M if lp.name == "forward branch half taken")
    runs = [run("cortex-m3", loop.body, tmp_path).cycles for _ in range(2)]
    assert runs[0] == runs[1] == loop.hand["cortex-m3"]


def test_bad_plugin_argument_is_one_line(tmp_path):
    elf = build("cortex-m3", ALU_LOOP, tmp_path)
    plugin = cycle_model.ensure()
    cmd = [
        "qemu-system-arm",
        "-M",
        "mps2-an385",
        "-nographic",
        "-monitor",
        "none",
        "-serial",
        "none",
        "-plugin",
        f"{plugin},core=cortex-m9,clock_hz=1,mark_at=0x20000100",
        "-kernel",
        str(elf),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode != 0
    assert "cycles plugin: core=cortex-m9: one of cortex-m0plus, cortex-m3, cortex-m4, cortex-m33" in done.stderr


def _nop_loop(nops: int) -> str:
    return f"""
  movs r3, #100
  b 1f
  .balign 16
loop_start:
1: .rept {nops}
  nop
  .endr
  subs r3, #1
  bne 1b
loop_end:
"""


@pytest.mark.parametrize(
    "nops,lines,line_bytes,misses",
    [
        (400, 64, 16, 51),  # 400 NOPs + SUBS + BNE = 804 bytes = 51 lines: missed once each, then hits
        (
            520,
            64,
            16,
            66 * 100,
        ),  # 1044 bytes = 66 lines, over the 64: least recently used, every line misses every pass
        (520, 2048, 8, 131),  # an XIP-cache-sized buffer (16 KB of 8-byte lines): 131 lines, missed once each
    ],
)
def test_line_buffer_replaces_the_least_recently_used(tmp_path, nops, lines, line_bytes, misses):
    plain = run("cortex-m4", _nop_loop(nops), tmp_path)
    base = 1 + 3 + 100 * (nops + 2) + 99 * 2  # MOVS 1 + B 1+P + 100 * (NOPs + SUBS + BNE) + 99 * P
    assert plain.cycles == base
    regions = _loop_region(plain.symbols, 1, 0) + f"accel loop {lines} {line_bytes} 0\n"  # no prefetch
    got = run("cortex-m4", _nop_loop(nops), tmp_path, regions=regions)
    assert got.cycles == base + misses  # 1 wait state a miss
