"""The timer check and the exact rule on a real board (qemu-m3 under -icount): the check finds its
time exact, and a calibration sized by it (a warm-up and two timed calls of 1000 ticks a shape)
gives the same figures in two fresh QEMU runs, within the precision it states."""

import pytest

from factories import needs_arm
from mcuroof.analysis import roofs
from mcuroof.kernels.ops import reference
from mcuroof.predict import design
from mcuroof.suites import calibration, timing
from mcuroof.suites.base import Context


def _first_per_family(jobs: list, n: int) -> list:
    fams: dict[str, list] = {}
    for j in jobs:
        fams.setdefault(design.family(j), []).append(j)
    return [j for got in fams.values() for j in got[:n]]


def _calibrate(tmp_path, name: str):
    """A fresh qemu-m3: its probe, its timer check, and a few calibration shapes of each family
    of bytecode and asm_thumb, sized by the check."""
    from mcuroof.links.qemu import QemuLink
    from mcuroof.measure import timer as board_timer
    from mcuroof.measure.collect import Collector
    from mcuroof.measure.rawlog import RawLog

    link = QemuLink(6, board="qemu-m3")
    log = RawLog(tmp_path / f"{name}.jsonl")
    try:
        col = Collector(link, log)
        probe = col.probe()
        board = {"name": "qemu-m3", "platform": probe["platform"], "icount_shift": 6}
        timer = board_timer.for_run(col, probe, board, None)
        cfg = calibration.config(probe, Context(timer=timer))
        jobs = [j for j in cfg["jobs"] if j.emitter in ("bytecode", "asm_thumb") and j.dtype == "int8"]
        cfg["jobs"] = _first_per_family(jobs, 2)
        recs = [r for r in col.run_suite("calibration", cfg) if r.get("t") == "cal"]
    finally:
        log.close()
        link.close()
    return probe, timer, cfg, recs


@needs_arm
@pytest.mark.qemu
@pytest.mark.slow
def test_an_exact_calibration_gives_the_same_figures_twice(tmp_path):
    probe, timer, cfg, first = _calibrate(tmp_path, "first")
    assert timer.exact and timer.counted and timer.repeats == 5
    assert (cfg["win_us"], cfg["trials"]) == (timing.exact_window(probe), timing.EXACT_TRIALS)
    probe2, timer2, cfg2, second = _calibrate(tmp_path, "second")
    assert timer2.exact
    by_key = {calibration.key_of(j): j for j in cfg["jobs"]}
    assert len(first) == len(by_key) >= 20
    # each run's window is 1000 of its probe's ticks (10 or 11 us under -icount: a ticks_us() call)
    for recs, c in ((first, cfg), (second, cfg2)):
        for rec in recs:
            assert reference.verify(by_key[calibration.key(rec)], rec), calibration.key(rec)
            # a window of 1000 ticks (the timed call is not the one that reached it: a bytecode
            # call's frame allocation moves with the heap, 0.3 % measured), or one call over it
            assert rec["us"] >= 0.99 * c["win_us"] or rec["r"] == 1
    again = {calibration.key(r): r for r in second}
    # the error bound of a window, (tick + spread) / window, the larger of the two runs'
    bound = max(timing.precision(cfg, timer, probe), timing.precision(cfg2, timer2, probe2))
    for rec in first:
        other = again[calibration.key(rec)]
        assert rec["chk"] == other["chk"]
        # a call's time (the harness's cost taken off): the two runs agree within that bound
        a, b = roofs.seconds(rec), roofs.seconds(other)
        assert abs(a - b) <= bound * max(a, b), (calibration.key(rec), rec["us"], other["us"])
