"""The one registry of MicroPython's emitters and of the instruction-set extensions mcuroof
measures: what each is, where it exists, how the probe finds it, which kernels measure it.
Pure data and small lookups, no I/O. Every other part reads these tables: adding an instruction
set is a row here and its new kernel modules (docs/development.md "Adding an instruction set").
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

# architectures an emitter exists on: Arm Thumb (M-profile), RISC-V RV32, Xtensa (ESP32, -S2,
# -S3) and a host OS (MicroPython's unix and windows ports)
THUMB, RV32, XTENSA, HOST = "thumb", "rv32", "xtensa", "host"
CORES = (THUMB, RV32, XTENSA)
# sys.platform of MicroPython's ports that run on a host OS (the unix and windows ports): no inline
# assembler, and their time is the host's
HOST_PLATFORMS = ("linux", "darwin", "windows", "win32")
ALL_OPS = None  # an emitter whose layer kernels run every op of kernels.ops.contract.OPS


@dataclass(frozen=True)
class Emitter:
    """One way MicroPython runs code. Listed slowest first (the probe reports them in this order;
    a layer borrows its time from the fastest that ran it: DONORS)."""

    name: str
    found: str  # how a run knows it is there: "always", "probe" (probe_src compiles), "memoryview", "profile"
    archs: frozenset[str]
    style: str  # the key of its colour and marker (report.styles)
    suites: tuple[str, ...] = ()  # the suites that sweep it: its ceilings ("compute") and movers ("memory")
    probe_src: str = ""  # the function the probe compiles under @micropython.NAME (firmware/probe.py)
    assembler: bool = False  # an inline assembler: its unroll is the compute suite's unroll_asm
    iters: tuple[int, int] | None = None  # loop iterations a kernel call (small heap, large heap: suites.timing)
    empty: str = ""  # an empty function of it, the harness's own cost of a call (kernels.compute.with_empty)
    dtypes: tuple[str, ...] = ()  # element types of its layer kernels (kernels.ops)
    ops: tuple[str, ...] | None = ALL_OPS  # the ops its layer kernels run
    generic: str | None = None  # the kernels.ops module of its generic layer kernel (kernels.ops.dispatch)
    work: int = 0  # MACs a calibration shape may hold (predict.design: ~10-30 ms on a Cortex-M3 under QEMU)
    interpreted: bool = False  # every operation goes through the runtime: its memory sweeps stop early (suites.memory)
    host_ws: int = 0  # the largest working set of its memory sweep on a host OS (suites.memory)
    # its ISA hooks, each "module.name" in mcuroof.kernels (hook() finds them; "": none):
    mac_body: str = ""  # (emitter, type code, unroll) -> its MAC ceiling's kernel or None (kernels.compute)
    movers: str = ""  # (emitter, type code, core's ISA kernels) -> [(mover, kernel or None)] (kernels.memory)
    reader: str = ""  # a Reader of raw addresses (kernels.regions)
    peaks: str = ""  # (ISA kernel names, type codes, iterations) -> its ISA peak Kernels (kernels.compute)
    # where the time goes in a compute-bound layer below its ceiling (analysis.advice): in
    # mcuroof's kernels, in a user's kernel ("": as in mcuroof's), and what it does to each int8
    overhead: str = ""
    user_overhead: str = ""
    int8_note: str = ""

    @property
    def decorator(self) -> str:
        return "" if self.name == "bytecode" else f"@micropython.{self.name}\n"

    @property
    def layers(self) -> bool:
        """Has it layer kernels (the layers and calibration suites, predict)?"""
        return bool(self.dtypes)


MAC_OPS = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")
# what bytecode and native share: Python loops (their layer kernels, ceilings and movers)
# an inline assembler's (mcuroof's layer kernels: Python loops around assembler calls)
ASM_OVERHEAD = (
    "its MAC loops' loads and requantization, and any Python between assembler calls, are "
    "instructions the ceiling's loop does not have"
)
_PYTHON = dict(
    dtypes=("int8", "float32"),
    generic="python",
    interpreted=True,
    host_ws=1 << 20,  # interpreter loops are flat past the host's caches
    mac_body="compute.python_mac",
    movers="memory.python_movers",
)
EMITTERS = (
    Emitter(
        "bytecode",
        "always",
        frozenset({THUMB, RV32, XTENSA, HOST}),
        "bytecode",
        ("compute", "memory"),
        iters=(32, 1024),
        work=1 << 11,
        overhead="interpreter work per MAC dominates: fewer index computations in the inner loop",
        **_PYTHON,
    ),
    Emitter(
        "native",
        "probe",
        frozenset({THUMB, RV32, XTENSA, HOST}),
        "native",
        ("compute", "memory"),
        "def f():\n pass",
        iters=(64, 1024),
        empty="@micropython.native\ndef z(a,b,c,n):\n return 0\n",
        work=1 << 12,
        overhead="native code still goes through the runtime for every integer operation: viper's machine integers do not",
        **_PYTHON,
    ),
    Emitter(
        "viper",
        "probe",
        frozenset({THUMB, RV32, XTENSA, HOST}),
        "viper",
        ("compute", "memory"),
        "def f():\n pass",
        iters=(1024, 4096),
        empty="@micropython.viper\ndef z(a,b,c,n:int)->int:\n return 0\n",
        dtypes=("int8",),  # viper has no float pointers
        generic="viper",
        work=1 << 16,
        host_ws=16 << 20,
        mac_body="compute.viper_mac",
        movers="memory.viper_movers",
        reader="regions.VIPER_READER",
        # mcuroof's viper layer kernels walk pointers already (kernels.ops.viper); a user's may not
        overhead=(
            "its loops around the products (pointers rebased every 8, windows clipped, outputs "
            "requantized) are machine code the ceiling's loop does not have"
        ),
        user_overhead="index arithmetic per MAC dominates the machine code: walk pointers instead of recomputing indices",
        int8_note="sign-extends each int8 it loads",  # ptr8 loads are unsigned
    ),
    Emitter(
        "asm_thumb",
        "probe",
        frozenset({THUMB}),
        "asm",
        ("compute", "memory"),
        "def f(r0):\n add(r0, r0, 1)",
        True,
        (1024, 4096),
        "@micropython.asm_thumb\ndef z(r0,r1,r2,r3):\n mov(r0,0)\n",
        ("int8",),
        MAC_OPS + ("AVERAGE_POOL_2D",),  # the Armv6-M kernels run the MAC layers and average pools
        "m0",
        1 << 18,
        mac_body="compute.thumb_mac",
        movers="memory.thumb_movers",
        reader="regions.THUMB_READER",
        peaks="compute.isa_kernels",
        overhead=ASM_OVERHEAD,
    ),
    Emitter("asm_xtensa", "profile", frozenset({XTENSA}), "asm", assembler=True, overhead=ASM_OVERHEAD),
    Emitter(
        "asm_rv32",
        "probe",
        frozenset({RV32}),
        "asm",
        ("compute", "memory"),
        "def f(a0):\n addi(a0, a0, 1)",
        True,
        (1024, 4096),
        "@micropython.asm_rv32\ndef z(a0,a1,a2,a3):\n li(a0,0)\n",
        ("int8",),  # the RV32IM kernels (kernels.ops.rv32) run every op
        ALL_OPS,
        "rv32",
        1 << 18,  # asm_thumb's budget
        mac_body="compute.rv32_mac",
        movers="memory.rv32_movers",
        peaks="compute.rv32_peak_kernels",
        # its own (kernels.ops.rv32: one assembler call a tile, no Python between calls)
        overhead=(
            "RV32IM has no SIMD and no multiply-accumulate: a MAC is MUL + ADD, and its int8 operands "
            "are loaded a byte an instruction (the LB dot product takes 4 instructions a MAC, the MUL+ADD "
            "ceiling 2); loads shared between channels and pixels, the window loops and the "
            "requantization are what the kernel adds to the ceiling's register loop"
        ),
    ),
    # MicroPython's own C code: a memoryview slice copy (memcpy), where the port has memoryview
    Emitter(
        "c",
        "memoryview",
        frozenset({THUMB, RV32, XTENSA, HOST}),
        "c",
        ("memory",),
        host_ws=192 << 20,
        movers="memory.c_movers",
    ),
)
BY_NAME = {e.name: e for e in EMITTERS}
NAMES = tuple(BY_NAME)
PROBED = tuple(e.name for e in EMITTERS if e.found == "probe")  # the decorators the probe tries
ASSEMBLERS = tuple(e.name for e in EMITTERS if e.assembler)
# what a board may have: its profile's [run].emitters (board.profiles), the probe's emitters
BOARD_EMITTERS = tuple(e.name for e in EMITTERS if e.found != "memoryview")
LAYER_EMITTERS = tuple(e.name for e in EMITTERS if e.layers)
# who lends a layer's time to an emitter without that layer's kernel: the fastest that has it
DONORS = tuple(reversed(LAYER_EMITTERS))


def get(name: str) -> Emitter | None:
    return BY_NAME.get(name)


HOOKS = ("mac_body", "movers", "reader", "peaks")


def hook(emitter: str, name: str):
    """The emitter's ISA hook `name` (HOOKS: what its row names, imported when asked), or None."""
    e = BY_NAME.get(emitter)
    where = getattr(e, name) if e and name in HOOKS else ""
    if not where:
        return None
    module, _, attr = where.rpartition(".")
    return getattr(importlib.import_module(f"{__package__}.{module}"), attr)


# the port's own C copy (memoryview slices): the memory roof's reference on a host OS (measure.pipeline)
MEMCPY = next(e.name for e in EMITTERS if e.found == "memoryview")


def readers() -> tuple[str, ...]:
    """The emitters with a reader of raw addresses (kernels.regions), the fastest first."""
    return tuple(e.name for e in reversed(EMITTERS) if e.reader)


def in_suite(suite: str) -> tuple[str, ...]:
    """The emitters a suite sweeps, in the registry's order."""
    return tuple(e.name for e in EMITTERS if suite in e.suites)


def present(probe: dict, suite: str) -> list[str]:
    """The emitters of this suite the board's probe record found, in the probe's order, then
    those found by another probe field (memoryview: MicroPython's C copy)."""
    ems = in_suite(suite)
    found = [e for e in probe.get("emitters", []) if e in ems]
    return found + [e for e in ems if BY_NAME[e].found == "memoryview" and probe.get("memoryview")]


def fills_in_viper(probe: dict) -> bool:
    """Whether the layers harness fills and sums its int8 buffers in viper on this board
    (firmware/fill_viper.py: 13x quicker than bytecode, the same data)."""
    return "viper" in probe.get("emitters", [])


def is_assembler(name: str) -> bool:
    return name in ASSEMBLERS


def assembler_of(arch: str) -> str | None:
    """The inline assembler of an architecture ("thumb" -> "asm_thumb")."""
    return next((e.name for e in EMITTERS if e.assembler and arch in e.archs), None)


def arch_of(emitters, platform: str | None = None) -> str | None:
    """The architecture a board's emitters (or a host platform) show: its assembler's, None if none."""
    if platform in HOST_PLATFORMS:
        return HOST
    return next((a for e in emitters if (em := BY_NAME.get(e)) and em.assembler for a in em.archs), None)


INTERPRETED = tuple(e.name for e in EMITTERS if e.interpreted)
HOST_WORKING_SETS = {e.name: e.host_ws for e in EMITTERS if e.host_ws}  # the C copy goes out to DRAM


def iters(large: bool) -> dict[str, int]:
    """Loop iterations a kernel call, per emitter with ceilings (suites.timing)."""
    return {e.name: e.iters[large] for e in EMITTERS if e.iters}


def probe_list() -> list[tuple[str, str]]:
    """(emitter, function source) the probe compiles under @micropython.EMITTER, in order
    (firmware/probe.py writes the same list out: tests/unit/test_emitters.py compares)."""
    return [(e.name, e.probe_src) for e in EMITTERS if e.found == "probe"]


@dataclass(frozen=True)
class Extension:
    """An instruction set beyond its architecture's base that mcuroof's kernels use: how a board
    is known to have it, the ceilings that measure it, the layer kernels that use it."""

    name: str  # as board.identity.Core.isa names it
    title: str
    arch: str
    detect: str  # how board.identity finds it
    feature: str | None = None  # the boards/*.toml [core].features name that declares it
    ceilings: tuple[str, ...] = ()  # compute-suite peak kernels (kernel names in the records' k)
    ceiling_source: str = ""  # module.function that writes them
    generators: tuple[str, ...] = ()  # kernels.ops modules of its layer kernels
    simd_macs: int = 1  # int8 MACs one instruction does (the widest SIMD is the one advice names)
    theory: str = "boards/*.toml [[compute]] macs_per_cycle (board.profiles.ComputePeak), per core"
    base: bool = False  # every core of the arch runs it (its ceilings run where the core is known to lack more)

    @property
    def emitter(self) -> str | None:
        return assembler_of(self.arch)


EXTENSIONS = (
    Extension(
        "armv6m",
        "Thumb-1 (Armv6-M: Cortex-M0/M0+)",
        THUMB,
        "CPUID part number (0xC20, 0xC60), read by the probe at 0xE000ED00",
        ceilings=("muls",),
        ceiling_source="kernels.compute._isa_body",
        generators=("m0", "m0_routines", "asm_text", "pool"),
        base=True,
    ),
    Extension(
        "armv7m",
        "Thumb-2 (Armv7-M and later: MLA, wide encodings)",
        THUMB,
        "CPUID part number of an M3 or later core",
        ceilings=("mla",),
        ceiling_source="kernels.compute._isa_body, kernels.thumb2",
    ),
    Extension(
        "dsp",
        "DSP extension (Cortex-M4/M7/M33/M55: SMLAD, SXTB16)",
        THUMB,
        "ID_ISAR3.SIMD_instrs >= 3 (0xE000ED6C)",
        "dsp",
        ("smlad",),
        "kernels.compute._isa_body, kernels.thumb2",
        ("dsp_common", "dsp_conv", "dsp_dense", "dsp_depthwise", "dsp_planes", "dsp_rows", "pool"),
        2,
    ),
    Extension(
        "fp32",
        "single-precision FPU (FPv4/FPv5: VFMA)",
        THUMB,
        "MVFR0 single-precision field (0xE000EF40)",
        "fpu",
        ("vfma",),
        "kernels.compute._isa_body, kernels.thumb2",
    ),
    Extension(
        "mve",
        "MVE integer (Helium, Cortex-M55: VMLADAVA, VMLA)",
        THUMB,
        "MVFR1.MVE >= 1 (0xE000EF44)",
        "mve",
        ("vmladava", "vmla"),
        "kernels.compute._isa_body, kernels.thumb2",
        ("mve",),
        16,
    ),
    Extension(
        "mve-fp",
        "MVE floating point (Helium: VFMA.F32 on Q registers)",
        THUMB,
        "MVFR1.MVE == 2",
        ceilings=("vfma-q",),
        ceiling_source="kernels.compute._isa_body, kernels.thumb2",
    ),
    Extension(
        "rv32imc",
        "RV32IMC (what MicroPython's RISC-V emitters need)",
        RV32,
        "sys.implementation._mpy architecture 11 (MP_NATIVE_ARCH_RV32IMC)",
        ceiling_source="kernels.rv32.dot, kernels.rv32.COPY_LW",
        generators=("rv32", "rv32_routines"),  # RV32IMC's M: MUL, DIVU
        base=True,
    ),
    Extension(
        "rv32m",
        "RV32 M (MUL; no multiply-accumulate)",
        RV32,
        "misa bit M, read by the probe with asm_rv32 (CSR 0x301); assumed where misa reads 0",
        ceilings=("mul", "lw16x"),  # kernels.rv32.LW_KERNEL: the int8 dot product by LW and shifts
        ceiling_source="kernels.rv32.peak_mul, kernels.rv32.dot_lw",
    ),
    Extension("rv32a", "RV32 A (atomics)", RV32, "misa bit A"),
    Extension("rv32c", "RV32 C (compressed)", RV32, "misa bit C; assumed where misa reads 0"),
    Extension("rv32b", "RV32 B (Zba, Zbb, Zbs: the RP2350's Hazard3)", RV32, "misa bit B"),
    Extension(
        "pie",
        "Xtensa PIE (ESP32-S3: 128-bit SIMD)",
        XTENSA,
        "the profile's [core].features 'simd' (no probe: mcuroof has no asm_xtensa kernels)",
        "simd",
        simd_macs=16,
    ),
)
EXTENSION_BY_NAME = {x.name: x for x in EXTENSIONS}
# the profile feature -> instruction set name (board.identity: a core known from its profile)
FEATURE_ISA = {x.feature: x.name for x in EXTENSIONS if x.feature and x.arch == THUMB}
# SIMD features (profile names) -> the assembler that can use them, the widest first (advice)
SIMD_ASSEMBLERS = {
    x.feature: x.emitter for x in sorted(EXTENSIONS, key=lambda x: -x.simd_macs) if x.feature and x.simd_macs > 1
}


def peak_kernels() -> tuple[tuple[str, str | None], ...]:
    """(ceiling kernel, the instruction set it needs) in the order the compute suite runs them;
    None: a base-ISA ceiling, run only on a core known to have nothing more (board.identity)."""
    return tuple((k, None if x.base else x.name) for x in EXTENSIONS for k in x.ceilings)


def generator_modules() -> tuple[str, ...]:
    """Every kernels.ops module the registry names: the emitters' generic ones and the extensions'."""
    names = [e.generic for e in EMITTERS if e.generic] + [g for x in EXTENSIONS for g in x.generators]
    return tuple(dict.fromkeys(names))
