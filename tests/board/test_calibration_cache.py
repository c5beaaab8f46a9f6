"""A board's calibration measured once and reused (measure.calcache), on real MicroPython (the unix
port): the second run times no shape, says which calibration it used, and derives the same
cost models; --recalibrate times the shapes again."""

from __future__ import annotations

import io
import json

from rich.console import Console

from mcuroof.links.unix import UnixLink
from mcuroof.measure import calcache, pipeline
from mcuroof.measure.rawlog import RawLog
from mcuroof.predict import design
from mcuroof.suites import calibration


def _few(monkeypatch):
    """The viper int8 dense shapes alone (a few seconds on the unix port)."""
    every = calibration.jobs

    def few(probe):
        return [j for j in every(probe) if j.emitter == "viper" and design.op_class(j.layer) == "dense"][:6]

    monkeypatch.setattr(calibration, "jobs", few)


def _collect(micropython, path, recalibrate=False, entries=None):
    spec = pipeline.Spec("unix", None, ["calibration"], recalibrate=recalibrate)
    out = io.StringIO()
    log = RawLog(path)
    link = UnixLink(micropython)
    try:
        probe, records = pipeline.collect(link, log, spec, Console(file=out, width=200), entries)
    finally:
        log.close()
        link.close()
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    ran = [e for e in entries if e["kind"] == "kernel" and e["suite"] == "calibration" and e["attempt"] > 0]
    return spec, probe, [r for r in records if r["t"] == "cal"], out.getvalue(), ran


def test_second_run_reuses_the_calibration(tmp_path, micropython, monkeypatch):
    _few(monkeypatch)
    spec, probe, first, said, ran = _collect(micropython, tmp_path / "one.jsonl")
    assert len(first) == 6 and len(ran) == 6 and "reusing" not in said
    assert spec.calibration_source["reused"] is False
    kept = spec.calibration_source["cache"]
    assert kept and kept.startswith(str(calcache.folder()))

    spec2, _, second, said2, ran2 = _collect(micropython, tmp_path / "two.jsonl")
    assert ran2 == [] and second == first  # no shape timed, the same records
    lines = [line for line in said2.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("calibration: reusing this board's") and kept in lines[0]
    assert spec2.calibration_source == {**spec2.calibration_source, "reused": True, "cache": kept}
    assert spec2.calibration_source["measured_at"]
    models = [m.as_dict() for m in calibration.models(probe, first)]
    assert [m.as_dict() for m in calibration.models(probe, second)] == models

    # resumed from the reusing run's raw log: its calibration is whole there, and its source kept
    entries = [json.loads(line) for line in (tmp_path / "two.jsonl").read_text().splitlines()]
    spec4, _, fourth, _, ran4 = _collect(micropython, tmp_path / "four.jsonl", entries=entries)
    assert ran4 == [] and fourth == first and spec4.calibration_source == spec2.calibration_source

    spec3, _, third, said3, ran3 = _collect(micropython, tmp_path / "three.jsonl", recalibrate=True)
    assert len(ran3) == 6 and "reusing" not in said3 and spec3.calibration_source["reused"] is False
