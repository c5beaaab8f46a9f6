"""Board profiles (boards/*.toml): load, validate, and derive the theoretical roofs.

A profile holds published facts with their sources; numbers that are not published are
left out and a `note` says so. Theoretical roofs are per-cycle figures times the clock,
and sit beside the measured roofs in results.json (never mixed). Format: docs/boards.md.

Schema history: 1 - first version.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

from mcuroof import package_data
from mcuroof.errors import UserError
from mcuroof.kernels.emitters import BOARD_EMITTERS

SCHEMA = 1
PROFILE_DIR = package_data.data_dir("boards")

DTYPES = ("int8", "int16", "int32", "float32", "float64")
MEMORY_KINDS = ("sram", "ccm", "tcm", "cache", "flash", "xip", "psram", "dram")
RAM_KINDS = ("sram", "ccm", "tcm")
CONNECTS = ("auto", "qemu", "rp2040js", "unix")
EMITTERS = BOARD_EMITTERS  # kernels.emitters
# [core].features: fpu (single precision), fpu64, dsp (Armv7E-M/Armv8-M DSP: SMLAD, two 16-bit
# MACs per instruction), mve (Helium), simd (another SIMD unit, e.g. ESP32-S3 PIE), cache (a data
# cache in front of the RAM the heap is in). Listed: present; left out: absent; no list: unknown.
FEATURES = ("fpu", "fpu64", "dsp", "mve", "simd", "cache")


@dataclass(frozen=True)
class Memory:
    name: str
    kind: str
    size_bytes: int | None = None
    bus_bytes_per_cycle: float | None = None
    bus_clock_divider: int = 1
    source: str | None = None
    bus_source: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class ComputePeak:
    unit: str  # the core or accelerator name
    dtype: str
    macs_per_cycle: float | None = None
    source: str | None = None
    note: str | None = None
    accelerator: bool = False


@dataclass(frozen=True)
class Published:
    name: str
    value: float
    unit: str
    source: str
    clock_hz: int | None = None
    note: str | None = None


@dataclass
class Board:
    name: str
    title: str
    port: str
    connect: str
    core_name: str
    cores: int | None
    clock_hz: int | None
    clock_source: str | None = None
    core_note: str | None = None
    memories: list[Memory] = field(default_factory=list)
    compute: list[ComputePeak] = field(default_factory=list)
    accelerators: list[ComputePeak] = field(default_factory=list)
    published: list[Published] = field(default_factory=list)
    note: str | None = None
    source_path: Path | None = None
    run: dict = field(default_factory=dict)
    features: tuple[str, ...] | None = None  # [core].features; None: the profile does not say
    features_source: str | None = None
    limits: tuple[str, ...] = ()  # an emulator's: what it does not model (shown wherever figures are)
    npu: dict = field(default_factory=dict)  # [npu]: defaults of `mcuroof npu` (Vela's names), with sources
    # [cycle_model]: the core and memory the cycle model charges (links.cycle_model); {}: none
    cycle_model: dict = field(default_factory=dict)

    @property
    def ram_bytes(self) -> int | None:
        """On-chip RAM (SRAM, CCM, TCM) with a published size, or None if none is known."""
        sizes = [m.size_bytes for m in self.memories if m.kind in RAM_KINDS and m.size_bytes]
        return sum(sizes) if sizes else None


# ---------------------------------------------------------------- validation helpers


class _Table:
    """One TOML table being read: every error names the file and the field."""

    def __init__(self, data, where: str, label: str):
        if not isinstance(data, dict):
            raise UserError(f"{label}: {where.rstrip('.') or 'profile'} must be a table")
        self.data, self.where, self.label, self.used = data, where, label, set()

    def fail(self, key: str, msg: str):
        raise UserError(f"{self.label}: {self.where}{key} {msg}")

    def get(self, key: str, check, required: bool = True, default=None):
        self.used.add(key)
        if key not in self.data:
            if required:
                self.fail(key, "is missing")
            return default
        return check(self, key, self.data[key])

    def done(self):
        extra = sorted(set(self.data) - self.used)
        if extra:
            raise UserError(f"{self.label}: unknown field {self.where}{extra[0]}")


_NOT_A_NUMBER = " (if there is no figure, leave it out and add note = \"not published\")"


def _str(t: _Table, key, v):
    if not isinstance(v, str) or not v.strip():
        t.fail(key, "must be a non-empty string")
    return v


def _pos_int(t: _Table, key, v):
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        t.fail(key, "must be a positive integer" + (_NOT_A_NUMBER if isinstance(v, str) else ""))
    return v


def _nonneg_int(t: _Table, key, v):
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        t.fail(key, "must be an integer >= 0")
    return v


def _flag(t: _Table, key, v):
    if not isinstance(v, bool):
        t.fail(key, "must be true or false")
    return v


def _pos_num(t: _Table, key, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
        t.fail(key, "must be a positive number" + (_NOT_A_NUMBER if isinstance(v, str) else ""))
    return float(v)


def _one_of(choices):
    def check(t: _Table, key, v):
        if v not in choices:
            t.fail(key, f"must be one of {', '.join(choices)} (got {v!r})")
        return v

    return check


def _list_of(choices):
    def check(t: _Table, key, v):
        if not isinstance(v, list) or any(x not in choices for x in v):
            t.fail(key, f"must be a list of {', '.join(choices)}")
        return list(v)

    return check


def _list_of_str(t: _Table, key, v):
    if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
        t.fail(key, "must be a list of non-empty strings")
    return v


def _array(t: _Table, key: str) -> list[_Table]:
    items = t.get(key, lambda t, k, v: v, required=False, default=[])
    if not isinstance(items, list):
        t.fail(key, f"must be an array of tables ([[{key}]])")
    return [_Table(item, f"[[{key}]][{i}].", t.label) for i, item in enumerate(items, 1)]


def _sourced(t: _Table, number_key: str):
    """A figure needs its source; an entry without the figure needs a note saying why."""
    number = t.data.get(number_key)
    return t.get("source", _str, required=number is not None), t.get("note", _str, required=number is None)


def _subtable(t: _Table, key: str, required: bool = True) -> _Table:
    if required and key not in t.data:
        raise UserError(f"{t.label}: [{key}] is missing")
    return _Table(t.get(key, lambda t, k, v: v, required=False, default={}), f"[{key}].", t.label)


# ---------------------------------------------------------------- sections


def _memory(t: _Table) -> Memory:
    name, kind = t.get("name", _str), t.get("kind", _one_of(MEMORY_KINDS))
    size = t.get("size_bytes", _pos_int, required=False)
    bus = t.get("bus_bytes_per_cycle", _pos_num, required=False)
    div = t.get("bus_clock_divider", _pos_int, required=False, default=1)
    bus_source = t.get("bus_source", _str, required=bus is not None)
    source, note = _sourced(t, "size_bytes")
    t.done()
    return Memory(name, kind, size, bus, div, source, bus_source, note)


def _compute(t: _Table, unit: str | None, accelerator: bool) -> ComputePeak:
    if accelerator:
        unit = t.get("name", _str)
    dtype = t.get("dtype", _one_of(DTYPES))
    macs = t.get("macs_per_cycle", _pos_num, required=False)
    source, note = _sourced(t, "macs_per_cycle")
    t.done()
    return ComputePeak(unit, dtype, macs, source, note, accelerator)


def _published(t: _Table) -> Published:
    p = Published(
        t.get("name", _str),
        t.get("value", _pos_num),
        t.get("unit", _str),
        t.get("source", _str),
        t.get("clock_hz", _pos_int, required=False),
        t.get("note", _str, required=False),
    )
    t.done()
    return p


def _run(t: _Table) -> dict:
    run = {
        "icount_shift": t.get("icount_shift", _nonneg_int, required=False),
        "emitters": t.get("emitters", _list_of(EMITTERS), required=False),
        "heap_bytes": t.get("heap_bytes", _pos_int, required=False),
        "heap_source": t.get("heap_source", _str, required=False),
        # an emulator whose timer follows the work it emulates and runs far slower than its chip:
        # the run is sized for it whatever its pace (suites.timing.slow)
        "slow_emulator": t.get("slow_emulator", _flag, required=False),
    }
    run["slow_emulator_source"] = t.get("slow_emulator_source", _str, required=bool(run["slow_emulator"]))
    t.done()
    return {k: v for k, v in run.items() if v is not None}


def _npu(t: _Table) -> dict:
    """[npu]: an Arm Ethos-U NPU as Vela names it (accelerator configuration, system config, memory mode)."""
    if not t.data:
        return {}
    npu = {
        "config": t.get("config", _str),
        "config_source": t.get("config_source", _str),
        "system": t.get("system", _str),
        "system_source": t.get("system_source", _str),
        "memory_mode": t.get("memory_mode", _str, required=False),
        "note": t.get("note", _str, required=False),
    }
    t.done()
    return {k: v for k, v in npu.items() if v is not None}


MODELLED_CORES = ("cortex-m0plus", "cortex-m3", "cortex-m4", "cortex-m33")  # links.cycle_model.CORES


def _address_range(t: _Table, key, v):
    if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) for x in v) and 0 <= v[0] < v[1] <= 1 << 32):
        t.fail(key, f"must be [START, END] with 0 <= START < END <= 2**32 (got {v!r})")
    return tuple(v)


def _cycle_model(t: _Table) -> dict:
    """[cycle_model]: the in-order core the cycle model times (its TRM's table), the wait states of
    the board's flash for an instruction fetch and a data access, an optional line buffer on
    fetch (a flash accelerator, an XIP cache), each with its source. An emulator's profile (qemu-m4)
    also gives where its firmware's code and RAM are and the mark's address."""
    if not t.data:
        return {}
    cm = {
        "core": t.get("core", _one_of(MODELLED_CORES)),
        "timings": t.get("timings", _str),
        "flash_fetch_wait_states": t.get("flash_fetch_wait_states", _nonneg_int),
        "flash_data_wait_states": t.get("flash_data_wait_states", _nonneg_int),
        "wait_states_source": t.get("wait_states_source", _str),
        "line_buffer_lines": t.get("line_buffer_lines", _pos_int, required=False),
        "mark_at": t.get("mark_at", _pos_int, required=False),
        "code": t.get("code", _address_range, required=False),
        "ram": t.get("ram", _address_range, required=False),
    }
    lines = cm["line_buffer_lines"] is not None
    cm["line_buffer_bytes"] = t.get("line_buffer_bytes", _pos_int, required=lines)
    cm["line_buffer_prefetch"] = t.get("line_buffer_prefetch", _flag, required=lines)
    cm["line_buffer_source"] = t.get("line_buffer_source", _str, required=lines)
    emulator = [k for k in ("mark_at", "code", "ram") if cm[k] is not None]
    if emulator and len(emulator) != 3:
        t.fail("mark_at", "an emulator's [cycle_model] gives mark_at, code and ram together")
    t.done()
    return {k: v for k, v in cm.items() if v is not None}


def _schema(top: _Table) -> int:
    schema = top.get("schema", _pos_int)
    if schema > SCHEMA:
        top.fail("schema", f"{schema} is newer than this mcuroof reads ({SCHEMA}): upgrade mcuroof")
    return schema


def _core(t: _Table) -> dict:
    core = dict(
        core_name=t.get("name", _str),
        cores=t.get("count", _pos_int, required=False),
        clock_hz=t.get("clock_hz", _pos_int, required=False),
    )
    core["clock_source"] = t.get("clock_source", _str, required=core["clock_hz"] is not None)
    core["core_note"] = t.get("note", _str, required=False)
    features = t.get("features", _list_of(FEATURES), required=False)
    core["features"] = tuple(features) if features is not None else None
    core["features_source"] = t.get("features_source", _str, required=features is not None)
    t.done()
    return core


def _board(data: dict, path: Path, label: str) -> Board:
    top = _Table(data, "", label)
    _schema(top)
    name = top.get("name", _str)
    if name != path.stem:
        top.fail("name", f"{name!r} must match the file name {path.stem!r}")
    board = Board(
        name,
        title=top.get("title", _str),
        port=top.get("port", _str),
        connect=top.get("connect", _one_of(CONNECTS)),
        note=top.get("note", _str, required=False),
        limits=tuple(top.get("limits", _list_of_str, required=False) or ()),
        **_core(_subtable(top, "core")),
        source_path=path,
    )
    board.memories = [_memory(t) for t in _array(top, "memory")]
    board.compute = [_compute(t, board.core_name, False) for t in _array(top, "compute")]
    board.accelerators = [_compute(t, None, True) for t in _array(top, "accelerator")]
    board.published = [_published(t) for t in _array(top, "published")]
    board.run = _run(_subtable(top, "run", required=False))
    board.npu = _npu(_subtable(top, "npu", required=False))
    board.cycle_model = _cycle_model(_subtable(top, "cycle_model", required=False))
    top.done()
    _check_clock(board, label)
    return board


def _check_clock(board: Board, label: str):
    """Per-cycle figures need a clock: [core].clock_hz, or icount_shift for a QEMU board."""
    per_cycle = any(m.bus_bytes_per_cycle for m in board.memories) or any(
        c.macs_per_cycle for c in board.compute + board.accelerators
    )
    if board.connect == "qemu" and "icount_shift" not in board.run and "mark_at" not in board.cycle_model:
        raise UserError(
            f"{label}: [run].icount_shift is missing (needed when connect = \"qemu\", unless an emulator's "
            "[cycle_model] times it)"
        )
    if per_cycle and board.clock_hz is None and board.connect != "qemu":
        raise UserError(f"{label}: [core].clock_hz is missing (needed by the per-cycle figures)")


# ---------------------------------------------------------------- loading


def profile_label(path: Path) -> str:
    """How a profile is named in messages: boards/pico.toml, or the path as given."""
    for base in (PROFILE_DIR.parent, Path.cwd()):
        try:
            return str(path.resolve().relative_to(base.resolve()))
        except ValueError:
            pass
    return str(path)


def _read(path: Path, label: str) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise UserError(f"{label}: cannot read ({e.strerror})") from None
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        msg = str(e)[: m.start()].strip() if m else str(e)
        where = f"{label}:{m.group(1)}" if m else label
        raise UserError(f"{where}: invalid TOML: {msg}" + (f" (column {m.group(2)})" if m else "")) from None


def load_path(path: Path) -> Board:
    """Load and validate one profile file."""
    label = profile_label(path)
    return _board(_read(path, label), path, label)


def board_names() -> list[str]:
    """The profile names in PROFILE_DIR, sorted."""
    return sorted(p.stem for p in PROFILE_DIR.glob("*.toml"))


def load_board(name_or_path) -> Board:
    """A board by profile name (boards/NAME.toml) or by the path of a .toml file. Nothing else is
    read: a serial port (/dev/ttyACM0) is not a profile, and reading one as a file blocks."""
    text = str(name_or_path)
    if text.endswith(".toml") or "/" in text or "\\" in text:
        path = Path(text)
        if not text.endswith(".toml") and not path.is_file():
            raise UserError(f"{text}: not a profile (a .toml file, or one of: {', '.join(board_names())})")
        return load_path(path)
    path = PROFILE_DIR / f"{text}.toml"
    if not path.is_file():
        raise UserError(unknown(text))
    return load_path(path)


def unknown(name: str) -> str:
    """The one message of a board name that is no profile: the nearest names first (a typo:
    esp32-s3, pico-2, qemu-m77), then where every name is listed."""
    names = board_names()
    near = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    near += [n for n in names if n not in near and len(near) < 3 and _squashed(n) == _squashed(name)]
    guess = f"; did you mean {' or '.join(near)}?" if near else ""
    return f"unknown board {name!r}{guess} (mcuroof boards lists all {len(names)}: {', '.join(names)})"


def _squashed(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def find(name: str | None) -> Board | None:
    """The profile a board's name is, None where it is none (a port, or a name the probe made)."""
    return load_board(name) if name in board_names() else None


def list_boards() -> list[Board]:
    """Every profile in PROFILE_DIR, loaded and validated, sorted by name."""
    return [load_path(PROFILE_DIR / f"{n}.toml") for n in board_names()]


# ---------------------------------------------------------------- theoretical roofs


def roof_clock_hz(board: Board, clock_hz: float | None = None, icount_shift: int | None = None) -> float | None:
    """The rate the per-cycle figures are multiplied by.

    An explicit clock_hz wins. Under QEMU with -icount shift=K every instruction takes 2^K ns,
    so the 'clock' is 1e9 / 2^K instructions per second. Otherwise the profile's clock_hz.
    """
    if clock_hz:
        return float(clock_hz)
    if board.connect == "qemu" and (icount_shift is not None or "icount_shift" in board.run):
        shift = board.run["icount_shift"] if icount_shift is None else icount_shift
        return 1e9 / 2**shift
    return float(board.clock_hz) if board.clock_hz else None


def _mhz(hz: float, step: str = "cycle") -> str:
    return f"{hz / 1e6:.6g} M instr/s" if step == "instr" else f"{hz / 1e6:.6g} MHz"


def _memory_roof(m: Memory, clock: float, step: str = "cycle") -> dict:
    bus_clock = clock / m.bus_clock_divider
    div = f" / {m.bus_clock_divider}" if m.bus_clock_divider != 1 else ""
    return {
        "kind": "memory",
        "role": "roof",
        "name": m.name,
        "dtype": None,
        "emitter": None,
        "source": "theoretical",
        "basis": f"{m.bus_source}; {m.bus_bytes_per_cycle:g} B/{step} x {_mhz(clock, step)}{div}",
        "bytes_per_s": m.bus_bytes_per_cycle * bus_clock,
    }


def _compute_roof(c: ComputePeak, clock: float, cores: int = 1, step: str = "cycle") -> dict:
    name = f"{c.unit} {c.dtype}" + (f" x{cores} cores" if cores > 1 else "")
    times = f" x {cores} cores" if cores > 1 else ""
    return {
        "kind": "compute",
        "role": "ceiling",
        "name": name,
        "dtype": c.dtype,
        "emitter": None,
        "source": "theoretical",
        "basis": f"{c.source}; {c.macs_per_cycle:g} MAC/{step} x {_mhz(clock, step)}{times}",
        "macs_per_s": c.macs_per_cycle * clock * cores,
    }


def theoretical_roofs(
    board: Board, clock_hz: float | None = None, icount_shift: int | None = None, all_cores: bool = False
) -> list[dict]:
    """Roofs from the profile's per-cycle figures, per core; only where a figure exists.

    Memory roofs first, then compute (core, then accelerators). With all_cores, each compute
    roof of a multi-core board gets a companion 'xN cores' roof (memory is shared: never scaled).
    """
    clock = roof_clock_hz(board, clock_hz, icount_shift)
    if clock is None:
        return []
    icount = icount_shift is not None or "icount_shift" in board.run
    step = "instr" if board.connect == "qemu" and icount and not clock_hz else "cycle"  # -icount: per instruction
    roofs = [_memory_roof(m, clock, step) for m in board.memories if m.bus_bytes_per_cycle]
    peaks = [c for c in board.compute + board.accelerators if c.macs_per_cycle]
    roofs += [_compute_roof(c, clock, step=step) for c in peaks]
    if all_cores and (board.cores or 1) > 1:
        roofs += [_compute_roof(c, clock, board.cores, step) for c in peaks if not c.accelerator]
    return roofs
