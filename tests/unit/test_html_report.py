"""The interactive report in a real browser (Debian's headless Chromium through chromedriver):
no console errors, one marker per layer point, a table row per point, a screenshot saved."""

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parents[1] / "data"
SHOTS = Path(__file__).parents[1] / "screenshots"  # not kept in git: look at them after a run

pytestmark = pytest.mark.slow


def chromium_driver():
    webdriver = pytest.importorskip("selenium.webdriver")
    if not shutil.which("chromedriver") or not shutil.which("chromium"):
        pytest.skip("chromium or chromium-driver is missing (apt-get install chromium chromium-driver)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium")
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1400,1000",
    ):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
    return webdriver.Chrome(options=opts, service=service)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    profile = tmp_path_factory.mktemp("chromium-profile")
    driver = chromium_driver()
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def _load(browser, path: Path):
    browser.get(path.resolve().as_uri())
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
    assert "cdn" not in path.read_text()[:2000].lower()  # plotly.js is inlined: works offline


def test_the_facts_say_when_the_timing_was_noisy():
    from mcuroof.report import html as html_report

    quiet = html_report.facts({"board": {}, "checks": {"verified": 9, "timed": 9, "noisy": 0}})
    noisy = html_report.facts({"board": {}, "checks": {"verified": 9, "timed": 9, "noisy": 4}})
    assert "timing noise" not in quiet and "timing noise: 4 of 9" in noisy
