"""How a run's time is counted, from its results' board fields: the one answer that every output
(terminal, report.html, CSV, compare, plots) gives. Pure computation.

- QEMU (`icount_shift` K not null): time counts instructions, 2^K ns each, so a rate per second
  is a rate per instruction times 1e9 / 2^K instructions/s. The board's `clock_hz` there is its
  emulated timer's (SysTick, machine.freq()): never shown as a CPU clock.
- The unix port (a host OS platform): host time; there is no per-step figure.
- A real board: time counts its clock; figures per cycle at `clock_hz`, the clock the probe read
  (`cycle_hz`, the cycle counter's rate against ticks_us, where the probe found one).
"""

from __future__ import annotations

from dataclasses import dataclass

from mcuroof.units import si

INSTRUCTIONS, CYCLES, HOST = "instructions", "cycles", "host time"
HOST_PLATFORMS = ("linux", "darwin", "windows", "win32")


@dataclass(frozen=True)
class Basis:
    kind: str  # INSTRUCTIONS, CYCLES or HOST
    rate_hz: float | None  # steps per second: instructions/s (QEMU) or the CPU clock; None: no step
    step: str | None  # what a per-step figure is per: "instr", "cycle"; None (host time, clock unknown)
    icount_shift: int | None = None
    timer_hz: float | None = None  # QEMU: the emulated timer's clock (not a CPU clock)

    @property
    def rate_text(self) -> str:
        """The step rate as people read it: "15.6 M instr/s", "125 MHz", "-"."""
        if self.rate_hz is None:
            return "-"
        if self.kind == INSTRUCTIONS:
            return f"{self.rate_hz / 1e6:.3g} M instr/s"
        return si(self.rate_hz, "Hz")

    @property
    def label(self) -> str:
        """A short heading: "instructions (QEMU shift=6: 15.6 M instr/s)", "cycles at 125 MHz"."""
        if self.kind == INSTRUCTIONS:
            return f"instructions (QEMU shift={self.icount_shift}: {self.rate_text})"
        if self.kind == CYCLES:
            return f"cycles at {self.rate_text}" if self.rate_hz else "cycles (clock not known)"
        return HOST

    @property
    def sentence(self) -> str:
        """The same said in full, for titles and notes."""
        if self.kind == INSTRUCTIONS:
            return (
                f"QEMU -icount shift={self.icount_shift}: time counts instructions ({2**self.icount_shift} ns "
                f"each, {self.rate_text}), not cycles"
            )
        if self.kind == CYCLES:
            return f"time counts the board's clock: per cycle at {self.rate_text}" if self.rate_hz else "real time"
        return "host time (the unix port): no per-cycle figure"

    def steps_text(self, seconds: float | None) -> str:
        """A time as the steps it counts: "888 k instr", "7.1 M cycles"; "-" where there is no step."""
        if seconds is None or not self.rate_hz:
            return "-"
        return si(seconds * self.rate_hz, "").rstrip() + (" instr" if self.kind == INSTRUCTIONS else " cycles")

    def per_step(self, value: float | None) -> float | None:
        return value / self.rate_hz if value is not None and self.rate_hz else None

    def per_text(self, value: float | None, unit: str) -> str:
        """A rate per second as a rate per step: "0.941 MACC/instr"; "-" where there is no step."""
        v = self.per_step(value)
        return f"{v:.3g} {unit}/{self.step}" if v is not None else "-"


def of(board: dict) -> Basis:
    """The timing basis of a results document's `board`."""
    shift = board.get("icount_shift")
    if isinstance(shift, int) and not isinstance(shift, bool):
        return Basis(INSTRUCTIONS, 1e9 / 2**shift, "instr", shift, board.get("clock_hz"))
    if board.get("platform") in HOST_PLATFORMS or board.get("name") == "unix":
        return Basis(HOST, None, None)
    hz = board.get("cycle_hz") or board.get("clock_hz")
    return Basis(CYCLES, float(hz) if hz else None, "cycle" if hz else None)


def ratio_word(bases: list[Basis]) -> str:
    """What a ratio of two runs' times or rates is: an instruction-count ratio between
    instruction-counted runs (never a speed-up), a speed-up between runs in real time, a time
    ratio between the two kinds."""
    counted = {b.kind == INSTRUCTIONS for b in bases}
    if counted == {True}:
        return "instruction-count ratio"
    return "speed-up" if counted == {False} else "time ratio"


def least_time_word(bases: list[Basis], short: bool = False) -> str:
    """The run with the least time, named for what its time counts."""
    counted = {b.kind == INSTRUCTIONS for b in bases}
    if counted == {True}:
        return "fewest instructions" if short else "fewest instructions (QEMU time)"
    if counted == {False}:
        return "fastest"
    return "least time" if short else "least time (instructions under QEMU, real time elsewhere)"
