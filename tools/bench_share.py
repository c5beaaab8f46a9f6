"""Measure what results people share cost: report.html size and load time in headless Chromium
with about 100 and 1,000 layer points, and the time to draw a 10,000-point roofline PNG.

    .venv/bin/python tools/bench_share.py [BASE_RESULTS]   (default tests/data/results-vww-unix.json)

Points are the base run's points repeated with new indices and OI/speed spread by a fixed
factor (a benchmark of drawing, not a measurement of a board)."""

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from mcuroof.report import html as html_report
from mcuroof.report import plot


def scaled(base: dict, n: int) -> dict:
    pts = []
    for i in range(n):
        p = dict(base["points"][i % len(base["points"])])
        f = 1.0 + (i // len(base["points"])) * 0.013
        p.update(index=i, oi=p["oi"] * f, macs_per_s=p["macs_per_s"] / f)
        pts.append(p)
    return {**base, "points": pts}


def chromium():
    from selenium import webdriver

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
    return webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=shutil.which("chromedriver")))


def main() -> None:
    base = json.loads(Path(sys.argv[1] if len(sys.argv) > 1 else "tests/data/results-vww-unix.json").read_text())
    tmp = Path(tempfile.mkdtemp())
    driver = chromium()
    try:
        for n in (100, 1000):
            path = html_report.write(scaled(base, n), tmp / f"report-{n}.html")
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                driver.get(path.as_uri())
                markers = driver.execute_script("return document.querySelectorAll('#r0-roofline path.point').length")
                times.append(time.perf_counter() - t0)
            nav = driver.execute_script("var t=performance.timing; return t.loadEventEnd - t.navigationStart")
            print(
                f"report.html {n} points: {path.stat().st_size / 1e6:.2f} MB, load (get to markers) "
                f"best {min(times):.2f} s of 3, navigation-to-load {nav} ms, {markers} markers"
            )
    finally:
        driver.quit()
    big = scaled(base, 10000)
    for suffix in (".png", ".svg"):
        t0, c0 = time.perf_counter(), time.process_time()
        plot.draw(big, tmp / f"roofline-10000{suffix}")
        print(
            f"roofline{suffix} with 10,000 points: {time.perf_counter() - t0:.2f} s wall, "
            f"{time.process_time() - c0:.2f} s CPU (wall grows with the machine's load)"
        )
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
