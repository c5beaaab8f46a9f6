"""Mutation score of the pure accounting modules, by mutmut: every operator, constant and comparison
mutmut can flip in them, each run against the unit tests that cover it.

tools/mutate.py checks a hand list (tools/mutations.toml); this one asks what the tests miss in
general. mutmut 3 wants its sources in ./, src/ or source/, so the repository is copied to a
temporary folder with host/ renamed to src/; nothing in the checkout is touched.

    python tools/mutation_score.py               # score per module (make mutmut; ~30-60 min on 2 cores)
    python tools/mutation_score.py --survivors   # and each surviving mutant's diff
    python tools/mutation_score.py --keep        # keep the copy (then `mutmut results` / `mutmut show NAME` in it)
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# pure computation whose one-line bugs become wrong numbers: roofs, points, fits, compare, MACC
# and byte counts, tiles
MODULES = (
    "analysis/roofs.py",
    "analysis/points.py",
    "analysis/fit.py",
    "analysis/compare.py",
    "model/network.py",
    "kernels/ops/tiles.py",
)
IGNORE = shutil.ignore_patterns(
    ".git", ".venv", "__pycache__", "*.egg-info", "out", "build", ".pytest_cache", "mutants"
)
COPIED = ("boards", "firmware", "examples", "docs", "tools", "README.md", "Makefile")
STATES = ("killed", "survived", "timeout", "suspicious", "no tests", "skipped", "segfault", "not checked")


def mutmut_bin() -> str:
    found = Path(sys.executable).with_name("mutmut")
    if found.exists():
        return str(found)
    sys.exit("mutmut is not installed: pip install -e '.[test]' (it pins mutmut)")


def copy_repository(dest: Path, modules: tuple[str, ...] = MODULES) -> Path:
    """The checkout copied to dest/repo with host/ as src/, configured for mutmut to mutate modules."""
    repo = dest / "repo"
    shutil.copytree(ROOT, repo, ignore=IGNORE, symlinks=True)
    (repo / "host").rename(repo / "src")
    for name, target in (("_firmware", "firmware"), ("_boards", "boards")):
        (repo / "src" / "mcuroof" / name).symlink_to(Path("../..") / target)
    only = ", ".join(f'"src/mcuroof/{m}"' for m in modules)
    copied = ", ".join(f'"{c}"' for c in COPIED)
    with open(repo / "pyproject.toml", "a") as f:
        f.write(
            "\n[tool.mutmut]\n"
            'source_paths = ["src"]\n'
            f"only_mutate = [{only}]\n"
            f"also_copy = [{copied}]\n"
            'pytest_add_cli_args_test_selection = ["tests/unit"]\n'
            'pytest_add_cli_args = ["-m", "not qemu", "-p", "no:cacheprovider"]\n'
        )
    return repo


def results(repo: Path, mutmut: str) -> list[tuple[str, str]]:
    """(mutant name, state) of every mutant, from `mutmut results --all true`."""
    out = subprocess.run([mutmut, "results", "--all", "true"], cwd=repo, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"\s*(\S+):\s*(.+?)\s*$", line)
        if m and m.group(2) in STATES:
            rows.append((m.group(1), m.group(2)))
    return rows


def module_of(mutant: str) -> str:
    """ "mcuroof.analysis.roofs.x_attainable__mutmut_3" -> "analysis/roofs.py"."""
    parts = mutant.split(".")
    for i in range(len(parts), 0, -1):
        rel = "/".join(parts[1:i]) + ".py"
        if (ROOT / "host" / "mcuroof" / rel).is_file():
            return rel
    return "?"


def score_table(rows: list[tuple[str, str]]) -> str:
    by_module: dict[str, Counter] = {}
    for name, state in rows:
        by_module.setdefault(module_of(name), Counter())[state] += 1
    lines = [f"{'module':<24} {'mutants':>8} {'killed':>7} {'survived':>9} {'other':>6} {'score':>6}"]
    total = Counter()
    for module in sorted(by_module):
        c = by_module[module]
        total += c
        lines.append(row(module, c))
    lines.append(row("all", total))
    return "\n".join(lines)


def row(label: str, c: Counter) -> str:
    n = sum(c.values())
    killed = c["killed"] + c["timeout"]
    other = n - killed - c["survived"]
    score = f"{100 * killed / n:.0f} %" if n else "-"
    return f"{label:<24} {n:>8} {killed:>7} {c['survived']:>9} {other:>6} {score:>6}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "modules", nargs="*", metavar="MODULE", help=f"modules under host/mcuroof (default: {' '.join(MODULES)})"
    )
    ap.add_argument("--survivors", action="store_true", help="print each surviving mutant's diff")
    ap.add_argument("--keep", action="store_true", help="keep the temporary copy and say where it is")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2, help="mutants run at once")
    args = ap.parse_args(argv)
    mutmut = mutmut_bin()
    dest = Path(tempfile.mkdtemp(prefix="mcuroof-mutmut-"))
    try:
        unknown = [m for m in args.modules if not (ROOT / "host" / "mcuroof" / m).is_file()]
        if unknown:
            print(f"no such module under host/mcuroof: {', '.join(unknown)}", file=sys.stderr)
            return 2
        repo = copy_repository(dest, tuple(args.modules) or MODULES)
        log = dest / "mutmut-run.log"
        print(f"mutmut run over {len(args.modules or MODULES)} modules (its progress: {log})", flush=True)
        with open(log, "w") as out:
            run = subprocess.run([mutmut, "run", "--max-children", str(args.jobs)], cwd=repo, stdout=out, stderr=out)
        rows = results(repo, mutmut)
        if not rows:
            print(f"mutmut gave no results (exit {run.returncode})", file=sys.stderr)
            return 2
        print(score_table(rows))
        if args.survivors:
            for name, state in rows:
                if state == "survived":
                    print(subprocess.run([mutmut, "show", name], cwd=repo, capture_output=True, text=True).stdout)
        if args.keep:
            print(f"kept: {repo}")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(dest, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
