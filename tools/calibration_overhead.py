"""Where a calibration shape's wall time goes on a QEMU board: the host's own work (the design's
selection, generating each shape's script, checking its record against numpy) timed offline from
a finished run, and on the board N shapes spread over the design run whole and without their
layer() call (the link and the board's compile of the script alone), as the timer check sizes
them, then whole again as they were sized before it (noisy time: 3 trials), in one session.

    python tools/calibration_overhead.py out/raw.jsonl              # host only, from a run
    python tools/calibration_overhead.py out/raw.jsonl --board qemu-m3 -n 60

docs/prediction.md quotes its figures with the commands that made them.
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

from mcuroof.kernels.contract import Kernel
from mcuroof.kernels.ops import reference
from mcuroof.measure.rawlog import RawLog, read
from mcuroof.suites import calibration, registry


def host(raw: Path) -> str:
    entries = read(raw)
    recs = [e["rec"] for e in entries if e.get("kind") == "record"]
    probe = next(r for r in recs if r.get("t") == "probe")
    cal = [r for r in recs if r.get("t") == "cal"]
    t0 = time.perf_counter()
    jobs = calibration.jobs(probe)
    t1 = time.perf_counter()
    calibration.kernels({"jobs": jobs})
    t2 = time.perf_counter()
    by_key = {calibration.key_of(j): j for j in jobs}
    ok = sum(reference.verify(by_key[calibration.key(r)], r) for r in cal if calibration.key(r) in by_key)
    t3 = time.perf_counter()
    n = len(jobs)
    return (
        f"{n} shapes: design {t1 - t0:.2f} s a selection, scripts {(t2 - t1) / n * 1e3:.2f} ms a shape, "
        f"numpy check {(t3 - t2) / max(len(cal), 1) * 1e3:.2f} ms a shape ({ok} of {len(cal)} verified)"
    )


def board(name: str, n: int, rounds: int = 3) -> str:
    from mcuroof.links.qemu import QemuLink
    from mcuroof.measure import timer as board_timer
    from mcuroof.measure.collect import Collector

    base = registry.SUITES["calibration"]

    def bare(c: dict) -> list[Kernel]:  # the unit without its call: the def and the globals' clean-up
        return [Kernel(k.key, k.source.rsplit("_j=layer(", 1)[0] + "_j=0\n") for k in base.kernels(c)]

    link = QemuLink(6, board=name)
    with tempfile.TemporaryDirectory() as tmp:
        log = RawLog(Path(tmp) / "raw.jsonl")
        col = Collector(link, log)
        probe = col.probe()  # sized as a run sizes it: by its timer check
        timer = board_timer.for_run(col, probe, {"name": name, "platform": probe["platform"], "icount_shift": 6}, None)
        jobs = calibration.jobs(probe)
        jobs = jobs[:: max(1, len(jobs) // n)][:n]
        cfg = {**calibration.trials(probe, timer), "jobs": jobs}
        noisy = {**calibration.trials(probe), "jobs": jobs}  # as sized before the timer check
        took: dict[str, float] = {}
        try:  # interleaved, the least of `rounds` each: what the host's load leaves
            for _ in range(rounds):
                for what, kernels, c in (
                    ("whole", base.kernels, cfg),
                    ("bare", bare, cfg),
                    ("noisy", base.kernels, noisy),
                ):
                    registry.SUITES["calibration"] = dataclasses.replace(base, kernels=kernels)
                    col.done.clear()
                    t0 = time.monotonic()
                    col.run_suite("calibration", c)
                    ms = (time.monotonic() - t0) / len(jobs) * 1e3
                    took[what] = min(took.get(what, ms), ms)
        finally:
            registry.SUITES["calibration"] = base
            log.close()
            link.close()
    return (
        f"{len(jobs)} shapes on {name} ({timer.rule} time: {cfg['win_us']} us x {cfg['trials']}): "
        f"{took['whole']:.0f} ms a shape, of which the link and the compile {took['bare']:.0f} ms, the call "
        f"(buffers, fill, timing, checksum) {took['whole'] - took['bare']:.0f} ms; sized as noisy time "
        f"({noisy['win_us']} us x {noisy['trials']}): {took['noisy']:.0f} ms a shape"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("raw", type=Path, help="raw.jsonl of a run with the calibration suite")
    ap.add_argument("--board", help="also time N shapes on this QEMU board (qemu-m3, qemu-m7, ...)")
    ap.add_argument("-n", type=int, default=60)
    args = ap.parse_args()
    print(host(args.raw))
    if args.board:
        print(board(args.board, args.n))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
