"""The collector over a replayed record stream: damage is detected and the suite re-run."""

import json

import pytest

from mcuroof.links.base import Link
from mcuroof.measure.protocol import frame
from mcuroof.measure.rawlog import read

RECORDS = [
    {
        "t": "mac",
        "em": "bytecode",
        "ty": "int32",
        "macs": 512,
        "r": 3,
        "us": 30000,
        "med": 30100,
        "ovh": 300,
        "chk": 32 * 136,
        "u": 16,
        "n": 32,
    },
    {
        "t": "mac",
        "em": "viper",
        "ty": "int32",
        "macs": 16384,
        "r": 900,
        "us": 30000,
        "med": 30050,
        "ovh": 900,
        "chk": 1024 * 136,
        "u": 16,
        "n": 1024,
    },
]


CFG = {"win_us": 1000, "trials": 3, "emitters": [], "types": [], "iters": {}, "unroll": 16, "unroll_asm": 16}


class ReplayLink(Link):
    """Replays recorded lines; each attempt may damage them with its own function."""

    def __init__(self, lines, damages):
        self.lines, self.damages, self.runs = lines, list(damages), 0

    def run(self, chunks, on_line, timeout=60.0):
        damage = self.damages[self.runs] if self.runs < len(self.damages) else (lambda ls: ls)
        self.runs += 1
        for line in damage(list(self.lines)):
            on_line(line)


def recorded():
    recs = RECORDS + [{"t": "end", "records": 3}]
    return ["MicroPython banner"] + [frame(i, r) for i, r in enumerate(recs)]


def test_torn_last_line_of_raw_log_is_dropped(tmp_path):
    path = tmp_path / "raw.jsonl"
    good = json.dumps({"schema": 1, "kind": "header"})
    path.write_text(good + "\n" + good[:10])
    assert len(read(path)) == 1


def test_newer_raw_log_is_refused(tmp_path):
    from mcuroof.errors import UserError

    path = tmp_path / "raw.jsonl"
    path.write_text(json.dumps({"schema": 9, "kind": "header"}) + "\n")
    with pytest.raises(UserError, match="newer than this mcuroof reads"):
        read(path)


class FakeBoard(Link):
    """Runs compute units as a board would answer them: one mac record and an end record each.
    A kernel unrolled more than `max_unroll` times raises MemoryError; `damage(key, attempt)`
    may corrupt a unit's record line."""

    def __init__(self, max_unroll=64, damage=lambda key, n: False):
        self.max_unroll, self.damage, self.sent = max_unroll, damage, []

    def run(self, chunks, on_line, timeout=60.0):
        import re

        from mcuroof.links.base import ScriptError

        seq = 0
        for i, chunk in enumerate(chunks):
            m = re.search(r"peak\(k,'(\w+)','(\w+)','(\w)',(\d+),(\d+)(?:,z=z)?\)", chunk)  # z: empty call
            if not m:
                continue
            em, ty, _, u, n = m.groups()
            key = f"compute/{em}/{ty}"
            self.sent.append((key, int(u)))
            if int(u) > self.max_unroll:
                raise ScriptError("fake: the board raised MemoryError", "MemoryError: memory allocation failed", i)
            rec = {
                "t": "mac",
                "em": em,
                "ty": ty,
                "macs": int(u) * int(n),
                "r": 1,
                "us": 900,
                "med": 900,
                "ovh": 1,
                "chk": int(n) * int(u) * (int(u) + 1) // 2,
                "u": int(u),
                "n": int(n),
            }
            line = frame(seq, rec)
            if self.damage(key, sum(k == key for k, _ in self.sent)):
                line = line.replace('"us":900', '"us":901')
            on_line(line)
            on_line(frame(seq + 1, {"t": "end", "records": seq + 2}))
            seq += 2


CCFG = {
    "win_us": 1000,
    "trials": 3,
    "emitters": ["bytecode", "asm_thumb"],
    "types": ["b", "i"],
    "iters": {"bytecode": 8, "asm_thumb": 64},
    "unroll": 8,
    "unroll_asm": 4,
}
