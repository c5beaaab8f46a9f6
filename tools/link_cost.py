"""What a byte costs on an emulated board's serial link: 50 scripts of 4 bytes, of 204 bytes,
and of 4 bytes that print 200, each timed through the link as a run sends them.

    python tools/link_cost.py qemu-m3

docs/prediction.md quotes its figures (QEMU's CMSDK UART takes one byte a main-loop turn).
"""

from __future__ import annotations

import argparse
import time

from mcuroof.links.qemu import QemuLink

SCRIPTS = (
    ("4 B in", "x=1\n"),
    ("204 B in", "x=1\n" + "#" * 199 + "\n"),
    ("4 B in, 200 B out", "print('y'*199)\n"),
)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("board", help="a QEMU board: qemu-m3, qemu-m7, qemu-m55, qemu-rv32, qemu-m4 ...")
    p.add_argument("-n", type=int, default=50, help="scripts of each kind")
    args = p.parse_args()
    link = QemuLink(6, board=args.board)
    try:
        link.run(["x=1\n"], lambda line: None)  # the raw REPL entered once before the timing
        for label, script in SCRIPTS:
            t0 = time.perf_counter()
            link.run([script] * args.n, lambda line: None)
            print(f"{args.board}: {label}: {(time.perf_counter() - t0) * 1000 / args.n:.2f} ms a script")
    finally:
        link.close()


if __name__ == "__main__":
    main()
