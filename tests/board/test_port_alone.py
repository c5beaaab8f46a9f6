"""`mcuroof run --port PORT` with no --board or --profile, end to end: an emulated board reached
over its pty as a real board is (QEMU started the way a user's board is plugged in), named by its
probe, gets results.json, the plot and the report."""

from __future__ import annotations

import csv
import json
import shutil

import pytest

from mcuroof.board import cycle_counter
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
SUITES = {"qemu-microbit": []}
# the core each probe reports, and the asm_thumb ISA ceilings its registers say it has
CORES = {
    "qemu-microbit": ("Cortex-M0", set()),  # its 8 KB heap cannot compile MULS
    "qemu-m3": ("Cortex-M3", {"mla"}),
    "qemu-m7": ("Cortex-M7", {"mla", "smlad", "vfma"}),
    "qemu-m55": ("Cortex-M55", {"mla", "smlad", "vfma", "vmladava", "vmla", "vfma-q"}),
}


def run_alone(tmp_path, board: str, device: str) -> dict:
    out = tmp_path / "out"
    assert main(["run", "--port", device, "-o", str(out), *SUITES.get(board, ["--suite", "compute"])]) == 0
    for name in ("raw.jsonl", "results.json", "roofline.png", "report.html"):
        assert (out / name).stat().st_size > 0, name
    assert device in (out / "report.html").read_text()
    return json.loads((out / "results.json").read_text())


def shown(out, capsys) -> tuple[str, str, list[dict]]:
    """The terminal's text (lines unwrapped), report.html's and the roofs CSV's rows."""
    terminal = " ".join(capsys.readouterr().out.split())
    assert main(["export", str(out / "results.json"), "--csv", str(out / "csv")]) == 0
    with open(out / "csv" / "roofs.csv") as f:
        rows = list(csv.DictReader(f))
    return terminal, " ".join((out / "report.html").read_text().split()), rows


def check_units(board: str, data: dict, terminal: str, html: str, rows: list[dict]) -> None:
    """What the probe found of the DWT cycle counter, and the units it leaves the figures in: no
    emulator here counts cycles, so every board falls back to ticks_us. An M3 or later core whose
    DEMCR does not hold TRCENA is a suspected emulator: one warning, no per-cycle figure anywhere;
    the Cortex-M0 has no counter, but its time ran far from the host's (its pace): suspected too."""
    b = data["board"]
    assert b["cycle_hz"] is None
    if board == "qemu-microbit":  # no DWT to tell, but its time ran far from real time
        assert b["cycle_counter"] == cycle_counter.ABSENT and b["pace"] and not 0.8 <= b["pace"] <= 1.25
        assert "warning: an emulator is suspected: its time ran" in terminal
        said = "where a real board's keeps real time): time may count instructions"
        assert said in terminal and said in html
        assert "per cycle at" not in terminal + html and "MACC/cycle" not in terminal
        assert {(r["time_counts"], r["step_hz"], r["macs_per_step"]) for r in rows} == {
            ("ticks (emulator suspected)", "", "")
        }
        return
    core = CORES[board][0]
    assert b["cycle_counter"] == cycle_counter.NO_TRCENA
    assert f"warning: the {core}'s DEMCR did not hold TRCENA (real silicon does): an emulator is suspected" in terminal
    said = "an emulator is suspected (DEMCR did not hold TRCENA, as real silicon does): time may count instructions"
    assert said in terminal and said in html and "DEMCR did not hold TRCENA: an emulator is suspected" in html
    run_html = html.split("<h2>C engines on")[0]  # the published C-engine figures are MAC/cycle, rightly
    assert "per cycle at" not in terminal + html and "/cycle" not in terminal + run_html and "per cycle <" not in html
    assert {(r["time_counts"], r["step_hz"], r["macs_per_step"]) for r in rows} == {
        ("ticks (emulator suspected)", "", "")
    }


def isa_ceilings(data: dict) -> set[str]:
    """The ISA peak kernels measured ('int8 asm_thumb smlad' -> smlad; a dot product's ceiling,
    'int8 asm_thumb 16x', names its unroll and has no kernel)."""
    return {
        r["kernel"]
        for r in data["roofs"]
        if r["kind"] == "compute" and r["source"] == "measured" and r["emitter"] == "asm_thumb" and r.get("kernel")
    }


@needs_qemu
@pytest.mark.qemu
@pytest.mark.parametrize("port", list(CORES), indirect=True)
def test_a_port_alone_gets_results_plot_and_report(tmp_path, capsys, port):
    """Named by its probe, its DSP/FPU/MVE ceilings chosen by its ID registers."""
    board, device = port
    data = run_alone(tmp_path, board, device)
    check_units(board, data, *shown(tmp_path / "out", capsys))
    platform = {"qemu-microbit": "microbit"}.get(board, board)
    core, ceilings = CORES[board]
    assert data["board"]["platform"] == platform and data["board"]["core"]["source"] == "registers"
    assert data["board"]["name"] == f"{core} ({platform}) on {device}"
    assert isa_ceilings(data) == ceilings
    assert any(r["kind"] == "compute" and r["source"] == "measured" for r in data["roofs"])


@needs_qemu
@pytest.mark.qemu
@pytest.mark.parametrize("port", ["qemu-m7"], indirect=True)
def test_a_real_ports_name_still_gets_smlad_and_vfma(tmp_path, capsys, monkeypatch, port):
    """A firmware whose sys.platform is a real port's name (mimxrt, a Teensy 4's): what runs is
    chosen by the core's registers, not by the name. The name is patched into the probe record
    on the host (building a firmware variant per name would cost CI a firmware build)."""
    from mcuroof.measure import collect

    real = collect.Collector.probe

    def renamed(self):
        rec = real(self)
        rec["platform"] = "mimxrt"
        return rec

    monkeypatch.setattr(collect.Collector, "probe", renamed)
    board, device = port
    data = run_alone(tmp_path, board, device)
    assert data["board"]["name"] == f"Cortex-M7 (mimxrt) on {device}"
    assert isa_ceilings(data) == {"mla", "smlad", "vfma"}


@needs_qemu
@pytest.mark.qemu
def test_a_qemu_board_named_counts_instructions_whatever_its_dwt_reads(tmp_path, capsys, monkeypatch):
    """The same QEMU, named (and started by mcuroof): its -icount shift is known, so figures are per instruction and no
    emulator is 'suspected'; report.html says QEMU models no DWT."""
    out = tmp_path / "out"
    monkeypatch.setenv("COLUMNS", "160")  # wide enough for the per-instruction column (a test worker's is 80)
    assert main(["run", "--board", "qemu-m3", "-o", str(out), "--suite", "compute"]) == 0
    data = json.loads((out / "results.json").read_text())
    terminal, html, rows = shown(out, capsys)
    assert (data["board"]["cycle_counter"], data["board"]["icount_shift"]) == (cycle_counter.NO_TRCENA, 6)
    assert "emulator is suspected" not in terminal and "MACC/instr" in terminal and "per cycle" not in terminal
    assert "none: QEMU models no DWT (DEMCR did not hold TRCENA)" in html
    assert {r["time_counts"] for r in rows} == {"instructions"}
