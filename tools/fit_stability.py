"""Whether the cost model reads the same from two calibration runs of one board: each family
fitted on the shapes both runs timed, once from each run's times. Prints how many shapes were
timed differently and by how much, how many coefficients differ by more than one part in a
million, how many are zero in one fit only (a swap between terms), the share of its family's
time each coefficient that moved by over 1 % carries, and how far the two fits' times are apart.

    python tools/fit_stability.py cal-a/results.json cal-b/results.json

Each results.json needs its raw.jsonl beside it. docs/prediction.md quotes it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from mcuroof.analysis import roofs
from mcuroof.measure import rawlog
from mcuroof.predict import cost_model
from mcuroof.suites import calibration


def records(path: Path) -> dict:
    units = rawlog.complete_kernels(rawlog.read(path.parent / "raw.jsonl"))
    recs = [r for (suite, _), body in units.items() if suite == "calibration" for r in body]
    return {(r["em"], r["ty"], r["k"]): r for r in recs if r.get("t") == "cal"}


def main(argv: list[str]) -> int:
    a_path, b_path = Path(argv[0]), Path(argv[1])
    a, b = records(a_path), records(b_path)
    common = sorted(set(a) & set(b))
    jobs = calibration.jobs(calibration.probe_of(json.loads(a_path.read_text())["board"]))
    sa = calibration.samples(jobs, [a[k] for k in common])
    sb = calibration.samples(jobs, [b[k] for k in common])
    dt = [abs(roofs.seconds(a[k]) / roofs.seconds(b[k]) - 1) for k in common]
    differ = swaps = total = 0
    moved, apart = [], []
    for fam in sa:
        ma = cost_model.fit(fam, [(t, s) for t, s, _ in sa[fam]])
        mb = cost_model.fit(fam, [(t, s) for t, s, _ in sb[fam]])
        whole = sum(ma.seconds(t) for t, _, _ in sa[fam])
        for k in set(ma.coefficients) | set(mb.coefficients):
            x, y = ma.coefficients.get(k, 0.0), mb.coefficients.get(k, 0.0)
            total += 1
            differ += abs(x - y) > 1e-6 * max(abs(x), abs(y), 1e-30)
            swaps += (x == 0) != (y == 0)
            if x and y and abs(x / y - 1) > 0.01:
                moved.append(x * sum(t.get(k, 0.0) for t, _, _ in sa[fam]) / whole)
        apart += [abs(ma.seconds(t) / mb.seconds(t) - 1) for t, _, _ in sa[fam]]
    print(
        f"{len(common)} shapes in both runs, {sum(d > 0 for d in dt)} timed differently (at most {max(dt):.2%} apart)"
    )
    print(f"{differ} of {total} coefficients differ by more than 1e-6; {swaps} zero in one fit only")
    if moved:
        print(f"{len(moved)} moved by over 1 %, carrying at most {max(moved):.2%} of their family's time")
    print(f"the two fits' times of the shapes: median {np.median(apart):.2g}, at most {max(apart):.3%} apart")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
