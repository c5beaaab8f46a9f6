"""SerialLink against MicroPython's unix port behind a pty: the raw REPL and raw-paste path
(`\\x05A\\x01` answered by `R\\x01`) that real boards take, in well under a second."""

import os
import pty
import select
import subprocess
import threading
import tty

import pytest

from mcuroof.links.serial import SerialLink
from mcuroof.links.unix import find_micropython


class UnixBehindPty:
    """The unix port on one pty; a second pty for the link; a thread copies between the masters
    (one reader per pty end, as with a real serial port)."""

    def __init__(self):
        self.board, board_end = pty.openpty()
        self.host, host_end = pty.openpty()
        tty.setraw(board_end)  # no echo, no newline translation: a UART, not a terminal
        self.device = os.ttyname(host_end)
        self._keep = host_end
        self.proc = subprocess.Popen(
            [find_micropython()], stdin=board_end, stdout=board_end, stderr=board_end, close_fds=True
        )
        os.close(board_end)
        self.running = True
        self.thread = threading.Thread(target=self._copy, daemon=True)
        self.thread.start()

    def _copy(self):
        pairs = {self.board: self.host, self.host: self.board}
        while self.running:
            ready, _, _ = select.select(list(pairs), [], [], 0.05)
            for fd in ready:
                try:
                    os.write(pairs[fd], os.read(fd, 4096))
                except OSError:
                    return

    def close(self):
        self.running = False
        self.thread.join(1)
        self.proc.kill()
        self.proc.wait()
        for fd in (self.board, self.host, self._keep):
            os.close(fd)


@pytest.fixture
def unix_pty():
    u = UnixBehindPty()
    yield u
    u.close()


def _piece(link, code: bytes) -> tuple[bytes, bytes]:
    link._send(code)
    return link.transport.follow(5)


def test_raw_paste_is_used_and_scripts_run(unix_pty):
    link = SerialLink(unix_pty.device)
    pasted = []
    write = link._paste
    link._paste = lambda code: (pasted.append(code), write(code))[1]
    try:
        link.transport.enter_raw_repl(soft_reset=False)
        big = b"x = 0\n" + b"x += 1\n" * 2000 + b"print(x)\n"  # 16 KB: flow control windows
        assert _piece(link, b"print(6 * 7)\n") == (b"42\n", b"")
        assert _piece(link, big) == (b"2000\n", b"")
        assert link.transport.use_raw_paste and pasted == [b"print(6 * 7)\n", big]
        out, err = _piece(link, b"1 / 0\n")
        assert out == b"" and b"ZeroDivisionError" in err
    finally:
        link.close()
