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
