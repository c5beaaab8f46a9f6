"""raw.jsonl: every record as it arrived, appended and flushed line by line.

Line kinds (each a JSON object with "schema"):
- {"schema":1, "kind":"header", "board":..., "link":..., "started":..., "tool":...}
- {"schema":1, "kind":"record", "suite":S, "attempt":A, "seq":N, "kernel":K, "rec":{...}}
  (every record that arrived intact, before its unit was checked; "kernel": the unit it belongs to)
- {"schema":1, "kind":"kernel", "suite":S, "attempt":A, "kernel":K, "records":N}: unit K of that
  attempt finished intact with N records (and its end record): only these records are used
- {"schema":1, "kind":"suite", "suite":S, "kernels":[K...], "records":N}: the suite is complete
- {"schema":1, "kind":"fault", "suite":S, "attempt":A, "what":...}: damage or a link/board fault
- {"schema":1, "kind":"retry", "suite":S, "kernel":K, "why":"MemoryError", <field>: <new value>}
- {"schema":1, "kind":"calibration_source", "source":{...}}: the calibration the run used
  (measure.calcache.source); a kept one's units are logged as attempt 0, "cached": its file
"""

from __future__ import annotations

import json
from pathlib import Path

from mcuroof.errors import UserError, read_text

RAW_SCHEMA = 1


class RawLog:
    def __init__(self, path: Path):
        self.path = path
        try:
            self._f = open(path, "a", encoding="utf-8")
        except OSError as e:
            raise UserError(f"{path}: cannot write ({e.strerror})") from None

    def write(self, kind: str, **fields) -> None:
        self._f.write(json.dumps({"schema": RAW_SCHEMA, "kind": kind, **fields}) + "\n")
        self._f.flush()

    def close(self) -> None:
        self._f.close()


class MemoryLog(RawLog):
    """A raw log kept in memory: for a board question asked before the run's folder exists."""

    def __init__(self):
        self.path, self.lines = None, []

    def write(self, kind: str, **fields) -> None:
        self.lines.append({"schema": RAW_SCHEMA, "kind": kind, **fields})

    def close(self) -> None:
        pass


def read(path: Path) -> list[dict]:
    """All lines of a raw log; a torn last line (interrupted write) is dropped."""
    lines = read_text(path, "a raw.jsonl").splitlines()
    out = []
    for i, line in enumerate(lines, 1):
        try:
            entry = json.loads(line)
        except ValueError:
            if i == len(lines):
                break
            raise UserError(f"{path}:{i}: corrupt line (not JSON)") from None
        if not isinstance(entry, dict) or not isinstance(entry.get("kind"), str):
            raise UserError(f"{path}:{i}: not a raw.jsonl entry")
        schema = entry.get("schema", 0)
        if not isinstance(schema, int):
            raise UserError(f"{path}:{i}: schema must be a number")
        if schema > RAW_SCHEMA:
            raise UserError(
                f"{path}:{i}: schema {entry['schema']} is newer than this mcuroof reads ({RAW_SCHEMA}); upgrade mcuroof"
            )
        for field, kind in FIELDS.get(entry["kind"], ()):
            if not isinstance(entry.get(field), kind) or isinstance(entry.get(field), bool):
                raise UserError(f"{path}:{i}: {entry['kind']} entry has no valid '{field}'")
        out.append(entry)
    return out


# fields each kind of entry must have, with their types
FIELDS = {
    "record": (("suite", str), ("attempt", int), ("seq", int), ("rec", dict)),
    "kernel": (("suite", str), ("attempt", int), ("kernel", str), ("records", int)),
    "suite": (("suite", str), ("kernels", list), ("records", int)),
}


def complete_kernels(entries: list[dict]) -> dict[tuple[str, str], list[dict]]:
    """(suite, kernel) -> the records (end record left out) of each unit that finished intact."""
    got: dict[tuple, list[dict]] = {}
    out: dict[tuple[str, str], list[dict]] = {}
    for e in entries:
        if e["kind"] == "record" and "kernel" in e:
            got.setdefault((e.get("suite"), e.get("attempt"), e["kernel"]), []).append(e.get("rec"))
        elif e["kind"] == "kernel":
            recs = got.get((e.get("suite"), e.get("attempt"), e.get("kernel")), [])
            body = [r for r in recs if isinstance(r, dict) and r.get("t") != "end"]
            if len(body) == e.get("records") and len(recs) == len(body) + 1:
                out[(e["suite"], e["kernel"])] = body
    return out
