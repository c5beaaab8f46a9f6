"""The calibration suite on real MicroPython (the unix port): its shapes run through the layer
kernels, are checked against the reference, fit a model per family, and a resumed run repeats
no finished shape."""

from __future__ import annotations

import json

from mcuroof.links.unix import UnixLink
from mcuroof.measure.collect import Collector
from mcuroof.measure.rawlog import RawLog
from mcuroof.predict import design
from mcuroof.suites import calibration, registry


def _some_jobs(micropython, tmp_path):
    """The viper int8 dense and 1x1 jobs and the bytecode float32 dense ones the unix port's probe
    gives (a few seconds)."""
    log = RawLog(tmp_path / "probe.jsonl")
    probe = Collector(UnixLink(micropython), log).probe()
    log.close()
    jobs = calibration.jobs(probe)
    assert {j.emitter for j in jobs} == {e for e in probe["emitters"] if e in calibration.EMITTERS}
    keep = [j for j in jobs if j.emitter == "viper" and design.op_class(j.layer) in ("dense", "conv1x1")]
    keep += [j for j in jobs if j.dtype == "float32" and design.op_class(j.layer) == "dense"]
    assert {j.emitter for j in keep if j.dtype == "float32"} == {"bytecode", "native"} & set(probe["emitters"])
    assert not [j for j in jobs if j.dtype == "float32" and j.emitter in ("viper", "asm_thumb")]
    return probe, keep


def test_calibration_shapes_run_checked_and_fit(tmp_path, micropython):
    probe, jobs = _some_jobs(micropython, tmp_path)
    cfg = {"win_us": 1000, "trials": 3, "jobs": jobs}
    log = RawLog(tmp_path / "raw.jsonl")
    recs = Collector(UnixLink(micropython), log).run_suite("calibration", cfg)
    log.close()
    cal = [r for r in recs if r["t"] == "cal"]
    assert sorted(registry.record_key(r) for r in cal) == sorted(calibration.key_of(j) for j in jobs)
    assert not any(r["t"] == "layer" for r in recs)  # the layers suite's records stay its own
    fitted = {m.family: m for m in calibration.models(probe, recs)}
    floats = {f"{e}/float32/generic/dense" for e in {j.emitter for j in jobs if j.dtype == "float32"}}
    assert set(fitted) == {"viper/int8/generic/dense", "viper/int8/generic/conv1x1"} | floats and floats
    for m in fitted.values():
        assert m.shapes == sum(design.family(j) == m.family for j in jobs)
        # host time: which term a noisy fit keeps varies from run to run; that it keeps one does not
        assert all(v >= 0 for v in m.coefficients.values()) and any(v > 0 for v in m.coefficients.values())
    # a shape whose checksum is wrong is not fitted
    bad = [dict(r, chk=r["chk"] + 1) if i == 0 else r for i, r in enumerate(cal)]
    assert sum(m.shapes for m in calibration.models(probe, bad)) == len(cal) - 1

    # resumed from a log whose last shape did not finish: only that shape runs again
    entries = [json.loads(ln) for ln in (tmp_path / "raw.jsonl").read_text().splitlines()]
    last = calibration.key_of(jobs[-1])
    cut = [e for e in entries if e.get("kernel") != last]
    again = Collector(UnixLink(micropython), RawLog(tmp_path / "again.jsonl"))
    assert again.resume_from(cut) == len(jobs) - 1
    rerun = [r for r in again.run_suite("calibration", cfg) if r["t"] == "cal"]
    assert len(rerun) == len(jobs) and {registry.record_key(r) for r in rerun} == {calibration.key_of(j) for j in jobs}
