"""The board link: send a suite's scripts, stream the lines they print, reset, close.

Backends (chosen from the command line in links.open; qemu.QemuLink adds the emulator):
- `SerialLink(device)`: a board (USB or QEMU's pty) through mpremote's SerialTransport, raw REPL.
- `UnixLink(binary)`: MicroPython's unix port as a subprocess, the scripts on its stdin.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from mcuroof.errors import BoardError, UserError

try:
    from mpremote.transport import TransportError
except ImportError:  # pragma: no cover - mpremote is a dependency
    TransportError = OSError


OnLine = Callable[[str], None]


class LineSplitter:
    """Turns a byte stream (in arbitrary chunks) into text lines for a callback."""

    def __init__(self, on_line):
        self._on_line = on_line
        self._buf = bytearray()

    def feed(self, data: bytes) -> None:
        self._buf.extend(data)
        while True:
            i = self._buf.find(b"\n")
            if i < 0:
                return
            line = bytes(self._buf[:i]).decode("utf-8", "replace")
            del self._buf[: i + 1]
            self._on_line(line)

    def flush(self) -> None:
        if self._buf:
            line = bytes(self._buf).decode("utf-8", "replace")
            self._buf.clear()
            self._on_line(line)


class LinkLost(BoardError):
    """The connection broke (port gone, pty closed, protocol out of step): reconnect and go on."""


class BoardStalled(BoardError):
    """The board printed nothing for the silence timeout while running a script."""


class BoardReset(BoardError):
    """The board's start-up banner appeared while a script ran: it reset under the run."""


class ScriptError(BoardError):
    """A script raised on the board. `text`: the board's last traceback line; `exc_type`: the
    exception's name in it (MemoryError, SyntaxError, ...), read here once so that no other
    module matches error text; `piece`: the index of the script (None: not known); `line`: the
    traceback's innermost line, in the script's own numbering."""

    def __init__(self, message: str, text: str, piece: int | None = None, line: int | None = None):
        super().__init__(message)
        self.text = text
        self.piece = piece
        self.line = line
        m = re.match(r"([A-Za-z_][\w.]*)\s*(?::|$)", text.strip())
        self.exc_type = m.group(1).rsplit(".", 1)[-1] if m else None


class PortUnavailable(UserError):
    """A serial port that cannot be opened (not there, busy, not permitted)."""


class Link:
    """Interface every board backend implements."""

    name = "link"
    description = ""

    def run(self, chunks: list[str], on_line: OnLine, timeout: float = 60.0) -> None:
        """Run the scripts in one fresh interpreter state; lines go to on_line as they arrive."""
        raise NotImplementedError

    def recover(self) -> None:
        """Make the link usable again after LinkLost, BoardStalled or BoardReset."""

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def board_error(stderr: str, where: str, piece: int | None = None) -> ScriptError:
    lines = [ln.strip() for ln in stderr.strip().splitlines() if ln.strip()]
    last = lines[-1] if lines else "unknown error"
    numbers = re.findall(r'File "[^"]*", line (\d+)', stderr)
    return ScriptError(f"{where}: the board raised {last}", last, piece, int(numbers[-1]) if numbers else None)


@dataclass(frozen=True)
class Target:
    """Where the suites run, as the command line names it."""

    board: str | None = None  # a profile name; None: DEFAULT_BOARD unless port or place
    port: str | None = None  # a real board's serial port (device path, auto, a0/u0/c0)
    place: str | None = None  # a labgrid place
    coordinator: str | None = None  # the place's labgrid coordinator
    wait: bool = False  # wait while someone else holds the place
    icount_shift: int | None = None  # QEMU: 2^K ns per instruction (default: the profile's)
    heap_bytes: int | None = None  # unix port: -X heapsize (default: the profile's)
    profile: str | None = None  # the profile of the theoretical roofs (default: the board's)
    as_board: str | None = None  # a modelled board (qemu-m4) timed as this profile's board (--as)


@dataclass
class Opened:
    link: Link
    board: str | None  # the board's name in the results; None: named by its probe (a port alone)
    icount_shift: int | None  # QEMU's shift, None where time is the board's
    profile: str | None  # the profile of the theoretical roofs, if any
    cycle_model: dict | None = None  # the cycle model's setup (cycle_model.Setup.record()); None: not modelled
