"""The cycle model: a QEMU TCG plugin (firmware/cycles/, C) that charges each executed Thumb
instruction its cycles on an in-order Cortex-M core, with the board's wait states, and writes the
count where the guest reads it (docs/timing.md "Modelled cycles").

`ensure()` builds the plugin with the host's C compiler on first use, cached under the digest of
its sources; `qemu_args()` gives the `-plugin` arguments for a board, `write_regions()` the
regions file they name.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from mcuroof.errors import UserError
from mcuroof.kernels.firmware import FIRMWARE_DIR
from mcuroof.links.firmware_build import cache_dir, locked

SOURCE_DIR = FIRMWARE_DIR / "cycles"
CORES = ("cortex-m0plus", "cortex-m3", "cortex-m4", "cortex-m33")
MARK_ADDRESS = 0xE0001004  # a store here is a mark (DWT_CYCCNT's address; QEMU has no DWT)
MARK_MAGIC = 0x4352434D
MARK_VERSION = 1
MARK_BYTES = 24  # uint64 cycles, uint32 clock_hz, heap_bytes, magic, version
CC_HINT = "apt-get install gcc"
OnProgress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Region:
    """An address range [start, end) and the wait states of an instruction fetch and a data access."""

    start: int
    end: int
    fetch_ws: int
    data_ws: int
    name: str


@dataclass(frozen=True)
class LineBuffer:
    """A flash accelerator on a region's instruction fetch (the STM32F4's ART: 64 lines of 16 bytes,
    with prefetch): a hit waits 0, a miss the region's fetch wait states."""

    region: str
    lines: int
    line_bytes: int
    prefetch: bool


def source_digest() -> str:
    h = hashlib.sha256()
    for path in sorted(SOURCE_DIR.glob("*.[ch]")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def plugin_path() -> Path:
    return cache_dir() / "cycles" / source_digest() / "cycles.so"


def ensure(on_progress: OnProgress | None = None) -> Path:
    """The plugin's shared library: from the cache, or built now (under a lock: one build at a time)."""
    lib = plugin_path()
    if lib.exists():
        return lib
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if not cc:
        raise UserError(f"no C compiler for the cycle-model plugin (cc): {CC_HINT}")
    lib.parent.mkdir(parents=True, exist_ok=True)
    with locked(lib.parent / "lock"):
        if not lib.exists():
            if on_progress:
                on_progress("building the cycle-model plugin", 0, 1)
            sources = sorted(str(p) for p in SOURCE_DIR.glob("*.c"))
            tmp = lib.with_suffix(".tmp")
            cmd = [cc, "-shared", "-fPIC", "-O2", "-Wall", "-o", str(tmp), *sources]
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                first = (done.stderr.strip().splitlines() or ["no output"])[0]
                raise UserError(f"building the cycle-model plugin failed: {first}")
            os.replace(tmp, lib)
            if on_progress:
                on_progress("building the cycle-model plugin", 1, 1)
    return lib


def regions_text(regions: Sequence[Region], buffers: Sequence[LineBuffer] = ()) -> str:
    """The regions file: one region a line, then one `accel` line per line buffer."""
    names = {r.name for r in regions}
    lines = ["# START END FETCH_WS DATA_WS NAME (START inclusive, END exclusive)"]
    for r in regions:
        if not (0 <= r.start < r.end <= 1 << 32) or r.fetch_ws < 0 or r.data_ws < 0 or not r.name.isidentifier():
            raise UserError(f"bad memory region {r}: 0 <= start < end <= 2**32, wait states >= 0, a plain name")
        lines.append(f"0x{r.start:08x} 0x{r.end:08x} {r.fetch_ws} {r.data_ws} {r.name}")
    for b in buffers:
        if b.region not in names:
            raise UserError(f"line buffer on {b.region!r}: no region of that name ({', '.join(sorted(names))})")
        lines.append(f"accel {b.region} {b.lines} {b.line_bytes} {int(b.prefetch)}")
    return "\n".join(lines) + "\n"


def write_regions(path: Path, regions: Sequence[Region], buffers: Sequence[LineBuffer] = ()) -> Path:
    path.write_text(regions_text(regions, buffers))
    return path


def qemu_args(core: str, clock_hz: int, heap_bytes: int, mark_at: int, regions: Path | None, **extra) -> list[str]:
    """`-plugin` and its arguments (extra: mul_cycles, refill, verbose), after ensure()."""
    if core not in CORES:
        raise UserError(f"no cycle model for core {core!r} (one of: {', '.join(CORES)})")
    if clock_hz <= 0 or heap_bytes < 0 or not 0 < mark_at < 1 << 32:
        raise UserError(
            f"cycle model: clock_hz > 0, heap_bytes >= 0, mark_at a 32-bit address (got {clock_hz}, {heap_bytes}, {mark_at:#x})"
        )
    opts = [f"core={core}", f"clock_hz={clock_hz}", f"heap_bytes={heap_bytes}", f"mark_at=0x{mark_at:08x}"]
    if regions is not None:
        if "," in str(regions):
            raise UserError(f"the regions file's path may not hold a comma (QEMU splits -plugin on them): {regions}")
        opts.append(f"regions={regions}")
    opts += [f"{k}={v}" for k, v in extra.items()]
    return ["-plugin", ",".join([str(ensure()), *opts])]


# the timings each core is charged, in the label of every figure
TIMINGS = {
    "cortex-m0plus": "Cortex-M0+ TRM timings",
    "cortex-m3": "Cortex-M3 TRM timings",
    "cortex-m4": "Cortex-M4 TRM timings",
    "cortex-m33": "Cortex-M4 TRM timings, assumed for the M33",
}
CORE_NAMES = {
    "cortex-m0plus": "Cortex-M0+",
    "cortex-m3": "Cortex-M3",
    "cortex-m4": "Cortex-M4",
    "cortex-m33": "Cortex-M33",
}


@dataclass(frozen=True)
class Setup:
    """One modelled board: the emulator that runs the firmware (qemu-m4) and the board it is timed
    as (itself, or a profile given by --as: its core's timings, clock, heap and flash wait states)."""

    emulator: str  # the emulating board's profile name (qemu-m4)
    board: str  # the board timed: the emulator itself or the --as profile (nrf52840)
    core: str  # the plugin's core (cortex-m4)
    timings: str  # whose timings: "Cortex-M4 TRM (ARM DDI 0439B) tables 3-1 and 7-1"
    clock_hz: int
    heap_bytes: int
    fetch_ws: int
    data_ws: int
    wait_states_source: str
    buffer: LineBuffer | None
    buffer_source: str | None
    regions: tuple[Region, ...]
    mark_at: int

    @property
    def as_other(self) -> bool:
        return self.board != self.emulator

    @property
    def memory_text(self) -> str:
        """The flash's wait states as people read them: "5 flash wait states, a 64-line buffer"."""
        ws = (
            f"{self.fetch_ws} flash wait states"
            if self.fetch_ws == self.data_ws
            else (f"flash wait states {self.fetch_ws} on fetch, {self.data_ws} on data")
        )
        if self.buffer:
            ws += f", a {self.buffer.lines} x {self.buffer.line_bytes} B line buffer on fetch"
        return ws

    @property
    def label(self) -> str:
        """What every figure of the board says: "modelled cycles (Cortex-M4 TRM timings; 0 flash wait states)"."""
        return f"modelled cycles ({TIMINGS[self.core]}; {self.memory_text})"

    @property
    def text(self) -> str:
        """The link's description of its time."""
        who = f"{self.board} emulated: " if self.as_other else ""
        return f"{who}{self.label} at {self.clock_hz / 1e6:g} MHz"

    @property
    def qemu_args(self) -> list[str]:
        path = cache_dir() / "cycles" / "regions" / f"{self.board}-{self.emulator}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_regions(path, self.regions, (self.buffer,) if self.buffer else ())
        return qemu_args(self.core, self.clock_hz, self.heap_bytes, self.mark_at, path)

    def record(self) -> dict:
        """results.json's board `cycle_model` (docs/results.md)."""
        return {
            "emulator": self.emulator,
            "board": self.board,
            "core": CORE_NAMES[self.core],
            "timings": self.timings,
            "clock_hz": self.clock_hz,
            "heap_bytes": self.heap_bytes,
            "flash_fetch_wait_states": self.fetch_ws,
            "flash_data_wait_states": self.data_ws,
            "wait_states_source": self.wait_states_source,
            "line_buffer": (
                {
                    "lines": self.buffer.lines,
                    "line_bytes": self.buffer.line_bytes,
                    "prefetch": self.buffer.prefetch,
                    "source": self.buffer_source,
                }
                if self.buffer
                else None
            ),
            "label": self.label,
        }


def setup(emulator, board=None) -> Setup:
    """The Setup of an emulator profile (board.profiles.Board with an emulator's [cycle_model]) timed
    as `board` (a profile with a [cycle_model] of the same core; None: the emulator itself)."""
    em = emulator.cycle_model
    if "mark_at" not in em:
        raise UserError(f"--board {emulator.name}: its time is not modelled (no emulator [cycle_model] in its profile)")
    target = board or emulator
    tm = target.cycle_model
    if not tm:
        raise UserError(
            f"--as {target.name}: its profile gives no [cycle_model] (core timings, flash wait states): "
            f"boards that have one: {', '.join(_modelled_names())}"
        )
    if tm["core"] != em["core"]:
        raise UserError(
            f"--as {target.name}: a {CORE_NAMES[tm['core']]} board; --board {emulator.name} models a "
            f"{CORE_NAMES[em['core']]} (use --board {_emulator_for(tm['core']) or 'one with that core'})"
        )
    heap = target.run.get("heap_bytes") or emulator.run.get("heap_bytes")
    if not target.clock_hz or not heap:
        raise UserError(f"--as {target.name}: its profile needs [core].clock_hz and [run].heap_bytes")
    buffer = None
    if tm.get("line_buffer_lines"):
        buffer = LineBuffer("flash", tm["line_buffer_lines"], tm["line_buffer_bytes"], tm["line_buffer_prefetch"])
    regions = (
        Region(em["code"][0], em["code"][1], tm["flash_fetch_wait_states"], tm["flash_data_wait_states"], "flash"),
        Region(em["ram"][0], em["ram"][1], 0, 0, "sram"),
    )
    return Setup(
        emulator.name,
        target.name,
        em["core"],
        tm["timings"],
        int(target.clock_hz),
        int(heap),
        tm["flash_fetch_wait_states"],
        tm["flash_data_wait_states"],
        tm["wait_states_source"],
        buffer,
        tm.get("line_buffer_source"),
        regions,
        em["mark_at"],
    )


def _modelled_names() -> list[str]:
    from mcuroof.board import profiles

    return [b.name for b in profiles.list_boards() if b.cycle_model and "mark_at" not in b.cycle_model]


def _emulator_for(core: str) -> str | None:
    from mcuroof.board import profiles

    return next(
        (b.name for b in profiles.list_boards() if b.cycle_model.get("core") == core and "mark_at" in b.cycle_model),
        None,
    )
