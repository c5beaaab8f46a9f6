"""Install as users do: build the wheel, install it into a fresh venv (not editable, outside the
repository) and run the tool from there: it must find its board profiles and its firmware."""

import json
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT), "-w", str(out)], check=True, cwd=out
    )
    return next(out.glob("mcuroof-*.whl"))


def test_wheel_ships_every_firmware_and_board_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    tracked = subprocess.run(
        ["git", "ls-files", "firmware", "boards"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert tracked
    for path in tracked:
        top, rest = path.split("/", 1)
        assert f"mcuroof/_{top}/{rest}" in names, path


def test_installed_wheel_lists_boards_and_runs_compute(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)]
    subprocess.run(pip, check=True, cwd=tmp_path)
    tool = str(venv / "bin" / "mcuroof")
    boards = subprocess.run([tool, "boards"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert boards.returncode == 0, boards.stderr
    assert "qemu-microbit" in boards.stdout and "unix" in boards.stdout
    run = subprocess.run(
        [tool, "run", "--board", "unix", "--suite", "compute", "-o", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    comps = [r for r in data["roofs"] if r["kind"] == "compute" and r["source"] == "measured"]
    assert comps and data["checks"]["failed"] == 0
    assert (tmp_path / "out" / "roofline.png").read_bytes()[:4] == b"\x89PNG"
