"""The interactive report: one self-contained HTML file (plotly.js inlined: works offline).

The roofline with a hover per layer point (layer, op, shapes, dtype, emitter, MACC, bytes, OI,
achieved, roof, headroom, bound, advice) and roofs that toggle per emitter and dtype; the cache
cliff; sortable tables of roofs, ridges, layers and the whole model; the board, the checks and
what was not profiled. Several runs (compare) go in one report. This module makes the page; its
figures are in html_figures, its tables in html_tables, the comparison of runs in html_compare.
"""

from __future__ import annotations

import re
from pathlib import Path

from mcuroof.analysis import compare
from mcuroof.errors import UserError
from mcuroof.report import cliff
from mcuroof.report.html_compare import compare_section
from mcuroof.report.html_figures import cliff_figure, figure_div, roofline_figure
from mcuroof.report.html_summary import advice_section, glossary_section, summary_section
from mcuroof.report.html_tables import (
    calibrated_table,
    esc,
    facts,
    layers_table,
    model_table,
    reference_table,
    ridges_table,
    roofs_table,
)

CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1880px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th{background:#f3f3f3;cursor:pointer;user-select:none;white-space:nowrap}
th.sorted-asc::after{content:" \\25B2"}th.sorted-desc::after{content:" \\25BC"}
tr.bad td{color:#b00;font-weight:bold}.tensor{text-decoration:underline dotted;cursor:help}
.facts td:first-child{font-weight:bold}.wide{overflow-x:auto}
table.layers td:last-child{white-space:nowrap}.note{color:#555;font-size:.9em}
dl.glossary dt{font-weight:bold;margin-top:.4em}dl.glossary dd{margin-left:1.5em}ol.advice li{margin:.3em 0}
"""


# glue: sort a table by the clicked column (numbers by their data-v value, else by text)
SORT_JS = """
document.querySelectorAll('table.sortable th').forEach(function(th){th.addEventListener('click', function(){
 var i=th.cellIndex, tb=th.closest('table').tBodies[0], rows=Array.from(tb.rows), asc=!th.classList.contains('sorted-asc');
 th.parentNode.querySelectorAll('th').forEach(function(h){h.classList.remove('sorted-asc','sorted-desc')});
 th.classList.add(asc?'sorted-asc':'sorted-desc');
 function key(r){var c=r.cells[i], v=c.getAttribute('data-v'); return v!==null&&v!==''?parseFloat(v):c.textContent}
 rows.sort(function(a,b){var x=key(a),y=key(b); var c=(typeof x==='number'&&typeof y==='number')?x-y:String(x).localeCompare(String(y)); return asc?c:-c});
 rows.forEach(function(r){tb.appendChild(r)});});});
"""


def write(result: dict, path: Path, title: str | None = None) -> Path:
    """One run's report."""
    return save_page(page([section(result, "r0")], title or _title(result)), path)


def write_compare(runs: list[tuple[str, dict]], path: Path, paths: list[Path] | None = None) -> Path:
    """Several runs in one report: the comparison first, then each run's own section."""
    parts = [compare_section(runs, paths)]
    parts += [section(data, f"r{i}", f"{compare.tag(i)}: {label}") for i, (label, data) in enumerate(runs)]
    return save_page(page(parts, "mcuroof comparison: " + ", ".join(label for label, _ in runs)), path)


def page(parts: list[str], title: str) -> str:
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{esc(title)}</title>"
        f"<style>{CSS}</style><script>{plotly_js()}</script></head><body><h1>{esc(title)}</h1>"
        + "".join(parts)
        + f"<script>{SORT_JS}</script></body></html>"
    )


BASIC_BUNDLE = Path(__file__).with_name("plotly_basic") / "plotly-basic.min.js"


def plotly_js() -> str:
    """plotly.js once per file: its basic bundle (scatter traces, all the report draws; 1.2 MB)
    where it is the version the plotly package writes figures for, else the package's full one."""
    from plotly.offline import get_plotlyjs, get_plotlyjs_version

    try:
        text = BASIC_BUNDLE.read_text(encoding="utf-8")
    except OSError:
        return get_plotlyjs()
    m = re.search(r"plotly\.js \(basic - minified\) v(\d+\.\d+\.\d+)", text[:300])
    return text if m and m.group(1) == get_plotlyjs_version() else get_plotlyjs()


def save_page(text: str, path: Path) -> Path:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise UserError(f"{path}: cannot write the report ({e.strerror})") from None
    return Path(path)


def _title(result: dict) -> str:
    b = result.get("board", {})
    model = (result.get("model") or {}).get("name")
    return f"mcuroof: {b.get('name', '?')} ({b.get('firmware', '')})" + (f", {model}" if model else "")


def section(result: dict, key: str, heading: str | None = None) -> str:
    out = [
        f"<h2>{esc(heading)}</h2>" if heading else "",
        summary_section(result, key),
        "<h2>Roofline</h2>",
        "<p class='note'>Hover a point for its layer; click a legend entry to hide or show it.</p>",
        figure_div(roofline_figure(result), f"{key}-roofline"),
    ]
    cl = cliff_figure(result)
    if cl is not None:
        head, note = cliff.heading(result)
        out += [
            f"<h2>{esc(head)}</h2>",
            f"<p class='note'>{esc(note)}</p>" if note else "",
            figure_div(cl, f"{key}-cliff"),
        ]
    out += [
        model_table(result),
        reference_table(result),
        calibrated_table(result),
        layers_table(result, key),
        advice_section(sorted(result.get("points") or [], key=lambda p: (p["index"], p["dtype"], p["emitter"])), key),
        "<h2>Board, probe and checks</h2>",
        facts(result),
        roofs_table(result),
        ridges_table(result),
        glossary_section(result, key),
    ]
    return "".join(x for x in out if x)
