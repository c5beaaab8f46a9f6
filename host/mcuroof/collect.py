"""Runs suites over a link, checks every record on arrival and logs it to raw.jsonl."""
from __future__ import annotations

from typing import Callable

from . import firmware, plan
from .errors import BoardError
from .protocol import CorruptRecord, parse_line
from .rawlog import RawLog

PROBE_CONFIG = {"win_us": 20000, "trials": 5}
MAX_ATTEMPTS = 3


class SuiteDamaged(Exception):
    """A record was corrupt or missing: the suite's measurements are run again."""


class Collector:
    def __init__(self, link, log: RawLog, on_record: Callable[[str, dict], None] | None = None):
        self.link = link
        self.log = log
        self.on_record = on_record or (lambda suite, rec: None)
        self.attempts: dict[str, int] = {}

    def probe(self) -> dict:
        return self.run_suite("probe", PROBE_CONFIG)[0]

    def run_suite(self, suite: str, cfg: dict) -> list[dict]:
        """The suite's records; re-run when the link damaged any of them."""
        for _ in range(MAX_ATTEMPTS):
            attempt = self.attempts[suite] = self.attempts.get(suite, 0) + 1
            try:
                return self._attempt(suite, cfg, attempt)
            except SuiteDamaged as e:
                self.log.write("fault", suite=suite, attempt=attempt, what=str(e))
        raise BoardError(f"suite {suite}: records damaged in {MAX_ATTEMPTS} attempts in a row")

    def _attempt(self, suite: str, cfg: dict, attempt: int) -> list[dict]:
        records: list[dict] = []
        damage: list[str] = []

        def on_line(line: str) -> None:
            try:
                rec = parse_line(line)
            except CorruptRecord as e:
                damage.append(f"{e} after record {len(records) - 1}")
                return
            if rec is None:
                return
            if rec.seq != len(records):
                damage.append(f"record {len(records)} missing (got {rec.seq})")
                return
            records.append(rec.data)
            self.log.write("record", suite=suite, attempt=attempt, seq=rec.seq, rec=rec.data)
            self.on_record(suite, rec.data)

        self.link.run(firmware.chunks(suite, cfg), on_line)
        end = records[-1] if records else {}
        if not damage and (end.get("t") != "end" or end.get("records") != len(records)):
            damage.append("suite ended without its end record")
        if damage:
            raise SuiteDamaged("; ".join(damage))
        return records[:-1]


def configs(probe: dict, suites: list[str]) -> dict[str, dict]:
    return {s: plan.suite_config(s, probe) for s in suites}
