"""`mcuroof report RESULTS`: the summary tables of saved results, no board needed."""
from __future__ import annotations

from pathlib import Path

from rich.console import Console

from . import report, results


def configure(p):
    p.add_argument("results", type=Path, help="a results.json written by mcuroof run")


def run(args) -> int:
    data = results.load(args.results)
    console = Console()
    for item in report.renderables(data):
        console.print(item)
    return 0
