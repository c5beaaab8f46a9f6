"""The emulated board: QEMU's BBC micro:bit machine running Debian's MicroPython firmware."""
from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

from .errors import UserError
from .link import SerialLink

FIRMWARE = Path("/usr/share/firmware-microbit-micropython/firmware.hex")
APT_HINT = "apt-get install qemu-system-arm firmware-microbit-micropython"
DEFAULT_ICOUNT_SHIFT = 6  # 2^6 ns per instruction: about the real 16 MHz part


class QemuMicrobit:
    """Starts qemu-system-arm -M microbit with -icount, exposes its UART as a SerialLink."""

    def __init__(self, icount_shift: int = DEFAULT_ICOUNT_SHIFT, firmware: Path = FIRMWARE):
        qemu = shutil.which("qemu-system-arm")
        if not qemu:
            raise UserError(f"qemu-system-arm not found: {APT_HINT}")
        if not firmware.exists():
            raise UserError(f"{firmware} not found: {APT_HINT}")
        self.icount_shift = icount_shift
        self.cmd = [qemu, "-M", "microbit", "-nographic", "-monitor", "none", "-serial", "pty",
                    "-icount", f"shift={icount_shift}", "-device", f"loader,file={firmware}"]
        self.proc = None
        self.pty = None

    def start(self) -> str:
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline().decode(errors="replace")
            m = re.search(r"(/dev/pts/\d+)", line)
            if m:
                self.pty = m.group(1)
                return self.pty
            if not line and self.proc.poll() is not None:
                break
        self.stop()
        raise UserError("qemu-system-arm did not open its serial pty")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


class QemuLink(SerialLink):
    """A SerialLink that owns the QEMU process behind it and stops it on close."""

    def __init__(self, icount_shift: int = DEFAULT_ICOUNT_SHIFT):
        self.qemu = QemuMicrobit(icount_shift)
        pty = self.qemu.start()
        try:
            super().__init__(pty)
        except BaseException:
            self.qemu.stop()
            raise
        self.name = "qemu-microbit"
        self.description = f"QEMU micro:bit on {pty}, -icount shift={icount_shift}"
        self.icount_shift = icount_shift

    def close(self):
        super().close()
        self.qemu.stop()
