"""Memory- and compute-bound are named where the time basis tells them apart, and nowhere else:
timing_basis.Basis.tells_bound is the one place that says so (item 3 of issue 41)."""

import json
from pathlib import Path

from rich.console import Console

from mcuroof.analysis import advice, timing_basis
from mcuroof.report import html_tables, layer_tables, plot
from mcuroof.report import tables as report

DATA = Path(__file__).parent.parent / "data"


def _load(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def _text(renderable) -> str:
    con = Console(record=True, width=400)
    con.print(renderable)
    return con.export_text()


def test_which_bases_tell_bound():
    assert not timing_basis.of({"icount_shift": 6}).tells_bound  # QEMU: instructions
    assert timing_basis.of({"name": "unix", "platform": "linux"}).tells_bound  # host time
    assert timing_basis.of({"platform": "rp2040js-pico", "clock_hz": 125e6}).tells_bound  # a cycle model
    assert timing_basis.of({"clock_hz": 64e6, "cycle_hz": 64e6}).tells_bound  # a real board
    assert not timing_basis.of({"clock_hz": 64e6, "pace": 10.0}).tells_bound  # a suspected emulator


def test_qemu_layer_table_names_no_bound_and_says_why():
    data = _load("results-kws-microbit.json")
    text = _text(layer_tables.layers_table(data))
    rows = [ln for ln in text.splitlines() if ln.startswith("│ ")]
    assert rows and not any("│ compute │" in r or "│ memory  │" in r for r in rows)
    assert "bound -: time counts instructions" in " ".join(text.split())
    page = html_tables.layers_table(data)
    assert "<td>compute</td>" not in page and "<td>memory</td>" not in page
    assert "where the roofs meet as counted here" in " ".join(_text(report.ridges_table(data)).split())
    kinds = {
        k for k, _ in (advice.advise(p, data["roofs"], advice.board_features(data["board"])) for p in data["points"])
    }
    assert not kinds & {"memory", "compute"}


def test_host_layer_table_names_its_bound():
    data = _load("results-vww-unix.json")
    text = _text(layer_tables.layers_table(data))
    assert "│ compute │" in text and "bound -:" not in text


def _ridge_dots(fig) -> int:
    return sum(1 for ax in fig.axes for ln in ax.get_lines() if ln.get_marker() == "o" and len(ln.get_xdata()) == 1)


def test_plot_marks_ridges_only_where_time_tells_bound():
    qemu, host = _load("results-kws-microbit.json"), _load("results-vww-unix.json")
    fig = plot.figure(qemu)
    assert _ridge_dots(fig) == 0
    assert any("no ridge marked" in t.get_text() for t in fig.texts)
    fig2 = plot.figure(host)
    assert _ridge_dots(fig2) > 0
    assert not any("no ridge marked" in t.get_text() for t in fig2.texts)
