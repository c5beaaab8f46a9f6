"""measure.calcache: a calibration is found again only under the key it was measured with."""

from __future__ import annotations

from mcuroof.measure import calcache
from mcuroof.predict import design
from mcuroof.suites import calibration

PROBE = {
    "platform": "qemu-m3",
    "version": [1, 29, 0],
    "mpy": 6,
    "cpu": {"cpuid": 0x412FC231},
    "emitters": ["bytecode", "native", "viper", "asm_thumb"],
    "freq": 25_000_000,
    "free": 200_000,
    "float": True,
    "tick_us": 1,
}


def _key(board="qemu-m3", shift=6, **probe):
    p = {**PROBE, **probe}
    return calcache.key(board, shift, p, calibration.config(p))


def test_key_follows_board_firmware_clock_and_shapes():
    base = _key()
    assert base == _key() and base["shapes"] == len(calibration.jobs(PROBE)) > 0
    others = [
        _key(board="qemu-m7"),
        _key(shift=5),
        _key(freq=50_000_000),
        _key(version=[1, 28, 0]),
        _key(emitters=["bytecode", "viper"]),
        _key(free=100_000),  # fewer shapes fit
    ]
    for k in others:
        assert k != base and calcache.path_of(k) != calcache.path_of(base)
    assert _key(free=100_000)["shapes_hash"] != base["shapes_hash"]
    # the window follows the timer's tick, which QEMU's probe reads as 10 or 11 us: not a new calibration
    assert calibration.config({**PROBE, "tick_us": 11})["win_us"] != calibration.config(PROBE)["win_us"]
    assert _key(tick_us=11) == base


def test_saved_calibration_loads_under_its_key_only(tmp_path, monkeypatch):
    monkeypatch.setenv("MCUROOF_CALIBRATION_CACHE", str(tmp_path))
    k = _key()
    assert calcache.load(k) is None
    units = {"calibration/viper/int8/0": [{"t": "cal", "k": 0, "us": 5}]}
    path = calcache.save(k, units, "out")
    assert path.parent == tmp_path
    doc = calcache.load(k)
    assert doc["units"] == units and doc["measured_in"] == "out" and doc["path"] == str(path)
    assert calcache.load(_key(freq=1)) is None
    path.write_text("{torn")
    assert calcache.load(k) is None
    assert calcache.source(None, None) == {"reused": False, "cache": None}


def test_design_is_what_the_hash_covers():
    """Two shapes sets that differ in one shape hash apart (the scripts, not only the count)."""
    jobs = calibration.jobs(PROBE)
    cfg = calibration.config(PROBE)
    one = calcache.key("b", None, PROBE, cfg)
    two = calcache.key("b", None, PROBE, {**cfg, "jobs": jobs[:-1] + jobs[:1]})
    assert one["shapes"] == two["shapes"] and one["shapes_hash"] != two["shapes_hash"]
    assert design.family(jobs[0])
