"""How a run's time is counted, from its results' board fields: the one answer that every output
(terminal, report.html, CSV, compare, plots) gives. Pure computation.

- QEMU (`icount_shift` K not null): time counts instructions, 2^K ns each, so a rate per second
  is a rate per instruction times 1e9 / 2^K instructions/s. The board's `clock_hz` there is its
  emulated timer's (SysTick, machine.freq()): never shown as a CPU clock.
- The unix port (a host OS platform): host time; there is no per-step figure.
- rp2040js (a cycle model, known by its firmware's sys.platform "rp2040js-*"): time counts the
  cycles of the modelled Cortex-M0+ at its 125 MHz, each instruction's M0+ cycles with memory
  that has no wait states: neither real time nor host time (MODELS).
- A modelled board (qemu-m4, qemu-m33, or one of them timed as another board with --as: the
  board's `cycle_model`): time counts the cycles the cycle model (a QEMU plugin with the core's TRM
  timings and the board's flash wait states) charges, at the modelled board's clock: an estimate
  of the chip's own time, in its milliseconds (MODELLED).
- A real board: time counts its clock (ticks_us); figures per cycle at `cycle_hz`, the DWT cycle
  counter's rate against ticks_us where the probe saw it count (board.cycle_counter), else at
  `clock_hz`, the clock machine.freq() reported, saying it was not counted.
- A board whose DEMCR did not hold TRCENA (board.cycle_counter "no TRCENA", an emulator
  suspected) and whose -icount shift is not known: time from ticks_us may count instructions,
  so there is no per-step figure (SUSPECT).
- Likewise a board whose time ran far from the host's (its measured `pace` outside
  REAL_TIME_PACE) and whose profile does not say it is an emulator (no `limits`): a real
  board's ticks_us keeps real time, so such a board is an emulator or its clock is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcuroof.board import cycle_counter
from mcuroof.kernels.emitters import HOST_PLATFORMS
from mcuroof.units import si

INSTRUCTIONS, CYCLES, HOST = "instructions", "cycles", "host time"
SUSPECT = "ticks (emulator suspected)"
COUNTED = "counted"
MODELLED = "modelled"  # clock_from of a board timed by the cycle model
MODELLED_SCALE = "modelled chip time"
# board seconds per host second that real time can show over a serial link (measure.pace: a
# 100 ms span between two records whose latency is a few ms); QEMU ran 0.36-16 here, rp2040js 0.04-0.5
REAL_TIME_PACE = (0.8, 1.25)
NO_TRCENA_WHY = "DEMCR did not hold TRCENA, as real silicon does"
# cycle models, by the prefix of their firmware's sys.platform: what their time counts
MODELS = {"rp2040js": "rp2040js"}


@dataclass(frozen=True)
class Basis:
    kind: str  # INSTRUCTIONS, CYCLES or HOST
    rate_hz: float | None  # steps per second: instructions/s (QEMU) or the CPU clock; None: no step
    step: str | None  # what a per-step figure is per: "instr", "cycle"; None (host time, clock unknown)
    icount_shift: int | None = None
    timer_hz: float | None = None  # QEMU: the emulated timer's clock (not a CPU clock)
    clock_from: str | None = None  # CYCLES: "counted" (cycle_hz) or why not: "no cycle counter", ...
    suspect_why: str | None = None  # SUSPECT: what marked the emulator
    model: str | None = None  # CYCLES counted by a cycle model (rp2040js), not by a chip's clock
    core: str | None = None  # the modelled core ("Cortex-M0+"), where `model` is set
    modelled: str | None = None  # the cycle model's label, "modelled cycles (Cortex-M4 TRM timings; ...)"
    modelled_board: str | None = None  # the board another emulator is timed as (--as pyboard), else None
    # whether this time tells a memory-bound layer from a compute-bound one: a chip's cycles or a
    # cycle model's do; instructions (a byte moved costs only the instructions that move it) do not.
    # The one place that says so: a new basis sets it, and the bound column, ridges and advice read it
    tells_bound: bool = False

    @property
    def bound_note(self) -> str | None:
        """Why memory- and compute-bound are not told apart on this basis (None: they are)."""
        if self.tells_bound:
            return None
        if self.kind == INSTRUCTIONS:
            return (
                "time counts instructions: a byte moved costs only the instructions that move it, so whether "
                "a layer is memory- or compute-bound on the chip, only a real board's timing tells"
            )
        return "what this time counts is not known, so no layer is called memory- or compute-bound"

    @property
    def real_time(self) -> bool:
        """Whether a time is a chip's own (a real board's clock, the host's): only then are
        seconds and inferences/s given without saying what they count."""
        return self.kind == HOST or (self.kind == CYCLES and not self.model)

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
        if self.modelled:
            return f"{self.modelled} at {self.rate_text}"
        if self.kind == CYCLES and self.model:
            return f"cycles of the modelled {self.core or 'core'} at {self.rate_text} ({self.model})"
        if self.kind == CYCLES:
            if not self.rate_hz:
                return "cycles (clock not known)"
            return f"cycles at {self.rate_text} ({self.clock_text})"
        return self.kind

    @property
    def sentence(self) -> str:
        """The same said in full, for titles and notes."""
        if self.kind == INSTRUCTIONS:
            return (
                f"QEMU -icount shift={self.icount_shift}: time counts instructions ({2**self.icount_shift} ns "
                f"each, {self.rate_text}), not cycles"
            )
        if self.modelled:
            who = f"{self.modelled_board} emulated: " if self.modelled_board else ""
            return f"{who}time counts {self.modelled} at {self.rate_text}, an estimate of the chip's own time"
        if self.kind == CYCLES and self.model:
            return (
                f"{self.model}: time counts the cycles of the modelled {self.core or 'core'} at {self.rate_text} "
                "(each instruction's cycles, memory without wait states): not real time, not host time"
            )
        if self.kind == CYCLES:
            if not self.rate_hz:
                return "real time (ticks_us): no per-cycle figure, the clock is not known"
            how = (
                "counted (DWT CYCCNT against ticks_us)"
                if self.counted
                else f"as machine.freq() reported (not counted: {self.clock_from})"
            )
            return f"time counts the board's clock (ticks_us): per cycle at {self.rate_text}, {how}"
        if self.kind == SUSPECT:
            return (
                f"time from ticks_us; an emulator is suspected ({self.suspect_why}): "
                "time may count instructions, so no figure per cycle (--board qemu-* knows its -icount shift)"
            )
        return "host time (the unix port): no per-cycle figure"

    @property
    def clock_text(self) -> str | None:
        """Where a real board's step clock came from: "counted" (the DWT cycle counter against
        ticks_us) or "machine.freq()"; None under QEMU, host time or a suspected emulator."""
        if self.kind != CYCLES or not self.rate_hz:
            return None
        return COUNTED if self.counted else "machine.freq()"

    @property
    def counted(self) -> bool:
        return self.clock_from == COUNTED

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
    cm = board.get("cycle_model")
    if cm:
        return Basis(
            CYCLES,
            float(cm["clock_hz"]),
            "cycle",
            clock_from=MODELLED,
            model="cycle model",
            core=cm["core"],
            modelled=cm["label"],
            modelled_board=cm["board"] if cm["board"] != cm["emulator"] else None,
            tells_bound=True,  # modelled cycles: loads and wait states cost their cycles
        )
    if board.get("platform") in HOST_PLATFORMS or board.get("name") == "unix":
        return Basis(HOST, None, None, tells_bound=True)
    model = _model(board)
    if model and board.get("clock_hz"):
        core = (board.get("core") or {}).get("name")
        return Basis(
            CYCLES, float(board["clock_hz"]), "cycle", clock_from=model, model=model, core=core, tells_bound=True
        )
    why = suspected_emulator(board)
    if why:
        return Basis(SUSPECT, None, None, timer_hz=board.get("clock_hz"), suspect_why=why)
    if board.get("cycle_hz"):
        return Basis(CYCLES, float(board["cycle_hz"]), "cycle", clock_from=COUNTED, tells_bound=True)
    hz = board.get("clock_hz")
    return Basis(
        CYCLES, float(hz) if hz else None, "cycle" if hz else None, clock_from=_not_counted(board), tells_bound=True
    )


def suspected_emulator(board: dict) -> str | None:
    """Why a board not known as an emulator looks like one (None: it does not): its DEMCR did not
    hold TRCENA, or its time ran far from real time."""
    if board.get("cycle_counter") == cycle_counter.NO_TRCENA:
        return NO_TRCENA_WHY
    pace = board.get("pace")
    if board.get("limits") or not isinstance(pace, (int, float)):
        return None
    lo, hi = REAL_TIME_PACE
    if lo <= pace <= hi:
        return None
    return f"its time ran {pace:.3g}x the host's, where a real board's keeps real time"


def _model(board: dict) -> str | None:
    """The cycle model that ran the board (MODELS, by its firmware's sys.platform), if any."""
    platform = str(board.get("platform") or "")
    return next((name for prefix, name in MODELS.items() if platform.startswith(prefix)), None)


def _not_counted(board: dict) -> str:
    """Why per-cycle figures are at machine.freq()'s clock, not a counted one."""
    core = (board.get("core") or {}).get("name")
    counter = board.get("cycle_counter")
    if counter == cycle_counter.ABSENT:
        return f"a {core} has no cycle counter" if core else "the core has no cycle counter"
    if counter == cycle_counter.STILL:
        return "its DWT cycle counter did not advance"
    return "no cycle counter read"


def figure_clock(board: dict) -> float | None:
    """The clock a real board's theory and per-cycle figures are at (the counted one where it
    counts, else machine.freq()'s); None where time counts instructions or host time, or where an
    emulator is suspected: the theory keeps its own (QEMU's -icount rate, the profile's clock)."""
    basis = of(board)
    return basis.rate_hz if basis.kind == CYCLES else None


def scale(basis: Basis) -> str | None:
    """The time scale a run's figures are on; runs compare only within one (None: with none)."""
    if basis.kind == INSTRUCTIONS:
        return "QEMU instructions"
    if basis.modelled:
        return MODELLED_SCALE
    if basis.kind == CYCLES:
        return f"{basis.model} cycles" if basis.model else "board time"
    return HOST if basis.kind == HOST else None


def why_not(a: Basis, b: Basis, names: tuple[str, str] = ("one", "the other")) -> str | None:
    """Why times of runs on bases a and b (called `names`) do not compare; None where they do."""
    if scale(a) is not None and scale(a) == scale(b):
        return None
    return f"{names[0]} {counts(a)}, {names[1]} {counts(b)}: their times do not compare"


def counts(b: Basis) -> str:
    """What a run's time counts, in a clause: "counts QEMU instructions (-icount)"."""
    if b.kind == INSTRUCTIONS:
        return "counts QEMU instructions (-icount)"
    if b.modelled:
        return f"counts {b.modelled} at {b.rate_text}" + (f" ({b.modelled_board} emulated)" if b.modelled_board else "")
    if b.kind == CYCLES and b.model:
        return f"counts the cycles of {b.model}'s modelled {b.core or 'core'}"
    if b.kind == CYCLES:
        return "counts a board's real time"
    if b.kind == HOST:
        return "counts the host's time (the unix port)"
    return "counts ticks of a suspected emulator (perhaps instructions)"


def units(basis: Basis, seconds: float) -> float:
    """A time in the unit its scale compares by: instructions under QEMU (runs at other -icount
    shifts compare by count), seconds elsewhere."""
    return seconds * basis.rate_hz if basis.kind == INSTRUCTIONS and basis.rate_hz else seconds


def time_ratio(base: Basis, base_seconds: float | None, other: Basis, seconds: float | None) -> float | None:
    """base's time over other's (above 1: other took less), None where the two do not compare."""
    if not base_seconds or not seconds or why_not(base, other):
        return None
    return units(base, base_seconds) / units(other, seconds)


def rate_ratio(base: Basis, base_rate: float | None, other: Basis, rate: float | None) -> float | None:
    """other's rate per second over base's, per instruction under QEMU; None where they do not compare."""
    if not base_rate or not rate:
        return None
    return time_ratio(base, 1 / base_rate, other, 1 / rate)


def ratio_word(bases: list[Basis]) -> str | None:
    """What a ratio of runs' times or rates is: an instruction-count ratio between QEMU runs,
    a cycle-count ratio between runs of one cycle model, a speed-up in real or host time; None
    where the runs' time bases do not all compare (why_not says why)."""
    scales = {scale(b) for b in bases}
    if len(scales) != 1 or None in scales:
        return None
    one = scales.pop()
    if one == "QEMU instructions":
        return "instruction-count ratio"
    if one == MODELLED_SCALE:
        return "modelled speed-up"
    return "cycle-count ratio" if one.endswith(" cycles") else "speed-up"


def least_time_word(bases: list[Basis], short: bool = False) -> str | None:
    """The run with the least time, named for what its time counts; None where the runs' times
    do not compare."""
    word = ratio_word(bases)
    if word is None:
        return None
    if word == "instruction-count ratio":
        return "fewest instructions" if short else "fewest instructions (QEMU time)"
    if word == "modelled speed-up":
        return "fastest (modelled)"
    if word == "cycle-count ratio":
        return "fewest cycles" if short else f"fewest cycles ({bases[0].model}'s model)"
    return "fastest"
