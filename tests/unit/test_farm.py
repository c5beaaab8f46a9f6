"""A board farm through labgrid, for real on loopback: coordinator, exporter, ser2net, QEMU boards.

Three emulated micro:bits are places mb1..mb3 of one exporter. The farm's roofs must equal a
direct --board run (QEMU -icount: deterministic); a place someone else holds is skipped, or
waited for; a board killed mid-run ends its place only, and --resume completes it.
"""

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import needs_qemu
from labfarm import LoopbackFarm, ready
from mcuroof.cli import main
from mcuroof.farm import exporter_yaml as exporter_config
from mcuroof.farm import workers as farm
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


def kill_when_running(lab, raw, ended):
    """Kill mb2's QEMU once its memory suite has finished a unit (mid-run)."""
    while not ended.wait(0.2):
        if raw.exists() and '"kind": "kernel", "suite": "memory"' in raw.read_text():
            lab.kill_board("mb2")
            return


def state(out):
    return {p: farm.state(out / p) for p in ("mb1", "mb2", "mb3")}


def test_exporter_config_matches_boards_by_usb_serial_number():
    ports = [
        exporter_config.Port("/dev/ttyACM0", 0x2E8A, 0x0005, "E6614C311B7E6F35", "Board in FS mode"),
        exporter_config.Port("/dev/ttyUSB0", 0x10C4, 0xEA60, None, "CP2102 USB to UART"),
    ]
    text = exporter_config.render(ports)
    assert "board-in-fs-mode-7e6f35:\n  USBSerialPort:\n    match:\n      ID_SERIAL_SHORT: 'E6614C311B7E6F35'" in text
    assert "set-tags board=pico" in text
    assert "cp2102-usb-to-uart:\n  RawSerialPort:\n    port: /dev/ttyUSB0" in text


def test_ctrl_c_passes_on_to_every_place_and_says_how_to_resume(tmp_path, monkeypatch):
    """Ctrl-C in a farm run: each place's process gets it once (and ends), and the error names
    the --resume command, also where the farm itself was started with SIGINT ignored (in the
    background). The places are stand-in Python processes: the interrupt path only."""
    script = "import os, pathlib, time\npathlib.Path(f'ready-{os.getpid()}').touch()\ntime.sleep(60)\n"
    monkeypatch.setattr(farm, "command", lambda plan, place: [sys.executable, "-c", script])
    monkeypatch.chdir(tmp_path)
    workers = [farm.Worker(p, tmp_path / p) for p in ("a", "b")]
    plan = farm.Plan(tmp_path, "127.0.0.1:1", ["a", "b"], {})
    started = time.monotonic()

    def tick():  # Ctrl-C once both places' processes are up (ready: their SIGINT handler is set)
        if len(list(tmp_path.glob("ready-*"))) == 2 or time.monotonic() - started > 30:
            raise KeyboardInterrupt

    monkeypatch.setattr(farm, "INTERRUPT_WAIT", 5.0)
    ignored = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as `mcuroof farm run ... &` starts
    try:
        with pytest.raises(KeyboardInterrupt) as e:
            farm.run_all(workers, plan, 0, tick)
    finally:
        signal.signal(signal.SIGINT, ignored)
    assert str(e.value) == f"every place's partial run is kept: mcuroof farm run --resume {tmp_path}"
    # ended by the SIGINT passed on (Python's KeyboardInterrupt), not killed after the wait
    assert [w.proc.returncode for w in workers] == [-signal.SIGINT] * 2
