"""The board time a run's calibration shapes took: per emitter and type, the shapes and the sum
of their timed windows (trials x window: the time the kernels ran, in the board's own time,
instructions under QEMU), from raw.jsonl. The trials are the run's (results.json's
board.timer.calibration beside raw.jsonl: 1 where its time was exact), else 3. Set-up on the
board (filling the buffers, the checksum) is not in it; the run's wall time is in its last line.

    python tools/calibration_time.py out/raw.jsonl [more/raw.jsonl ...]
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

TRIALS = 3  # suites.calibration.trials on a board whose time counts instructions or cycles, before the timer check


def run_trials(path: str) -> int:
    """The calibration's trials per shape as the run's results.json says (TRIALS without one)."""
    try:
        board = json.loads((Path(path).parent / "results.json").read_text())["board"]
        return int(board["timer"]["calibration"]["trials"])
    except (OSError, ValueError, KeyError, TypeError):
        return TRIALS


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
        trials = run_trials(path)
        secs, shapes = board_seconds(path, trials)
        parts = ", ".join(f"{k} {shapes[k]} shapes {secs[k]:.1f} s" for k in sorted(secs))
        print(
            f"{path}: {sum(shapes.values())} shapes x {trials} trials, {sum(secs.values()):.1f} s of board time ({parts})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
