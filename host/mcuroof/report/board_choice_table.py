"""The `mcuroof choose` document (report.board_choice) as a terminal table that holds at 80 columns and
as a report.html section: each time cell is its ms, a letter for its label and the number of the
note that gives its basis; each "-" the number of the note that gives its reason."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from mcuroof.report.html_tables import Raw, esc, table
from mcuroof.units import duration

COLUMNS = (("micropython", "MicroPython"), ("c_engine", "C engine"), ("npu", "NPU"), ("bound", "roofline"))
LETTER = {"measured": "M", "predicted": "p", "modelled": "m", "estimated": "e", "bound": "b"}


class Notes:
    """Numbered notes, each text once."""

    def __init__(self):
        self.texts: list[str] = []

    def number(self, text: str) -> int:
        if text not in self.texts:
            self.texts.append(text)
        return self.texts.index(text) + 1


def cell_text(c: dict, notes: Notes) -> str:
    """ "17.1 ms e3" (ms, label letter, note of its basis) or "- 4" (note of the reason)."""
    if c["ms"] is None:
        return f"- {notes.number(c['note'])}"
    return f"{duration(c['ms'] / 1e3)} {LETTER[c['label']]}{notes.number(c['label'] + ': ' + c['note'])}"


def fits_text(f: dict, notes: Notes) -> str:
    return f["word"] if f["fits"] else f"{f['word']} {notes.number(f['text'])}"


def rows(doc: dict) -> tuple[list[list[str]], Notes]:
    notes = Notes()
    body = []
    for r in doc["rows"]:
        body.append(
            [r["board"], r["dtype"], fits_text(r["fits"], notes)] + [cell_text(r[k], notes) for k, _ in COLUMNS]
        )
    return body, notes


def legend() -> str:
    return "p predicted, m modelled, e estimated, b bound (never a chip's time); the number: its note"


def renderables(doc: dict) -> list:
    """The table and its notes (a Text each: they wrap at the console's width)."""
    body, notes = rows(doc)
    t = Table(
        title=f"{doc['model']} ({doc['macs']:,} MACs): which board, how many ms",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1),
        caption=legend() + "; sorted by " + doc["sorted_by"],
        caption_justify="left",
    )
    for h in ("board", "type", "fits", *(name for _, name in COLUMNS)):
        time = h in dict(COLUMNS).values()
        t.add_column(h, justify="right" if time else "left", no_wrap=time or h == "board", overflow="fold")
    for row in body:
        t.add_row(*row)
    return [t] + [Text(f"{i}. {text}") for i, text in enumerate(notes.texts, 1)]


def html_section(doc: dict) -> str:
    """The same table for report.html: each cell's label and basis (or reason) on hover and below."""
    body, notes = rows(doc)
    headers = ["board", "type", "fits", *(name for _, name in COLUMNS)]
    cells = []
    for r, row in zip(doc["rows"], body):
        out = [row[0], row[1], row[2]]
        for (key, _), text in zip(COLUMNS, row[3:]):
            c = r[key]
            title = c["why"] if c["ms"] is None else f"{c['label']}: {c['basis']}"
            out.append((Raw(f"<span title='{esc(title)}'>{esc(text)}</span>"), c["ms"]))
        cells.append(out)
    items = "".join(f"<li>{esc(text)}</li>" for text in notes.texts)
    return (
        f"<section><h2>{esc(doc['model'])}: which board, how many ms</h2>"
        f"<p>{esc(legend())}; sorted by {esc(doc['sorted_by'])}.</p>"
        + table(headers, cells)
        + f"<ol>{items}</ol></section>"
    )
