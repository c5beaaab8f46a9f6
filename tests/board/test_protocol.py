"""Record framing: the host's checksum equals the firmware's, damage is detected, never parsed."""

import subprocess

from mcuroof.kernels import firmware
from mcuroof.measure.protocol import parse_line
from mcuroof.suites import registry


def run_unix(micropython, script: str) -> str:
    out = subprocess.run([micropython], input=script.encode(), capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr.decode()
    return out.stdout.decode()


def test_firmware_records_parse_on_the_host(micropython):
    script = "".join(registry.chunks("probe", {"win_us": 2000, "trials": 3}))
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
