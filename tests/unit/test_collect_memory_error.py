"""A MemoryError halves a unit's working set only where it struck that unit's own script: one
raised compiling the suite's firmware (sent before every unit) runs the attempt again as it was."""

import pytest

from mcuroof.kernels.firmware import prefix
from mcuroof.links.base import board_error
from mcuroof.measure.collect import Collector
from mcuroof.measure.protocol import frame
from mcuroof.measure.rawlog import MemoryLog
from mcuroof.suites import registry

M3 = {"platform": "qemu-m3", "free": 110000, "tick_us": 10, "emitters": ["bytecode", "asm_thumb"], "float": True}
PROBE = {"emitters": ["bytecode"], "free": 3936, "float": False, "platform": "microbit", "tick_us": 23}


class FailsOnce:
    """A board whose first run raises MemoryError at script piece `at`; later runs end every unit."""

    def __init__(self, at: int):
        self.at, self.runs = at, 0

    def run(self, chunks, on_line):
        self.runs += 1
        if self.runs == 1:
            raise board_error("MemoryError: parser could not allocate enough memory", "board", self.at)
        ends = [c for c in chunks if c.endswith("finish()\n")]
        for seq in range(len(ends)):
            on_line(frame(seq, {"t": "end", "records": seq + 1}))


def _run(piece) -> tuple[list[dict], int]:
    """The retries logged and the board runs taken when the MemoryError struck piece(n_prefix)."""
    suite = registry.get("memory")
    cfg = suite.config(PROBE)
    board, log = FailsOnce(piece(len(prefix(suite.firmware(cfg), cfg)))), MemoryLog()
    Collector(board, log).run_suite("memory", cfg)
    return [e for e in log.lines if e["kind"] == "retry"], board.runs


@pytest.mark.parametrize("where", ["first firmware piece", "last firmware piece"])
def test_a_memory_error_compiling_the_firmware_shrinks_nothing(where):
    piece = (lambda n: 0) if where.startswith("first") else (lambda n: n - 1)
    retries, runs = _run(piece)
    assert retries == [] and runs == 2


def test_a_memory_error_in_a_units_script_halves_its_working_set():
    retries, runs = _run(lambda n: n)  # the first unit's kernel script
    assert runs == 2 and [(r["kernel"], r["max_ws"]) for r in retries] == [("memory/bytecode/int8/copy", 3936 // 2)]


class NoRoomFor:
    """A board that raises MemoryError whenever unit `key`'s own call script runs; every other unit ends."""

    def __init__(self, key: str, units: list):
        self.key, self.units, self.runs = key, units, 0

    def run(self, chunks, on_line):
        self.runs += 1
        seq = 0
        for n, c in enumerate(chunks):
            if any(c == u.chunks[-1] and u.key == self.key for u in self.units):
                raise board_error("MemoryError: memory allocation failed", "board", n)
            if c.endswith("finish()\n"):
                on_line(frame(seq, {"t": "end", "records": seq + 1}))
                seq += 1


@pytest.mark.parametrize("position", [0, 1])
def test_a_unit_that_cannot_shrink_and_meets_a_memory_error_in_a_fresh_heap_is_left_out_at_once(position):
    cfg = registry.get("calibration").config(M3)
    col = Collector(None, MemoryLog())
    units = col.units("calibration", cfg)
    key = units[position].key
    col.link = board = NoRoomFor(key, units)
    recs = col.run_suite("calibration", cfg)
    assert [r["unit"] for r in recs if r["t"] == "skip"] == [key]
    # first of its pass: one attempt; second: that pass, then a pass of its own (a fresh heap)
    assert board.runs == 2 + position
    faults = [e["what"] for e in col.log.lines if e["kind"] == "fault" and e.get("kernel") == key]
    assert len(faults) == 1 and faults[0].startswith(f"left out after {1 + position} attempts: ")
    assert "MemoryError" in faults[0]
