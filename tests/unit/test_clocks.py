"""`mcuroof run --clocks`: the whole flow, through the run pipeline, to per-clock results and the
comparison, on a board that accepts machine.freq(): the unix port given a `machine` module whose
clock can be set and read back (kept in a file, as a clock register survives a soft reset), the
way an emulated board may accept the setting without its timing following it."""

from __future__ import annotations

from mcuroof.measure import clocks

# MicroPython looks in sys.modules before its built-in modules


def test_a_clock_lost_during_the_suites_is_in_the_results(tmp_path):
    setting = clocks.Setting(64_000_000, "b", hz_set=64_000_000, hz_after=16_000_000)
    facts = setting.facts({"platform": "rp2"}, None)
    assert facts == {"clock_requested_hz": 64_000_000, "clock_set_hz": 64_000_000, "clock_lost": True}
    assert setting.roof_hz({"platform": "rp2"}, None) == 64_000_000
    assert clocks.Setting(64_000_000, "q", 64_000_000, 64_000_000).roof_hz({"platform": "microbit"}, 6) is None
