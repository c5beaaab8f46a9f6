"""The emulated boards: QEMU's BBC micro:bit running Debian's MicroPython firmware, QEMU's Arm
MPS2/MPS3 machines (Cortex-M3, M4, M7, M33, M55) and QEMU's RISC-V virt machine (RV32IMAC) running
the MicroPython built from firmware/port.

A machine runs either with -icount (time counts instructions, 2^K ns each) or, where its profile
has a [cycle_model] (qemu-m4, qemu-m33), without it and with the cycle-model plugin: time counts
the modelled cycles of its core at the modelled clock (links.cycle_model).
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

from mcuroof.errors import UserError
from mcuroof.links.serial import SerialLink

FIRMWARE = Path("/usr/share/firmware-microbit-micropython/firmware.hex")
APT_HINT = "apt-get install qemu-system-arm firmware-microbit-micropython"
DEFAULT_ICOUNT_SHIFT = 6  # 2^6 ns per instruction: about the real 16 MHz part
MAX_ICOUNT_SHIFT = 10  # QEMU refuses larger shifts
# board name -> QEMU machine; the micro:bit loads Debian's hex, the others firmware_build's ELF
MACHINES = {
    "qemu-microbit": "microbit",
    "qemu-m3": "mps2-an385",
    "qemu-m7": "mps2-an500",
    "qemu-m4": "mps2-an386",
    "qemu-m33": "mps2-an505",
    "qemu-m55": "mps3-an547",
    "qemu-rv32": "virt",
}
MACHINES["qemu-m0plus"] = "microbit"  # firmware_build's ELF, timed as a Cortex-M0+ (MACHINE_ARGS)
# a board's own machine settings. qemu-m0plus: the nRF51822's 16 KB of SRAM raised to the RP2040's
# 264 KB (the SoC's sram-size property, hw/arm/nrf51_soc.c), and the Cortex-M0's CPUID made a
# Cortex-M0+'s (r0p1; the same Armv6-M instructions), the core the cycle model times
MACHINE_ARGS = {
    "qemu-m0plus": ["-global", "nrf51-soc.sram-size=270336", "-global", "cortex-m0-arm-cpu.midr=0x410cc601"],
}
# the boards that are not Arm: their QEMU, its extra arguments and what installs it. virt: a hart
# without the F and D extensions (the firmware is built for RV32IMAC), no OpenSBI (-bios none: the
# hart starts at the image)
OTHER_QEMU = {
    "qemu-rv32": (
        "qemu-system-riscv32",
        ["-cpu", "rv32,f=false,d=false", "-bios", "none"],
        "apt-get install qemu-system-misc",
    )
}


def is_qemu_board(name: str | None) -> bool:
    return name in MACHINES


def end_process(proc: subprocess.Popen | None, grace: float = 5.0) -> None:
    """An emulator process ended: asked to terminate, killed if it has not after `grace` seconds."""
    if proc and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def firmware_args(board: str, on_progress=None) -> list[str]:
    """QEMU's arguments that load the board's firmware (building it first where needed)."""
    if board == "qemu-microbit":
        if not FIRMWARE.exists():
            raise UserError(f"{FIRMWARE} not found: {APT_HINT}")
        return ["-device", f"loader,file={FIRMWARE}"]
    from mcuroof.links import firmware_build

    return ["-kernel", str(firmware_build.ensure(board, on_progress))]


class QemuMicrobit:
    """Starts qemu-system-arm for a board with -icount, exposes its UART as a SerialLink.
    (Named for the first board it ran; `board` picks any of MACHINES.)"""

    def __init__(
        self,
        icount_shift: int = DEFAULT_ICOUNT_SHIFT,
        firmware: Path = FIRMWARE,
        monitor: bool = False,
        board: str = "qemu-microbit",
        on_progress=None,
        build: str | None = None,
        plugin: list[str] | None = None,
    ):
        binary, extra, hint = OTHER_QEMU.get(board, ("qemu-system-arm", [], APT_HINT))
        extra = [*extra, *MACHINE_ARGS.get(board, [])]
        qemu = shutil.which(binary)
        if not qemu:
            raise UserError(f"{binary} not found: {hint}")
        # build: another firmware_build board for this machine (qemu-rv32-esp32 on qemu-rv32's virt)
        load = (
            ["-device", f"loader,file={firmware}"]
            if firmware != FIRMWARE
            else firmware_args(build or board, on_progress)
        )
        self.icount_shift = icount_shift
        # the cycle model's -plugin arguments replace -icount (links.cycle_model)
        timing = plugin if plugin else ["-icount", f"shift={icount_shift}"]
        # monitor=True (tests): a QEMU monitor on a unix socket, for system_reset
        self._mondir = tempfile.TemporaryDirectory(prefix="mcuroof-qemu-") if monitor else None
        mon = f"unix:{self._mondir.name}/monitor,server,nowait" if monitor else "none"
        self.cmd = [
            qemu,
            "-M",
            MACHINES[board],
            "-nographic",
            "-monitor",
            mon,
            "-serial",
            "pty",
            *timing,
            *extra,
            *load,
        ]
        self.proc = None
        self.pty = None
        self.starts = 0

    def start(self) -> str:
        self.proc = subprocess.Popen(
            self.cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline().decode(errors="replace")
            m = re.search(r"(/dev/pts/\d+)", line)
            if m:
                self.pty = m.group(1)
                self.starts += 1
                return self.pty
            if not line and self.proc.poll() is not None:
                break
        self.stop()
        raise UserError(f"{Path(self.cmd[0]).name} did not open its serial pty")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def system_reset(self) -> None:
        """A hardware reset of the emulated board (as a watchdog or brown-out would do)."""
        if not self._mondir:
            raise RuntimeError("QEMU was started without a monitor")
        with socket.socket(socket.AF_UNIX) as mon:
            mon.connect(f"{self._mondir.name}/monitor")
            mon.sendall(b"system_reset\n")
            time.sleep(0.1)

    def kill(self) -> None:
        """Kill QEMU outright (tests: the emulator dying mid-run)."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        end_process(self.proc)
        self.proc = None


class QemuLink(SerialLink):
    """A SerialLink that owns the QEMU process behind it and stops it on close.

    `wrap` (tests) maps QEMU's pty to the device actually opened, e.g. a fault-injecting proxy's
    pty (faultproxy.FaultProxy.attach); it is called again whenever the link is re-opened.
    If QEMU died, recover() starts a fresh one (the run then resumes on a freshly booted board).
    """

    def __init__(
        self,
        icount_shift: int = DEFAULT_ICOUNT_SHIFT,
        wrap: Callable[[str], str] | None = None,
        monitor: bool = False,
        board: str = "qemu-microbit",
        on_progress=None,
        model=None,
    ):
        """model: a cycle_model.Setup (the plugin's arguments and what they model); None: -icount."""
        plugin = model.qemu_args if model else None
        self.qemu = QemuMicrobit(icount_shift, monitor=monitor, board=board, on_progress=on_progress, plugin=plugin)
        self.wrap = wrap
        pty = self.qemu.start()
        try:
            super().__init__(wrap(pty) if wrap else pty)
        except BaseException:
            self.qemu.stop()
            raise
        self.name = board
        timing = model.text if model else f"-icount shift={icount_shift} (instruction-counted time)"
        self.description = f"QEMU -M {MACHINES[board]} on {pty}, {timing}"
        self.icount_shift = icount_shift

    def _device(self) -> str:
        if not self.qemu.alive():
            self.qemu.stop()
            self.qemu.start()
        return self.wrap(self.qemu.pty) if self.wrap else self.qemu.pty

    def close(self):
        super().close()
        self.qemu.stop()
