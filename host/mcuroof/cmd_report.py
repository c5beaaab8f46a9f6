"""`mcuroof report RESULTS [--html FILE]`: the summary tables of saved results, no board needed;
--html writes the interactive single-file report instead."""
from __future__ import annotations

from pathlib import Path

from rich.console import Console

from . import report, results


def configure(p):
    p.add_argument("results", type=Path, help="a results.json written by mcuroof run")
    p.add_argument("--html", type=Path, metavar="FILE",
                   help="write the interactive report (one HTML file, works offline) instead of printing tables")


def run(args) -> int:
    data = results.load(args.results)
    if args.html:
        from . import html_report

        html_report.write(data, args.html)
        print(f"wrote {args.html}")
        return 0
    console = Console()
    for item in report.renderables(data):
        console.print(item)
    return 0
