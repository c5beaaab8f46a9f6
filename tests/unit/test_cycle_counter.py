"""The DWT cycle counter as the probe found it (board.cycle_counter) and the clock per-cycle
figures and the theory use (analysis.timing_basis). The counting path is only reachable here
with hand-made probe records: no emulator at hand models DWT CYCCNT (QEMU reads 0 from DEMCR,
CTRL and CYCCNT; rp2040js is a Cortex-M0+, which has none)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from factories import CPU_REGS
from mcuroof.analysis import timing_basis
from mcuroof.board import cycle_counter as cc
from mcuroof.measure import pipeline
from mcuroof.results import document

M7 = CPU_REGS["qemu-m7"]
MASK = cc.PERIOD - 1  # what firmware/probe.py keeps of a CYCCNT reading


def probe(cpu=M7, dwt=None, **extra) -> dict:
    return {"platform": "mimxrt", "version": [1, 24, 0], "freq": 600_000_000, "cpu": cpu, "dwt": dwt, **extra}


def counting(cycles: int, us: int = 20_000, before: int = 1000) -> list[int]:
    """[DEMCR, CTRL, CYCCNT before, after, us] of a counter that counts (DEMCR holds TRCENA;
    CTRL as mem32 reads it on a 32-bit port: signed, NUMCOMP in its top bits)."""
    return [cc.TRCENA, -0x7FFFFFFF, before & MASK, (before + cycles) & MASK, us]


def test_a_difference_across_the_32_bit_wrap_around():
    before, after = 0xFFFFFF00, 0x00000100  # CYCCNT wrapped between the two readings
    assert cc.cycles_between(before & MASK, after & MASK) == 0x200
    assert cc.cycles_between(5, 12_000_005) == 12_000_000
    assert cc.cycles_between(MASK, 0) == 1  # the reading's own 2**30 wrap


def test_the_clock_from_readings():
    assert cc.rate_hz(12_000_000, 20_000) == 600e6
    assert cc.rate_hz(100, 0) is None
    counter = cc.read(probe(dwt=counting(10_560_000, before=0xFFFF0000)))  # 528 MHz across the wrap
    assert (counter.state, counter.hz) == (cc.COUNTING, 528e6)


@pytest.mark.parametrize(
    "dwt, state",
    [
        ([0, 0, 0, 0, 20_062], cc.NO_TRCENA),  # QEMU's M3/M7/M55: DEMCR, CTRL and CYCCNT read 0
        ([cc.TRCENA, 0, 77, 77, 20_000], cc.STILL),  # enabled, never advanced
        ([cc.TRCENA, cc.NOCYCCNT, 0, 9, 20_000], cc.STILL),  # CTRL says no counter is built
        ([cc.TRCENA, 0, 0, 9, 0], cc.STILL),  # no time passed: no rate
    ],
)
def test_a_counter_that_does_not_count(dwt, state):
    counter = cc.read(probe(dwt=dwt))
    assert (counter.state, counter.hz) == (state, None)
    assert counter.emulator_suspected is (state == cc.NO_TRCENA)


def test_no_dwt_on_armv6m_and_none_read_without_registers():
    assert cc.read(probe(cpu=CPU_REGS["qemu-microbit"])).state == cc.ABSENT
    assert cc.read(probe(cpu=CPU_REGS["rp2040js-pico"])).state == cc.ABSENT
    assert cc.read(probe(cpu=None)).state is None  # the unix port, Xtensa
    assert cc.read(probe(dwt=[1, 2])).state is None  # a damaged record is not a finding


def test_one_warning_where_an_emulator_is_suspected_and_not_known():
    line = cc.warning(cc.read(probe(dwt=[0, 0, 0, 0, 20_000])), "Cortex-M3", None)
    assert "Cortex-M3's DEMCR did not hold TRCENA" in line and "emulator is suspected" in line
    assert "no figure is given per cycle" in line and "--board qemu-m3" in line
    assert cc.warning(cc.read(probe(dwt=[0, 0, 0, 0, 20_000])), "Cortex-M3", 6) is None  # QEMU, known
    assert cc.warning(cc.read(probe(dwt=counting(1000))), "Cortex-M7", None) is None


def board(p: dict, icount_shift=None, name="Cortex-M7 (mimxrt) on /dev/ttyACM0") -> dict:
    info = document.board_info(name, p, "serial", icount_shift)
    return info | {"core": {"name": "Cortex-M7" if p.get("cpu") == M7 else "Cortex-M0"}}


def test_per_cycle_figures_at_the_counted_clock_not_machine_freq():
    b = board(probe(dwt=counting(10_560_000)))  # machine.freq() says 600 MHz, the counter 528 MHz
    assert (b["cycle_counter"], b["cycle_hz"], b["clock_hz"]) == (cc.COUNTING, 528_000_000, 600_000_000)
    basis = timing_basis.of(b)
    assert (basis.kind, basis.rate_hz, basis.step, basis.clock_text) == (timing_basis.CYCLES, 528e6, "cycle", "counted")
    assert basis.label == "cycles at 528 MHz (counted)"
    assert "per cycle at 528 MHz, counted (DWT CYCCNT against ticks_us)" in basis.sentence
    assert basis.per_text(1056e6, "MACC") == "2 MACC/cycle"
    assert timing_basis.figure_clock(b) == 528e6


def test_no_counter_figures_at_the_clock_machine_freq_reported_and_say_so():
    m0 = board(probe(cpu=CPU_REGS["qemu-microbit"], freq=16_000_000), name="microbit on /dev/pts/3")
    basis = timing_basis.of(m0)
    assert (basis.kind, basis.rate_hz, basis.clock_text) == (timing_basis.CYCLES, 16e6, "machine.freq()")
    assert basis.sentence == (
        "time counts the board's clock (ticks_us): per cycle at 16 MHz, as machine.freq() reported "
        "(not counted: a Cortex-M0 has no cycle counter)"
    )
    still = timing_basis.of(board(probe(dwt=[cc.TRCENA, 0, 3, 3, 20_000])))
    assert (still.rate_hz, still.label) == (600e6, "cycles at 600 MHz (machine.freq())")
    assert "not counted: its DWT cycle counter did not advance" in still.sentence


def test_a_suspected_emulator_claims_no_cycles_at_a_clock_it_did_not_measure():
    b = board(probe(dwt=[0, 0, 0, 0, 20_062], freq=25_000_000), name="Cortex-M3 (qemu-m3) on /dev/pts/1")
    basis = timing_basis.of(b)
    assert (basis.kind, basis.rate_hz, basis.step, basis.timer_hz) == (timing_basis.SUSPECT, None, None, 25e6)
    assert basis.per_text(14.7e6, "MACC") == "-" and basis.steps_text(1.0) == "-"
    assert "emulator is suspected" in basis.sentence and "no figure per cycle" in basis.sentence
    assert "per cycle at" not in basis.sentence + basis.label and "MHz" not in basis.sentence + basis.label
    assert timing_basis.figure_clock(b) is None
    real = timing_basis.of(board(probe(dwt=counting(1000))))
    assert timing_basis.ratio_word([basis, real]) is None and timing_basis.least_time_word([basis, basis]) is None
    assert "suspected emulator" in timing_basis.why_not(basis, real)


def test_qemu_known_by_its_shift_counts_instructions_whatever_its_dwt_reads():
    b = board(probe(dwt=[0, 0, 0, 0, 20_062], freq=25_000_000), icount_shift=6, name="qemu-m7")
    assert timing_basis.of(b).kind == timing_basis.INSTRUCTIONS and timing_basis.figure_clock(b) is None
    assert cc.text(b["cycle_counter"], None, qemu=True) == "none: QEMU models no DWT (DEMCR did not hold TRCENA)"


def test_the_theory_is_at_the_counted_clock_not_the_profiles():
    spec = pipeline.Spec("teensy4", None, ["compute"], profile="teensy4")
    link = SimpleNamespace(description="serial /dev/ttyACM0")
    hz = pipeline.theory_clock(spec, link, probe(dwt=counting(10_560_000)))
    assert hz == 528e6
    roofs = pipeline.theoretical("teensy4", None, hz)
    assert roofs and all("528 MHz" in r["basis"] for r in roofs)
    no_counter = pipeline.theory_clock(spec, link, probe(dwt=[cc.TRCENA, 0, 3, 3, 20_000]))
    assert no_counter == 600e6  # machine.freq()'s, the clock per-cycle figures use too
    qemu = pipeline.Spec("qemu-m7", 6, ["compute"])
    assert pipeline.theory_clock(qemu, link, probe(dwt=[0, 0, 0, 0, 20_000])) is None  # -icount's rate


def test_a_board_whose_time_ran_far_from_real_time_is_a_suspected_emulator_unless_its_profile_says_so():
    """QEMU's micro:bit reached by --port ran 4.3 board seconds a host second; a real board's
    ticks_us keeps real time. rp2040js's profile lists its limits: a known emulator, never suspected."""
    m0 = board(probe(dwt=None, freq=16_000_000), name="Cortex-M0 (microbit) on /dev/pts/3")
    assert timing_basis.of({**m0, "pace": 1.02}).kind == timing_basis.CYCLES
    fast = timing_basis.of({**m0, "pace": 4.3})
    assert (fast.kind, fast.rate_hz, fast.timer_hz) == (timing_basis.SUSPECT, None, 16e6)
    assert "its time ran 4.3x the host's, where a real board's keeps real time" in fast.sentence
    assert "per cycle at" not in fast.sentence + fast.label
    slow = {**m0, "pace": 0.35}
    assert timing_basis.of(slow).kind == timing_basis.SUSPECT
    known = {**slow, "limits": ["memory is idealised"]}
    assert timing_basis.of(known).kind == timing_basis.CYCLES and timing_basis.suspected_emulator(known) is None
    assert timing_basis.suspected_emulator(m0) is None  # no pace measured: nothing to say


def test_rp2040js_time_is_its_modelled_cores_cycles_not_real_time():
    b = {"name": "rp2040js-pico", "platform": "rp2040js-pico", "clock_hz": 125_000_000, "cycle_counter": "none"}
    b["core"] = {"name": "Cortex-M0+"}
    basis = timing_basis.of(b)
    assert (basis.kind, basis.rate_hz, basis.model) == (timing_basis.CYCLES, 125e6, "rp2040js")
    assert basis.label == "cycles of the modelled Cortex-M0+ at 125 MHz (rp2040js)"
    assert "real time" not in basis.label and "not real time" in basis.sentence
    assert timing_basis.ratio_word([basis, basis]) == "cycle-count ratio"
    assert timing_basis.least_time_word([basis, basis], short=True) == "fewest cycles"
    real = timing_basis.of(board(probe(dwt=counting(1000))))
    assert timing_basis.ratio_word([basis, real]) is None
    assert timing_basis.ratio_word([real, real]) == "speed-up"
