"""A board in a labgrid farm: acquire its place, open its serial port over the network, release it.

A place is acquired through the labgrid coordinator (`--coordinator HOST:PORT`, else
$LG_COORDINATOR, else labgrid's default 127.0.0.1:20408). Its exporter then serves the board's
serial port (a NetworkSerialPort: ser2net speaking RFC 2217, on a new TCP port at every acquire),
which pySerial opens as `rfc2217://HOST:PORT?ign_set_control` (ser2net on a pty never answers
the modem-control requests pySerial sends by default). Place tags name the board profile
(`board=pico`) and, for an emulated board, its QEMU -icount shift (`icount_shift=6`).

labgrid is an optional extra (`pip install mcuroof[farm]`): its pySerial fork replaces pyserial's files.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import logging
import os
import sys
import time
from dataclasses import dataclass

from mcuroof.errors import UserError
from mcuroof.links.base import Opened
from mcuroof.links.serial import SerialLink

DEFAULT_COORDINATOR = "127.0.0.1:20408"  # labgrid-client's default too
PORT_TIMEOUT = 15.0  # how long the exporter may take to start ser2net after an acquire
CALL_TIMEOUT = 60.0  # an acquire or release the coordinator does not answer
POLL = 1.0  # --wait: how often a held place is looked at again


def configure(parser, target) -> None:
    """The --place options of `mcuroof run` (`target`: its board/port/place exclusive group)."""
    target.add_argument(
        "--place", help="a labgrid place (board farm): acquired for the run and released after it; needs mcuroof[farm]"
    )
    parser.add_argument(
        "--coordinator",
        metavar="HOST:PORT",
        help=f"labgrid coordinator of --place (default: $LG_COORDINATOR or {DEFAULT_COORDINATOR})",
    )
    parser.add_argument("--wait", action="store_true", help="--place: wait while someone else holds the place")


def coordinator_address(arg: str | None) -> str:
    return arg or os.environ.get("LG_COORDINATOR") or DEFAULT_COORDINATOR


@dataclass
class Serial:
    """The serial port of an acquired place, as pySerial opens it."""

    url: str
    speed: int
    resource: str


class Coordinator:
    """A labgrid client session (labgrid.remote.client, driven synchronously).

    Acquisitions outlive the session: a place acquired here stays acquired until released, from
    this session or another one (as with `labgrid-client acquire` and `release`)."""

    def __init__(self, address: str | None = None):
        try:
            from labgrid.remote import client
        except ImportError:
            raise UserError("--place needs labgrid: pip install 'mcuroof[farm]'") from None
        self._errors = (client.Error,)
        self.address = coordinator_address(address)
        if not logging.getLogger().handlers:  # labgrid logs connection errors on the root logger
            logging.getLogger().addHandler(logging.NullHandler())
        try:
            self.session = client.start_session(self.address)
        except client.Error:
            raise UserError(
                f"labgrid coordinator {self.address}: cannot connect (is labgrid-coordinator "
                f"running there? --coordinator HOST:PORT)"
            ) from None
        self.me = f"{self.session.gethostname()}/{self.session.getuser()}"

    def close(self) -> None:
        loop = self.session.loop
        with contextlib.suppress(Exception):
            loop.run_until_complete(self.session.stop())
            loop.run_until_complete(self.session.close())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def names(self) -> list[str]:
        return sorted(self.session.places)

    def place(self, name: str):
        found = self.session.places.get(name)
        if found is None:
            known = ", ".join(self.names()) or "none"
            raise UserError(f"place {name}: no such place at {self.address} (places: {known})")
        return found

    def holder(self, name: str) -> str | None:
        """Who holds the place ("host/user"), None when it is free."""
        return self.place(name).acquired or None

    def acquire(self, name: str, wait: bool = False, on_wait=None) -> None:
        """Acquire the place; a place held by someone else raises one line naming the holder,
        or with `wait` is acquired when it is released (on_wait(holder) is called once)."""
        told = False
        while True:
            holder = self.holder(name)
            if holder is None:
                try:
                    return self._call("acquire", name)
                except UserError:
                    if not wait or self.holder(name) is None:
                        raise
                    continue  # someone else was quicker: wait for them
            if not wait:
                mine = (
                    f" (this user: a run still going, or one that did not end; labgrid-client -p {name} release)"
                    if holder == self.me
                    else ""
                )
                raise UserError(f"place {name} is held by {holder}{mine}; --wait waits for it")
            if on_wait and not told:
                on_wait(holder)
                told = True
            self._pause(POLL)

    def release(self, name: str) -> None:
        if self.holder(name) == self.me:
            self._call("release", name)

    def serial(self, name: str, timeout: float = PORT_TIMEOUT) -> Serial:
        """The acquired place's network serial port, once its exporter has started serving it."""
        start = time.monotonic()
        while True:
            ports = self._serial_resources(name)
            ready = [(n, r) for n, r in ports if r.avail and r.params.get("port")]
            if ready:
                return _serial(*ready[0])
            waited = time.monotonic() - start
            if not ports and waited > 2:  # the place's resources have arrived by now
                raise UserError(
                    f"place {name}: no serial port (NetworkSerialPort) among its resources; "
                    f"add one: labgrid-client -p {name} add-match EXPORTER/GROUP/NetworkSerialPort"
                )
            if waited > timeout:
                raise UserError(f"place {name}: its exporter did not serve the serial port within {timeout:g} s")
            self._pause(0.2)

    def tags(self, name: str) -> dict[str, str]:
        return dict(self.place(name).tags)

    def _serial_resources(self, name: str) -> list:
        try:
            found = self.session.get_target_resources(self.place(name))
        except self._errors as e:
            raise UserError(f"place {name}: {_text(e)}") from None
        return sorted(((n, r) for (n, cls), r in found.items() if cls == "NetworkSerialPort"), key=lambda x: x[0])

    def _call(self, action: str, name: str) -> None:
        self.session.args = argparse.Namespace(place=name, allow_unmatched=False, kick=False)
        call = asyncio.wait_for(getattr(self.session, action)(), CALL_TIMEOUT)
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # labgrid prints what it did
                self.session.loop.run_until_complete(call)
        except self._errors as e:
            raise UserError(f"place {name}: {action} failed: {_text(e)}") from None
        except asyncio.TimeoutError:
            raise UserError(
                f"place {name}: the coordinator {self.address} did not answer the {action} within {CALL_TIMEOUT:g} s"
            ) from None

    def _pause(self, seconds: float) -> None:
        """Sleep while the session takes in the coordinator's updates."""
        self.session.loop.run_until_complete(asyncio.sleep(seconds))


def _serial(name: str, resource) -> Serial:
    p = resource.params
    host, port = p.get("host"), p["port"]
    if (p.get("extra") or {}).get("proxy_required"):
        raise UserError(f"serial port {name} is reachable only through an SSH proxy (not supported)")
    if p.get("protocol", "rfc2217") == "raw":
        url = f"socket://{host}:{port}"
    else:
        url = f"rfc2217://{host}:{port}?ign_set_control"
    return Serial(url, int(p.get("speed") or 115200), name)


def _text(e: Exception) -> str:
    return str(e).removeprefix("Error: ").strip().splitlines()[0] if str(e).strip() else type(e).__name__


class PlaceLink(SerialLink):
    """A SerialLink to a labgrid place's board: acquired when opened, released on close().

    The client session lives only while acquiring and releasing: its gRPC stream needs a running
    event loop to answer the coordinator's keep-alive pings, which a run of many minutes is not."""

    def __init__(self, name: str, coordinator: str | None = None, wait: bool = False, on_wait=None):
        self.place, self.address, self.held = name, coordinator_address(coordinator), False
        with Coordinator(self.address) as c:
            try:
                c.acquire(name, wait, on_wait)
                self.held = True
                self.tags = c.tags(name)
                self.port = c.serial(name)
            except BaseException:
                if self.held:
                    c.release(name)
                raise
        try:
            super().__init__(self.port.url, self.port.speed)
        except BaseException:
            self._release()
            raise
        self.name = name
        self.description = f"labgrid place {name} at {self.address}: {self.port.url}"

    def icount_shift(self) -> int | None:
        """The QEMU -icount shift of an emulated board, from its place tag."""
        text = self.tags.get("icount_shift", "")
        return int(text) if text.isdigit() else None

    def close(self):
        super().close()
        self._release()

    def _release(self) -> None:
        if not self.held:
            return
        self.held = False
        try:
            with Coordinator(self.address) as c:
                c.release(self.place)
        except UserError as e:  # the run's own outcome matters more; say what is left to do
            print(
                f"mcuroof: place {self.place} is still held ({e}): labgrid-client -p {self.place} release",
                file=sys.stderr,
            )


def open_link(target):
    """`mcuroof run --place NAME` (links.open.Target): the place's link, named after it. The
    profile for the theoretical roofs: the target's, else the place's `board` tag."""

    def waiting(holder):
        print(f"waiting for place {target.place} (held by {holder})", file=sys.stderr, flush=True)

    link = PlaceLink(target.place, target.coordinator, target.wait, waiting)
    return Opened(link, target.place, link.icount_shift(), target.profile or link.tags.get("board"))
