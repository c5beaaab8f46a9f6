"""`mcuroof compare A/results.json B/results.json [...] [-o FILE] [--html FILE]`: runs side by side."""

from __future__ import annotations

from pathlib import Path

from mcuroof.analysis import compare
from mcuroof.commands import options
from mcuroof.commands.plot import FORMATS
from mcuroof.errors import UserError, writable_file
from mcuroof.report import compare as report_compare
from mcuroof.report import terminal
from mcuroof.results import document as results


def configure(p):
    p.add_argument("results", type=Path, nargs="+", help="two or more results.json written by mcuroof run")
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("compare.png"),
        help="plot file (.png, .svg or .pdf; default: compare.png)",
    )
    options.add_html(p, "also write the comparison as one interactive HTML report")


def run(args) -> int:
    if len(args.results) < 2:
        raise UserError("compare needs two or more results.json files")
    if args.output.suffix.lower() not in FORMATS:
        raise UserError(f"{args.output}: unknown plot format {args.output.suffix!r} (use {', '.join(FORMATS)})")
    datas = [results.load(p) for p in args.results]
    writable_file(args.output, "the plot")  # before the tables: a run of compare never fails at its end
    if args.html:
        writable_file(args.html, "the report")
    runs = list(zip(compare.labels(datas, args.results), datas))
    console = terminal.console()
    for item in report_compare.tables(runs, args.results):
        terminal.show(console, item)
    report_compare.draw(runs, args.output)
    console.print(f"wrote {args.output}")
    if args.html:
        from mcuroof.report import html as html_report

        html_report.write_compare(runs, args.html, args.results)
        console.print(f"wrote {args.html}")
    return 0
