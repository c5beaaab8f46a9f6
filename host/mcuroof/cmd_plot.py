"""`mcuroof plot RESULTS [-o FILE]`: redraw the roofline from saved results, no board needed."""
from __future__ import annotations

from pathlib import Path

from . import plot, results
from .errors import UserError

FORMATS = (".png", ".svg", ".pdf")


def configure(p):
    p.add_argument("results", type=Path, help="a results.json written by mcuroof run")
    p.add_argument("-o", "--output", type=Path, help="output file (.png, .svg or .pdf); default: beside the results")


def run(args) -> int:
    data = results.load(args.results)
    out = args.output or args.results.with_name("roofline.png")
    if out.suffix.lower() not in FORMATS:
        raise UserError(f"{out}: unknown plot format {out.suffix!r} (use {', '.join(FORMATS)})")
    plot.draw(data, out)
    print(f"wrote {out}")
    return 0
