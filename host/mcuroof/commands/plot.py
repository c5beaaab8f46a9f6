"""`mcuroof plot RESULTS [-o FILE] [--emitter ...] [--dtype ...] [--panels | --cliff]`: redraw the
roofline (or the cache cliff) from saved results, no board needed."""

from __future__ import annotations

from pathlib import Path

from mcuroof.errors import UserError, writable_file
from mcuroof.report import cliff, plot
from mcuroof.results import document as results

FORMATS = (".png", ".svg", ".pdf")


def configure(p):
    p.add_argument("results", type=Path, help="a results.json written by mcuroof run")
    p.add_argument("-o", "--output", type=Path, help="output file (.png, .svg or .pdf); default: beside the results")
    p.add_argument("--emitter", help="only these emitters' ceilings and points, e.g. viper,native")
    p.add_argument("--dtype", help="only these element types' ceilings and points, e.g. int8")
    p.add_argument("--panels", action="store_true", help="one panel per emitter, side by side")
    p.add_argument(
        "--cliff",
        action="store_true",
        help="draw the cache cliff instead: bandwidth against working set (default file cliff.png)",
    )


def check_format(out: Path) -> None:
    if out.suffix.lower() not in FORMATS:
        raise UserError(f"{out}: unknown plot format {out.suffix!r} (use {', '.join(FORMATS)})")


def split(text: str | None) -> list[str] | None:
    return [t.strip() for t in text.split(",") if t.strip()] if text else None


def run(args) -> int:
    data = results.load(args.results)
    out = args.output or args.results.with_name("cliff.png" if args.cliff else "roofline.png")
    check_format(out)
    writable_file(out, "the plot")
    if args.cliff:
        cliff.draw(data, out)
    else:
        plot.draw(data, out, emitters=split(args.emitter), dtypes=split(args.dtype), panels=args.panels)
    print(f"wrote {out}")
    return 0
