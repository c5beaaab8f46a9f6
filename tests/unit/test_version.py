"""The version results record: the release, and the commit where mcuroof runs from a checkout."""

from __future__ import annotations

from mcuroof import version


def test_a_checkout_records_its_commit(tmp_path):
    assert version.__version__.startswith(version.RELEASE)
    if version.commit() is not None:  # this repository is a git checkout (CI clones it)
        assert version.__version__.startswith(version.RELEASE + "+g") and "-" not in version.__version__
    assert version.version(tmp_path) == version.RELEASE  # no .git there: the release alone
