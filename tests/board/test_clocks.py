"""`mcuroof run --clocks`: the whole flow, through the run pipeline, to per-clock results and the
comparison, on a board that accepts machine.freq(): the unix port given a `machine` module whose
clock can be set and read back (kept in a file, as a clock register survives a soft reset), the
way an emulated board may accept the setting without its timing following it."""

from __future__ import annotations

import json

from mcuroof.cli import main
from mcuroof.commands import run as cmd_run
from mcuroof.links.base import Opened
from mcuroof.links.unix import UnixLink
from mcuroof.measure import clocks
from mcuroof.results import document as results

# MicroPython looks in sys.modules before its built-in modules
SETTABLE_CLOCK = """import sys
class _Machine:
    def freq(self, hz=None):
        if hz is None:
            try:
                return int(open(%r).read())
            except OSError:
                return 100000000
        open(%r, 'w').write(str(hz))
sys.modules['machine'] = _Machine()
"""


class SettableClockUnix(UnixLink):
    def __init__(self, register: str):
        super().__init__()
        self.shim = SETTABLE_CLOCK % (register, register)

    def run(self, chunks, on_line, timeout=600.0):
        return super().run([self.shim] + list(chunks), on_line, timeout)


def test_clocks_flow_to_per_clock_results_and_comparison(tmp_path, monkeypatch, capsys):
    link = SettableClockUnix(str(tmp_path / "clock-register"))
    monkeypatch.setattr(cmd_run, "open_target", lambda target, steps=None: Opened(link, "unix", None, None))
    monkeypatch.setenv("COLUMNS", "200")
    out = tmp_path / "out"
    assert main(["run", "--board", "unix", "--suite", "compute", "--clocks", "64M,125M", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    for hz in (64_000_000, 125_000_000):
        sub = out / clocks.folder(hz)
        entries = [json.loads(line) for line in (sub / "raw.jsonl").read_text().splitlines()]
        assert [e["clock_hz"] for e in entries if e["kind"] == "header"] == [hz]  # one run per raw log
        board = results.load(sub / "results.json")["board"]
        assert board["clock_requested_hz"] == board["clock_set_hz"] == board["clock_hz"] == hz
        assert "emulated board" in board["clock_note"] and "clock_lost" not in board
        assert (sub / "roofline.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "compare.png").read_bytes()[:4] == b"\x89PNG"
    assert "unix 64 MHz" in text and "unix 125 MHz" in text and "B/A" in text
    # the folder now holds a finished run: a second --clocks run into it is refused
    assert main(["run", "--board", "unix", "--suite", "compute", "--clocks", "64M", "-o", str(out)]) == 2
    assert "holds a finished run" in capsys.readouterr().err
