"""Output folders never lose, mix or mislabel a run: a folder holds one run; a finished one is
never replaced (--force moves it aside, kept); --resume takes the run's own options; a refused
run creates nothing; Ctrl-C says how to resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcuroof.cli import main
from mcuroof.measure import runfolder

HEADER = {
    "schema": 1,
    "kind": "header",
    "board": "qemu-microbit",
    "icount_shift": 6,
    "suites": ["compute", "layers"],
    "model": "kws-dscnn",
    "started": "2026-12-01T10:26:40Z",
}


def a_run(folder: Path, finished: bool) -> dict[str, bytes]:
    """A folder holding a run (finished: with results.json); returns its files' contents."""
    folder.mkdir(parents=True)
    (folder / "raw.jsonl").write_text(json.dumps(HEADER) + "\n")
    if finished:
        (folder / "results.json").write_text('{"schema": 1}')
    return contents(folder)


def contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def one_line(capsys, argv) -> tuple[int, str]:
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mcuroof: "), err
    return code, err[0]


def test_states(tmp_path):
    assert runfolder.state(tmp_path / "new") == "empty"
    a_run(tmp_path / "i", finished=False)
    a_run(tmp_path / "f", finished=True)
    assert runfolder.state(tmp_path / "i") == "interrupted" and runfolder.state(tmp_path / "f") == "finished"
    (tmp_path / "clocks" / "64MHz").mkdir(parents=True)
    (tmp_path / "clocks" / "64MHz" / "raw.jsonl").write_text("")
    assert runfolder.state(tmp_path / "clocks") == "interrupted"


@pytest.mark.parametrize(
    "finished, fragment",
    [
        (True, "holds a finished run; choose another folder with -o, or add --force"),
        (False, "holds an interrupted run; continue it with `mcuroof run --resume"),
    ],
)
def test_a_run_in_the_folder_is_never_replaced(finished, fragment, tmp_path, capsys):
    out = tmp_path / "out"
    before = a_run(out, finished)
    code, line = one_line(capsys, ["run", "--board", "unix", "--suite", "compute", "-o", str(out)])
    assert code == 2 and fragment in line
    assert contents(out) == before and sorted(tmp_path.iterdir()) == [out]


def test_force_moves_the_old_run_aside_and_keeps_it(tmp_path):
    out = tmp_path / "out"
    before = a_run(out, finished=True)
    runfolder.check_new(out, force=True)
    moved = runfolder.create(out)
    assert moved == tmp_path / "out.20261201-102640" and contents(moved) == before
    assert list(out.iterdir()) == []
    out.rmdir()
    a_run(out, finished=False)  # another old run with the same start time
    assert runfolder.create(out) == tmp_path / "out.20261201-102640-2"


def test_undo_puts_back_what_a_run_refused_after_its_probe_changed(tmp_path):
    out = tmp_path / "out"
    before = a_run(out, finished=True)
    top = runfolder.first_missing(out)
    moved = runfolder.create(out)  # --force: the old run moved aside, a new one begun
    (out / "raw.jsonl").write_text(json.dumps(HEADER) + "\n")
    runfolder.undo(out, top, moved)
    assert sorted(tmp_path.iterdir()) == [out] and contents(out) == before
    deep = tmp_path / "a" / "b" / "clocks"
    top = runfolder.first_missing(deep)
    assert top == tmp_path / "a" and runfolder.create(deep) is None
    (deep / "64MHz").mkdir()
    (deep / "64MHz" / "raw.jsonl").write_text("")
    runfolder.undo(deep, top, None)
    assert sorted(tmp_path.iterdir()) == [out]


def test_resume_of_a_finished_run_is_refused(tmp_path, capsys):
    before = a_run(tmp_path / "out", finished=True)
    code, line = one_line(capsys, ["run", "--resume", str(tmp_path / "out")])
    assert code == 2 and "has finished: nothing to resume" in line and contents(tmp_path / "out") == before


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["--icount-shift", "40"], "argument --icount-shift: '40': QEMU takes a whole number from 0 to 10"),
        (["--tile-seconds", "0"], "argument --tile-seconds: '0': give a number of seconds above 0"),
        (["--tile-seconds", "nan"], "argument --tile-seconds: 'nan'"),
        (["--board", "unix", "--port", "auto"], "--board unix runs on this host: it takes no --port"),
        (["--board", "pico", "--port", "/dev/does-not-exist"], "/dev/does-not-exist: cannot open serial port"),
        (["--board", "unix", "--clocks", "64M"], "--clocks: unix cannot set its clock"),
    ],
)
def test_a_refused_run_creates_nothing(argv, fragment, tmp_path, capsys):
    code, line = one_line(capsys, ["run", *argv, "-o", str(tmp_path / "out")])
    assert code == 2 and fragment in line
    assert list(tmp_path.iterdir()) == []


def test_a_run_with_nothing_to_draw_writes_its_results_alone(tmp_path):
    """A calibration-only run has no roof and no layer point: results.json, no plot, and no
    'nothing to plot' error after the board time was spent."""
    from mcuroof.report import outputs

    calibration_only = {"roofs": [{"kind": "memory", "source": "theoretical"}], "points": []}
    assert outputs.outputs(calibration_only, tmp_path) == [tmp_path / "results.json"]
    measured = {"roofs": [{"kind": "memory", "source": "measured"}], "points": []}
    assert outputs.outputs(measured, tmp_path) == [
        tmp_path / n for n in ("results.json", "roofline.png", "report.html")
    ]


def test_a_calibration_run_says_what_it_checked():
    from mcuroof.report import tables

    data = {
        "roofs": [],
        "checks": {"verified": 0, "timed": 139},
        "calibration": {"shapes": 139, "shapes_verified": 137, "shapes_failed": 2, "families": [{}] * 21},
    }
    line = tables.checks_line(data)
    assert "137 of 139 calibration shapes verified" in line and "21 kernel families fitted" in line
    assert "2 FAILED (left out of the fit)" in line
    assert not any(getattr(t, "columns", None) for t in tables.renderables(data))  # no empty roofs table
