"""Safety: nothing the board sends is evaluated, only firmware code is sent to the board, and a run
writes inside its output folder only."""

import os
from pathlib import Path

from mcuroof.cli import main
from mcuroof.kernels import firmware
from mcuroof.links.base import Link
from mcuroof.measure.collect import Collector
from mcuroof.measure.protocol import frame
from mcuroof.measure.rawlog import RawLog
from mcuroof.suites import registry
from mcuroof.suites.probe import CONFIG as PROBE_CONFIG


class Recording(Link):
    def __init__(self):
        self.sent = []

    def run(self, chunks, on_line, timeout=60.0):
        self.sent += chunks
        # answer as a board would, so that every unit finishes
        seq = 0
        for c in chunks:
            if c.endswith("finish()\n") or "finish()" in c.splitlines()[-1:]:
                on_line(frame(seq, {"t": "x"}))
                on_line(frame(seq + 1, {"t": "end", "records": seq + 2}))
                seq += 2


def test_only_firmware_code_is_sent(tmp_path):
    probe = {
        "platform": "microbit",
        "free": 3000,
        "tick_us": 1,
        "float": True,
        "memoryview": False,
        "emitters": ["bytecode", "asm_thumb"],
    }
    link = Recording()
    col = Collector(link, RawLog(tmp_path / "raw.jsonl"))
    col.run_suite("probe", PROBE_CONFIG)
    cfgs = {s: registry.suite_config(s, probe) for s in ("memory", "compute")}
    for suite, cfg in cfgs.items():
        col.run_suite(suite, cfg)
    allowed = set(
        firmware.source("common") + firmware.source("probe") + firmware.source("memory") + firmware.source("compute")
    )
    allowed |= {firmware.config_line(c) for c in [PROBE_CONFIG, *cfgs.values()]}
    allowed |= {c for s, cfg in cfgs.items() for k in registry.for_suite(s, cfg) for c in k.scripts("finish()\n")}
    assert link.sent and set(link.sent) <= allowed


def test_run_writes_inside_its_output_folder_only(tmp_path, micropython, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = set(Path(tmp_path).rglob("*"))
    assert main(["run", "--board", "unix", "--suite", "compute", "-o", "out"]) == 0
    new = set(Path(tmp_path).rglob("*")) - before
    assert new and all(p == tmp_path / "out" or (tmp_path / "out") in p.parents for p in new)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "raw.jsonl",
        "report.html",
        "results.json",
        "roofline.png",
    ]
    assert not os.path.exists(tmp_path / "out" / "results.json.tmp")
