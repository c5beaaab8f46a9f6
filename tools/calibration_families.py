"""Every board's calibration families, their shapes and grains, for a refactoring to leave unchanged.

    python tools/calibration_families.py > before.json   # ... refactor ...
    python tools/calibration_families.py | diff before.json -

For the probe of each board tools/kernel_hashes.py knows (the emulated boards, real ports by
name), the design's shapes (suites.calibration.jobs): per family, how many shapes, the grain of
each (predict.design.grain) and a hash of the scripts sent to run them. A family renamed, a
shape moved to another family, a grain changed or a script changed shows as a line of the diff.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from kernel_hashes import PROBES  # noqa: E402
from mcuroof.kernels.ops import dispatch  # noqa: E402
from mcuroof.predict import design  # noqa: E402
from mcuroof.suites import calibration  # noqa: E402


def families(probe: dict) -> dict[str, dict]:
    """family -> {"shapes": n, "grains": {grain: n}, "scripts": hash}."""
    out: dict[str, dict] = {}
    scripts: dict[str, hashlib._Hash] = {}
    for job in calibration.jobs(probe):
        fam = design.family(job)
        g = design.grain(job)
        entry = out.setdefault(fam, {"shapes": 0, "grains": {}})
        entry["shapes"] += 1
        key = json.dumps(dataclasses.astuple(g)) if g else "-"
        entry["grains"][key] = entry["grains"].get(key, 0) + 1
        scripts.setdefault(fam, hashlib.sha256()).update(dispatch.script(job).encode())
    for fam, h in scripts.items():
        out[fam]["scripts"] = h.hexdigest()[:16]
    return out


def main() -> int:
    out = {board: families(probe) for board, probe in PROBES.items()}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    counts = {b: len(f) for b, f in out.items()}
    print(f"families by board: {counts}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
