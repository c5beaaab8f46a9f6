"""The interactive report in a real browser (Debian's headless Chromium through chromedriver):
no console errors, one marker per layer point, a table row per point, a screenshot saved."""

import json
import shutil
from pathlib import Path

import pytest

from mcuroof.analysis.records import Point
from mcuroof.report import html as html_report
from mcuroof.report import plot

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


@pytest.mark.parametrize("name", ["results-kws-microbit.json", "results-vww-unix.json"])
def test_report_in_chromium(browser, tmp_path, name):
    data = json.loads((DATA / name).read_text())
    out = html_report.write(data, tmp_path / "report.html")
    _load(browser, out)
    points = [Point.from_dict(p) for p in data["points"]]
    shown = [p for p in points if plot.is_shown(p) or plot.is_macfree(p)]  # MAC-free: at the left edge
    markers = browser.execute_script("return document.querySelectorAll('#r0-roofline .scatterlayer path.point').length")
    assert markers == len(shown)
    traced = browser.execute_script(
        "return document.getElementById('r0-roofline').data"
        ".filter(t => t.meta === 'layers').reduce((n, t) => n + t.x.length, 0)"
    )
    assert traced == len(shown)
    rows = browser.execute_script("return document.querySelectorAll('tr.layer-row').length")
    assert rows == len(data["points"])
    assert browser.execute_script("return document.querySelectorAll('#r0-cliff .scatterlayer .trace').length") > 0
    # sorting a table by a numeric column orders its rows by value
    browser.execute_script(
        "document.querySelectorAll('tr.layer-row')[0].closest('table').tHead.rows[0].cells[5].click()"
    )
    maccs = browser.execute_script(
        "return Array.from(document.querySelectorAll('tr.layer-row'))"
        ".map(r => parseFloat(r.cells[5].getAttribute('data-v')))"
    )
    assert maccs == sorted(maccs)
    SHOTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(SHOTS / f"report-{name.replace('.json', '')}.png"))


def test_compare_report_in_chromium(browser, tmp_path):
    runs = [(n, json.loads((DATA / n).read_text())) for n in ("results-kws-microbit.json", "results-vww-unix.json")]
    out = html_report.write_compare(runs, tmp_path / "compare.html")
    _load(browser, out)
    shown = sum(1 for _, d in runs for p in map(Point.from_dict, d["points"]) if plot.is_shown(p) or plot.is_macfree(p))
    assert (
        browser.execute_script("return document.querySelectorAll('#compare-roofline .scatterlayer path.point').length")
        == shown
    )
    for i in range(2):
        assert browser.execute_script(f"return document.getElementById('r{i}-roofline') !== null")
    SHOTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(SHOTS / "compare.png"))


def test_c_engine_mark_and_npu_report_in_chromium(browser, tmp_path):
    """A cycle-counted run's report draws its core's C-engine mark; `mcuroof npu`'s report.html
    loads without console errors, with a Vela point per NPU operation and the per-layer table."""
    from mcuroof.report import npu_html
    from unit.test_npu_report import PICO, doc_on

    data = json.loads((DATA / "results-kws-microbit.json").read_text())
    data["board"] = {"name": "rp2040js-pico", "clock_hz": 125_000_000, "core": {"name": "Cortex-M0+"}}
    out = html_report.write(data, tmp_path / "report.html")
    _load(browser, out)
    names = browser.execute_script("return document.getElementById('r0-roofline').data.map(t => t.name || '')")
    assert sum(n.startswith("C engine on a Cortex-M0+") for n in names) == 1
    assert "C engines on a Cortex-M0+" in browser.page_source
    doc = doc_on(PICO, "Cortex-M0+")
    out = npu_html.write(doc, tmp_path / "npu.html")
    _load(browser, out)
    vela = browser.execute_script(
        "return document.getElementById('npu-roofline').data"
        ".filter(t => (t.name || '').includes('Vela estimate')).reduce((n, t) => n + t.x.length, 0)"
    )
    assert vela == sum(1 for p in doc["points"] if p["source"] == "vela")
    assert "Per layer: NPU estimate beside rp2040js-pico" in browser.page_source
    SHOTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(SHOTS / "npu-report.png"))
