"""A board farm through labgrid, for real on loopback: coordinator, exporter, ser2net, QEMU boards.

Three emulated micro:bits are places mb1..mb3 of one exporter. The farm's roofs must equal a
direct --board run (QEMU -icount: deterministic); a place someone else holds is skipped, or
waited for; a board killed mid-run ends its place only, and --resume completes it.
"""

import json
import os
import shutil
import subprocess
import sys
import threading
import time

import pytest

from conftest import needs_qemu
from labfarm import LoopbackFarm, ready
from mcuroof.cli import main
from mcuroof.farm import workers as farm
from mcuroof.measure.rawlog import read
from mcuroof.results import document as results

SUITES = "memory,compute"
# one of the QEMU Cortex-M boards where their firmware can be built here (CI), else a micro:bit
SINGLE = ("m3", "qemu-m3") if shutil.which("arm-none-eabi-gcc") else ("mb4", "qemu-microbit")
# How close a place's roofs must come to a direct --board run of the same board. Under QEMU
# -icount a busy board's time counts instructions; the harness takes the least of several trials
# for the kernel and for its overhead. mcuroof's own Cortex-M firmware (firmware/port) then repeats
# to 0.01 % (fresh or idle for a minute, direct or through ser2net), within the 0.5 %. The
# micro:bit's firmware (Debian's MicroPython 1.9.2) runs two timer interrupts every 6 ms whose cost
# varies with the board's state: a board idle for 40 s measured its asm_thumb memory roofs 0.55 to
# 0.65 % above a freshly booted one, through ser2net or not; so 1 % for the micro:bit.
TOLERANCE = {"qemu-microbit": 0.01}
PORT_TOLERANCE = 0.005


def farm_test(fn):
    for mark in (needs_qemu, pytest.mark.skipif(ready() is not None, reason=str(ready())), pytest.mark.slow):
        fn = mark(fn)
    return fn


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    work = tmp_path_factory.mktemp("farm")
    lab = LoopbackFarm(
        {"mb1": "qemu-microbit", "mb2": "qemu-microbit", "mb3": "qemu-microbit", SINGLE[0]: SINGLE[1]}, work
    )
    try:
        yield lab.start()
    finally:
        lab.stop()


@pytest.fixture(scope="module")
def direct(tmp_path_factory):
    """The same suites on each kind of emulated board directly (--board), the reference for every place."""
    return {
        board: direct_run(tmp_path_factory.mktemp("direct") / "out", board, SUITES)
        for board in ("qemu-microbit", SINGLE[1])
    }


def direct_run(out, board, suites):
    assert main(["run", "--board", board, "--suite", suites, "-o", str(out)]) == 0
    return results.load(out / "results.json")


def measured(data: dict) -> dict:
    return {
        (r["kind"], r["name"], r["emitter"], r["dtype"]): r.get("bytes_per_s") or r["macs_per_s"]
        for r in data["roofs"]
        if r["source"] == "measured"
    }


def assert_same_roofs(data: dict, reference: dict, least: int = 8, suites=("memory", "compute")) -> None:
    got, want = measured(data), {k: v for k, v in measured(reference).items() if k[0] in suites}
    assert got.keys() == want.keys() and len(want) >= least
    tolerance = TOLERANCE.get(reference["board"]["name"], PORT_TOLERANCE)
    off = {k: got[k] / want[k] - 1 for k in want if abs(got[k] / want[k] - 1) > tolerance}
    assert not off, off


def mcuroof(*args, **env):
    """mcuroof in a process of its own (as a user runs it); its output and exit status."""
    return subprocess.Popen(
        [sys.executable, "-m", "mcuroof.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, **env),
    )


@farm_test
def test_run_on_a_place_waits_for_its_holder_and_releases_it(lab, direct, tmp_path):
    place, board = SINGLE
    assert lab.client(place, "acquire", user="alice").returncode == 0
    held = mcuroof(
        "run", "--place", place, "--coordinator", lab.address, "--suite", "compute", "-o", str(tmp_path / "no")
    )
    _, err = held.communicate(timeout=60)
    assert held.returncode == 2 and err.strip().splitlines() == [
        f"mcuroof: place {place} is held by {lab.holder(place)}; --wait waits for it"
    ]
    assert "alice" in err and not (tmp_path / "no" / "raw.jsonl").exists()

    waiting = mcuroof(
        "run",
        "--place",
        place,
        "--coordinator",
        lab.address,
        "--wait",
        "--suite",
        "compute",
        "-o",
        str(tmp_path / "out"),
    )
    time.sleep(3)
    assert waiting.poll() is None and lab.holder(place).endswith("/alice")
    lab.client(place, "release", user="alice")
    out, err = waiting.communicate(timeout=180)
    assert waiting.returncode == 0, err
    assert f"waiting for place {place} (held by" in err
    assert lab.holder(place) is None  # released at the end
    data = results.load(tmp_path / "out" / "results.json")
    assert data["board"]["name"] == place and data["board"]["icount_shift"] == 6  # from the place's tags
    assert data["board"]["link"].startswith(f"labgrid place {place} at {lab.address}: rfc2217://127.0.0.1:")
    assert any(r["source"] == "theoretical" for r in data["roofs"])  # the profile named by the board tag
    assert data["checks"]["failed"] == 0
    assert_same_roofs(data, direct[board], least=3, suites=("compute",))


@farm_test
def test_farm_run_resume_and_compare(lab, direct, tmp_path):
    out = tmp_path / "farm"
    lab.client("mb3", "acquire", user="bob")
    ended = threading.Event()
    killer = threading.Thread(target=kill_when_running, args=(lab, out / "mb2" / "raw.jsonl", ended))
    killer.start()
    try:
        code = main(["farm", "run", "--all", "--coordinator", lab.address, "--suite", SUITES, "-o", str(out)])
    finally:
        ended.set()
        killer.join()
    assert code == 2  # two places did not finish
    assert state(out) == {"mb1": "done", "mb2": "partial", "mb3": "new"}
    assert_same_roofs(results.load(out / "mb1" / "results.json"), direct["qemu-microbit"])
    assert_same_roofs(results.load(out / SINGLE[0] / "results.json"), direct[SINGLE[1]])
    whole, cut = (farm.progress(read(out / p / "raw.jsonl")) for p in ("mb1", "mb2"))
    assert whole.done == whole.total > 20 and 1 < cut.done < cut.total == whole.total and cut.faults >= 3
    log = (out / "mb2" / "run.log").read_text()
    assert "the partial run is kept" in log
    assert lab.holder("mb1") is None and lab.holder("mb2") is None and lab.holder("mb3").endswith("/bob")

    lab.start_board("mb2")  # the board is back (QEMU on a new pty, the same exported port)
    lab.client("mb3", "release", user="bob")
    before = (out / "mb1" / "results.json").read_bytes()
    assert main(["farm", "run", "--resume", str(out), "--coordinator", lab.address]) == 0
    assert state(out) == {"mb1": "done", "mb2": "done", "mb3": "done"}
    assert (out / "mb1" / "results.json").read_bytes() == before  # finished places are not run again
    for place in ("mb2", "mb3"):
        assert_same_roofs(results.load(out / place / "results.json"), direct["qemu-microbit"])
    raw = [json.loads(ln) for ln in (out / "mb2" / "raw.jsonl").read_text().splitlines()]
    assert [e["resumed"] for e in raw if e["kind"] == "header"] == [False, True]
    finished = [(e["suite"], e["kernel"]) for e in raw if e["kind"] == "kernel"]
    assert len(finished) == len(set(finished))  # the units finished before the kill did not run again
    assert (out / "compare.png").read_bytes()[:4] == b"\x89PNG"
    assert all(p in (out / "report.html").read_text() for p in ("mb1", "mb2", "mb3"))


def kill_when_running(lab, raw, ended):
    """Kill mb2's QEMU once its memory suite has finished a unit (mid-run)."""
    while not ended.wait(0.2):
        if raw.exists() and '"kind": "kernel", "suite": "memory"' in raw.read_text():
            lab.kill_board("mb2")
            return


def state(out):
    return {p: farm.state(out / p) for p in ("mb1", "mb2", "mb3")}
