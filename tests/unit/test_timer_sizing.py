"""The timer check and the sizing rule it chooses (suites.timer, suites.timing, measure.timer):
exact time (QEMU's instructions, rp2040js's cycles, the repeats within a tick) gets a warm-up and
one timed call of 1000 ticks; noisy time keeps the windows and trials it had. Hand-worked values,
no timing asserted."""

from mcuroof.measure import timer as board_timer
from mcuroof.measure.rawlog import MemoryLog
from mcuroof.suites import calibration, registry, timing
from mcuroof.suites import timer as timer_suite
from mcuroof.suites.base import Context

M3 = {"platform": "qemu-m3", "free": 110000, "tick_us": 1, "emitters": ["bytecode"], "cpu": [0x410FC231]}
PICO = {"platform": "rp2040js-pico", "free": 186016, "tick_us": 2, "emitters": ["bytecode"], "cpu": [0x410CC601]}
UNIX = {"platform": "linux", "free": 1 << 26, "tick_us": 1, "emitters": ["bytecode"]}


def _timer(tick, times, counted, win=1000):
    return timing.read_timer({"t": "timer", "r": 16, "win": win, "us": times}, tick, counted)


def test_the_spread_is_the_slowest_repeat_minus_the_fastest():
    t = _timer(1, [1003, 1001, 1003, 1002, 1003], True)
    assert (t.spread_us, t.repeats, t.window_us) == (2.0, 5, 1000.0)
    assert t.exact and t.rule == "exact"  # 2 us of a 1000 us check: 0.2 %, under 0.5 %
    assert _timer(1, [1005, 1000, 1003], True).exact  # 0.5 %: the most allowed
    assert not _timer(1, [1006, 1000, 1003], True).exact  # 0.6 %
    # qemu-m3 under -icount: a 10 us tick, 16 us of a 10 ms check (a timer interrupt more or less)
    assert _timer(10, [14683, 14667, 14668, 14668, 14668], True, win=10000).exact
    assert _timer(20, [20000, 20020], True, win=2000).exact  # one tick apart, however short the check
    assert not _timer(1, [1000] * 5, False).exact  # host time: never exact, however still


def test_exact_time_gets_one_call_of_1000_ticks_and_noisy_time_keeps_its_rule():
    exact_m3, exact_pico = _timer(1, [1000] * 5, True), _timer(2, [2000] * 5, True)
    # a call that allocates (its time depends on where a collection lands) keeps the noisy trials
    assert timing.timing(M3, timer=exact_m3) == {"win_us": 1000, "trials": 2}
    assert timing.timing(PICO, True, exact_pico) == {"win_us": 2000, "trials": 2}
    # 1000 of the tick taken down to 1, 2 or 5 x 10^k us: a reading of 10 or 11 us gives one window
    for tick, win in ((3, 2000), (9, 5000), (10, 10000), (11, 10000), (14, 10000), (20, 20000)):
        assert timing.timing({**PICO, "tick_us": tick}, True, exact_pico)["win_us"] == win, tick
    noisy = _timer(1, [1000, 1050, 1000, 1000, 1000], True)
    # M3's 110,000 B free heap is small (under 256 KiB): 20 ms windows, 5 trials, as without a check
    assert timing.timing(M3, timer=noisy) == timing.timing(M3) == {"win_us": 20000, "trials": 5}
    assert timing.timing(PICO, True, noisy) == {"win_us": 2000, "trials": 3}
    host = _timer(1, [1000] * 5, False)
    assert timing.timing(UNIX, timer=host) == {"win_us": 5000, "trials": 15}


def test_the_calibration_follows_the_same_rule():
    assert calibration.trials(M3, _timer(1, [1000] * 5, True)) == {"win_us": 1000, "trials": 1, "alloc_trials": 2}
    assert calibration.trials(M3, _timer(1, [1000, 1030], True)) == {"win_us": 2000, "trials": 3}
    assert calibration.trials(M3) == {"win_us": 2000, "trials": 3}
    assert calibration.trials(UNIX, _timer(1, [1000] * 5, False)) == {"win_us": 2000, "trials": 5}
    cfg = registry.suite_config("calibration", M3, Context(timer=_timer(1, [1000] * 5, True)))
    assert (cfg["win_us"], cfg["trials"], cfg["alloc_trials"]) == (1000, 1, 2)


def test_every_suite_is_sized_by_the_context_timer():
    ctx = Context(timer=_timer(1, [1000] * 5, True))
    for suite in ("memory", "compute", "regions"):
        cfg = registry.suite_config(suite, M3, ctx)
        assert (cfg["win_us"], cfg["trials"]) == (1000, 2), suite
        assert "WIN = 1000\nTRIALS = 2\n" in registry.chunks(suite, cfg)[0]  # two trials, the least kept


def test_precision_is_the_tick_and_the_spread_over_the_window():
    exact = _timer(2, [2000, 2002, 2000], True)  # spread 2 us = one tick
    assert timing.precision({"win_us": 2000}, exact, PICO) == (2 + 2) / 2000  # 0.2 %
    assert timing.precision({"win_us": 1000}, _timer(1, [1000] * 5, True), M3) == 0.001
    # noisy time: the tick alone over the window (the trials' least is what the noise leaves)
    assert timing.precision({"win_us": 20000}, _timer(1, [1000, 1400], True), M3) == 1 / 20000


def test_the_record_names_the_rule_and_both_sizings():
    t = _timer(1, [1000] * 5, True)
    rec = timing.record(t, M3, timing.timing(M3, timer=t), calibration.trials(M3, t))
    assert rec == {
        "rule": "exact",
        "counted": True,
        "tick_us": 1.0,
        "spread_us": 0.0,
        "repeats": 5,
        "check_us": 1000.0,
        "suites": {"win_us": 1000, "trials": 2, "precision": 0.001},
        "calibration": {"win_us": 1000, "trials": 1, "precision": 0.001, "alloc_trials": 2},
    }


def test_the_results_carry_the_timer_record():
    from mcuroof.results import document

    t = _timer(1, [1000] * 5, True)
    rec = timing.record(t, M3, timing.timing(M3, timer=t), calibration.trials(M3, t))
    probe = {**M3, "version": [1, 29, 0], "freq": 25000000}
    board = document.document(document.Run("qemu-m3", "qemu", 6, timer=rec), probe, [])["board"]
    assert board["timer"]["rule"] == "exact"
    assert "timer" not in document.document(document.Run("qemu-m3", "qemu", 6), probe, [])["board"]


def test_which_time_bases_count_steps():
    assert board_timer.counted({"name": "qemu-m3", "icount_shift": 6, "platform": "qemu-m3"})
    assert board_timer.counted({"name": "rp2040js-pico", "platform": "rp2040js-pico", "clock_hz": 125000000})
    assert not board_timer.counted({"name": "unix", "platform": "linux"})
    assert not board_timer.counted({"name": "pico", "platform": "rp2", "clock_hz": 125000000})


class FakeCollector:
    def __init__(self, done=(), times=(1000, 1000, 1000, 1000, 1000)):
        self.log, self.done, self.times, self.ran = MemoryLog(), dict.fromkeys(done, []), list(times), []

    def run_suite(self, suite, cfg):
        self.ran.append((suite, cfg["win_us"], cfg["trials"]))
        return [{"t": "timer", "r": 16, "win": cfg["win_us"], "us": self.times}]


def test_a_run_checks_its_timer_once_and_a_folder_measured_without_a_check_keeps_the_noisy_rule():
    qemu = {"name": "qemu-m3", "icount_shift": 6, "platform": "qemu-m3"}
    col = FakeCollector()
    t = board_timer.for_run(col, M3, qemu, None)
    assert t.exact and col.ran == [("timer", 1000, 1)]
    assert timer_suite.config(PICO) == {"win_us": 2000, "trials": 1}
    assert timer_suite.config({**PICO, "tick_us": 11}) == {"win_us": 10000, "trials": 1}
    older = FakeCollector(done=[("probe", "probe"), ("memory", "memory/bytecode/int8/copy")])
    assert board_timer.for_run(older, M3, qemu, [{"kind": "header"}]) is None and older.ran == []
    resumed = FakeCollector(done=[("probe", "probe"), ("timer", "timer")])
    assert board_timer.for_run(resumed, M3, qemu, [{"kind": "header"}]).exact


def test_the_timer_record_must_carry_its_times():
    assert timer_suite.check({"t": "timer", "r": 1, "win": 1000, "us": []})
    assert timer_suite.check({"t": "timer", "r": 1, "win": 1000, "us": [1000, "x"]})
    assert timer_suite.check({"t": "timer", "r": 1, "win": 1000, "us": [1000, 1001]}) is None


def test_a_slow_emulator_says_which_rule_sized_it():
    from mcuroof.board import profiles

    pico = profiles.find("rp2040js-pico")
    assert "3 trials of 1000-tick windows" in timing.sizing(pico)
    assert "2 timed calls (exact time) of 1000-tick windows" in timing.sizing(pico, _timer(2, [2000] * 5, True))
    assert timing.sizing(profiles.find("qemu-m3"), _timer(1, [1000] * 5, True)) is None


def test_a_unit_whose_set_up_the_board_holds_is_sent_its_call_alone():
    from mcuroof.measure.collect import Unit, sent_chunks

    a1, a2 = Unit("a1", ["clean", "def A", "call 1"]), Unit("a2", ["clean", "def A", "call 2"])
    b = Unit("b", ["clean", "def B", "call 3"])
    one = Unit("one", ["call alone"])
    assert sent_chunks([a1, a2, b, one], True) == [
        ["clean", "def A", "call 1"],
        ["call 2"],  # A is still defined on the board
        ["clean", "def B", "call 3"],
        ["call alone"],  # no set-up to share
    ]
    # a pass that starts at a2 (a1 finished before a fault) sends a2 its own set-up
    assert sent_chunks([a2, b], True) == [a2.chunks, b.chunks]
    assert sent_chunks([a1, a2], False) == [a1.chunks, a2.chunks]  # a suite that does not reuse


def test_an_exact_calibration_times_one_call_a_shape_and_two_where_the_call_allocates():
    probe = {**M3, "emitters": ["bytecode", "viper"]}
    cfg = registry.suite_config("calibration", probe, Context(timer=_timer(1, [1000] * 5, True)))
    assert "TRIALS = 1\n" in registry.chunks("calibration", cfg)[0]  # the CFG line: one call
    by_kind = {}
    for k in calibration.kernels(cfg):
        _, em, dtype, _ = k.key.split("/")
        call = k.scripts("finish()\n")[-1].splitlines()
        by_kind.setdefault((em, dtype), set()).add((call[0], call[-2]))
    # boxed floats allocate in bytecode: 2 calls, set around the call alone; viper and int8 do not
    assert by_kind[("bytecode", "float32")] == {("TRIALS=2", "TRIALS=1")}
    assert all(
        not first.startswith("TRIALS")
        for kind in (("bytecode", "int8"), ("viper", "int8"))
        for first, _ in by_kind[kind]
    )
    assert "alloc_trials" not in registry.chunks("calibration", cfg)[0]  # the board's CFG holds no more
    noisy = registry.suite_config("calibration", M3, Context(timer=_timer(1, [1000, 1030], True)))
    assert not any("TRIALS" in s for k in calibration.kernels(noisy) for s in k.scripts())
