"""board.identity: the core from its ID registers, else its profile, else nothing beyond Armv6-M."""

from __future__ import annotations

import pytest

from factories import CPU_REGS
from mcuroof.analysis import advice
from mcuroof.board import cycle_counter, identity
from mcuroof.board import profiles as boards

# what each emulated core's registers say (read over its pty): name, instruction sets
EXPECTED = {
    "qemu-microbit": ("Cortex-M0", set()),
    "qemu-m3": ("Cortex-M3", {"armv7m"}),
    "qemu-m7": ("Cortex-M7", {"armv7m", "dsp", "fp32"}),
    "qemu-m55": ("Cortex-M55", {"armv7m", "dsp", "fp32", "mve", "mve-fp"}),
}


@pytest.mark.parametrize("board", list(EXPECTED))
def test_the_registers_name_the_core_and_its_instructions(board):
    core = identity.describe({"platform": "anything", "cpu": CPU_REGS[board]})
    assert (core.name, set(core.isa), core.source) == (*EXPECTED[board], "registers")
    # the emulated boards' profiles agree with their registers: no warning
    assert identity.describe({"cpu": CPU_REGS[board]}, boards.load_board(board)).warning is None


def test_fields_by_hand():
    # a Cortex-M4F: ID_ISAR3 SIMD 3 (DSP), MVFR0 single precision only, no MVE
    name, isa, feats = identity.decode([0x410FC241, 0x01111131, 0x10110021, 0x11000011])
    assert name == "Cortex-M4" and isa == {"armv7m", "dsp", "fp32"} and feats == {"dsp", "fpu"}
    # a Cortex-M33 without DSP or FPU
    assert identity.decode([0x410FD210, 0x01111110, 0, 0])[1:] == ({"armv7m"}, frozenset())
    # not Arm's implementer code: no name, so the registers say nothing
    assert identity.decode([0x000FC240])[0] is None
    assert identity.decode([0x630FC240])[0] is None  # Arm China names the M52 part only (IMPLEMENTERS)
    assert identity.describe({"cpu": [0x000FC240]}).source == "none"


@pytest.mark.parametrize(
    "cpuid, regs, name, isa",
    [
        # Cortex-M85 r0p1 with MVE integer + float (MVFR1.MVE 2), FPU with doubles (MVFR0 SP 2, DP 2)
        (0x411FD231, [0x01111131, 0x10110221, 0x12100211], "Cortex-M85", {"armv7m", "dsp", "fp32", "mve", "mve-fp"}),
        # Cortex-M52 with integer MVE only (MVFR1.MVE 1) and no FPU
        (0x410FD240, [0x01111131, 0, 0x00000100], "Cortex-M52", {"armv7m", "dsp", "mve"}),
        # the same core under Arm China's implementer code, as OpenOCD's cortex_m.h lists it
        (0x630FD240, [0x01111131, 0, 0x00000100], "Cortex-M52", {"armv7m", "dsp", "mve"}),
        # Cortex-M35P with DSP and a single-precision FPU, no MVE (Armv8-M)
        (0x410FD310, [0x01111131, 0x10110021, 0x11000011], "Cortex-M35P", {"armv7m", "dsp", "fp32"}),
    ],
)
def test_armv8m_parts_named_and_their_options_read_from_the_registers(cpuid, regs, name, isa):
    core = identity.describe({"cpu": [cpuid, *regs]})
    assert (core.name, set(core.isa), core.source) == (name, isa, "registers")
    assert "muls" not in core.peak_kernels and "mla" in core.peak_kernels  # Armv8-M Mainline has MLA


def test_a_cortex_m23_is_a_baseline_core_no_mla_and_no_cycle_counter():
    """Armv8-M Baseline (CPUID part 0xD20): the Cortex-M0's kernels and peak (MULS + ADDS), and
    its DWT has no CYCCNT, so its per-cycle figures are at machine.freq()."""
    probe = {"cpu": [0x411CD200], "dwt": None, "freq": 48_000_000}
    core = identity.describe(probe)
    assert (core.name, set(core.isa), core.peak_kernels) == ("Cortex-M23", set(), ["muls"])
    assert cycle_counter.read(probe).state == cycle_counter.ABSENT


def test_the_board_wins_over_its_profile_with_one_warning():
    pico2 = boards.load_board("pico2")  # says fpu, dsp: give it an M0+ (an RP2040 under the name)
    core = identity.describe({"cpu": [0x410CC601]}, pico2)
    assert core.name == "Cortex-M0+" and core.isa == frozenset() and "\n" not in core.warning
    assert core.warning.startswith("the profile's features (dsp, fpu) disagree with the Cortex-M0+'s registers (none)")


def test_no_registers_the_profile_decides_and_with_neither_only_armv6m():
    m7 = identity.describe({"platform": "mimxrt"}, boards.load_board("teensy4"))
    assert m7.source == "profile" and m7.isa == {"armv7m", "dsp", "fp32"} and m7.feature("cache")
    assert identity.describe({"platform": "qemu-m55"}) == identity.Core(frozenset(), "none")
    assert identity.describe({"platform": "qemu-m55"}).peak_kernels == []


def test_registers_without_a_profile_say_nothing_of_caches():
    board = {"core": identity.describe({"cpu": CPU_REGS["qemu-m7"]}).record(), "emitters": ["asm_thumb"]}
    feats = advice.board_features(board)
    assert feats.has("dsp") and feats.has("fpu64") and feats.has("mve") is False
    assert feats.has("cache") is None  # not in the registers: not known either way


# what qemu-rv32's probe sent (tests/board/test_qemu_rv32.py): _mpy 0x2F06 (.mpy version 6, sub-version
# 2... architecture 11 in bits 10-15), misa 0x40141185 (MXL 1; A, C, H, I, M, S, U)
RV32_PROBE = {"platform": "qemu-rv32", "cpu": None, "mpy": 12038, "misa": 0x40141185}


def test_risc_v_from_mpy_and_misa_never_cpuid():
    assert identity.mpy_arch(RV32_PROBE) == identity.MPY_ARCH_RV32IMC == 11
    core = identity.describe(RV32_PROBE)
    # H, S and U are privilege modes, not instruction sets: left out of the name
    assert (core.name, core.source) == ("RISC-V RV32IMAC", "misa")
    assert core.isa == {"rv32imc", "rv32i", "rv32m", "rv32a", "rv32c"} and core.peak_kernels == ["mul", "lw16x"]
    # Arm registers in the same record do not make it an Arm core (the probe reads none there)
    assert identity.describe({**RV32_PROBE, "cpu": [0x410FC270]}).name == "RISC-V RV32IMAC"


def test_risc_v_letters_by_hand():
    # I (bit 8), M (12), F (5), C (2): an ESP32-C3-like RV32IMC has no F; misa may read 0
    assert identity.riscv_letters((1 << 8) | (1 << 12) | (1 << 2)) == "IMC"
    assert identity.riscv_letters((1 << 8) | (1 << 12) | (1 << 5) | (1 << 2) | (1 << 0)) == "IMAFC"
    assert identity.riscv_letters(0) == identity.riscv_letters(None) == "IMC"
    core = identity.describe({"platform": "esp32", "mpy": 11 << 10, "misa": None})
    assert (core.name, core.source) == ("RISC-V RV32IMC", "mpy")


def test_a_risc_v_board_without_a_profile_is_named_for_its_core():
    assert identity.board_name(RV32_PROBE, "/dev/ttyACM0") == "RISC-V RV32IMAC (qemu-rv32) on /dev/ttyACM0"
    # an Arm _mpy (ARMV7EMSP = 7) is not RISC-V
    assert identity.describe({"mpy": 7 << 10 | 6}) == identity.Core(frozenset(), "none")


def test_the_probe_reads_the_id_registers_of_every_armv7m_or_later_part():
    """firmware/probe.py gates ID_ISAR3, MVFR0/1 and the DWT by part number: the same parts as
    identity.PARTS, less the Armv6-M cores (a read of an absent register may fault there)."""
    import ast
    import re

    from mcuroof.kernels.firmware import FIRMWARE_DIR

    text = (FIRMWARE_DIR / "probe.py").read_text()
    v7m = ast.literal_eval(re.search(r"V7M = (\(.*?\))", text).group(1))
    assert set(v7m) == {p for p, name in identity.PARTS.items() if name not in identity.BASELINE}
    assert v7m[0] == 0xC23  # the M3 first: it has ID_ISAR3 but no MVFR0/1 (V7M[1:])
