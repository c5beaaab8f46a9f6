"""A board's pace (board seconds per host second) and the sizing of windows, trials and sweeps
it sets (measure.pace, suites.timing, suites.memory): pure functions, no timing asserted."""

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


def test_a_board_as_fast_as_the_host_or_faster_keeps_its_windows_and_trials():
    for probe in (PICO, M3):
        base = timing.timing(probe)
        for p in (None, 0.5, 1.0, 3.2):
            assert timing.timing(probe, p) == base
    assert timing.timing(PICO) == {"win_us": 20000, "trials": 5}
    assert timing.timing(M3) == {"win_us": 5000, "trials": 5}


def test_a_slow_board_gets_windows_of_1000_ticks_whatever_its_pace_and_3_trials():
    for p in (0.01, 0.035, 0.108, 0.288, 0.49):
        assert timing.timing(PICO, p) == {"win_us": 2000, "trials": 3}  # its tick is 2 us
        assert timing.timing(M3, p) == {"win_us": 1000, "trials": 3}
    unix = {"platform": "linux", "free": 1 << 26}
    assert timing.timing(unix, 0.1) == timing.timing(unix) == {"win_us": 5000, "trials": 15}


def test_interpreted_sweeps_stop_at_16_kib_on_a_slow_board_and_the_fast_movers_sweep_the_heap():
    ems = ["bytecode", "native", "viper", "asm_thumb", "c"]
    assert memory.working_sets(PICO, ems) == dict.fromkeys(ems, 186016)
    slow = memory.working_sets(PICO, ems, 0.08)
    assert slow == {"bytecode": 16384, "native": 16384, "viper": 186016, "asm_thumb": 186016, "c": 186016}
    # a big-heap microcontroller already had that; its pace changes nothing
    assert (
        memory.working_sets(M3, ems, 0.08)
        == memory.working_sets(M3, ems)
        == {**slow, **dict.fromkeys(["viper", "asm_thumb", "c"], 3_900_000)}
    )


def test_the_memory_kernels_carry_the_sized_window_and_sweep():
    cfg = registry.suite_config("memory", PICO, Context(pace=0.08))
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


def test_the_results_say_the_pace_the_run_was_sized_by():
    from mcuroof.results import document

    probe = {**PICO, "version": [1, 29, 0], "freq": 125000000}
    doc = document.document(document.Run("rp2040js-pico", "rp2040js", pace=0.0812345), probe, [])
    assert doc["board"]["pace"] == 0.0812
    assert "pace" not in document.document(document.Run("rp2040js-pico", "rp2040js"), probe, [])["board"]


def test_report_facts_show_the_pace_and_what_it_sized():
    from mcuroof.report import html_tables as html

    slow = dict(html._clock_facts({"name": "rp2040js-pico", "clock_hz": 125e6, "pace": 0.105}))["pace"]
    assert slow.startswith("0.105 board seconds a host second (under 0.5: an emulator slower than its chip")
    assert "3 trials of 1000-tick windows" in slow
    fast = dict(html._clock_facts({"name": "qemu-microbit", "icount_shift": 6, "pace": 4.3}))["pace"]
    assert fast == "4.3 board seconds a host second"
    assert "pace" not in dict(html._clock_facts({"name": "unix"}))  # a host OS measures none
