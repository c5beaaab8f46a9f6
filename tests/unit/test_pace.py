"""A board's pace (board seconds per host second, measure.pace: a fact of the run) and the sizing
of a slow emulator's windows, trials and sweeps, set by its profile and never by the pace
(suites.timing, suites.memory): pure functions, no timing asserted."""

import dataclasses

from mcuroof.board import profiles
from mcuroof.measure import pace
from mcuroof.measure.rawlog import MemoryLog
from mcuroof.suites import memory, registry, timing
from mcuroof.suites.base import Context

# the probe rp2040js-pico sends (186,016 B free, a 2 us tick: the emulator's ticks_us loop)
PICO = {
    "platform": "rp2040js-pico",
    "cpu": [0x410CC601],
    "free": 186016,
    "float": True,
    "memoryview": True,
    "emitters": ["bytecode", "native", "viper", "asm_thumb"],
    "tick_us": 2,
}
M3 = {**PICO, "platform": "qemu-m3", "cpu": [0x410FC231, 0x01111110], "free": 3_900_000, "tick_us": 1}


SLOW = profiles.find("rp2040js-pico")


def test_only_a_profile_that_says_slow_emulator_is_sized_for_one():
    assert timing.slow(SLOW) and SLOW.run["slow_emulator_source"]
    # rp2040js and the cycle model's boards: time that follows the emulated cycles
    sized = ("rp2040js-pico", "qemu-m4", "qemu-m33", "qemu-m0plus")
    assert all(timing.slow(profiles.find(name)) for name in sized)
    others = [profiles.find(name) for name in profiles.board_names() if name not in sized]
    assert others and not any(timing.slow(b) for b in others) and not timing.slow(None)
    assert timing.timing(PICO) == {"win_us": 20000, "trials": 5}
    assert timing.timing(M3) == {"win_us": 5000, "trials": 5}


def test_a_slow_emulator_gets_windows_of_1000_ticks_and_3_trials():
    assert timing.timing(PICO, True) == {"win_us": 2000, "trials": 3}  # its tick is 2 us
    assert timing.timing(M3, True) == {"win_us": 1000, "trials": 3}
    for suite in ("memory", "compute", "regions"):
        cfg = registry.suite_config(suite, PICO, Context(profile=SLOW))
        assert (cfg["win_us"], cfg["trials"]) == (2000, 3), suite
        cfg = registry.suite_config(suite, PICO, Context(profile=profiles.find("pico")))
        assert (cfg["win_us"], cfg["trials"]) == (20000, 5), suite  # a real Pico: the same probe, full windows


def _configs_sent(monkeypatch, board: str, pace_measured: float) -> dict:
    """The config of every suite measure.pipeline.collect sends after a pace of pace_measured."""
    from io import StringIO

    from rich.console import Console

    from mcuroof.measure import collect, pipeline

    sent, out = {}, StringIO()
    monkeypatch.setattr(collect.Collector, "probe", lambda self: PICO)
    monkeypatch.setattr(collect.Collector, "run_suite", lambda self, suite, cfg: sent.setdefault(suite, cfg) and [])
    monkeypatch.setattr(pace, "measure", lambda collector, probe: pace_measured)
    spec = pipeline.Spec(board, None, ["memory", "compute", "regions"])
    pipeline.collect(object(), MemoryLog(), spec, Console(file=out, width=200))
    assert spec.pace == pace_measured
    return sent, out.getvalue()


def test_the_run_is_sized_by_the_profile_whatever_the_pace_it_measured(monkeypatch):
    """The two paces that once sized rp2040js-pico two ways (0.349: 2 ms windows and 3 trials;
    0.520: 20 ms and 5) now send the same configs, and a real Pico's probe at a pace of 0.3 is
    sized like a real board (and warned of: a real board's time keeps real time)."""
    (low, said_low), (high, said_high) = (_configs_sent(monkeypatch, "rp2040js-pico", p) for p in (0.349, 0.520))
    assert low == high and set(low) == {"timer", "memory", "compute", "regions"}
    low.pop("timer")
    assert {(c["win_us"], c["trials"]) for c in low.values()} == {(2000, 3)}
    assert said_low.strip() == said_high.strip() == f"rp2040js-pico: {timing.sizing(SLOW)}"
    real, said = _configs_sent(monkeypatch, "pico", 0.3)
    real.pop("timer")
    assert {(c["win_us"], c["trials"]) for c in real.values()} == {(20000, 5)}
    assert said.strip().startswith("warning: an emulator is suspected: its time ran 0.3x the host's")
    assert "pace" not in {f.name for f in dataclasses.fields(Context)}


def test_interpreted_sweeps_stop_at_16_kib_on_a_slow_emulator_and_the_fast_movers_sweep_the_heap():
    ems = ["bytecode", "native", "viper", "asm_thumb", "c"]
    assert memory.working_sets(PICO, ems) == dict.fromkeys(ems, 186016)
    slow = memory.working_sets(PICO, ems, True)
    assert slow == {"bytecode": 16384, "native": 16384, "viper": 186016, "asm_thumb": 186016, "c": 186016}
    # a big-heap microcontroller already had that; being slow changes nothing
    assert (
        memory.working_sets(M3, ems, True)
        == memory.working_sets(M3, ems)
        == {**slow, **dict.fromkeys(["viper", "asm_thumb", "c"], 3_900_000)}
    )


def test_the_memory_kernels_carry_the_sized_window_and_sweep():
    cfg = registry.suite_config("memory", PICO, Context(profile=SLOW))
    assert (cfg["win_us"], cfg["trials"]) == (2000, 3)
    scripts = {k.key: k.source for k in registry.for_suite("memory", cfg)}
    assert ",'bytecode','int8','b',2,1,1,16384," in scripts["memory/bytecode/int8/copy"]
    assert ",'asm_thumb','int32','i',2,1,1,186016," in scripts["memory/asm_thumb/int32/copy-ldm"]
    assert "WIN = 2000\nTRIALS = 3\n" in registry.chunks("memory", cfg)[0]


def test_pace_is_board_time_over_host_time():
    assert pace.ratio(100000, 1.0) == 0.1
    assert pace.ratio(100000, 0.025) == 4.0
    assert pace.ratio(100000, 0.0) is None and pace.ratio(0, 1.0) is None


class FakeCollector:
    """Runs the pace suite by handing its two records to on_record at the host times given."""

    def __init__(self, times, done=()):
        self.log, self.done, self.times, self.ran = MemoryLog(), dict.fromkeys(done, []), times, []
        self.on_record = lambda suite, rec: None

    def run_suite(self, suite, cfg):
        self.ran.append(suite)
        recs = [{"t": "pace", "us": 0}, {"t": "pace", "us": cfg["span_us"]}]
        for rec in recs:
            self.on_record(suite, rec)
        return recs


def test_a_new_run_measures_its_pace_and_logs_it(monkeypatch):
    clock = iter([10.0, 11.25])
    monkeypatch.setattr(pace.time, "monotonic", lambda: next(clock))
    col = FakeCollector(None)
    assert pace.for_run(col, PICO, None) == 0.08
    assert col.ran == ["pace"]
    assert col.log.lines[-1] == {"schema": 1, "kind": "pace", "board_us": 100000, "pace": 0.08}


def test_a_host_os_runs_no_pace_suite():
    col = FakeCollector(None)
    assert pace.for_run(col, {"platform": "linux", "free": 1 << 26}, None) is None and col.ran == []


def test_a_resumed_run_keeps_the_pace_its_first_run_sized_by():
    col = FakeCollector(None, done=[("probe", "probe"), ("memory", "memory/bytecode/int8/copy")])
    assert pace.for_run(col, PICO, [{"kind": "header"}, {"kind": "pace", "pace": 0.07}]) == 0.07
    # a first run that sized its suites without a pace (an older mcuroof) is continued without one
    assert pace.for_run(col, PICO, [{"kind": "header"}]) is None
    assert col.ran == []


def test_the_results_say_the_pace_and_the_sizing():
    from mcuroof.results import document

    probe = {**PICO, "version": [1, 29, 0], "freq": 125000000}
    run = document.Run("rp2040js-pico", "rp2040js", pace=0.0812345, sizing=timing.sizing(SLOW))
    board = document.document(run, probe, [])["board"]
    assert board["pace"] == 0.0812
    assert board["sizing"] == (
        "an emulator slower than its chip (profile [run].slow_emulator): 3 trials of 1000-tick windows, "
        "interpreted memory sweeps to 16 KiB"
    )
    plain = document.document(document.Run("rp2040js-pico", "rp2040js"), probe, [])["board"]
    assert "pace" not in plain and "sizing" not in plain
    assert timing.sizing(profiles.find("qemu-m3")) is None


def test_report_facts_show_the_pace_and_the_sizing():
    from mcuroof.report import html_tables as html

    sized = timing.sizing(SLOW)
    facts = dict(html._clock_facts({"name": "rp2040js-pico", "clock_hz": 125e6, "pace": 0.105, "sizing": sized}))
    assert facts["pace"] == "0.105 board seconds a host second" and facts["sized as"] == sized
    fast = dict(html._clock_facts({"name": "qemu-microbit", "icount_shift": 6, "pace": 4.3}))
    assert fast["pace"] == "4.3 board seconds a host second" and "sized as" not in fast
    assert "pace" not in dict(html._clock_facts({"name": "unix"}))  # a host OS measures none
