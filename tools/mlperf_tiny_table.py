"""Write host/mcuroof/published/mlperf_tiny.csv from MLCommons' published MLPerf Tiny results.

Usage: python tools/mlperf_tiny_table.py [../shared/reference/mlperf_tiny]

Reads results.csv and systems.jsonl (gathered from mlcommons/tiny_results_v0.5 ... _v1.3), keeps
the closed division's performance rows of the four reference benchmarks, and joins each with its
system description (same round and submitter; the system file whose name holds most of the result
folder's name parts). Writes one row per result with the core and clock as submitted; nothing is
measured or changed. The MACs per inference are computed separately (mcuroof.published.mlperf).
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "host" / "mcuroof" / "published" / "mlperf_tiny.csv"
BENCHES = ("ad", "ic", "kws", "vww")
COLUMNS = (
    "round",
    "submitter",
    "system",
    "bench",
    "latency_ms",
    "processor",
    "frequency",
    "accelerator",
    "framework",
    "status",
    "results_repo",
    "commit",
    "path",
    "system_path",
)


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def systems(path: Path) -> dict[tuple[str, str], list[tuple[str, dict]]]:
    """(round, submitter folder) -> [(system file path, description)]."""
    out = defaultdict(list)
    for line in path.read_text().splitlines():
        d = json.loads(line)
        org = d["path"].split("/")[1]
        out[(d["round"], org)].append((d["path"], d["system"]))
    return out


def join(row: dict, candidates: list[tuple[str, dict]]) -> tuple[str, dict] | None:
    """The system file of a result: the one named as the result's folder, else the one whose path
    holds most parts of that folder's name (the shortest name of those), among files that parsed."""
    parts = [_norm(p) for p in row["system"].split("/")]
    ok = [(path, desc) for path, desc in candidates if "_parse_error" not in desc]
    exact = [(path, desc) for path, desc in ok if _norm(Path(path).stem) == "".join(parts)]
    if exact:
        return exact[0]
    scored = [(sum(p in _norm(path) for p in parts), -len(path), path, desc) for path, desc in ok]
    scored = sorted(s for s in scored if s[0] > 0)
    return (scored[-1][2], scored[-1][3]) if scored else None


def rows(folder: Path) -> list[dict]:
    sys_by = systems(folder / "systems.jsonl")
    out = []
    for r in csv.DictReader((folder / "results.csv").open()):
        if r["division"] != "closed" or r["mode"] != "performance" or r["bench"] not in BENCHES:
            continue
        if not r["latency_ms"]:
            continue
        found = join(r, sys_by.get((r["round"], r["org"]), []))
        path, desc = found if found else ("", {})
        out.append(
            {
                "round": r["round"],
                "submitter": r["org"],
                "system": r["system"],
                "bench": r["bench"],
                "latency_ms": r["latency_ms"],
                "processor": desc.get("Processor(s) Name", "").strip(),
                "frequency": desc.get("Processor(s) Frequencies", "").strip(),
                "accelerator": desc.get("Accelerator", "").strip(),
                "framework": desc.get("Inference Framework", "").strip(),
                "status": desc.get("Status", "").strip(),
                "results_repo": f"mlcommons/tiny_results_v{r['round']}",
                "commit": r["commit"],
                "path": r["path"],
                "system_path": path,
            }
        )
    return out


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else ROOT.parent / "shared" / "reference" / "mlperf_tiny"
    table = rows(folder)
    with OUT.open("w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(table)
    joined = sum(1 for r in table if r["system_path"])
    print(f"wrote {OUT.relative_to(ROOT)}: {len(table)} results, {joined} joined with their system")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
