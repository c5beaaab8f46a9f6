"""Output folders never lose, mix or mislabel a run: a folder holds one run; a finished one is
never replaced (--force moves it aside, kept); --resume takes the run's own options; a refused
run creates nothing; Ctrl-C says how to resume."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcuroof.errors import UserError
from mcuroof.measure import runfolder
from unit.test_runfolder import a_run, contents, one_line


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (
            ["--board", "unix"],
            "--board unix: the run in {out} was started with --board qemu-microbit; leave --board out",
        ),
        (["--model", "ad-autoencoder"], "--model ad-autoencoder: the run in {out} was started with --model kws-dscnn"),
        (["--suite", "memory"], "--suite memory: the run in {out} was started with --suite compute,layers"),
        (["--icount-shift", "4"], "--icount-shift 4: the run in {out} was started with --icount-shift 6"),
        (["-o", "elsewhere"], "-o elsewhere: the run in {out} was started with -o {out}"),
    ],
)
def test_resume_refuses_options_that_conflict_with_the_run(argv, fragment, tmp_path, capsys):
    out = tmp_path / "out"
    before = a_run(out, finished=False)
    code, line = one_line(capsys, ["run", "--resume", str(out), *argv])
    assert code == 2 and fragment.format(out=out) in line
    assert contents(out) == before


def test_ctrl_c_prints_the_resume_command_and_the_folder_resumes(tmp_path):
    """A real run on the unix port, interrupted as a terminal's Ctrl-C would (SIGINT). With SIGINT
    as a terminal gives it: a test runner started in the background (`&`, nohup) has it ignored,
    its children inherit that, and the run then finished (exit 0). Memory and compute suites: 35 s
    of work, so the signal lands mid-run."""
    out = tmp_path / "out dir"
    proc = _started(["--board", "unix"], out, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=60)[1].strip().splitlines()
    assert proc.returncode == 130 and err == [
        f"mcuroof: interrupted; the partial run is kept: mcuroof run --resume '{out}'"
    ]
    assert runfolder.state(out) == "interrupted"
    with pytest.raises(UserError, match="holds an interrupted run; continue it with `mcuroof run --resume"):
        runfolder.check_new(out, force=False)


def _started(board: list[str], out: Path, **popen) -> subprocess.Popen:
    """`mcuroof run BOARD --suite memory,compute -o OUT` started, once its first kernel is in the raw log."""
    argv = [sys.executable, "-m", "mcuroof.cli", "run", *board, "--suite", "memory,compute", "-o", str(out)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **popen)
    deadline = time.monotonic() + 60
    while not any(e.get("kind") == "kernel" for e in _entries(out)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return proc


def _entries(out: Path) -> list[dict]:
    try:
        return [json.loads(line) for line in (out / "raw.jsonl").read_text().splitlines()[:-1]]
    except OSError:
        return []


@pytest.mark.qemu
def test_a_terminated_run_stops_its_emulator_and_keeps_the_partial_run(tmp_path):
    """`kill` (SIGTERM), as a CI job's timeout sends it, ends a run as Ctrl-C does: before, the
    process died at once and its QEMU ran on, an orphan, until someone killed it."""
    out = tmp_path / "out"
    proc = _started(["--board", "qemu-m3"], out)
    qemu = subprocess.run(["pgrep", "-P", str(proc.pid), "-f", "qemu-system"], capture_output=True, text=True)
    assert qemu.stdout.split(), "no QEMU under the run"
    proc.terminate()
    err = proc.communicate(timeout=60)[1].strip().splitlines()
    assert proc.returncode == 130 and err == [
        f"mcuroof: interrupted; the partial run is kept: mcuroof run --resume {out}"
    ]
    assert runfolder.state(out) == "interrupted"
    for pid in qemu.stdout.split():
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()
