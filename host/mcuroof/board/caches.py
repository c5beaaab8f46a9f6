"""The data caches the memory levels are named after: the host's, from Linux sysfs, for the
unix port (it runs on the host CPU); a board profile's `kind = "cache"` memories for an MCU."""

from __future__ import annotations

from pathlib import Path

SYSFS = Path("/sys/devices/system/cpu/cpu0/cache")
UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text: str) -> int:
    """sysfs cache size: "32K", "1024K", "32M" or bytes."""
    text = text.strip().upper()
    return int(text[:-1]) * UNITS[text[-1]] if text[-1:] in UNITS else int(text)


def host_caches(root: Path = SYSFS) -> list[dict]:
    """Data and unified caches of cpu0, smallest first: [{"name": "L1d", "bytes": 32768}, ...],
    then {"name": "DRAM", "bytes": None} for what lies past them; [] where sysfs does not say
    (not Linux, or a container without it)."""
    out = []
    for d in sorted(root.glob("index*")):
        try:
            level, kind, size = ((d / f).read_text().strip() for f in ("level", "type", "size"))
            out.append(
                {"name": f"L{level}" + ("d" if kind == "Data" else ""), "bytes": parse_size(size), "source": str(d)}
            )
        except (OSError, ValueError, KeyError):
            continue
        if kind == "Instruction":
            out.pop()
    out.sort(key=lambda c: c["bytes"])
    return out + [{"name": "DRAM", "bytes": None, "source": "past the last cache"}] if out else []


def profile_caches(board) -> list[dict]:
    """A board profile's data caches (boards.Board memories of kind "cache"), then the memory
    past them: the profile's first memory with a bus figure (where it puts the heap)."""
    src = f"boards/{board.name}.toml"
    found = sorted(
        (
            {"name": m.name, "bytes": m.size_bytes, "source": src}
            for m in board.memories
            if m.kind == "cache" and m.size_bytes
        ),
        key=lambda c: c["bytes"],
    )
    heap = next((m.name for m in board.memories if m.bus_bytes_per_cycle and m.kind != "cache"), "RAM")
    return found + [{"name": heap, "bytes": None, "source": src}] if found else []
