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
