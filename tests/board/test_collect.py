"""The collector over a replayed record stream: damage is detected and the suite re-run."""

import pytest

from mcuroof.errors import BoardError
from mcuroof.links.base import Link
from mcuroof.measure.collect import Collector
from mcuroof.measure.protocol import frame
from mcuroof.measure.rawlog import RawLog, complete_kernels, read

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


@pytest.mark.parametrize(
    "damage",
    [
        lambda ls: [ls[0], ls[1].replace("30000", "30001"), *ls[2:]],  # bit flip inside a record
        lambda ls: [ls[0], ls[2], ls[3]],  # a record dropped
        lambda ls: ls[:-1],  # the end record lost
        lambda ls: [ls[0], ls[1][:40], *ls[2:]],  # a truncated line
    ],
)
def test_damaged_attempt_is_rerun_and_nothing_wrong_is_kept(tmp_path, damage):
    log = RawLog(tmp_path / "raw.jsonl")
    link = ReplayLink(recorded(), [damage])
    recs = Collector(link, log).run_suite("compute", CFG)
    log.close()
    assert link.runs == 2 and recs == RECORDS
    entries = read(tmp_path / "raw.jsonl")
    assert [e["what"] for e in entries if e["kind"] == "fault"]
    assert suite_records(entries, "compute") == RECORDS


def test_link_that_never_gets_it_right_gives_a_clear_error(tmp_path):
    log = RawLog(tmp_path / "raw.jsonl")
    drop = lambda ls: ls[:-1]  # noqa: E731
    with pytest.raises(BoardError, match="suite compute: compute failed 3 times in a row"):
        Collector(ReplayLink(recorded(), [drop, drop, drop]), log).run_suite("compute", CFG)
    log.close()


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


def test_only_the_damaged_unit_is_run_again(tmp_path):
    board = FakeBoard(damage=lambda key, n: key == "compute/asm_thumb/int8" and n == 1)
    log = RawLog(tmp_path / "raw.jsonl")
    recs = Collector(board, log).run_suite("compute", CCFG)
    log.close()
    keys = [k for k, _ in board.sent]
    assert keys.count("compute/asm_thumb/int8") == 2 and all(
        keys.count(k) == 1 for k in set(keys) - {"compute/asm_thumb/int8"}
    )
    assert len(recs) == 4 and all(r["us"] == 900 for r in recs)
    faults = [e["what"] for e in read(tmp_path / "raw.jsonl") if e["kind"] == "fault"]
    assert len(faults) == 1 and "compute/asm_thumb/int8: checksum mismatch" in faults[0]


def test_memory_error_reruns_with_half_the_unroll_and_logs_it(tmp_path):
    board = FakeBoard(max_unroll=4)
    log = RawLog(tmp_path / "raw.jsonl")
    col = Collector(board, log)
    recs = col.run_suite("compute", CCFG)
    log.close()
    assert {(r["em"], r["u"]) for r in recs} == {("bytecode", 4), ("asm_thumb", 4)}
    retries = [e for e in read(tmp_path / "raw.jsonl") if e["kind"] == "retry"]
    assert [(r["kernel"], r["unroll"]) for r in retries] == [
        ("compute/bytecode/int8", 4),
        ("compute/bytecode/int32", 4),
    ]
    assert col.stats["memory"] == 2


def test_resume_skips_finished_units(tmp_path):
    board = FakeBoard()
    log = RawLog(tmp_path / "raw.jsonl")
    first = Collector(board, log).run_suite("compute", CCFG)
    log.close()
    again = FakeBoard()
    col = Collector(again, RawLog(tmp_path / "raw.jsonl"))
    assert col.resume_from(read(tmp_path / "raw.jsonl")) == 4
    assert col.run_suite("compute", CCFG) == first and again.sent == []


def test_intact_but_malformed_record_is_not_used(tmp_path):
    """A record whose checksum is right but which lacks a field is damage, not a crash later."""
    broken = {k: v for k, v in RECORDS[0].items() if k != "ovh"}
    recs = [broken, RECORDS[1], {"t": "end", "records": 3}]
    lines = [frame(i, r) for i, r in enumerate(recs)]
    log = RawLog(tmp_path / "raw.jsonl")
    link = ReplayLink(lines, [])
    with pytest.raises(BoardError, match="mac record without a valid 'ovh'"):
        Collector(link, log).run_suite("compute", CFG)
    log.close()


def suite_records(entries: list[dict], suite: str) -> list[dict]:
    """The records of a suite's units that finished intact, in order."""
    return [r for (s, _), recs in complete_kernels(entries).items() if s == suite for r in recs]
