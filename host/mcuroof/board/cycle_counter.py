"""The DWT cycle counter of Armv7-M and later cores as the probe found it: does it count, and
at what clock (cycles per second of ticks_us). Pure computation from the probe record's `dwt`
(firmware/probe.py: [DEMCR, CTRL, CYCCNT before, CYCCNT after, us between]), no I/O.

The timed kernels keep timing with ticks_us either way (1 us over 20 ms windows); the counted
clock is what per-cycle figures and the theory are at (analysis.timing_basis).

States (results.json's board `cycle_counter`):
- "counting": CYCCNT advanced; `hz` is its rate against ticks_us.
- "not counting": DEMCR held TRCENA but CYCCNT did not advance (or CTRL.NOCYCCNT: none built).
- "no TRCENA": DEMCR did not hold TRCENA after it was written. Real silicon always holds it;
  QEMU models no DWT (DEMCR, CTRL and CYCCNT read 0): an emulator is suspected.
- "none": the core has no DWT cycle counter (Cortex-M0/M0+: the probe does not touch it).
- None: not read (no ID registers: the unix port, Xtensa; or the read failed).
"""

from __future__ import annotations

from dataclasses import dataclass

from mcuroof.board import identity
from mcuroof.units import si

PERIOD = 1 << 30  # the firmware reads CYCCNT modulo 2**30 (a small int: no allocation)
TRCENA = 1 << 24  # DEMCR: enables the DWT
NOCYCCNT = 1 << 25  # DWT CTRL: no cycle counter implemented
COUNTING, STILL, NO_TRCENA, ABSENT = "counting", "not counting", "no TRCENA", "none"
STATES = (COUNTING, STILL, NO_TRCENA, ABSENT)
TEXT = {
    COUNTING: "DWT CYCCNT counts",
    STILL: "DWT CYCCNT did not advance",
    NO_TRCENA: "DEMCR did not hold TRCENA: an emulator is suspected",
    ABSENT: "none (the core has no DWT cycle counter)",
}


@dataclass(frozen=True)
class Counter:
    state: str | None  # one of STATES; None: not read
    hz: float | None = None  # the counted clock, where it counts

    @property
    def emulator_suspected(self) -> bool:
        return self.state == NO_TRCENA


def text(state: str | None, hz: float | None, qemu: bool = False) -> str:
    """The finding as people read it: "DWT CYCCNT counts 600 MHz against ticks_us"; `qemu`: the
    board is known to be QEMU (its -icount shift), which models no DWT."""
    if state is None:
        return "not read"
    if qemu and state == NO_TRCENA:
        return "none: QEMU models no DWT (DEMCR did not hold TRCENA)"
    return TEXT[state] + (f" {si(hz, 'Hz')} against ticks_us" if hz else "")


def cycles_between(before: int, after: int) -> int:
    """Cycles from one CYCCNT reading to the next, both modulo 2**30: right across CYCCNT's own
    32-bit wrap-around (2**32 is a multiple of 2**30) for intervals under 2**30 cycles."""
    return (after - before) % PERIOD


def rate_hz(cycles: int, us: int) -> float | None:
    """Cycles per second over `us` microseconds of ticks_us; None where no time passed."""
    return cycles * 1e6 / us if us > 0 else None


def read(probe: dict) -> Counter:
    """The cycle counter of the board that sent this probe record."""
    dwt = probe.get("dwt")
    if not (isinstance(dwt, list) and len(dwt) == 5 and all(isinstance(v, int) for v in dwt)):
        return Counter(ABSENT if identity.describe(probe).name in identity.BASELINE else None)
    demcr, ctrl, before, after, us = dwt
    if not demcr & TRCENA:
        return Counter(NO_TRCENA)
    cycles = cycles_between(before, after)
    hz = rate_hz(cycles, us)
    if ctrl & NOCYCCNT or not cycles or hz is None:
        return Counter(STILL)
    return Counter(COUNTING, hz)


def warning(counter: Counter, core: str | None, icount_shift: int | None, modelled: bool = False) -> str | None:
    """One line for the terminal where an emulator is suspected and not known (no -icount shift,
    not a cycle model's board)."""
    if not counter.emulator_suspected or icount_shift is not None or modelled:
        return None
    return (
        f"the {core or 'core'}'s DEMCR did not hold TRCENA (real silicon does): an emulator is suspected; "
        "time comes from ticks_us and may count instructions, so no figure is given per cycle "
        "(--board qemu-m3, qemu-m7 or qemu-m55 knows its -icount shift)"
    )
