"""raw.jsonl: every record as it arrived, appended and flushed line by line.

Line kinds (each a JSON object with "schema"):
- {"schema":1, "kind":"header", "board":..., "link":..., "started":..., "tool":...}
- {"schema":1, "kind":"record", "suite":S, "attempt":A, "seq":N, "rec":{...}}
- {"schema":1, "kind":"fault", "suite":S, "attempt":A, "what":...}
"""
from __future__ import annotations

import json
from pathlib import Path

from .errors import UserError

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


def read(path: Path) -> list[dict]:
    """All lines of a raw log; a torn last line (interrupted write) is dropped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise UserError(f"{path}: cannot read ({e.strerror})") from None
    out = []
    for i, line in enumerate(lines, 1):
        try:
            entry = json.loads(line)
        except ValueError:
            if i == len(lines):
                break
            raise UserError(f"{path}:{i}: corrupt line (not JSON)") from None
        if not isinstance(entry, dict) or "kind" not in entry:
            raise UserError(f"{path}:{i}: not a raw.jsonl entry")
        if entry.get("schema", 0) > RAW_SCHEMA:
            raise UserError(f"{path}:{i}: schema {entry['schema']} is newer than this mcuroof reads ({RAW_SCHEMA}); upgrade mcuroof")
        out.append(entry)
    return out


def complete_suites(entries: list[dict]) -> dict[str, list[dict]]:
    """Records of the last complete attempt of each suite (one that ended with its 'end' record)."""
    attempts: dict[tuple, list[dict]] = {}
    done: dict[str, tuple] = {}
    for e in entries:
        if e["kind"] != "record":
            continue
        key = (e["suite"], e["attempt"])
        attempts.setdefault(key, []).append(e["rec"])
        if e["rec"].get("t") == "end" and e["rec"].get("records") == len(attempts[key]):
            done[e["suite"]] = key
    return {suite: attempts[key] for suite, key in done.items()}
