"""`mcuroof export RESULTS --csv DIR | --json FILE`: the results as tidy tables to re-plot elsewhere."""

from __future__ import annotations

from pathlib import Path

from mcuroof.errors import UserError
from mcuroof.results import document as results
from mcuroof.results import export


def configure(p):
    p.add_argument("results", type=Path, help="a results.json written by mcuroof run")
    p.add_argument(
        "--csv",
        type=Path,
        metavar="DIR",
        help="write roofs.csv, ridges.csv, points.csv, sweeps.csv and model.csv into DIR",
    )
    p.add_argument("--json", type=Path, metavar="FILE", help="write the same tables as one JSON document")


def run(args) -> int:
    if not args.csv and not args.json:
        raise UserError("export needs --csv DIR or --json FILE")
    data = results.load(args.results)
    if args.csv:
        paths = export.write_csv(data, args.csv)
        print(f"wrote {', '.join(str(p) for p in paths)}")
    if args.json:
        print(f"wrote {export.write_json(data, args.json)}")
    return 0
