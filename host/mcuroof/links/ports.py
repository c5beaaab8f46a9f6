"""Serial port names as users type them: a device path, `auto`, or mpremote's shortcuts."""

from __future__ import annotations

from mcuroof.errors import UserError

SHORTCUTS = {"a": "/dev/ttyACM", "u": "/dev/ttyUSB", "c": "COM"}


def resolve_port(name: str) -> str:
    if name == "auto":
        return _auto()
    if len(name) >= 2 and name[0] in SHORTCUTS and name[1:].isdigit():
        return SHORTCUTS[name[0]] + name[1:]
    return name


def _auto() -> str:
    from serial.tools import list_ports

    for p in sorted(list_ports.comports(), key=lambda p: p.device):
        if p.vid is not None:  # a USB device, as mpremote's auto connect chooses
            return p.device
    raise UserError("--port auto: no USB serial device found (connect the board or name the port)")
