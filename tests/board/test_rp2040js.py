"""The emulated Pico (rp2040js-pico) end to end: the port built for the RP2040, the rp2040js runner
on a real pty, mpremote talking to it, time that counts Cortex-M0+ cycles, a reset, the runner
leaving with its host; and a compute run whose every ceiling keeps under its M0+ cycle bound."""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from factories import CPU_REGS
from mcuroof.analysis import timing_basis
from mcuroof.board import profiles
from mcuroof.suites import timing

needs_rp2040js = pytest.mark.skipif(
    not shutil.which("node") or not shutil.which("arm-none-eabi-gcc"),
    reason="needs Node.js (make nodedeps) and gcc-arm-none-eabi (make armdeps)",
)
pytestmark = [needs_rp2040js, pytest.mark.slow]
MPREMOTE = Path(sys.executable).parent / "mpremote"
# SUBS (1 cycle) and a taken BGT (2 cycles, Cortex-M0+ TRM): 3 cycles an iteration, 8 ns each
SPIN = (
    "import time,machine,sys\n"
    "@micropython.asm_thumb\n"
    "def spin(r0):\n label(L)\n sub(r0,1)\n bgt(L)\n"
    "def timed(n):\n t=time.ticks_us();spin(n);return time.ticks_diff(time.ticks_us(),t)\n"
    "timed(10)\n"
    "d=timed(N)-timed(1)\n"
    "@micropython.viper\n"
    "def v(n:int)->int:\n return n*3\n"
    "@micropython.native\n"
    "def w(n):\n return n+1\n"
    "print(sys.platform, machine.freq(), d, v(5), w(5), machine.mem32[0x10000000] == machine.mem32[0x10000000])\n"
)


@pytest.fixture(scope="module")
def emulator():
    from mcuroof.links.rp2040js import Rp2040js

    emu = Rp2040js()
    emu.start()
    yield emu
    emu.stop()


def _mpremote(pty: str, code: str) -> str:
    done = subprocess.run([MPREMOTE, "connect", pty, "exec", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_mpremote_runs_every_emitter_and_time_counts_cycles(emulator):
    """1,250,000 iterations of 3 cycles more than 1 are 3.75 M cycles: 30,000 us at 125 MHz (1 us:
    the timer's step); the same figure on every run to that step (the emulator's time is its cycle
    count, but where the span starts within a 1 us step follows when the host's bytes arrived: 29999
    against 30000 in one of eight loaded runs)."""
    runs = [_mpremote(emulator.pty, SPIN.replace("N", "1250001")).split() for _ in range(2)]
    platform, freq, us, viper, native, flash = runs[0]
    assert (platform, freq, viper, native, flash) == ("rp2040js-pico", "125000000", "15", "6", "True")
    assert abs(int(us) - 30000) <= 1
    assert abs(int(runs[1][2]) - int(us)) <= 1


def test_reset_boots_again_and_the_runner_leaves_with_its_host(emulator):
    """machine.reset() (a BKPT the runner answers with a fresh RP2040) prints the banner again;
    a runner whose host closes the pty exits."""
    import serial

    with serial.Serial(emulator.pty, timeout=0.5) as port:
        port.write(b"\x03\x02")
        port.read(4096)
        port.write(b"import machine;machine.reset()\r\n")
        got = b""
        deadline = time.monotonic() + 20
        while b"MicroPython v" not in got and time.monotonic() < deadline:
            got += port.read(4096)
    assert b"MicroPython v1.29" in got and b"rp2040js emulator" in got
    from mcuroof.links.rp2040js import Rp2040js

    other = Rp2040js()
    other.start()
    proc = other.proc
    os.close(other._slave)  # the host's end gone, as when its process dies
    other._slave = None
    assert proc.wait(10) == 0
    other.stop()


def _run(out: Path, *where: str) -> tuple[dict, str, list[dict]]:
    done = subprocess.run(
        [Path(sys.executable).parent / "mcuroof", "run", *where, "--suite", "compute", "-o", out],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    raw = [json.loads(line) for line in (out / "raw.jsonl").read_text().splitlines()]
    return json.loads((out / "results.json").read_text()), done.stdout, raw


@pytest.fixture(scope="module")
def compute_run(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("direct") / "out", "--board", "rp2040js-pico")


def _measured(data: dict) -> dict:
    return {r["name"]: r["macs_per_s"] for r in data["roofs"] if r["source"] == "measured"}


def _macs(raw: list[dict]) -> dict:
    """Each compute kernel's record as raw.jsonl has it (the last attempt's)."""
    return {e["kernel"]: e["rec"] for e in raw if e["kind"] == "record" and e["rec"].get("t") == "mac"}


def test_a_compute_run_counts_cycles_and_keeps_under_the_cycle_bounds(compute_run):
    data, stdout, raw = compute_run
    assert "time counts the cycles of the modelled Cortex-M0+ at 125 MHz" in " ".join(stdout.split())
    assert "the emulator does not model: memory is idealised" in stdout
    assert data["board"]["limits"] and "XIP cache" in data["board"]["limits"][0]
    # the run measured how fast its time runs against the host's (raw.jsonl's pace entry: here
    # 0.019-0.52, 2.4-65 M of its 125 M cycles a host second), a fact that sizes nothing: the
    # profile's [run].slow_emulator sizes it (suites.timing.slow), whatever the pace, and it says
    # so; its records show the 2 ms windows (1000 ticks of 2 us), not a real board's 20 ms
    paces = [e["pace"] for e in raw if e["kind"] == "pace"]
    assert len(paces) == 1 and 0 < paces[0] and data["board"]["pace"] == round(paces[0], 4)
    # the timer check found its cycles exact: two timed calls of 1000 ticks a measurement
    timer = data["board"]["timer"]
    assert timer["rule"] == "exact" and timer["counted"] and timer["suites"]["trials"] == 2
    sizing = data["board"]["sizing"]
    said = " ".join(stdout.split())  # however the terminal wrapped it
    assert "2 timed calls (exact time) of 1000-tick windows" in sizing and f"rp2040js-pico: {sizing}" in said
    assert sizing == timing.sizing(
        profiles.find("rp2040js-pico"),
        timing.read_timer({"us": [0, int(timer["spread_us"])], "win": timer["check_us"]}, timer["tick_us"], True),
    )
    assert all(2000 <= r["us"] < 20000 for r in _macs(raw).values()), _macs(raw)
    basis = timing_basis.of(data["board"])
    assert (basis.kind, basis.rate_hz) == (timing_basis.CYCLES, 125e6)
    measured = [r for r in data["roofs"] if r["kind"] == "compute" and r["source"] == "measured"]
    assert {r["emitter"] for r in measured} == {"bytecode", "native", "viper", "asm_thumb"}
    for r in measured:  # Armv6-M: at most one MULS and one ADDS a MAC, a cycle each
        assert 0 < basis.per_step(r["macs_per_s"]) <= 0.5, r["name"]
    # the register-only MULS + ADDS kernel: 32 MACs in 64 + 3 cycles a loop (SUBS 1, BGT 2), 0.478
    muls = [r for r in measured if r["name"].endswith("muls")]
    assert len(muls) == 3 and all(0.45 < basis.per_step(r["macs_per_s"]) for r in muls)


def test_the_ldm_copy_moves_a_word_a_cycle_less_its_ldm_stm_and_loop():
    """copy-ldm: 64 B copied (128 B counted, read and written) in 4 x (5 + 5) + 3 = 43 cycles,
    2.98 B/cycle; the LDR/STR word copy 32 B counted in 8 x 2 + 2 + 1 + 2 = 21 cycles, 1.52 B/cycle.
    Every output checked, on sizes from 64 B to 4 KiB."""
    from mcuroof.analysis import roofs
    from mcuroof.board import identity
    from mcuroof.kernels import memory
    from mcuroof.kernels.firmware import prefix
    from mcuroof.links.rp2040js import Rp2040jsLink
    from mcuroof.measure.protocol import parse_line

    cfg = {
        "emitters": ["asm_thumb"],
        "types": ["i"],
        "max_ws": {"asm_thumb": 4096},
        "isa": identity.describe({"cpu": CPU_REGS["rp2040js-pico"]}).peak_kernels,
    }
    movers = [k for k in memory.memory_kernels(cfg) if k.key.endswith(("copy4x", "copy-ldm"))]
    link = Rp2040jsLink()
    try:
        best = {}
        for k in movers:
            lines = []
            link.run(prefix(["memory"], {"win_us": 2000, "trials": 1, "min_n": 16}) + k.scripts(), lines.append)
            recs = [parse_line(ln).data for ln in lines if ln.startswith("@mcr")]
            recs = [r for r in recs if r.get("t") == "mem"]
            assert len(recs) >= 5 and all(roofs.memory_ok(r) for r in recs), (k.key, recs)
            best[k.key.rsplit("/", 1)[1]] = max(roofs.bandwidth(r) for r in recs) / 125e6  # B/cycle
    finally:
        link.close()
    assert 2.7 < best["copy-ldm"] <= 128 / 43 and 1.3 < best["copy4x"] <= 32 / 21


def test_a_labgrid_place_serves_the_emulated_pico(compute_run, tmp_path):
    """The runner's pty exported by labgrid (ser2net, RFC 2217) like a QEMU board's: the place's
    compute roofs are the direct run's (time counts cycles: the same to 0.5 %). Both runs are sized
    by the profile, whatever pace each measured (0.520 and 0.349 once sized them two ways: 20 ms
    windows against 2 ms, float32 ceilings 0.7-1.0 % apart): the same kernels, loops and windows."""
    from labfarm import LoopbackFarm, ready

    if ready():
        pytest.skip(ready())
    lab = LoopbackFarm({"pico1": "rp2040js-pico"}, tmp_path).start()
    try:
        data, _, raw = _run(tmp_path / "out", "--place", "pico1", "--coordinator", lab.address)
    finally:
        lab.stop()
    assert data["board"]["name"] == "pico1" and data["board"]["icount_shift"] is None
    assert data["board"]["limits"] == compute_run[0]["board"]["limits"]  # from the place's board= tag
    assert timing_basis.of(data["board"]).kind == timing_basis.CYCLES
    assert data["board"]["sizing"] == compute_run[0]["board"]["sizing"]
    place, direct = _macs(raw), _macs(compute_run[2])
    assert place.keys() == direct.keys() and all(
        (place[k]["n"], place[k]["u"]) == (direct[k]["n"], direct[k]["u"]) and 2000 <= place[k]["us"] < 20000
        for k in direct
    ), (place, direct)
    got, want = _measured(data), _measured(compute_run[0])
    assert got.keys() == want.keys() and all(abs(got[k] / want[k] - 1) < 0.005 for k in want), (got, want)
