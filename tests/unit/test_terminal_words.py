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


@pytest.mark.parametrize("argv", [["boards"], ["boards", "--show", "qemu-microbit"], ["boards", "--show", "pico"]])
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
