"""`mcuroof run --port PORT` with no --board or --profile, end to end: an emulated board reached
over its pty as a real board is (QEMU started the way a user's board is plugged in), named by its
probe, gets results.json, the plot and the report."""

from __future__ import annotations

import json
import shutil

import pytest

from mcuroof.board import profiles as boards
from mcuroof.cli import main
from mcuroof.links.qemu import QemuMicrobit

needs_qemu = pytest.mark.skipif(
    not shutil.which("qemu-system-arm") or not shutil.which("arm-none-eabi-gcc"),
    reason="needs qemu-system-arm and gcc-arm-none-eabi",
)


@pytest.fixture
def port(request):
    """The board's QEMU, started on its pty; its device is all the run is told."""
    board = request.param
    qemu = QemuMicrobit(boards.load_board(board).run["icount_shift"], board=board)
    device = qemu.start()
    yield board, device
    qemu.stop()


# the micro:bit runs the default suites; the Arm boards the compute suite (seconds, not minutes)
SUITES = {"qemu-microbit": [], "qemu-m3": ["--suite", "compute"]}


@needs_qemu
@pytest.mark.qemu
@pytest.mark.parametrize("port", list(SUITES), indirect=True)
def test_a_port_alone_gets_results_plot_and_report(tmp_path, capsys, port):
    board, device = port
    out = tmp_path / "out"
    assert main(["run", "--port", device, "-o", str(out), *SUITES[board]]) == 0
    for name in ("raw.jsonl", "results.json", "roofline.png", "report.html"):
        assert (out / name).stat().st_size > 0, name
    data = json.loads((out / "results.json").read_text())
    platform = {"qemu-microbit": "microbit"}.get(board, board)
    assert data["board"]["platform"] == platform
    assert data["board"]["name"].endswith(f"({platform}) on {device}") or data["board"]["name"] == (
        f"{platform} on {device}"
    )
    assert any(r["kind"] == "compute" and r["source"] == "measured" for r in data["roofs"])
    assert device in (out / "report.html").read_text()
