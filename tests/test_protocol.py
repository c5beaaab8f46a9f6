"""Record framing: the host's checksum equals the firmware's, damage is detected, never parsed."""
import json
import subprocess

import pytest

from mcuroof import firmware
from mcuroof.protocol import CorruptRecord, LineSplitter, checksum, frame, parse_line


def run_unix(micropython, script: str) -> str:
    out = subprocess.run([micropython], input=script.encode(), capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr.decode()
    return out.stdout.decode()


def test_firmware_records_parse_on_the_host(micropython):
    script = "".join(firmware.chunks("probe", {"win_us": 2000, "trials": 3}))
    lines = run_unix(micropython, script).splitlines()
    records = [parse_line(ln) for ln in lines]
    assert [r.seq for r in records] == [0, 1]
    probe, end = records[0].data, records[1].data
    assert probe["t"] == "probe" and probe["schema"] == 1 and "viper" in probe["emitters"]
    assert end == {"t": "end", "records": 2}


def test_firmware_json_writer_matches_json(micropython):
    rec = {"t": "x", "s": "abc", "i": -12, "f": 1.5, "l": [1, "a", None], "b": True, "z": False}
    script = "".join(firmware.source("common")) + "emit(%r)\n" % rec
    parsed = parse_line(run_unix(micropython, script).strip())
    assert parsed.data == rec


def test_checksum_known_value():
    # Fletcher-16 of "abcde" is 0xC8F0 (published test vector)
    assert checksum("abcde") == 0xC8F0


def test_round_trip():
    line = frame(7, {"t": "mem", "us": 123})
    assert parse_line(line).seq == 7 and parse_line(line).data == {"t": "mem", "us": 123}
    assert parse_line("some other output") is None


@pytest.mark.parametrize("damage", [
    lambda s: s.replace("123", "124"),          # flipped digit
    lambda s: s[:-3],                          # truncated
    lambda s: s.replace('"us"', '"uz"'),       # flipped key
    lambda s: s.replace("@mcr ", "@mcr zz"),   # broken checksum field
])
def test_damaged_lines_are_detected(damage):
    line = frame(3, {"t": "mem", "us": 123})
    with pytest.raises(CorruptRecord):
        parse_line(damage(line))


def test_line_splitter_handles_arbitrary_chunks():
    got = []
    sp = LineSplitter(got.append)
    for chunk in [b"ab", b"c\r\nde", b"f\n", b"gh"]:
        sp.feed(chunk)
    sp.flush()
    assert got == ["abc\r", "def", "gh"]
