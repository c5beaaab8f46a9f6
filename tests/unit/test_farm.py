"""A board farm through labgrid, for real on loopback: coordinator, exporter, ser2net, QEMU boards.

Three emulated micro:bits are places mb1..mb3 of one exporter. The farm's roofs must equal a
direct --board run (QEMU -icount: deterministic); a place someone else holds is skipped, or
waited for; a board killed mid-run ends its place only, and --resume completes it.
"""

import signal
import sys
import time

import pytest

from mcuroof.farm import exporter_yaml as exporter_config
from mcuroof.farm import workers as farm

# one of the QEMU Cortex-M boards where their firmware can be built here (CI), else a micro:bit
# How close a place's roofs must come to a direct --board run of the same board. Under QEMU
# -icount a busy board's time counts instructions; the harness takes the least of several trials
# for the kernel and for its overhead. mcuroof's own Cortex-M firmware (firmware/port) then repeats
# to 0.01 % (fresh or idle for a minute, direct or through ser2net), within the 0.5 %. The
# micro:bit's firmware (Debian's MicroPython 1.9.2) runs two timer interrupts every 6 ms whose cost
# varies with the board's state: a board idle for 40 s measured its asm_thumb memory roofs 0.55 to
# 0.65 % above a freshly booted one, through ser2net or not; so 1 % for the micro:bit.


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


def test_progress_counts_the_probe_and_the_suites_units_not_the_pace_unit():
    """A finished place reads done == total: the pace unit after the probe is neither."""

    def unit(suite, kernel, rec):
        return [
            {"kind": "record", "suite": suite, "attempt": 1, "kernel": kernel, "rec": rec},
            {"kind": "record", "suite": suite, "attempt": 1, "kernel": kernel, "rec": {"t": "end", "records": 2}},
            {"kind": "kernel", "suite": suite, "attempt": 1, "kernel": kernel, "records": 1},
        ]

    probe = {"t": "probe", "platform": "unix-less", "emitters": ["bytecode"], "free": 8000, "tick_us": 1}
    entries = [{"kind": "header", "suites": ["regions"]}, *unit("probe", "probe", probe)]
    entries += unit("pace", "pace", {"t": "pace", "us": 100000})
    entries += unit("regions", "regions/skip", {"t": "skip", "why": "no-reader"})
    got = farm.progress(entries)
    assert (got.done, got.total) == (2, 2)
