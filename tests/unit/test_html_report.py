"""The interactive report in a real browser (Debian's headless Chromium through chromedriver):
no console errors, one marker per layer point, a table row per point, a screenshot saved."""

import pytest

pytestmark = pytest.mark.slow


def test_the_facts_say_when_the_timing_was_noisy():
    from mcuroof.report import html_tables as html_report

    quiet = html_report.facts({"board": {}, "checks": {"verified": 9, "timed": 9, "noisy": 0}})
    noisy = html_report.facts({"board": {}, "checks": {"verified": 9, "timed": 9, "noisy": 4}})
    assert "timing noise" not in quiet and "timing noise: 4 of 9" in noisy
