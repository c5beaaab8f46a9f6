"""A fault-injecting serial link for the tests: a pty proxy between the host and a board's pty.

    proxy = FaultProxy(seed=1, faults={"drop": 4})
    link = QemuLink(wrap=proxy.attach)      # the link opens the proxy's pty instead of QEMU's
    ...
    proxy.injected                          # Counter: faults injected so far, per kind

With a fixed seed the faults land at the same places of the board->host byte stream every time:
fault k of the shuffled list at offset start + k * spacing + rand(spacing). Kinds:
  drop        lose 1 to 3 bytes
  flip        flip one bit of a byte
  garbage     insert 1 to 8 random bytes (line noise)
  stall       hold every board->host byte for stall_s seconds, then deliver them
  hang        hold them until release() (a board or USB stack that stopped answering)
  disconnect  close the host's side of the pty: the port vanishes under the host (a pulled
              cable); the next attach() hands out a fresh pty (the cable plugged back in)
  any other   a callback from `actions`, called at that point of the stream (the tests use
              "reset": QEMU's system_reset, "kill": killing QEMU)
`h2b` places drop/flip/garbage faults on the host->board bytes the same way (from h2b_start).
If the board's pty closes (QEMU died), the host's side is closed too; attach() with the new
board pty starts over. This is a test tool, not part of the mcuroof command.
"""

from __future__ import annotations

import fcntl
import os
import random
import select
import threading
import time
import tty
from collections import Counter
from typing import Callable


class FaultProxy:
    def __init__(
        self,
        seed: int = 1,
        faults: dict[str, int] | None = None,
        start: int = 1500,
        spacing: int = 3000,
        h2b: dict[str, int] | None = None,
        h2b_start: int = 3000,
        h2b_spacing: int = 4000,
        stall_s: float = 3.0,
        actions: dict[str, Callable[[], None]] | None = None,
    ):
        self.rng = random.Random(seed)
        self.plan = self._schedule(faults or {}, start, spacing)
        self.h2b_plan = self._schedule(h2b or {}, h2b_start, h2b_spacing)
        self.stall_s = stall_s
        self.actions = dict(actions or {})
        self.injected: Counter = Counter()
        self.events: list[tuple[str, int, str]] = []  # (direction, byte offset, kind)
        self.b2h_bytes = self.h2b_bytes = 0
        self.attaches = 0
        self._board = self._master = self._slave = None
        self._board_path = self._host_path = None
        self._held = bytearray()
        self._hold_until = 0.0
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _schedule(self, faults: dict[str, int], start: int, spacing: int) -> list[tuple[int, str]]:
        kinds = [k for k, n in sorted(faults.items()) for _ in range(n)]
        self.rng.shuffle(kinds)
        return [(start + i * spacing + self.rng.randrange(max(spacing, 1)), k) for i, k in enumerate(kinds)]

    # -- the host's side -------------------------------------------------------------------
    def attach(self, board_path: str) -> str:
        """Proxy the board at board_path; returns the pty the host should open."""
        with self._lock:
            self.attaches += 1
            if board_path != self._board_path or self._board is None:
                self._close_board()
                self._board = os.open(board_path, os.O_RDWR | os.O_NOCTTY)
                tty.setraw(self._board)
                self._board_path = board_path
            if self._master is None:
                self._master, self._slave = os.openpty()
                tty.setraw(self._slave)
                fl = fcntl.fcntl(self._master, fcntl.F_GETFL)
                fcntl.fcntl(self._master, fcntl.F_SETFL, fl | os.O_NONBLOCK)
                self._host_path = os.ttyname(self._slave)
                self._held.clear()
            if self._thread is None:
                self._thread = threading.Thread(target=self._pump, name="faultproxy", daemon=True)
                self._thread.start()
            return self._host_path

    def release(self) -> None:
        """End a stall or hang: held bytes go to the host."""
        self._hold_until = 0.0

    def close(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(2)
        with self._lock:
            self._disconnect()
            self._close_board()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- the pump ----------------------------------------------------------------------------
    def _pump(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                fds = [f for f in (self._board, self._master) if f is not None]
            try:
                ready, _, _ = select.select(fds, [], [], 0.02)
            except (OSError, ValueError):  # an fd closed under us
                continue
            with self._lock:
                if self._board is not None and self._board in ready:
                    try:
                        data = os.read(self._board, 4096)
                    except OSError:
                        data = b""
                    if not data:  # the board's pty closed: QEMU is gone
                        self._close_board()
                        self._disconnect()
                    else:
                        self._held += self._faults_b2h(data)
                if self._master is not None and self._master in ready:
                    try:
                        data = os.read(self._master, 4096)
                    except OSError:
                        data = b""
                    if data and self._board is not None:
                        try:
                            os.write(self._board, self._faults_h2b(data))
                        except OSError:
                            pass
                if self._held and self._master is not None and time.monotonic() >= self._hold_until:
                    try:
                        n = os.write(self._master, bytes(self._held))
                        del self._held[:n]
                    except BlockingIOError:
                        pass
                    except OSError:
                        self._held.clear()
                elif self._master is None:
                    self._held.clear()  # nobody listening: the bytes are lost, as on a pulled cable

    def _faults_b2h(self, data: bytes) -> bytes:
        return self._apply(data, self.plan, "b2h")

    def _faults_h2b(self, data: bytes) -> bytes:
        return self._apply(data, self.h2b_plan, "h2b")

    def _apply(self, data: bytes, plan: list[tuple[int, str]], direction: str) -> bytes:
        out = bytearray()
        i = 0
        pos = self.b2h_bytes if direction == "b2h" else self.h2b_bytes
        while i < len(data):
            if not plan or plan[0][0] >= pos + len(data) - i:
                pos += len(data) - i
                out += data[i:]
                break
            take = plan[0][0] - pos
            out += data[i : i + take]
            i += take
            pos += take
            kind = plan.pop(0)[1]
            used = self._inject(kind, data, i, out)
            self.injected[kind if direction == "b2h" else f"{direction} {kind}"] += 1
            self.events.append((direction, pos, kind))
            i += used
            pos += used
        if direction == "b2h":
            self.b2h_bytes = pos
        else:
            self.h2b_bytes = pos
        return bytes(out)

    def _inject(self, kind: str, data: bytes, i: int, out: bytearray) -> int:
        """Apply one fault at data[i]; returns how many input bytes it consumed."""
        rng = self.rng
        if kind == "drop":
            return min(rng.randint(1, 3), len(data) - i)
        if kind == "flip":
            out.append(data[i] ^ (1 << rng.randrange(8)))
            return 1
        if kind == "garbage":
            out += bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
            return 0
        if kind == "stall":
            self._hold_until = time.monotonic() + self.stall_s
            return 0
        if kind == "hang":
            self._hold_until = float("inf")
            return 0
        if kind == "disconnect":
            self._disconnect()
            out.clear()
            return len(data) - i
        action = self.actions.get(kind)
        if action is None:
            raise ValueError(f"unknown fault kind {kind!r}")
        action()
        return 0

    def _disconnect(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None
        self._held.clear()

    def _close_board(self) -> None:
        if self._board is not None:
            try:
                os.close(self._board)
            except OSError:
                pass
        self._board = None
        self._board_path = None
