"""A table as data (title, headers, text rows, caption), so that the terminal (rich) and
report.html (html_tables.grid_html) render one table from one place."""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table


@dataclass(frozen=True)
class Grid:
    title: str
    headers: tuple
    rows: list  # lists of text cells
    caption: str = ""
    left: tuple = ()  # headers of the left-aligned (text) columns; the others are numbers


def without_empty(g: Grid, *also: str) -> Grid:
    """The grid without the columns whose every cell is "-" (and without the columns `also`)."""
    keep = [i for i, h in enumerate(g.headers) if h not in also and any(row[i] != "-" for row in g.rows)]
    return Grid(
        g.title, tuple(g.headers[i] for i in keep), [[row[i] for i in keep] for row in g.rows], g.caption, g.left
    )


def to_rich(g: Grid) -> Table:
    t = Table(title=g.title, title_justify="left", caption=g.caption or None)
    for h in g.headers:
        t.add_column(h, justify="left" if h in g.left else "right")
    for row in g.rows:
        t.add_row(*row)
    return t
