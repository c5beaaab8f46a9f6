"""What a command prints is words and figures with their units: never a Python repr ({'a': 1},
[], None), never a bare ratio or count where a unit belongs."""

import re
from pathlib import Path

import pytest

from mcuroof.cli import main
from mcuroof.measure.collect import fault_line

DATA = Path(__file__).parent.parent / "data"
REPR = re.compile(r"\{'|\['|\[\]|\{\}|\bNone\b|\bTrue\b|\bFalse\b|<[\w.]+ object at")


def _printed(capsys, argv) -> str:
    assert main(argv) == 0
    out = capsys.readouterr()
    return out.out + out.err


def _reprs(text: str) -> list[str]:
    return [line for line in text.splitlines() if REPR.search(line)]


@pytest.mark.parametrize("name", ["results-vww-unix.json", "results-kws-microbit.json"])
def test_report_prints_no_python_repr(capsys, monkeypatch, name):
    monkeypatch.setenv("COLUMNS", "180")
    assert _reprs(_printed(capsys, ["report", str(DATA / name)])) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["boards"],
        ["boards", "--show", "qemu-microbit"],
        ["boards", "--show", "pico"],
        ["boards", "--show", "rp2040js-pico"],
    ],
)
def test_boards_prints_no_python_repr(capsys, monkeypatch, argv):
    monkeypatch.setenv("COLUMNS", "180")
    assert _reprs(_printed(capsys, argv)) == []


def test_fault_line_is_words():
    line = fault_line(
        {"board": 1, "reruns": 2, "lost": 0, "memory": 1},
        [{"suite": "memory", "kernel": "memory/bytecode/int8/copy", "why": "MemoryError", "max_ws": 1968}],
    )
    assert _reprs(line) == []
    assert line == (
        "recovered from faults: 1 error raised on the board; 2 unit re-runs; memory/bytecode/int8/copy (memory) "
        "re-run after a MemoryError with max_ws 1968"
    )
    assert fault_line({"board": 0}, []) is None


def test_an_interval_reads_apart():
    from mcuroof.units import duration_span

    assert duration_span(15.96, 16.04) == "15.96 s to 16.04 s"  # not "16 s to 16 s"
    assert duration_span(0.5, 0.75) == "500 ms to 750 ms"


def test_whole_model_figures_carry_their_units(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    text = _printed(capsys, ["report", str(DATA / "results-vww-unix.json")])
    row = next(line for line in text.splitlines() if line.startswith("│ viper    │ int8  │     29 │"))
    cells = [c.strip() for c in row.strip("│").split("│")]
    assert cells[6].endswith("/s") and cells[7].endswith("x")  # inferences/s (host time), time / bound
    kws = _printed(capsys, ["report", str(DATA / "results-kws-microbit.json")])
    assert "instr/inference" in kws and "inferences/s" not in kws.split("Whole model")[1].split("\n\n")[0]


def test_report_says_each_advice_once_and_loses_no_figure(capsys, monkeypatch):
    """mcuroof report of the VWW run: each advice text once (not per run), and every number of
    every run's advice still printed, in its advice line or in that run's table row."""
    from mcuroof.model import names
    from mcuroof.report.advice_text import NUMBER
    from mcuroof.results import document

    monkeypatch.setenv("COLUMNS", "400")
    text = _printed(capsys, ["report", str(DATA / "results-vww-unix.json")])
    data = document.load(DATA / "results-vww-unix.json")  # as the report reads it: advice derived again
    lines = text.splitlines()
    advice = [ln for ln in lines if ln.startswith("advice ")]
    assert len(advice) < len({p["advice"] for p in data["points"]}) / 5
    for p in data["points"]:
        row = next(
            ln for ln in lines if ln.startswith(f"│ {names.short(p)} ") and f"│ {p['emitter']} {p['dtype']} " in ln
        )
        template = NUMBER.sub("#", p["advice"])
        line = next(
            a
            for a in advice
            if NUMBER.sub("#", re.sub(r"(\d+(?:\.\d+)?)-\d+(?:\.\d+)?", r"\1", a.split("): ", 1)[1])) == template
        )
        assert f"{p['emitter']} " in line.split("): ")[0]  # the run is named on its advice's line
        for n in NUMBER.findall(p["advice"]):
            assert f" {n}x" in row or f"({n}x" in row or n in NUMBER.findall(line), (p["index"], p["emitter"], n)


def test_report_of_vww_at_180_columns_is_at_most_half_what_it_was(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "180")
    text = _printed(capsys, ["report", str(DATA / "results-vww-unix.json")])
    assert len(text.splitlines()) <= 322 // 2  # 322 lines before issue 41


def test_which_mac_count_each_figure_uses_is_said_where_they_differ():
    from mcuroof.report import layer_tables
    from mcuroof.results import document

    data = document.load(Path(__file__).parent.parent.parent / "examples" / "kws-microbit.json")
    layers = {p["index"]: p for p in data["points"] if p.get("macc")}
    nominal, executed = sum(p["macc"] for p in layers.values()), sum(p["macc_executed"] for p in layers.values())
    assert executed < nominal  # KWS's padded taps are skipped
    note = layer_tables.macc_note(data)
    assert f"({executed:,}: padded taps skipped)" in note and f"nominal ones ({nominal:,})" in note
    for p in data["points"]:  # the rate counts executed MACs, as said
        assert p["macs_per_s"] == pytest.approx(p["macc_executed"] / p["seconds"], rel=1e-9)
