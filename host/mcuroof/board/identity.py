"""What the board is: its core and the instruction sets its kernels may use.

The one description of a board that the suites (which ceilings and movers run), the layer
kernels (which generators apply: kernels.ops.dispatch) and the advice read, for boards with a
profile and without alike. Pure computation from the board's probe record (and its profile),
no I/O.

Where it comes from, first found wins:
1. the core's own ID registers, which the probe reads where machine.mem32 exists on a Thumb
   core (firmware/probe.py `cpu`): CPUID's part number names the core, ID_ISAR3's SIMD field
   says DSP, MVFR0 the FPU (single, double), MVFR1 MVE (integer, floating point). A profile's
   [core].features that disagree give one warning line: the board wins.
2. the profile's [core].features (a board whose registers cannot be read: unix port, Xtensa);
3. neither: only what every core has.
No name the firmware gives sys.platform decides which instructions run.

A RISC-V board has no CPUID: sys.implementation._mpy's architecture field (RV32IMC, py/persistentcode.h)
says RISC-V, and misa, read by the probe with asm_rv32 where it runs, names the extensions
("RISC-V RV32IMAC"); the probe reads no Arm address there. Its instruction sets: "rv32imc" (what
MicroPython's RV32 emitters need) and "rv32" plus a lower-case letter per misa extension
("rv32a", "rv32f", ...).

Instruction sets are named beyond what every Arm M-profile core runs (Armv6-M Thumb, the
Cortex-M0's): "armv7m" (MLA, Thumb-2 encodings), "dsp" (the DSP extension: SMLAD, SXTB16,
SADD8), "fp32" (single-precision FPU: VFMA), "mve" (Helium integer: VMLADAVA) and "mve-fp"
(Helium floating point).
"""

from __future__ import annotations

from dataclasses import dataclass

from mcuroof.kernels import emitters

# the compute suite's asm_thumb (and asm_rv32) peak kernels (kernels.emitters.EXTENSIONS), each with
# the instruction set it needs: an instruction the core lacks faults. None: MULS + ADDS, which every
# core runs, is the peak only of a core known to lack MLA (a known Armv6-M or Armv8-M Baseline core)
PEAK_KERNELS = emitters.peak_kernels()
# CPUID part number (bits 15:4; Arm's implementer code 0x41) -> core (Arm TRMs, CPUID register;
# the same numbers as OpenOCD's cortex_m.h). Which options a core was built with (DSP, FPU, MVE)
# its other ID registers say (decode), never the part number.
PARTS = {
    0xC20: "Cortex-M0",
    0xC60: "Cortex-M0+",
    0xD20: "Cortex-M23",  # Armv8-M Baseline: Thumb-1 plus SDIV/UDIV and MOVW/MOVT; no MLA, DSP or FPU
    0xC23: "Cortex-M3",
    0xC24: "Cortex-M4",
    0xC27: "Cortex-M7",
    0xD21: "Cortex-M33",  # Armv8-M Mainline: DSP and FPU (single) optional
    0xD31: "Cortex-M35P",  # Armv8-M Mainline, an M33 with physical-attack protection: DSP and FPU optional
    0xD22: "Cortex-M55",  # Armv8.1-M: DSP; FPU and MVE (integer, or integer and float) optional
    0xD23: "Cortex-M85",  # Armv8.1-M: DSP; FPU and MVE (integer, or integer and float) optional
    0xD24: "Cortex-M52",  # Armv8.1-M: DSP; FPU and MVE (integer, or integer and float) optional
}
ARM, ARM_CHINA = 0x41, 0x63  # CPUID implementer codes (OpenOCD arm_adi_v5.h ARM_IMPLEMENTER_*)
# the implementers a part number is known under: 0x41 for all; the Cortex-M52's 0xD24 is listed under
# Arm by LLVM (llvm/lib/TargetParser/Host.cpp) and GCC (config/arm/driver-arm.c, arm_cpu_table) but
# under Arm China by OpenOCD (src/target/cortex_m.h CORTEX_M52_PARTNO); the M52 TRM's CPUID reset
# value was not at hand to settle it, so either names it (the part number is the same)
IMPLEMENTERS = {0xD24: (ARM, ARM_CHINA)}
# Armv6-M and Armv8-M Baseline cores: no MLA (the MULS + ADDS peak), no DSP, and a DWT without
# the cycle counter (Cortex-M23 TRM: its DWT has no CYCCNT)
BASELINE = ("Cortex-M0", "Cortex-M0+", "Cortex-M23")
MPY_ARCH_RV32IMC = 11  # sys.implementation._mpy bits 10-15 (py/persistentcode.h MP_NATIVE_ARCH_RV32IMC)
# misa's extension letters in the order the ISA manual names them; S, U, H and N are privilege
# modes, not instruction sets
MISA_ORDER = "IEMAFDQLCBJTPVX"
# the profile's feature names the registers decide (cache and other SIMD units they do not)
READ_FEATURES = ("fpu", "fpu64", "dsp", "mve")
# instruction sets from profile features (fpu: fp32, dsp, mve)
FEATURE_ISA = emitters.FEATURE_ISA


@dataclass(frozen=True)
class Core:
    """The board's core as far as it is known: the instruction sets its kernels may use and the
    profile-style feature names the advice reads (None: not known either way)."""

    isa: frozenset[str]
    source: str  # where that came from: "registers", "misa", "mpy" (RISC-V), "profile" or "none"
    name: str | None = None  # "Cortex-M7"; None: not known
    features: frozenset[str] | None = None  # fpu, fpu64, dsp, mve, cache, simd; None: not known
    known: frozenset[str] | None = None  # the feature names `features` speaks for; None: all
    warning: str | None = None  # the profile disagrees with the registers (the registers win)

    def has(self, name: str) -> bool:
        return name in self.isa

    def feature(self, name: str) -> bool | None:
        """Has it this profile feature (True/False), or is that not known (None)?"""
        if self.features is None or (self.known is not None and name not in self.known):
            return None
        return name in self.features

    def record(self) -> dict:
        """The core as results.json's board carries it."""
        feats = None if self.features is None else sorted(self.features)
        rec = {"name": self.name, "source": self.source, "isa": sorted(self.isa), "features": feats}
        return rec | ({"known": sorted(self.known)} if self.known is not None else {})

    @property
    def peak_kernels(self) -> list[str]:
        """The asm_thumb peak kernels the compute suite runs on this core."""
        baseline = self.name in BASELINE  # known to lack MLA (its registers or its profile say so)
        return [kernel for kernel, needs in PEAK_KERNELS if (needs in self.isa if needs else baseline)]


def decode(regs: list[int]) -> tuple[str | None, frozenset[str], frozenset[str]]:
    """The core's name, instruction sets and feature names from CPUID[, ID_ISAR3[, MVFR0, MVFR1]]."""
    cpuid, rest = regs[0], list(regs[1:]) + [0, 0, 0]
    part = cpuid >> 4 & 0xFFF
    name = PARTS.get(part) if cpuid >> 24 in IMPLEMENTERS.get(part, (ARM,)) else None
    isar3, mvfr0, mvfr1 = rest[:3]
    feats = set()
    # SIMD_instrs: 3 = the DSP extension (SMLAD, SADD8, ...). A Cortex-M4 is Armv7E-M, whose DSP
    # extension is not optional (Cortex-M4 TRM, ARM DDI 0439B, 1.3), whatever that field reads (QEMU's: 1)
    if isar3 >> 4 & 0xF >= 3 or name == "Cortex-M4":
        feats.add("dsp")
    if mvfr0 >> 4 & 0xF:  # single-precision
        feats.add("fpu")
    if mvfr0 >> 8 & 0xF:  # double-precision
        feats.add("fpu64")
    mve = mvfr1 >> 8 & 0xF  # 1: integer MVE, 2: integer and floating point
    if mve:
        feats.add("mve")
    isa = {FEATURE_ISA[f] for f in feats if f in FEATURE_ISA}
    if name and name not in BASELINE:
        isa.add("armv7m")
    if mve >= 2:
        isa.add("mve-fp")
    return name, frozenset(isa), frozenset(feats)


def mpy_arch(probe: dict) -> int | None:
    """The native architecture in the probe's sys.implementation._mpy (None: not reported)."""
    mpy = probe.get("mpy")
    return mpy >> 10 & 0x2F if isinstance(mpy, int) else None


def riscv_letters(misa: int | None) -> str:
    """The extension letters misa names, in the manual's order ("IMAC"); "IMC" where misa is not
    read (or reads 0, as it may): what MicroPython's RV32 emitters need."""
    if not misa:
        return "IMC"
    have = {chr(ord("A") + i) for i in range(26) if misa >> i & 1}
    return "".join(c for c in MISA_ORDER if c in have)


def describe_riscv(probe: dict, declared: frozenset | None) -> Core:
    """A RISC-V core, from the probe's _mpy architecture and misa."""
    misa = probe.get("misa") if isinstance(probe.get("misa"), int) else None
    letters = riscv_letters(misa)
    isa = {"rv32imc"} | {"rv32" + c.lower() for c in letters}
    return Core(frozenset(isa), "misa" if misa else "mpy", "RISC-V RV32" + letters, declared)


def describe(probe: dict, profile=None) -> Core:
    """The core of the board that sent this probe record; `profile` (board.profiles.Board or
    None) where the board has one."""
    declared = getattr(profile, "features", None)
    declared = frozenset(declared) if declared is not None else None
    if mpy_arch(probe) == MPY_ARCH_RV32IMC:
        return describe_riscv(probe, declared)
    regs = probe.get("cpu")
    if isinstance(regs, list) and regs and isinstance(regs[0], int):
        name, isa, feats = decode(regs)
        if name:
            return _from_registers(name, isa, feats, declared)
    if declared is not None:
        core = getattr(profile, "core_name", None)
        isa = {FEATURE_ISA[f] for f in declared if f in FEATURE_ISA}
        if isa or (core in PARTS.values() and core not in BASELINE):
            isa.add("armv7m")  # an FPU or DSP core is Armv7-M or later
        if "mve" in declared and "fpu" in declared:
            isa.add("mve-fp")
        return Core(frozenset(isa), "profile", core, declared)
    return Core(frozenset(), "none")


def _from_registers(name: str, isa: frozenset, feats: frozenset, declared: frozenset | None) -> Core:
    read = frozenset(READ_FEATURES)
    if declared is None:
        return Core(isa, "registers", name, feats, read)
    warning = None
    if declared & read != feats:
        said, found = sorted(declared & read), sorted(feats)
        warning = (
            f"the profile's features ({', '.join(said) or 'none'}) disagree with the {name}'s registers "
            f"({', '.join(found) or 'none'}): the registers are used"
        )
    return Core(isa, "registers", name, feats | (declared - read), None, warning)


def board_name(probe: dict, port: str) -> str:
    """The name of a board that has no profile, from what its probe found: "Cortex-M7 (mimxrt) on
    /dev/ttyACM0", "microbit on /dev/pts/3" where the core is not known."""
    core = describe(probe)
    platform = probe.get("platform") or "MicroPython"
    return f"{core.name} ({platform}) on {port}" if core.name else f"{platform} on {port}"
