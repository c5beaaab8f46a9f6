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
