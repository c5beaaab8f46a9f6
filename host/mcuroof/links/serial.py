"""A board on a serial port: a USB board, or QEMU's pty (SerialLink)."""

from __future__ import annotations

import contextlib
import io
import re
import struct
import time

from mcuroof.errors import BoardError

try:
    from mpremote.transport import TransportError
except ImportError:  # pragma: no cover - mpremote is a dependency
    TransportError = OSError
from mcuroof.links.base import (
    BoardReset,
    BoardStalled,
    LineSplitter,
    Link,
    LinkLost,
    OnLine,
    PortUnavailable,
    board_error,
)

PACED_BYTES = 32
PACED_PAUSE = 0.01
PACED_RESENDS = 3  # a paced piece the board could not parse is sent again, each time slower
READ_TIMEOUT = 1.0  # serial read timeout: lets mpremote's waits time out on a pty too
SILENCE_TIMEOUT = 30.0  # a board silent this long while running a script has stalled
REOPEN_WAIT = 5.0  # how long a port may take to come back (cable replugged, board rebooting)
# A board that (re)started prints its banner; a soft reset prints "soft reboot". Either one in the
# middle of a script means the board reset under it (watchdog, brown-out, reset button).
BANNER = re.compile(r"MicroPython v\d+\.\d+\S* on \d{4}-\d\d-\d\d|^\W*(MPY: )?soft reboot\s*$")


class _ResetWatch:
    """Passes lines on; raises BoardReset when the board's start-up banner shows up."""

    def __init__(self, on_line: OnLine, name: str):
        self.on_line, self.name = on_line, name

    def __call__(self, line: str) -> None:
        if BANNER.search(line):
            raise BoardReset(f"{self.name}: the board reset during the run ({line.strip()[:60]!r})")
        self.on_line(line)


class SerialLink(Link):
    """A MicroPython board on a serial port, driven through the raw REPL."""

    def __init__(self, device: str, baudrate: int = 115200):
        self.name = device
        self.description = f"serial {device}"
        self.device, self.baudrate = device, baudrate
        self.timeout = SILENCE_TIMEOUT
        self.pause = PACED_PAUSE
        self.reopen_wait = REOPEN_WAIT
        self.answered = False  # a raw REPL answered once: later failures are the link's, not the board's
        self.transport = self._open(device)

    def _open(self, device: str):
        from mpremote.transport_serial import SerialTransport

        try:
            return SerialTransport(device, baudrate=self.baudrate, timeout=READ_TIMEOUT)
        except Exception as e:  # mpremote raises TransportError or serial exceptions
            raise PortUnavailable(f"{device}: cannot open serial port ({_reason(e)})") from None

    def run(self, chunks, on_line, timeout=None):
        timeout = timeout or self.timeout
        t = self.transport
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # mpremote prints what it got on failure
                t.enter_raw_repl(soft_reset=True, timeout_overall=min(10.0, timeout))
        except (TransportError, OSError) as e:
            if self.answered:
                raise LinkLost(f"{self.name}: could not re-enter the raw REPL ({_reason(e)})") from None
            raise BoardError(f"{self.name}: no MicroPython raw REPL answered (is it running MicroPython?)") from None
        self.answered = True
        for i, chunk in enumerate(chunks):
            for resend in range(PACED_RESENDS + 1):
                err = self._run_piece(chunk.encode(), on_line, timeout)
                if not (err and self._lost_bytes(err)) or resend == PACED_RESENDS:
                    break
                self.pause *= 2  # the board dropped bytes at this pace (a loaded host slows QEMU)
            if err:
                where = f"{self.name} (script piece {i + 1} of {len(chunks)})"
                raise board_error(err.decode("utf-8", "replace"), where, i)

    def _run_piece(self, code: bytes, on_line: OnLine, timeout: float) -> bytes:
        """Send one piece and stream its output; returns what it wrote to stderr."""
        splitter = LineSplitter(_ResetWatch(on_line, self.name))
        try:
            self._send(code)
            _, err = self.transport.follow(timeout, splitter.feed)
        except TransportError as e:
            if "timeout" in str(e):
                raise BoardStalled(f"{self.name}: the board sent nothing for {timeout:g} s") from None
            raise LinkLost(f"{self.name}: board stopped answering ({_reason(e)})") from None
        except (OSError, struct.error) as e:  # serial.SerialException: the port went away
            raise LinkLost(f"{self.name}: connection lost ({_reason(e)})") from None
        splitter.flush()
        return err

    def _lost_bytes(self, err: bytes) -> bool:
        """Our pieces are valid Python, so a SyntaxError (or an IndentationError: a dropped
        newline or space does that) from a paced send means bytes were dropped on the way; nothing
        ran (it failed to compile), so the piece can be sent again."""
        return not self.transport.use_raw_paste and (b"SyntaxError" in err or b"IndentationError" in err)

    def recover(self) -> None:
        """After a lost link, stall or reset: open the port again (waiting a little for it to come
        back); the next run() interrupts whatever runs and starts a fresh interpreter state."""
        SerialLink.close(self)  # the port only (QemuLink.close also stops QEMU)
        deadline = time.monotonic() + self.reopen_wait
        while True:
            try:
                self.transport = self._open(self._device())
                return
            except (PortUnavailable, OSError) as e:
                if time.monotonic() > deadline:
                    raise LinkLost(str(e)) from None
                time.sleep(0.2)

    def _device(self) -> str:
        return self.device

    def _send(self, code: bytes) -> None:
        """Like mpremote's exec_raw_no_follow, but paced where the board lacks raw-paste flow
        control, and watching the text before the raw REPL prompt for a board that reset.

        Without flow control a board's small UART buffer drops bytes (the micro:bit does at
        mpremote's 256 bytes per 10 ms); raw-paste mode is used wherever the board has it
        (`\x05A\x01` answered by `R\x01`; mpremote clears use_raw_paste for good otherwise).
        A soft reset after the previous piece ("MPY: soft reboot") shows only here: the piece
        would run in a fresh interpreter without what earlier pieces defined.
        """
        t = self.transport
        before = t.read_until(1, b">", timeout=self.timeout)
        reset = next((ln for ln in before.decode("utf-8", "replace").splitlines() if BANNER.search(ln)), None)
        if reset:
            raise BoardReset(f"{self.name}: the board reset during the run ({reset.strip()[:60]!r})")
        if not before.endswith(b">"):
            raise TransportError("no raw REPL prompt")
        if t.use_raw_paste:
            t.serial.write(b"\x05A\x01")
            answer = t.serial.read(2)
            if answer == b"R\x01":
                return self._paste(code)
            t.use_raw_paste = False
            if answer != b"R\x00":  # a board from before raw-paste echoes: wait for its prompt again
                if not t.read_until(1, b"w REPL; CTRL-B to exit\r\n>").endswith(b">"):
                    raise TransportError("no raw REPL prompt after the raw-paste request")
        for i in range(0, len(code), PACED_BYTES):
            t.serial.write(code[i : i + PACED_BYTES])
            time.sleep(self.pause)
        t.serial.write(b"\x04")
        if t.read_until(1, b"OK", timeout=self.timeout)[-2:] != b"OK":
            raise TransportError("the board did not accept the script")

    def _paste(self, code: bytes) -> None:
        """Raw-paste mode's flow control, as mpremote's raw_paste_write, but a board silent for
        the link's timeout (mpremote waits 10 s for the end) is a stall."""
        t = self.transport
        window = struct.unpack("<H", t.serial.read(2))[0]
        remain, i = window, 0
        while i < len(code):
            while remain == 0 or t.serial.in_waiting:
                flag = self._read_byte()  # \x01: one more window
                if flag == b"\x04":  # the board ended the paste early (it could not compile)
                    t.serial.write(b"\x04")
                    return
                if not flag:
                    raise TransportError("timeout: the board granted no raw-paste window")
                if flag != b"\x01":
                    raise TransportError(f"unexpected read during raw paste: {flag!r}")
                remain += window
            piece = code[i : i + remain]
            t.serial.write(piece)
            remain -= len(piece)
            i += len(piece)
        t.serial.write(b"\x04")
        if not t.read_until(1, b"\x04", timeout=self.timeout).endswith(b"\x04"):
            raise TransportError("timeout: the board did not acknowledge the end of the script")

    def _read_byte(self) -> bytes:
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            got = self.transport.serial.read(1)  # returns b"" after READ_TIMEOUT
            if got:
                return got
        return b""

    def close(self):
        try:
            self.transport.close()
        except Exception:
            pass


def _reason(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[-1] if text else type(e).__name__
