import os
import shutil
from pathlib import Path

import pytest

from mcuroof.links.qemu import FIRMWARE
from mcuroof.links.unix import find_micropython

ROOT = Path(__file__).resolve().parents[1]
# the MLPerf Tiny reference models sit beside the repository (../shared/models), absent from a
# fresh clone; MCUROOF_SHARED_MODELS points elsewhere (e.g. from a git worktree)
SHARED_MODELS = Path(os.environ.get("MCUROOF_SHARED_MODELS") or ROOT.parent / "shared" / "models")


def shared_model(name: str) -> Path:
    """A reference model's path, or a skip where that file is absent."""
    path = SHARED_MODELS / name
    if not path.is_file():
        pytest.skip(f"{path} absent (the reference models live in ../shared/models beside the repository)")
    return path


@pytest.fixture(autouse=True)
def calibration_cache(tmp_path, monkeypatch):
    """Each test keeps its calibrations apart (measure.calcache): no reuse across tests, none in ~/.cache."""
    monkeypatch.setenv("MCUROOF_CALIBRATION_CACHE", str(tmp_path / "calibration-cache"))


@pytest.fixture(scope="session")
def micropython():
    """The unix port binary (a dependency: installed by make setup)."""
    return find_micropython()


def qemu_ready() -> bool:
    return bool(shutil.which("qemu-system-arm")) and FIRMWARE.exists()


# `-m "not qemu"` leaves these out (tools/mutate.py does); without QEMU they are skipped
needs_qemu = pytest.mark.qemu


def pytest_runtest_setup(item):
    if item.get_closest_marker("qemu") and not qemu_ready():
        pytest.skip("qemu-system-arm or the micro:bit firmware is missing (make sysdeps)")


@pytest.fixture
def small(tmp_path) -> Path:
    from factories import SMALL_OPS, SMALL_TENSORS, build_tflite

    path = tmp_path / "small.tflite"
    path.write_bytes(build_tflite(SMALL_TENSORS, SMALL_OPS, [0], [10]))
    return path


def one_line_error(capsys, argv: list[str], fragment: str) -> str:
    """Run the command line; it must fail as bad input does: exit 2, one line `mcuroof: ...`
    naming the problem (fragment), no traceback."""
    from mcuroof.cli import main

    code = main(argv)
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert code == 2, cap.err
    assert len(lines) == 1 and lines[0].startswith("mcuroof: "), cap.err
    assert "Traceback" not in cap.err + cap.out
    assert fragment in lines[0], lines[0]
    return lines[0]


def timed_records(out: Path) -> tuple[int, list]:
    """A run folder's probe timer step, and every timed record's kernel, times (least and median,
    in microseconds of the board's time) and repeat count (the timer check's list of repeats aside)."""
    import json

    lines = [json.loads(ln) for ln in (out / "raw.jsonl").read_text().splitlines()]
    tick = next(e["rec"]["tick_us"] for e in lines if e.get("kernel") == "probe" and "tick_us" in e.get("rec", {}))
    rec = [e for e in lines if isinstance(e.get("rec", {}).get("us"), int)]
    return tick, [(e["kernel"], e["rec"]["us"], e["rec"].get("med"), e["rec"].get("r")) for e in rec]


def assert_same_timings(out: Path, again: Path) -> None:
    """Two runs of one board whose time is exact (a model's cycles) timed the same kernels alike:
    within one tick where a kernel ran the same repeats; where the probes read another timer step
    (a ticks_us() call's cost, by the phase the probe starts at) and so another repeat count,
    within 0.3 % a repeat (the window's own timer calls, shared by fewer repeats)."""
    (tick, first), (tick2, second) = timed_records(out), timed_records(again)
    assert first and [k for k, *_ in first] == [k for k, *_ in second]
    for (kernel, us, med, r), (_, us2, med2, r2) in zip(first, second):
        if r == r2:
            assert abs(us - us2) <= 1 and abs((med or 0) - (med2 or 0)) <= 1, (kernel, us, us2)
        else:
            assert tick != tick2 and abs(us / r - us2 / r2) <= 0.003 * us / r, (kernel, us, r, us2, r2)
