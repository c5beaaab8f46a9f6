"""qemu-m4 and qemu-m33: MicroPython on QEMU whose time is the cycle model's (firmware/cycles).
Their ISA ceilings against each peak loop's bound worked by hand from the Cortex-M4 TRM, two runs
that give the same cycles for every record, and a board timed as another (--as pyboard)."""

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

# The peak loops (kernels/compute.py, ISA_REP 16): 32 multiply-accumulate instructions, then SUBS
# (1 cycle) and a taken BGT (1+P, P=2: docs/timing.md). Cortex-M4 TRM (ARM DDI 0439B) table 3-1:
# MLA and SMLAD 1 cycle; table 7-1: VFMA.F32 3. So MACs per cycle of each loop:
LOOP_BOUND = {
    "int32 asm_thumb mla": 32 / (32 * 1 + 1 + 3),  # 0.889
    "int16 asm_thumb smlad": 64 / (32 * 1 + 1 + 3),  # 1.78: two 16-bit MACs an SMLAD
    "int8 asm_thumb smlad": 64 / (32 * 1 + 1 + 3),
    "float32 asm_thumb vfma": 32 / (32 * 3 + 1 + 3),  # 0.32
}


def _run(tmp_path, name, *argv, suites="compute"):
    out = tmp_path / name
    assert main(["run", *argv, "--suite", suites, "-o", str(out)]) == 0
    return out, json.loads((out / "results.json").read_text())


def _per_cycle(data) -> dict:
    clock = data["board"]["cycle_model"]["clock_hz"]
    return {
        r["name"]: r["macs_per_s"] / clock
        for r in data["roofs"]
        if r["kind"] == "compute" and r["source"] == "measured"
    }


@pytest.mark.parametrize("board", ["qemu-m4", "qemu-m33"])
def test_ceilings_reach_their_loops_trm_bound_and_never_pass_it(tmp_path, board):
    out, data = _run(tmp_path, "a", "--board", board)
    cm = data["board"]["cycle_model"]
    assert cm["emulator"] == cm["board"] == board and cm["clock_hz"] == 25_000_000
    assert data["board"]["icount_shift"] is None
    measured = _per_cycle(data)
    for name, bound in LOOP_BOUND.items():
        assert 0.9 * bound <= measured[name] <= bound * 1.0005, (name, measured[name], bound)
    # the same run again: the same modelled time for every record, to the microsecond tick. A
    # window's cycles are the same; where it starts is not quite (the UART's transmit waits on the
    # host reading the pty between records), so its two ticks_us readings may round one tick apart.
    # The probe's timer step (a ticks_us() call's cost in whole microseconds) may read one more or
    # less by the same phase: windows are 1000 steps, so a kernel then runs another number of
    # repeats and its time per repeat agrees within 0.3 % (the window's own timer calls)
    again, _ = _run(tmp_path, "b", "--board", board)
    assert_same_timings(out, again)


def test_a_board_timed_as_the_pyboard(tmp_path):
    _, data = _run(tmp_path, "py", "--board", "qemu-m4", "--as", "pyboard", suites="compute,regions")
    board = data["board"]
    assert board["name"] == "pyboard" and board["clock_hz"] == 168_000_000
    cm = board["cycle_model"]
    assert (cm["emulator"], cm["board"], cm["flash_fetch_wait_states"]) == ("qemu-m4", "pyboard", 5)
    assert board["free_heap"] <= 102400  # the pyboard's heap, not qemu-m4's
    # asm_thumb runs from the heap (SRAM: no wait states): the loops' cycles are qemu-m4's own
    measured = _per_cycle(data)
    for name, bound in LOOP_BOUND.items():
        if name in measured:
            assert 0.9 * bound <= measured[name] <= bound * 1.0005, (name, measured[name])
    # the regions suite's asm_thumb reader (kernels/regions.py): per 32 bytes 2 x (4 LDRs, the first
    # 2 cycles and the pipelined rest 1 each, and 4 ADDs), ADD, SUBS, a taken BGT (3): 23 cycles in
    # SRAM; from flash each LDR waits the pyboard's 5 data wait states more: 23 + 8 x 5 = 63
    clock = board["cycle_model"]["clock_hz"]
    regions = {r["name"]: r["bytes_per_s"] / clock for r in data["roofs"] if r.get("role") == "region"}
    assert regions["SRAM read"] == pytest.approx(32 / 23, rel=0.01)
    assert regions["flash read"] == pytest.approx(32 / 63, rel=0.01)
    # theory at the pyboard's clock, from its profile
    theory = {r["name"]: r for r in data["roofs"] if r["source"] == "theoretical"}
    assert theory["Cortex-M4F int32"]["macs_per_s"] == 168e6
