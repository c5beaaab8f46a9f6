"""The files a run draws beside its results.json: roofline.png and report.html, where there is a
roof or a point to draw. The commands call this after the measuring (measure.pipeline), which
draws nothing itself: measuring imports no plotting."""

from __future__ import annotations

from pathlib import Path

from mcuroof.report import html as html_report
from mcuroof.report import plot


def outputs(data: dict, out: Path) -> list[Path]:
    """The files a run writes: results.json, and the plot and report.html where there is a roof
    or a point to draw (a calibration-only run has neither)."""
    drawn = [out / "roofline.png", out / "report.html"] if plot.has_something(data) else []
    return [out / "results.json", *drawn]


def draw(data: dict, out: Path) -> None:
    """roofline.png and report.html of a run whose results.json is written."""
    if plot.has_something(data):
        plot.draw(data, out / "roofline.png")
        html_report.write(data, out / "report.html")
