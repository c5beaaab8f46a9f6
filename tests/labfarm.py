"""A labgrid board farm on loopback, for the farm tests: a coordinator, emulated boards, one exporter.

Everything listens on 127.0.0.1: the coordinator by its -l option, ser2net (which labgrid starts
on every acquire, on all interfaces) through a wrapper first on the exporter's PATH. Each board
is a QEMU micro:bit whose pty is exported as a RawSerialPort through a symlink under /dev/shm
(labgrid wants a path under /dev/), so that a restarted QEMU (a new pty) is the same port.
Every process is started here and stopped by its PID in stop(). Boards: place name -> mcuroof
board name (qemu-microbit, a QEMU Cortex-M board whose firmware mcuroof builds, or rp2040js-pico).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcuroof.links.qemu import QemuMicrobit

SER2NET = "/usr/sbin/ser2net"
WRAPPER = """#!/bin/bash
# ser2net kept on loopback: labgrid's exporter asks for tcp,PORT (every interface)
args=()
for a in "$@"; do args+=("${a/,tcp,/,tcp,127.0.0.1,}"); done
exec %s "${args[@]}"
"""
SHIFT = 6


def ready() -> str | None:
    """Why the loopback farm cannot run here (None: it can)."""
    try:
        import labgrid  # noqa: F401
    except ImportError:
        return "labgrid is not installed (pip install '.[farm]')"
    if not os.path.exists(SER2NET):
        return "ser2net is not installed (apt-get install ser2net)"
    if not os.access("/dev/shm", os.W_OK):
        return "/dev/shm is not writable"
    return None


def _emulator(board: str):
    """The board's emulator, whose start() gives the pty to export: QEMU, or rp2040js for the Pico."""
    if board == "rp2040js-pico":
        from mcuroof.links.rp2040js import Rp2040js

        return Rp2040js()
    return QemuMicrobit(SHIFT, board=board)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in found.split()]


class LoopbackFarm:
    def __init__(self, boards: dict[str, str], workdir: Path):
        self.workdir = workdir
        self.bin = Path(sys.executable).parent
        self.address = f"127.0.0.1:{free_port()}"
        self.links = Path(tempfile.mkdtemp(prefix="mcuroof-farm-", dir="/dev/shm"))
        self.kinds = boards
        self.boards = {name: _emulator(board) for name, board in boards.items()}
        self.procs: list[subprocess.Popen] = []
        wrapper_dir = workdir / "bin"
        wrapper_dir.mkdir(exist_ok=True)
        (wrapper_dir / "ser2net").write_text(WRAPPER % SER2NET)
        (wrapper_dir / "ser2net").chmod(0o755)
        self.path = f"{wrapper_dir}{os.pathsep}{os.environ.get('PATH', '')}"

    def start(self) -> "LoopbackFarm":
        try:
            return self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> "LoopbackFarm":
        self._spawn("coordinator", [self.bin / "labgrid-coordinator", "-l", self.address])
        for name in self.boards:
            self.start_board(name)
        config = self.workdir / "exporter.yaml"
        config.write_text(
            "".join(f"{n}:\n  RawSerialPort:\n    port: {self.links / n}\n    speed: 115200\n" for n in self.boards)
        )
        self._wait_listening(self.address)
        self._spawn(
            "exporter",
            [self.bin / "labgrid-exporter", "-c", self.address, "-n", "ex1", "--hostname", "127.0.0.1", config],
            PATH=self.path,
        )
        for name in self.boards:
            self.client(name, "create")
            self.client(name, "add-match", f"ex1/{name}/*")
            shift = [f"icount_shift={SHIFT}"] if self.kinds[name] != "rp2040js-pico" else []  # rp2040js: cycles
            self.client(name, "set-tags", f"board={self.kinds[name]}", *shift)
        self._wait_exported()
        return self

    def _wait_exported(self, timeout: float = 60) -> None:
        """Until the exporter has told the coordinator every board's port: an acquire before that
        fails ("Match ex1/NAME/* has no matching remote resource"), and a run's acquire comes
        about 2.5 s after start() returns, while the exporter (a Python process started last) may
        take longer on a loaded machine."""
        deadline = time.monotonic() + timeout
        while True:
            listed = self.client("", "resources", check=False).stdout
            missing = [n for n in self.boards if f"ex1/{n}/" not in listed]
            if not missing:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"labgrid-exporter did not export {', '.join(missing)} within {timeout:g} s")
            time.sleep(0.3)

    def start_board(self, name: str) -> None:
        """(Re)start the board's QEMU and point its port at the new pty."""
        board = self.boards[name]
        board.stop()
        pty = board.start()
        link = self.links / name
        tmp = self.links / f".{name}"
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(pty)
        tmp.replace(link)

    def kill_board(self, name: str) -> None:
        self.boards[name].kill()

    def client(self, place: str, *args: str, user: str | None = None, check: bool = True):
        env = dict(os.environ, LG_COORDINATOR=self.address)
        if user:
            env["LG_USERNAME"] = user
        deadline = time.monotonic() + 10
        while True:  # the exporter's resources reach the coordinator a moment after it starts
            done = subprocess.run(
                [self.bin / "labgrid-client", "-p", place, *args], env=env, capture_output=True, text=True, timeout=60
            )
            if done.returncode == 0 or not check:
                return done
            if time.monotonic() > deadline:
                raise RuntimeError(f"labgrid-client -p {place} {' '.join(args)}: {done.stderr.strip()}")
            time.sleep(0.3)

    def holder(self, place: str) -> str | None:
        shown = self.client(place, "show").stdout
        line = next(ln for ln in shown.splitlines() if ln.strip().startswith("acquired:"))
        value = line.split(":", 1)[1].strip()
        return None if value == "None" else value

    def stop(self) -> None:
        for board in self.boards.values():
            board.stop()
        ser2nets = [pid for proc in self.procs for pid in _children(proc.pid)]
        for proc in reversed(self.procs):  # the exporter first
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        for pid in ser2nets:  # the ser2nets of places still acquired
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        shutil.rmtree(self.links, ignore_errors=True)

    def _spawn(self, what: str, cmd: list, **env) -> None:
        log = open(self.workdir / f"{what}.log", "w")
        self.procs.append(
            subprocess.Popen(
                [str(c) for c in cmd],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.workdir,
                env=dict(os.environ, **env),
            )
        )

    @staticmethod
    def _wait_listening(address: str, timeout: float = 15) -> None:
        host, port = address.rsplit(":", 1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex((host, int(port))) == 0:
                    return
            time.sleep(0.1)
        raise RuntimeError(f"labgrid-coordinator did not listen on {address}")
