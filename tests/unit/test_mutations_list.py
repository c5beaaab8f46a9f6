"""tools/mutations.toml does not rot: every listed mutation still applies, exactly once, to the
code as it is (the mutation run itself is `make mutate`, too slow for every test run)."""

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import mutate  # noqa: E402


def test_a_stale_entry_is_named(tmp_path):
    (tmp_path / "m.py").write_text("x = 1\n")
    entry = {"name": "gone", "file": "m.py", "original": "x = 2", "mutated": "x = 3", "why": "w"}
    assert mutate.problems(tmp_path, [entry]) == [
        "mutation 'gone' (m.py): the original text occurs 0 times, not once; update tools/mutations.toml "
        "to the code as it is now:\n    original = 'x = 2'"
    ]


def test_the_mutation_run_uses_every_fast_test():
    """No hand-kept list: all of tests/unit, then the fast board tests; the one test left out (it
    fails in any mutated copy) exists under that name."""
    assert mutate.FAST[:2] == ["tests/unit", "tests/board"]
    marks = mutate.FAST[mutate.FAST.index("-m") + 1]
    assert "not qemu" in marks and "not slow" in marks
    left_out = mutate.FAST[mutate.FAST.index("--deselect") + 1]
    path, _, name = left_out.partition("::")
    assert f"def {name}(" in (ROOT / path).read_text()
