"""`mcuroof farm exporter-config`: a starter labgrid exporter config for the USB serial boards here.

One group per board, named after the product and the end of its USB serial number, holding a
USBSerialPort matched by that serial number (ID_SERIAL_SHORT), so that the entry follows the
board from one USB socket or /dev/ttyACM number to another. The labgrid-client commands that
make each group a place follow as comments, with a `board` tag guessed from the USB id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mcuroof.errors import UserError

# USB vendor:product -> the profile such a board most likely is (a guess: the tag says so)
PROFILE_GUESS = {
    "2e8a:0005": "pico",
    "0d28:0204": "microbit",
    "f055:9800": "pyboard",
    "303a:4001": "esp32s3",
    "16c0:0483": "teensy4",
    "239a:8031": "samd51",
}


@dataclass
class Port:
    device: str
    vid: int | None
    pid: int | None
    serial_number: str | None
    product: str | None


def usb_ports() -> list[Port]:
    from serial.tools import list_ports

    return [
        Port(p.device, p.vid, p.pid, p.serial_number, p.product or p.description)
        for p in sorted(list_ports.comports(), key=lambda p: p.device)
        if p.vid is not None
    ]


def group_name(port: Port) -> str:
    stem = re.sub(r"[^a-z0-9]+", "-", (port.product or "board").lower()).strip("-")[:20] or "board"
    tail = re.sub(r"[^a-z0-9]", "", (port.serial_number or "").lower())[-6:]
    return f"{stem}-{tail}" if tail else stem


def render(ports: list[Port], speed: int = 115200) -> str:
    """The exporter YAML (pure)."""
    lines = [
        "# labgrid exporter config written by mcuroof farm exporter-config; serve it with",
        "#   labgrid-exporter -c COORDINATOR_HOST:20408 exporter.yaml",
        "",
    ]
    names: set[str] = set()
    for port in ports:
        name = group_name(port)
        while name in names:
            name += "-x"
        names.add(name)
        lines += _entry(port, name, speed)
    return "\n".join(lines) + "\n"


def _entry(port: Port, name: str, speed: int) -> list[str]:
    usb = f"{port.vid:04x}:{port.pid:04x}" if port.vid is not None and port.pid is not None else "?"
    out = [f"# {port.device}: {port.product or '?'} ({usb}), USB serial {port.serial_number or 'none'}"]
    if port.serial_number:
        out += [
            f"{name}:",
            "  USBSerialPort:",
            "    match:",
            f"      ID_SERIAL_SHORT: '{port.serial_number}'",
            f"    speed: {speed}",
        ]
    else:  # nothing stable to match: the device name may change when the board is plugged elsewhere
        out += [f"{name}:", "  RawSerialPort:", f"    port: {port.device}", f"    speed: {speed}"]
    profile = PROFILE_GUESS.get(usb)
    tag = f"board={profile}  # guessed from the USB id" if profile else "board=PROFILE  # mcuroof boards"
    out += [
        f"#   labgrid-client -p {name} create",
        f"#   labgrid-client -p {name} add-match '*/{name}/NetworkSerialPort'",
        f"#   labgrid-client -p {name} set-tags {tag}",
        "",
    ]
    return out


def run(args) -> int:
    ports = usb_ports()
    if not ports:
        raise UserError("no USB serial device on this host: connect the boards and run it again")
    text = render(ports, args.speed)
    if args.output is None:
        print(text, end="")
        return 0
    if args.output.exists():
        raise UserError(f"{args.output} exists: choose another -o (it is not replaced)")
    try:
        args.output.write_text(text, encoding="utf-8")
    except OSError as e:
        raise UserError(f"{args.output}: cannot write ({e.strerror})") from None
    print(f"wrote {args.output}: {len(ports)} board(s)")
    return 0
