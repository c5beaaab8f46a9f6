"""Runs suites over a link, checks every record on arrival and logs it to raw.jsonl.

A suite runs as units: the probe, or one kernel script each (its Suite.kernels) followed by
`finish()`, whose end record closes the unit. A unit is accepted only if its records arrived
intact (protocol.parse_line: framing and checksum), numbered without a gap, belong to its kernel,
and its end record counts them. Anything else - a damaged or missing record, a lost link, a board
that stalls or resets, an exception on the board - makes the units it touched run again, in a
fresh interpreter state and after reconnecting if needed; finished units are never repeated
(nor are the ones a resumed run finds in raw.jsonl). A unit that fails MAX_ATTEMPTS times in a
row stops the run with a message naming the suite, the unit and the last record received.
A MemoryError (the board's exception type, read by the link) re-runs the unit with half its
working set where its suite can shrink it (its Suite.shrink: memory's max_ws, compute's unroll); a
suite may leave out a unit that keeps raising instead of stopping the run (Suite.leaves_out_failing).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable

from mcuroof.errors import BoardError
from mcuroof.kernels import firmware
from mcuroof.links.base import BoardReset, BoardStalled, LinkLost, ScriptError
from mcuroof.measure.protocol import CorruptRecord, parse_line
from mcuroof.measure.rawlog import RawLog, complete_kernels
from mcuroof.suites import probe as probe_suite
from mcuroof.suites import registry

MAX_ATTEMPTS = 3  # failures in a row of one unit before the run stops
MAX_SHRINK = 4  # MemoryError retries of one unit, each with half the working set
RECOVERABLE = (LinkLost, BoardStalled, BoardReset, ScriptError)


def malformed(rec: dict) -> str | None:
    """Why a record that arrived intact still cannot be used (None: it can): the fields its
    type's suite requires (suites.base.Suite.records), and an end record's count."""
    t = rec["t"]
    if not isinstance(t, str):
        return "record type is not a string"
    if t == "end":
        n = rec.get("records")
        return (
            None if isinstance(n, (int, float)) and not isinstance(n, bool) else "end record without a valid 'records'"
        )
    return registry.malformed(rec)


@dataclass
class Unit:
    key: str
    chunks: list[str]
    check_keys: bool = True


def describe(rec: dict, seq: int) -> str:
    what = registry.record_key(rec) or rec.get("t", "?")
    return f"{what}{' n=%s' % rec['n'] if 'n' in rec else ''} (record {seq})"


# what each fault counter counts, for the line a run prints (singular, plural)
FAULT_WORDS = {
    "board": ("error raised on the board", "errors raised on the board"),
    "lost": ("link lost", "links lost"),
    "stalled": ("board stalled", "board stalls"),
    "reset": ("board reset", "board resets"),
    "damaged": ("damaged record", "damaged records"),
    "reruns": ("unit re-run", "unit re-runs"),
    "memory": (
        "unit re-run on half its working set (MemoryError)",
        "unit re-runs on half their working set (MemoryError)",
    ),
}


def fault_line(stats: dict, retries: list[dict]) -> str | None:
    """What a run recovered from, in words ("recovered from faults: 1 error raised on the board,
    1 unit re-run"); None where nothing went wrong."""
    parts = [f"{n} {FAULT_WORDS.get(k, (k, k))[n != 1]}" for k, n in stats.items() if n and k != "memory"]
    for r in retries:
        sized = ", ".join(f"{k} {v}" for k, v in r.items() if k not in ("suite", "kernel", "why"))
        parts.append(f"{r['kernel']} ({r['suite']}) re-run after a {r['why']}" + (f" with {sized}" if sized else ""))
    return "recovered from faults: " + "; ".join(parts) if parts else None


class Collector:
    def __init__(self, link, log: RawLog, on_record: Callable[[str, dict], None] | None = None):
        self.link = link
        self.log = log
        self.on_record = on_record or (lambda suite, rec: None)
        self.attempts: dict[str, int] = {}
        self.done: dict[tuple[str, str], list[dict]] = {}
        self.last: dict[str, str] = {}
        self.stats: Counter = Counter()
        self.retries: list[dict] = []
        self._recover_first = False

    def resume_from(self, entries: list[dict]) -> int:
        """Take the units finished in a previous run's raw log; returns how many."""
        self.done.update(complete_kernels(entries))
        for e in entries:
            if "suite" in e and isinstance(e.get("attempt"), int):
                self.attempts[e["suite"]] = max(self.attempts.get(e["suite"], 0), e["attempt"])
        return len(self.done)

    def take(self, suite: str, units: dict[str, list[dict]], **note) -> int:
        """Take finished units from elsewhere (a kept calibration: measure.calcache), logged as
        attempt 0 with `note` on each unit's kernel entry, as if they had run; returns how many."""
        taken = 0
        for key, body in units.items():
            if (suite, key) in self.done:
                continue
            for seq, rec in enumerate([*body, {"t": "end", "records": len(body) + 1}]):
                self.log.write("record", suite=suite, attempt=0, seq=seq, kernel=key, rec=rec)
            self.log.write("kernel", suite=suite, attempt=0, kernel=key, records=len(body), **note)
            self.done[(suite, key)] = list(body)
            taken += 1
        return taken

    def probe(self) -> dict:
        recs = [r for r in self.run_suite("probe", probe_suite.CONFIG) if r.get("t") == "probe"]
        if not recs:
            raise BoardError("probe: the board sent no probe record")
        return recs[0]

    def units(self, suite: str, cfg: dict) -> list[Unit]:
        contract = registry.get(suite)
        ks = contract.kernels(cfg)
        if not ks:  # nothing to run but the suite's firmware: one unit
            return [Unit(suite, ["finish()\n"], check_keys=False)]
        return [Unit(k.key, k.scripts(contract.tail)) for k in ks]

    def run_suite(self, suite: str, cfg: dict) -> list[dict]:
        """The suite's records (end records left out), every unit intact."""
        units = self.units(suite, cfg)
        failures: Counter = Counter()
        shrinks: Counter = Counter()
        overrides: dict[str, dict] = {}
        while True:
            pending = [u for u in units if (suite, u.key) not in self.done]
            if not pending:
                break
            attempt = self.attempts[suite] = self.attempts.get(suite, 0) + 1
            prefix = firmware.prefix(registry.get(suite).firmware(cfg), cfg)
            sent = sent_chunks(pending, registry.get(suite).reuses_setup)
            run = _Attempt(self, suite, attempt, pending)
            error = None
            try:
                if self._recover_first:
                    self.link.recover()
                    self._recover_first = False
                self.link.run(prefix + [c for chunks in sent for c in chunks], run.on_line)
            except RECOVERABLE as e:
                error = e
            blamed = run.close(error is None)
            if error is not None:
                blamed.append(self._in_flight(run, pending, sent, error, len(prefix)))
                kind = {LinkLost: "lost", BoardStalled: "stalled", BoardReset: "reset"}.get(type(error), "board")
                self.stats[kind] += 1
                self._recover_first = not isinstance(error, ScriptError)
            problems = run.damage + ([str(error)] if error else [])
            self.stats["damaged"] += len(run.damage)
            if not problems:
                continue
            for what in problems:
                self.log.write("fault", suite=suite, attempt=attempt, what=what)
            if (
                isinstance(error, ScriptError)
                and error.exc_type == "MemoryError"
                and blamed[-1]
                and _in_unit(error, len(prefix))
            ):
                key = blamed.pop()
                if shrinks[key] < MAX_SHRINK and self._shrink(suite, cfg, key, units, overrides):
                    shrinks[key] += 1
                    self.stats["memory"] += 1
                    continue
                if key == pending[0].key and registry.get(suite).leaves_out_failing:
                    # first of its pass, in a fresh interpreter's heap: another pass cannot give
                    # it more (qemu-m4's 110 KB heap and 8 SMLAD shapes cost 3 passes each)
                    self._give_up(suite, key, problems[-1], attempts=failures[key] + 1)
                    continue
                blamed.append(key)
            for key in dict.fromkeys(k for k in blamed if k):
                failures[key] += 1
                self.stats["reruns"] += 1
                if (
                    failures[key] >= MAX_ATTEMPTS
                    and registry.get(suite).leaves_out_failing
                    and isinstance(error, ScriptError)
                ):
                    self._give_up(suite, key, problems[-1])
                elif failures[key] >= MAX_ATTEMPTS:
                    last = self.last.get(suite, "none")
                    raise BoardError(
                        f"suite {suite}: {key} failed {MAX_ATTEMPTS} times in a row "
                        f"(last: {problems[-1]}); last record received: {last}"
                    )
        records = [r for u in units for r in self.done[(suite, u.key)]]
        self.log.write("suite", suite=suite, kernels=[u.key for u in units], records=len(records))
        return records

    def _give_up(self, suite: str, key: str, why: str, attempts: int = MAX_ATTEMPTS) -> None:
        """Leave out a unit whose script keeps raising: one layer the board cannot run must not
        cost the rest of the profile. Its place holds a skip record naming the unit."""
        self.done[(suite, key)] = [{"t": "skip", "unit": key, "why": why}]
        self.log.write("fault", suite=suite, kernel=key, what=f"left out after {attempts} attempts: {why}")

    def _in_flight(
        self, run: "_Attempt", pending: list[Unit], sent: list[list[str]], error: Exception, n_prefix: int
    ) -> str | None:
        """The unit that was running when the error struck (`sent`: the scripts each unit was sent)."""
        piece = getattr(error, "piece", None)
        if piece is not None and piece >= n_prefix:
            n = piece - n_prefix
            for u, chunks in zip(pending, sent):
                if n < len(chunks):
                    return u.key
                n -= len(chunks)
        left = [u.key for u in pending if u.key not in run.closed]
        return left[0] if left else None

    def _shrink(self, suite: str, cfg: dict, key: str, units: list[Unit], overrides: dict) -> bool:
        """Re-render unit `key` with half its working set (the suite's rule); False if it cannot."""
        shrunk = registry.get(suite).shrink(overrides.get(key, cfg), key)
        if shrunk is None:
            return False
        new, field, value = shrunk
        found = [k for k in registry.get(suite).kernels(new) if k.key == key]
        if not found:
            return False
        overrides[key] = new
        units[:] = [Unit(key, found[0].scripts(registry.get(suite).tail)) if u.key == key else u for u in units]
        retry = {"suite": suite, "kernel": key, "why": "MemoryError", field: value}
        self.retries.append(retry)
        self.log.write("retry", **retry)
        return True


def sent_chunks(pending: list[Unit], reuse: bool) -> list[list[str]]:
    """The scripts each pending unit is sent in one pass: all of them, or (`reuse`: the suite's
    Suite.reuses_setup) its last alone where its set-up is the unit's before it in this pass,
    whose definitions the board still holds. A pass starts in a fresh interpreter, so its first
    unit always sends its own."""
    out, before = [], None
    for u in pending:
        setup = u.chunks[:-1]
        out.append(u.chunks[-1:] if reuse and setup and setup == before else u.chunks)
        before = setup
    return out


def _in_unit(error: ScriptError, n_prefix: int) -> bool:
    """Whether the error struck a unit's own script, not the suite's firmware sent before them:
    a MemoryError compiling the firmware is no reason to halve the first unit's working set (it
    would cut that unit's sweep with no record of why), only to run the attempt again."""
    return error.piece is None or error.piece >= n_prefix


class _Attempt:
    """One pass over the pending units: splits the record stream at end records and checks it."""

    def __init__(self, col: Collector, suite: str, attempt: int, units: list[Unit]):
        self.col, self.suite, self.attempt, self.units = col, suite, attempt, units
        self.contract = registry.get(suite)
        self.i = 0  # the unit whose records are arriving
        self.expect = 0  # the sequence number the next record must have
        self.cur: list[dict] = []
        self.bad: str | None = None
        self.damage: list[str] = []
        self.closed: dict[str, bool] = {}  # unit key -> finished intact

    def on_line(self, line: str) -> None:
        try:
            rec = parse_line(line)
        except CorruptRecord as e:
            self.bad = self.bad or f"{e} after {self.col.last.get(self.suite, 'the start')}"
            return
        if rec is None:
            return
        why = malformed(rec.data)
        if why:
            self.bad = self.bad or f"{why} (record {rec.seq})"
            return
        if self.i >= len(self.units):
            self.damage.append(f"stray record {rec.seq} after the last unit")
            return
        data = rec.data
        if data.get("t") == "end":
            return self._end(rec.seq, data)
        unit = self.units[self.i]
        key = self.contract.key(data) or registry.record_key(data)
        if unit.check_keys and key is not None and key != unit.key:
            nxt = [j for j in range(self.i + 1, len(self.units)) if self.units[j].key == key]
            if not nxt:
                self.bad = self.bad or f"record {rec.seq} of {key} where {unit.key} was expected"
                return
            # this unit's end record was lost: the units up to this one did not finish intact
            self._finish(False, self.bad or "its end record was lost")
            while self.i < nxt[0]:
                self._finish(False, "its end record was lost")
            self.bad = "began while the stream was out of step"
            unit = self.units[self.i]
        if rec.seq != self.expect:
            self.bad = self.bad or f"record {self.expect} missing (got {rec.seq})"
        self.expect = rec.seq + 1
        self.col.log.write("record", suite=self.suite, attempt=self.attempt, seq=rec.seq, kernel=unit.key, rec=data)
        self.cur.append(data)
        self.col.last[self.suite] = describe(data, rec.seq)
        self.col.on_record(self.suite, data)

    def _end(self, seq: int, data: dict) -> None:
        unit = self.units[self.i]
        self.col.log.write("record", suite=self.suite, attempt=self.attempt, seq=seq, kernel=unit.key, rec=data)
        ok = self.bad is None and seq == self.expect and data.get("records") == seq + 1
        self._finish(ok, self.bad or f"end record {seq} does not close records up to {self.expect - 1}")
        self.expect = seq + 1

    def _finish(self, ok: bool, why: str) -> None:
        unit = self.units[self.i]
        if ok:
            self.col.done[(self.suite, unit.key)] = self.cur
            self.col.log.write("kernel", suite=self.suite, attempt=self.attempt, kernel=unit.key, records=len(self.cur))
        else:
            self.damage.append(f"{unit.key}: {why}")
        self.closed[unit.key] = ok
        self.i += 1
        self.cur, self.bad = [], None

    def close(self, ran_to_end: bool) -> list[str | None]:
        """Keys of the units that did not finish intact and are not blamed on an error."""
        if ran_to_end:
            while self.i < len(self.units):
                self._finish(False, self.bad or "no end record")
        return [k for k, ok in self.closed.items() if not ok]
