"""Record framing: the host's checksum equals the firmware's, damage is detected, never parsed."""

import pytest

from mcuroof.links.base import LineSplitter
from mcuroof.measure.protocol import CorruptRecord, checksum, frame, parse_line


def test_checksum_known_value():
    # Fletcher-16 of "abcde" is 0xC8F0 (published test vector)
    assert checksum("abcde") == 0xC8F0


def test_round_trip():
    line = frame(7, {"t": "mem", "us": 123})
    assert parse_line(line).seq == 7 and parse_line(line).data == {"t": "mem", "us": 123}
    assert parse_line("some other output") is None


@pytest.mark.parametrize(
    "damage",
    [
        lambda s: s.replace("123", "124"),  # flipped digit
        lambda s: s[:-3],  # truncated
        lambda s: s.replace('"us"', '"uz"'),  # flipped key
        lambda s: s.replace("@mcr ", "@mcr zz"),  # broken checksum field
    ],
)
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
