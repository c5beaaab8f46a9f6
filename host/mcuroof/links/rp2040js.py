"""The emulated Raspberry Pi Pico (`--board rp2040js-pico`): the npm package rp2040js (pinned in
firmware/rp2040js/package-lock.json, installed with `npm ci` into the user's cache on first use,
like the QEMU firmware) running the firmware/port build for the RP2040 under Node.

firmware/rp2040js/runner.js bridges the emulated UART0 to its stdin and stdout; here both are the
master side of a pty, so the board is a serial port (the same SerialLink, raw-paste, resume and
fault handling as a QEMU board, and a pty a labgrid exporter can serve). Time on the board counts
Cortex-M0+ cycles at 125 MHz (the emulator's TIMER follows its cycle count), not host time.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tty
from pathlib import Path
from typing import Callable

from mcuroof.errors import UserError
from mcuroof.kernels.firmware import FIRMWARE_DIR
from mcuroof.links import firmware_build
from mcuroof.links.qemu import end_process
from mcuroof.links.serial import SerialLink

BOARD = "rp2040js-pico"
RUNNER_DIR = FIRMWARE_DIR / "rp2040js"
PACKAGE = "rp2040js@1.4.1"
NODE_HINT = "apt-get install nodejs npm (Node 18 or later)"
NODE_MAJOR = 18
# the emulator runs MicroPython at about 10 M cycles a host second (5 under load), 12-25x slower
# than a Pico: a layer call the suites size at a second of the board's time is silent for 25 s
SILENCE_TIMEOUT = 120.0


def node_dir() -> Path:
    """The cache folder the pinned package is installed into (keyed by the lock file)."""
    lock = (RUNNER_DIR / "package-lock.json").read_bytes()
    return firmware_build.cache_dir() / "node" / f"rp2040js-{hashlib.sha256(lock).hexdigest()[:16]}"


def check_node() -> str:
    node = shutil.which("node")
    if not node or not shutil.which("npm"):
        raise UserError(f"Node.js is missing (node, npm): {NODE_HINT}")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    major = int(version.lstrip("v").split(".")[0] or 0) if version.lstrip("v")[:1].isdigit() else 0
    if major < NODE_MAJOR:
        raise UserError(f"Node.js {version or '?'} is too old for rp2040js (needs {NODE_MAJOR} or later): {NODE_HINT}")
    return node


def ensure_package(on_progress=None) -> Path:
    """The installed rp2040js package folder: from the cache, or `npm ci` now (one at a time)."""
    top = node_dir()
    module = top / "node_modules" / "rp2040js"
    # written once `npm ci` finished: another process (a second test worker) may be mid-install,
    # its package.json already there and the rest not; under the lock nobody is
    stamp = top / "installed"
    if stamp.exists():
        return module
    check_node()
    top.mkdir(parents=True, exist_ok=True)
    with firmware_build.locked(top / "lock"):
        if not (module / "package.json").exists():
            if on_progress:
                on_progress(f"npm ci {PACKAGE}", 0, 0)
            for name in ("package.json", "package-lock.json"):
                shutil.copy(RUNNER_DIR / name, top / name)
            done = subprocess.run(
                ["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=top, capture_output=True, text=True
            )
            if done.returncode != 0 or not (module / "package.json").exists():
                last = (done.stderr.strip().splitlines() or ["no output"])[-1]
                raise UserError(f"npm ci {PACKAGE} in {top} failed: {last}")
        stamp.touch()
    return module


class Rp2040js:
    """The runner process and its pty: start() returns the pty's device path (as QEMU's -serial pty)."""

    def __init__(self, on_progress=None):
        self.node = check_node()
        self.module = ensure_package(on_progress)
        self.elf = firmware_build.ensure(BOARD, on_progress)
        self.proc = None
        self.pty = None
        self._slave = None
        self.starts = 0

    def start(self) -> str:
        master, slave = os.openpty()
        tty.setraw(slave)  # bytes as they are: no echo, no newline translation
        cmd = [self.node, str(RUNNER_DIR / "runner.js"), str(self.module), str(self.elf)]
        try:
            self.proc = subprocess.Popen(cmd, stdin=master, stdout=master, stderr=subprocess.DEVNULL)
        finally:
            os.close(master)  # the runner holds it; ours would keep the pty open after it exits
        # this end of the slave keeps the pty up while clients come and go; closed in stop(), the
        # runner's reads fail and it exits (so it does if this process dies)
        self._slave, self.pty = slave, os.ttyname(slave)
        self.starts += 1
        return self.pty

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """Kill the runner outright (tests: the emulator dying mid-run)."""
        if self.alive():
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        if self._slave is not None:
            os.close(self._slave)
            self._slave = None
        end_process(self.proc)
        self.proc = None


class Rp2040jsLink(SerialLink):
    """A SerialLink that owns the rp2040js runner behind it; a runner that died is started again.

    `wrap` (tests) maps the runner's pty to the device actually opened, as QemuLink's does (a
    fault-injecting proxy's pty: faultproxy.FaultProxy.attach), again whenever the link re-opens."""

    def __init__(self, on_progress=None, wrap: Callable[[str], str] | None = None):
        self.emulator = Rp2040js(on_progress)
        self.wrap = wrap
        pty = self.emulator.start()
        try:
            super().__init__(wrap(pty) if wrap else pty)
        except BaseException:
            self.emulator.stop()
            raise
        self.name = BOARD
        self.timeout = SILENCE_TIMEOUT
        self.description = f"rp2040js {PACKAGE.split('@')[1]} on {pty} (time counts Cortex-M0+ cycles at 125 MHz)"

    def _device(self) -> str:
        if not self.emulator.alive():
            self.emulator.stop()
            self.emulator.start()
        return self.wrap(self.emulator.pty) if self.wrap else self.emulator.pty

    def close(self):
        super().close()
        self.emulator.stop()
