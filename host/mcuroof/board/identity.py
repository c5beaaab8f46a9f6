"""What the board is: its core and the instruction sets its kernels may use.

The one description of a board that the suites (which ceilings and movers run), the layer
kernels (which generators apply: kernels.ops.dispatch) and the advice read. Pure computation
from the board's probe record (and its profile), no I/O.

Instruction sets are named beyond what every Arm M-profile core runs (Armv6-M Thumb, the
Cortex-M0's): "armv7m" (MLA, Thumb-2 encodings), "dsp" (the DSP extension: SMLAD, SXTB16,
SADD8), "fp32" (single-precision FPU: VFMA), "mve" (Helium integer: VMLADAVA) and "mve-fp"
(Helium floating point).
"""

from __future__ import annotations

from dataclasses import dataclass

# the compute suite's asm_thumb peak kernels (kernels.compute.isa_kernels), each with the
# instruction set it needs: an instruction the core lacks faults. None: MULS + ADDS, which every
# core runs, is the peak only of a core known to lack MLA (a known Armv6-M core)
PEAK_KERNELS = (
    ("muls", None),
    ("mla", "armv7m"),
    ("smlad", "dsp"),
    ("vfma", "fp32"),
    ("vmladava", "mve"),
    ("vmla", "mve"),
    ("vfma-q", "mve-fp"),
)
# the cores known by the name their firmware gives sys.platform (only the emulated ones are
# known for sure)
PLATFORM_ISA = {
    "qemu-m3": frozenset({"armv7m"}),
    "qemu-m7": frozenset({"armv7m", "dsp", "fp32"}),
    "qemu-m55": frozenset({"armv7m", "dsp", "fp32", "mve", "mve-fp"}),
    "rp2040js-pico": frozenset(),  # Cortex-M0+: Armv6-M only
}


@dataclass(frozen=True)
class Core:
    """The board's core as far as it is known: the instruction sets its kernels may use."""

    isa: frozenset[str]
    source: str  # where that came from: "platform" or "none"
    name: str | None = None  # "Cortex-M7"; None: not known

    def has(self, name: str) -> bool:
        return name in self.isa

    @property
    def peak_kernels(self) -> list[str]:
        """The asm_thumb peak kernels the compute suite runs on this core."""
        armv6m = self.source == "platform" and "armv7m" not in self.isa
        return [kernel for kernel, needs in PEAK_KERNELS if (needs in self.isa if needs else armv6m)]


def describe(probe: dict) -> Core:
    """The core of the board that sent this probe record."""
    isa = PLATFORM_ISA.get(probe.get("platform"))
    if isa is None:
        return Core(frozenset(), "none")
    return Core(isa, "platform")


def board_name(probe: dict, port: str) -> str:
    """The name of a board that has no profile, from what its probe found: "Cortex-M7 (mimxrt) on
    /dev/ttyACM0", "microbit on /dev/pts/3" where the core is not known."""
    core = describe(probe)
    platform = probe.get("platform") or "MicroPython"
    return f"{core.name} ({platform}) on {port}" if core.name else f"{platform} on {port}"
