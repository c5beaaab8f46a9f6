"""Host CPU time of the cycle model against QEMU's -icount: the qemu-m3 MicroPython firmware on
mps2-an385 runs one loop (`s += i*i`, N times) through its raw REPL, timed by the QEMU process's
user+system CPU time from the script's send to its end (the time a characterisation pays).

    .venv/bin/python tools/cycle_overhead.py [N] [--regions FILE]   (default N 300000)

Modes: plain TCG, -icount shift=6 (what the QEMU boards use), the cycle model (cortex-m3, no
regions), and, with --regions, the cycle model with that regions file. Figures follow the host's
load: run each mode more than once on a busy machine."""

from __future__ import annotations

import argparse
import os
import select
import subprocess
import time

from mcuroof.links import cycle_model, firmware_build


def run_once(firmware, extra: list[str], n: int) -> tuple[float, float, bytes]:
    cmd = ["qemu-system-arm", "-M", "mps2-an385", "-nographic", "-monitor", "none", "-serial", "stdio", *extra]
    proc = subprocess.Popen([*cmd, "-kernel", str(firmware)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def read_until(token: bytes, timeout: float) -> bytes:
        got, end = b"", time.monotonic() + timeout
        while token not in got and time.monotonic() < end:
            if select.select([proc.stdout], [], [], 1)[0]:
                got += os.read(proc.stdout.fileno(), 4096)
        return got

    def cpu_seconds() -> float:
        fields = open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    try:
        read_until(b">>>", 60)
        proc.stdin.write(b"\x01")  # raw REPL
        proc.stdin.flush()
        read_until(b"raw REPL", 10)
        cpu0, wall0 = cpu_seconds(), time.monotonic()
        proc.stdin.write(f"s=0\nfor i in range({n}):\n    s+=i*i\nprint(s)\n".encode() + b"\x04")
        proc.stdin.flush()
        out = read_until(b"\x04>", 1200)
        return cpu_seconds() - cpu0, time.monotonic() - wall0, out
    finally:
        proc.kill()
        proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, nargs="?", default=300_000)
    ap.add_argument("--regions", help="a regions file for a fourth run (docs/timing.md)")
    args = ap.parse_args()
    firmware = firmware_build.ensure("qemu-m3")
    model = cycle_model.qemu_args("cortex-m3", 25_000_000, 0, 0x20000100, None)
    modes = {"plain TCG": [], "-icount shift=6": ["-icount", "shift=6"], "cycle model": model}
    if args.regions:
        modes["cycle model + regions"] = cycle_model.qemu_args("cortex-m3", 25_000_000, 0, 0x20000100, args.regions)
    expected = str(sum(i * i for i in range(args.n))).encode()
    for name, extra in modes.items():
        cpu, wall, out = run_once(firmware, extra, args.n)
        status = "ok" if expected in out else f"unexpected output {out[-60:]!r}"
        print(f"{name:24} host CPU {cpu:6.2f} s  wall {wall:6.2f} s  ({status})")


if __name__ == "__main__":
    main()
