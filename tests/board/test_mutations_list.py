"""tools/mutations.toml does not rot: every listed mutation still applies, exactly once, to the
code as it is (the mutation run itself is `make mutate`, too slow for every test run)."""

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import mutate  # noqa: E402


def test_every_mutation_applies_to_the_code_as_it_is():
    entries = mutate.load()
    assert len(entries) >= 8
    problems = mutate.problems(ROOT, entries)
    assert not problems, "\n" + "\n".join(problems)
