"""qemu-m0plus: MicroPython on QEMU's micro:bit machine, timed by the cycle model (firmware/cycles)
as a Cortex-M0+ at 125 MHz. Its MULS ceiling against the loop's bound worked by hand from the
Cortex-M0+ TRM, and two runs that give the same cycles for every record."""

import json
import shutil

import pytest

from conftest import assert_same_timings
from mcuroof.cli import main

needs_qemu = pytest.mark.skipif(
    not shutil.which("qemu-system-arm") or not shutil.which("arm-none-eabi-gcc") or not shutil.which("cc"),
    reason="needs qemu-system-arm, gcc-arm-none-eabi and a C compiler (the plugin)",
)
pytestmark = [needs_qemu, pytest.mark.qemu, pytest.mark.slow]

# The muls peak loop (kernels/compute.py, ISA_REP 16): 16 x (MULS, ADDS, MULS, ADDS) = 32 MACs in
# 64 instructions of 1 cycle each (MULS 1: the fast multiplier), then SUBS (1) and a taken BGT (2):
# Cortex-M0+ TRM (ARM DDI 0484C) table 3-1. So 32 MACs in 67 cycles, for every element type.
MULS_BOUND = 32 / (16 * (1 + 1 + 1 + 1) + 1 + 2)  # 0.478 MAC/cycle


def _run(tmp_path, name):
    out = tmp_path / name
    assert main(["run", "--board", "qemu-m0plus", "--suite", "compute", "-o", str(out)]) == 0
    return out, json.loads((out / "results.json").read_text())


def test_muls_ceiling_reaches_its_loops_trm_bound_and_two_runs_agree(tmp_path):
    out, data = _run(tmp_path, "a")
    board = data["board"]
    cm = board["cycle_model"]
    assert (cm["emulator"], cm["core"], cm["clock_hz"]) == ("qemu-m0plus", "Cortex-M0+", 125_000_000)
    assert board["icount_shift"] is None
    assert board["core"]["name"] == "Cortex-M0+"  # the CPUID QEMU's Cortex-M0 was given
    assert 190_000 <= board["free_heap"] <= 196_608  # the RP2040-sized heap in the raised SRAM
    muls = {
        r["name"]: r["macs_per_s"] / cm["clock_hz"]
        for r in data["roofs"]
        if r["source"] == "measured" and r.get("kernel") == "muls"
    }
    assert sorted(muls) == ["int16 asm_thumb muls", "int32 asm_thumb muls", "int8 asm_thumb muls"]
    for name, per_cycle in muls.items():
        assert 0.9 * MULS_BOUND <= per_cycle <= MULS_BOUND * 1.0005, (name, per_cycle, MULS_BOUND)
    # the same run again: the same modelled time for every record, to the microsecond tick. The
    # probe's timer step is the cost of a ticks_us() call rounded to whole microseconds (3 or 4
    # here), by the phase at which the probe starts, and the UART moves that (its receive
    # interrupts come, and its transmit waits end, when the host's bytes do). The windows are 1000 steps, so a run whose
    # probe read another step repeats a kernel another number of times: its time a repeat agrees
    # (within 0.3 %: the window's own ticks_us() calls, some microseconds, shared by fewer repeats)
    again, _ = _run(tmp_path, "b")
    assert_same_timings(out, again)
