"""Record framing between board and host.

The board prints one record per line:  `@mcr CCCC SEQ {json}`
where CCCC is the Fletcher-16 sum (4 hex digits) of `SEQ {json}`. Lines without the `@mcr `
prefix are ordinary output and are ignored. The JSON is parsed with json.loads only: nothing
the board sends is ever evaluated.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

PREFIX = "@mcr "


class CorruptRecord(ValueError):
    """A framed line whose checksum, sequence or JSON is wrong."""


@dataclass(frozen=True)
class Record:
    seq: int
    data: dict


def checksum(text: str) -> int:
    """Fletcher-16 over the UTF-8 bytes, as firmware/common.py computes it."""
    a = b = 0
    for c in text.encode("utf-8"):
        a = (a + c) % 255
        b = (b + a) % 255
    return (b << 8) | a


def frame(seq: int, data: dict) -> str:
    """The line the board would print for this record (used by tests and replays)."""
    body = f"{seq} {json.dumps(data, separators=(',', ':'))}"
    return f"{PREFIX}{checksum(body):04x} {body}"


def parse_line(line: str) -> Record | None:
    """A Record for a framed line, None for other output; CorruptRecord if framing is damaged."""
    start = line.find(PREFIX)
    if start < 0:
        return None
    rest = line[start + len(PREFIX) :].rstrip("\r\n")
    chk, _, body = rest.partition(" ")
    try:
        expected = int(chk, 16)
    except ValueError:
        raise CorruptRecord(f"bad checksum field {chk[:8]!r}") from None
    if len(chk) != 4 or checksum(body) != expected:
        raise CorruptRecord("checksum mismatch")
    seq_text, _, payload = body.partition(" ")
    try:
        seq = int(seq_text)
        data = json.loads(payload)
    except ValueError:
        raise CorruptRecord("unparsable record body") from None
    if not isinstance(data, dict) or "t" not in data:
        raise CorruptRecord("record is not an object with a type")
    return Record(seq, data)
