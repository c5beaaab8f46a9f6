"""tools/mutations.toml does not rot: every listed mutation still applies, exactly once, to the
code as it is (the mutation run itself is `make mutate`, too slow for every test run)."""

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import mutate  # noqa: E402


def test_every_mutation_applies_to_the_code_as_it_is():
    tests, entries = mutate.load()
    assert len(entries) >= 8
    assert all((ROOT / t).is_file() for t in tests if t.startswith("tests/")), tests
    assert "not qemu" in tests[tests.index("-m") + 1]
    assert not [t for t in tests if "faults" in t or "end_to_end" in t], "the QEMU tests are too slow here"
    problems = mutate.problems(ROOT, entries)
    assert not problems, "\n" + "\n".join(problems)
