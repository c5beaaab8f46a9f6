"""The board a command names, opened: one place that picks the link backend.

A board is reached one of three ways: a profile whose `connect` says how (qemu: QEMU started
here, rp2040js: the emulated Pico started here, unix: the unix port here), a serial port (`--port`: a real board), or a labgrid place
(`--place`). Each backend lives in its own module of this package.
"""

from __future__ import annotations

from typing import Callable

from mcuroof.board import profiles
from mcuroof.errors import UserError
from mcuroof.links.base import Opened, Target

UNIX_HEAP_BYTES = 600 * 1024 * 1024  # a unix profile without [run].heap_bytes
DEFAULT_BOARD = "qemu-microbit"


def with_profile_defaults(target: Target) -> Target:
    """The target with its profile's [run] values where the command line left them out."""
    name = target.board or (None if target.port or target.place else DEFAULT_BOARD)
    if name not in profiles.board_names():
        return target
    profile = profiles.load_board(name)
    shift, heap = target.icount_shift, target.heap_bytes
    if shift is None and "icount_shift" in profile.run:
        shift = profile.run["icount_shift"]
    if heap is None and profile.connect == "unix":
        heap = profile.run.get("heap_bytes", UNIX_HEAP_BYTES)
    return Target(**{**target.__dict__, "icount_shift": shift, "heap_bytes": heap})


def open_link(target: Target, on_progress: Callable[[str, int, int], None] | None = None) -> Opened:
    """The target's link. `on_progress(step, done, total)`: a firmware that must be built first."""
    if target.as_board and (target.port or target.place):
        raise UserError(
            f"--as {target.as_board}: a real board is itself; --as times an emulated board (qemu-m4, qemu-m33, qemu-m0plus)"
        )
    if target.place:
        from mcuroof.links import farm_place

        return farm_place.open_link(target)
    if target.port:
        from mcuroof.links.ports import resolve_port
        from mcuroof.links.serial import SerialLink

        return Opened(SerialLink(resolve_port(target.port)), target.board or target.profile, None, target.profile)
    target = with_profile_defaults(target)
    name = target.board or DEFAULT_BOARD
    if name not in profiles.board_names():
        raise UserError(profiles.unknown(name))
    profile = profiles.load_board(name)
    if target.as_board and not profile.cycle_model.get("mark_at"):
        raise UserError(
            f"--as {target.as_board}: --board {name} has no cycle model (--as needs qemu-m4, qemu-m33 or qemu-m0plus)"
        )
    if profile.connect == "qemu":
        from mcuroof.links.qemu import QemuLink, is_qemu_board

        if not is_qemu_board(name):
            raise UserError(f"--board {name}: no QEMU machine is known for this profile")
        if profile.cycle_model.get("mark_at"):
            return _open_modelled(target, profile, on_progress)
        link = QemuLink(target.icount_shift, board=name, on_progress=on_progress)
        return Opened(link, name, target.icount_shift, target.profile)
    if profile.connect == "rp2040js":
        from mcuroof.links.rp2040js import Rp2040jsLink

        return Opened(Rp2040jsLink(on_progress), name, None, target.profile)
    if profile.connect == "unix":
        from mcuroof.links.unix import UnixLink

        return Opened(UnixLink(heapsize=str(target.heap_bytes)), name, None, target.profile)
    raise UserError(f"--board {name}: a real board needs --port (e.g. --board {name} --port auto)")


def _open_modelled(target: Target, emulator, on_progress) -> Opened:
    """A board whose time is the cycle model's (qemu-m4, qemu-m33), timed as itself or as --as's board."""
    from mcuroof.links import cycle_model
    from mcuroof.links.qemu import QemuLink

    if target.icount_shift is not None:
        raise UserError(f"--icount-shift: --board {emulator.name} counts modelled cycles, not instructions")
    modelled = profiles.load_board(target.as_board) if target.as_board else None
    setup = cycle_model.setup(emulator, modelled)
    link = QemuLink(None, board=emulator.name, on_progress=on_progress, model=setup)
    return Opened(link, emulator.name, None, target.profile or target.as_board, setup.record())
