"""The board time a run's calibration shapes took: per emitter and type, the shapes and the sum
of their timed windows (trials x window: the time the kernels ran, in the board's own time,
instructions under QEMU), from raw.jsonl. Set-up on the board (filling the buffers, the checksum)
is not in it; the run's wall time is in its last line.

    python tools/calibration_time.py out/raw.jsonl [more/raw.jsonl ...]
"""

from __future__ import annotations

import json
import sys
from collections import Counter

TRIALS = 3  # suites.calibration.trials on a board whose time counts instructions or cycles


def board_seconds(path: str, trials: int = TRIALS) -> tuple[Counter, Counter]:
    secs, shapes = Counter(), Counter()
    with open(path) as f:
        for line in f:
            rec = json.loads(line).get("rec") or {}
            if rec.get("t") == "cal":
                key = f"{rec['em']}/{rec['ty']}"
                secs[key] += rec["us"] * trials / 1e6
                shapes[key] += 1
    return secs, shapes


def main(argv: list[str]) -> int:
    for path in argv:
        secs, shapes = board_seconds(path)
        parts = ", ".join(f"{k} {shapes[k]} shapes {secs[k]:.1f} s" for k in sorted(secs))
        print(f"{path}: {sum(shapes.values())} shapes, {sum(secs.values()):.1f} s of board time ({parts})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
