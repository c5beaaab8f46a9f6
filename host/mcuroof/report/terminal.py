"""Tables people can read where they land: a narrow terminal gets fewer columns (the least needed
ones left out, and said so), a pipe or a CI log gets the full width; numbers are never cut."""

from __future__ import annotations

import os
import re
import sys
import textwrap

from rich.console import Console
from rich.table import Table
from rich.text import Text

MORE = "mcuroof export --csv"  # what has every column of a results table
PIPE_WIDTH = 400  # not a terminal (| tee, CI logs): write every column at its full width
# columns left out first when a table does not fit, in this order (headers as the tables name them)
DROPPABLE = (
    "per cycle",
    "per instr",
    "tile",
    "bytes/s (of roof)",
    "/ theory",
    "roof",
    "bound",
    "icount shift",
    "results",
    "firmware",
    "input",
    "act B (in+out)",
    "layers",
    "projected from tiles",
    "time / bound",
    "vs fastest",
    "emitter",
    "dtype",
    "source",
)  # source last: it tells a measured roof from a theoretical one
NAMED = ("emitter", "dtype")  # in a table of roofs, whose name holds them: left out first


RIDGES = "ridge at "  # the roofs table's ridge columns (tables.RIDGE + a memory's name): left out first


def _drop_order(headers: list[str]) -> tuple:
    ridges = tuple(h for h in headers if h.startswith(RIDGES))
    return ridges + (NAMED + tuple(d for d in DROPPABLE if d not in NAMED) if "name" in headers else DROPPABLE)


def console() -> Console:
    if sys.stdout.isatty() or os.environ.get("COLUMNS"):
        return Console()
    return Console(width=PIPE_WIDTH)


def show(con: Console, item, more: str = MORE) -> None:
    """Print a renderable; a table fitted to the console's width (`more`: what has the columns left out)."""
    con.print(fit(item, con.width, more) if isinstance(item, Table) else item)


def fit(table: Table, width: int, more: str = MORE) -> Table:
    """The table with the droppable columns it cannot afford at this width left out (its caption
    names them); numeric columns never wrap nor shrink, text columns wrap."""
    cols = list(table.columns)
    kept = list(cols)
    dropped = []
    for name in _drop_order([_plain(c.header) for c in cols]):
        for c in cols:
            if _plain(c.header) == name and c in kept and _needed(kept) > width:
                kept.remove(c)
                dropped.append(name)
    out = Table(
        title=table.title,
        title_justify=table.title_justify,
        caption=table.caption,
        caption_justify=table.caption_justify,
        box=table.box,
        show_lines=table.show_lines,
        show_footer=table.show_footer,
    )
    numeric = {id(c): _numeric(c) for c in kept}
    words = sum((_natural(c) if numeric[id(c)] else _longest_word(c)) + 3 for c in kept) + 1 <= width
    whole_headers = sum(max(_natural(c), len(_plain(c.header))) + 3 for c in kept) + 1 <= width
    for c in kept:  # numbers keep their width; text wraps between words (inside them only if it must)
        header = _wrapped_header(c) if numeric[id(c)] and not whole_headers else c.header
        out.add_column(
            header,
            c.footer,
            justify=c.justify,
            no_wrap=numeric[id(c)],
            overflow="fold",
            min_width=_natural(c) if numeric[id(c)] else (_longest_word(c) if words else None),
        )
    for i, row in enumerate(table.rows):
        out.add_row(*[c._cells[i] for c in kept], style=row.style)
    if dropped:
        note = f"at {width} columns, left out: {', '.join(dropped)} (a wider terminal or {more} has them)"
        out.caption = f"{table.caption}\n{note}" if table.caption else note
        out.caption_justify = "left"
    return out


def _wrapped_header(col) -> str:
    """A number column's header broken between words to the column's width: no_wrap, which keeps
    its numbers whole, would keep a long header on one line too and squeeze the other columns."""
    return textwrap.fill(_plain(col.header), _natural(col), break_long_words=False)


def _plain(cell) -> str:
    if isinstance(cell, Text):
        return cell.plain
    return Text.from_markup(str(cell)).plain if isinstance(cell, str) else str(cell)


def _natural(col) -> int:
    cells = [_plain(c) for c in col._cells]
    return max([len(c) for c in cells] + [max((len(w) for w in _plain(col.header).split()), default=1)])


def _longest_word(col, cap: int = 16) -> int:
    words = [w for c in col._cells for w in _plain(c).split()] + _plain(col.header).split()
    return min(max((len(w) for w in words), default=1), cap)


def _needed(cols) -> int:
    return sum(_natural(c) + 3 for c in cols) + 1


NUMBER = re.compile(r"^[~x-]?[\d.,]+(e[+-]?\d+)?( ?[^\s\d]\S*)?( \(\S+\))?[ *]*$")


def _numeric(col) -> bool:
    """A column of numbers (with their unit): "910 MMACC/s", "4.43x", "-", "0.67 SRAM"? no: text."""
    cells = [_plain(c).strip() for c in col._cells]
    return bool(cells) and all(c in ("-", "") or (len(c) <= 18 and NUMBER.match(c)) for c in cells)
