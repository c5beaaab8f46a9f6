"""`mcuroof report RESULTS [--html FILE]`: the summary tables of saved results, no board needed;
--html writes the interactive single-file report instead."""

from __future__ import annotations

from pathlib import Path

from mcuroof.errors import writable_file
from mcuroof.report import c_engines, terminal
from mcuroof.report import tables as report
from mcuroof.results import document as results


def configure(p):
    p.add_argument("results", type=Path, help="a results.json written by mcuroof run")
    p.add_argument(
        "--html",
        type=Path,
        metavar="FILE",
        help="write the interactive report (one HTML file, works offline) instead of printing tables",
    )


def run(args) -> int:
    data = results.load(args.results)
    if args.html:
        from mcuroof.report import html as html_report

        writable_file(args.html, "the report")

        html_report.write(data, args.html)
        print(f"wrote {args.html}")
        return 0
    console = terminal.console()
    for item in report.renderables(data) + c_engines.renderables(data):
        terminal.show(console, item)
    return 0
