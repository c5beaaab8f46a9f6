"""The collector over a replayed record stream: damage is detected and the suite re-run."""
import json

import pytest

from mcuroof.collect import Collector
from mcuroof.errors import BoardError
from mcuroof.link import Link
from mcuroof.protocol import frame
from mcuroof.rawlog import RawLog, complete_suites, read

RECORDS = [{"t": "mac", "em": "bytecode", "ty": "int32", "macs": 512, "r": 3, "us": 30000, "med": 30100,
            "ovh": 300, "chk": 32 * 136, "u": 16, "n": 32},
           {"t": "mac", "em": "viper", "ty": "int32", "macs": 16384, "r": 900, "us": 30000, "med": 30050,
            "ovh": 900, "chk": 1024 * 136, "u": 16, "n": 1024}]


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


@pytest.mark.parametrize("damage", [
    lambda ls: [ls[0], ls[1].replace("30000", "30001"), *ls[2:]],   # bit flip inside a record
    lambda ls: [ls[0], ls[2], ls[3]],                               # a record dropped
    lambda ls: ls[:-1],                                             # the end record lost
    lambda ls: [ls[0], ls[1][:40], *ls[2:]],                        # a truncated line
])
def test_damaged_attempt_is_rerun_and_nothing_wrong_is_kept(tmp_path, damage):
    log = RawLog(tmp_path / "raw.jsonl")
    link = ReplayLink(recorded(), [damage])
    recs = Collector(link, log).run_suite("compute", CFG)
    log.close()
    assert link.runs == 2 and recs == RECORDS
    entries = read(tmp_path / "raw.jsonl")
    assert [e["what"] for e in entries if e["kind"] == "fault"]
    assert complete_suites(entries)["compute"][:-1] == RECORDS


def test_link_that_never_gets_it_right_gives_a_clear_error(tmp_path):
    log = RawLog(tmp_path / "raw.jsonl")
    drop = lambda ls: ls[:-1]  # noqa: E731
    with pytest.raises(BoardError, match="suite compute: records damaged in 3 attempts"):
        Collector(ReplayLink(recorded(), [drop, drop, drop]), log).run_suite("compute", CFG)
    log.close()


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
