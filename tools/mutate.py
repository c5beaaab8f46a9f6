"""Mutation check: every one-line bug listed in tools/mutations.toml must make a fast test fail.

Each mutation is applied alone to a temporary copy of the repository, and every fast test runs
against that copy (FAST: all of tests/unit, then the board tests that need neither QEMU nor a
slow emulator, where the unix port runs the firmware's own accounting; python -m pytest -x: the
first failure ends the run). No list of tests is kept by hand: a new test counts as soon as it
exists. A mutation no test catches "survives"; the script then exits 1. The unmutated copy runs
first: if it fails, every mutation would look caught, so nothing else runs.

    python tools/mutate.py              # all mutations, 2 workers (make mutate)
    python tools/mutate.py -j 1 NAME..  # only these entries
    python tools/mutate.py --list       # the entries and why each is a bug
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
LIST = ROOT / "tools" / "mutations.toml"
IGNORE = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", "out", "build", ".pytest_cache")
FIELDS = ("name", "file", "original", "mutated", "why")
# every fast test, unit tests first; left out: QEMU and slow tests, and the check that each listed
# mutation still applies to the code (in a mutated copy it fails for every mutation: no catch)
FAST = [
    "tests/unit",
    "tests/board",
    "-m",
    "not qemu and not slow",
    "--deselect",
    "tests/board/test_mutations_list.py::test_every_mutation_applies_to_the_code_as_it_is",
]


def load(path: Path = LIST) -> list[dict]:
    """The mutation entries of the list."""
    return tomllib.loads(path.read_text())["mutation"]


def problems(root: Path, entries: list[dict]) -> list[str]:
    """One message per entry that cannot be applied to the code under root as it is now."""
    out = []
    names = [e.get("name") for e in entries]
    for e in entries:
        where = f"mutation {e.get('name')!r} ({e.get('file')})"
        missing = [f for f in FIELDS if not isinstance(e.get(f), str) or not e[f]]
        if missing:
            out.append(f"{where}: missing {', '.join(missing)}")
            continue
        if names.count(e["name"]) > 1:
            out.append(f"{where}: the name is used twice")
        if e["original"] == e["mutated"]:
            out.append(f"{where}: mutated text equals the original")
        path = root / e["file"]
        n = path.read_text().count(e["original"]) if path.is_file() else -1
        if n != 1:
            found = "the file does not exist" if n < 0 else f"the original text occurs {n} times, not once"
            out.append(
                f"{where}: {found}; update tools/mutations.toml to the code as it is now:\n"
                f"    original = {e['original']!r}"
            )
    return out


def pytest_cmd(tests: list[str]) -> list[str]:
    return [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-o", "addopts=", *tests]


def env_for(copy: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(copy / "host"), PYTHONDONTWRITEBYTECODE="1")
    return env


def first_failure(code: int, output: str) -> str | None:
    """The test that failed first; None if the tests passed."""
    if code == 0:
        return None
    if code == -1:
        return "(timeout: the mutation hangs the tests)"
    m = re.search(r"^(?:FAILED|ERROR) (\S+)", output, re.M)
    if m:
        return m.group(1)
    last = output.strip().splitlines()[-1:] or ["no output"]
    return f"(pytest exit {code}: {last[0][:80]})"


def run_tests(copy: Path, tests: list[str], timeout: float) -> tuple[int, str]:
    try:
        p = subprocess.run(
            pytest_cmd(tests), cwd=copy, env=env_for(copy), capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return -1, "timeout"
    return p.returncode, p.stdout + p.stderr


def make_copy(base: Path, i: int) -> Path:
    copy = base / f"repo{i}"
    shutil.copytree(ROOT, copy, ignore=IGNORE)
    probe = subprocess.run(
        [sys.executable, "-c", "import mcuroof; print(mcuroof.__file__)"],
        cwd=copy,
        env=env_for(copy),
        capture_output=True,
        text=True,
    )
    if not probe.stdout.strip().startswith(str(copy)):
        sys.exit(f"mutate: the copy's mcuroof is not the one imported ({probe.stdout.strip() or probe.stderr})")
    return copy


def check(copy: Path, entry: dict, tests: list[str], timeout: float) -> dict:
    path = copy / entry["file"]
    text = path.read_text()
    path.write_text(text.replace(entry["original"], entry["mutated"], 1))
    start = time.monotonic()
    try:
        code, output = run_tests(copy, tests, timeout)
    finally:
        path.write_text(text)
    caught = first_failure(code, output)
    return {"name": entry["name"], "caught_by": caught, "seconds": time.monotonic() - start, "output": output}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="only these mutations (default: all)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="parallel copies (default 2)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per test run")
    ap.add_argument("--list", action="store_true", help="print the mutations and exit")
    ap.add_argument("-v", "--verbose", action="store_true", help="print a survivor's test output")
    args = ap.parse_args(argv)
    tests, entries = FAST, load()
    if args.list:
        for e in entries:
            print(f"{e['name']}: {e['file']}\n  - {e['original']}\n  + {e['mutated']}\n  {e['why']}")
        return 0
    bad = problems(ROOT, entries)
    if bad:
        print("\n".join(bad), file=sys.stderr)
        return 2
    unknown = set(args.names) - {e["name"] for e in entries}
    if unknown:
        print(f"mutate: no such mutation: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    chosen = [e for e in entries if not args.names or e["name"] in args.names]
    with tempfile.TemporaryDirectory(prefix="mcuroof-mutate-") as tmp:
        copies = [make_copy(Path(tmp), i) for i in range(max(1, min(args.jobs, len(chosen))))]
        t0 = time.monotonic()
        code, output = run_tests(copies[0], tests, args.timeout)
        if code != 0:
            print(output[-3000:], file=sys.stderr)
            print("mutate: the fast tests fail WITHOUT any mutation: fix them first", file=sys.stderr)
            return 2
        print(f"unmutated: the fast tests pass in {time.monotonic() - t0:.1f} s: pytest -x {' '.join(tests)}")
        results = run_all(copies, chosen, tests, args.timeout)
    width = max(len(e["name"]) for e in chosen)
    survivors = []
    for e in chosen:
        r = results[e["name"]]
        status = f"caught by {r['caught_by']}" if r["caught_by"] else "SURVIVED"
        print(f"{e['name']:<{width}}  {r['seconds']:5.1f} s  {status}")
        if not r["caught_by"]:
            survivors.append(e)
            if args.verbose:
                print(r["output"][-2000:])
    print(f"{len(chosen) - len(survivors)} of {len(chosen)} mutations caught")
    for e in survivors:
        print(f"SURVIVED: {e['name']} ({e['file']}): {e['why']}", file=sys.stderr)
    return 1 if survivors else 0


def run_all(copies: list[Path], chosen: list[dict], tests: list[str], timeout: float) -> dict:
    todo: queue.Queue = queue.Queue()
    for e in chosen:
        todo.put(e)
    results: dict[str, dict] = {}

    def worker(copy: Path) -> None:
        while True:
            try:
                e = todo.get_nowait()
            except queue.Empty:
                return
            results[e["name"]] = check(copy, e, tests, timeout)
            r = results[e["name"]]
            print(f"  {e['name']}: {'caught' if r['caught_by'] else 'SURVIVED'} ({r['seconds']:.1f} s)", flush=True)

    threads = [threading.Thread(target=worker, args=(c,)) for c in copies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


if __name__ == "__main__":
    sys.exit(main())
