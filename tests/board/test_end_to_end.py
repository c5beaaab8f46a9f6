"""End to end on the emulated board: QEMU's micro:bit, real firmware, mpremote over a pty."""

import json
import os
import subprocess

import pytest

from conftest import needs_qemu
from mcuroof.analysis import records
from mcuroof.board import profiles as boards
from mcuroof.cli import main
from mcuroof.commands import boards as cmd_boards
from mcuroof.kernels.ops import contract
from mcuroof.model import builtins
from mcuroof.results import document as results


@needs_qemu
def test_run_on_qemu_microbit(tmp_path, capsys):
    out = tmp_path / "out"
    assert (
        main(["run", "--board", "qemu-microbit", "--model", "kws-dscnn", "--dtype", "int8,float32", "-o", str(out)])
        == 0
    )
    data = results.load(out / "results.json")
    assert data["board"]["icount_shift"] == 6 and data["board"]["platform"] == "microbit"
    measured = [r for r in data["roofs"] if r["source"] == "measured"]
    mem_roof = [r for r in measured if r["kind"] == "memory" and r["role"] == "roof"]
    assert mem_roof and mem_roof[0]["emitter"] == "asm_thumb"
    emitters = {(r["emitter"], r["dtype"]) for r in measured if r["kind"] == "compute"}
    assert {("bytecode", "int8"), ("bytecode", "int32"), ("asm_thumb", "int8"), ("asm_thumb", "int32")} <= emitters
    assert data["checks"]["failed"] == 0 and data["checks"]["verified"] > 50
    # the raw log holds every record as it arrived, and the plot exists as a PNG
    raw = [json.loads(ln) for ln in (out / "raw.jsonl").read_text().splitlines()]
    assert raw[0]["kind"] == "header" and sum(e["kind"] == "record" for e in raw) > 50
    assert (out / "roofline.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # QEMU was stopped
    mine = subprocess.run(["pgrep", "-P", str(os.getpid()), "-f", "qemu-system-arm"], capture_output=True)
    assert mine.returncode != 0, mine.stdout  # (other QEMUs on the machine are not ours)
    printed = capsys.readouterr().out
    # the short summary, a measured figure first; every table is behind --details and `report`
    assert "Best emitter per layer" in printed and "Whole model: kws-dscnn" in printed
    assert "Ridge points" not in printed and "Layers of" not in printed
    first = " ".join(printed.split()).split("measured: ", 1)[1]
    assert first.startswith("the fastest compute ceiling here is") and "projected from them, not measured" in first
    assert " of suites" in printed
    # every KWS layer with a kernel ran in the 8 KB heap, on a tile, and matched the reference
    pts = data["points"]
    kws = builtins.builtin_network("kws-dscnn")
    with_kernel = {l.index for l in kws.layers if l.op in contract.OPS}
    for dtype in ("int8", "float32"):
        assert {p["index"] for p in pts if p["emitter"] == "bytecode" and p["dtype"] == dtype} == with_kernel
    assert {p["index"] for p in pts if p["emitter"] == "asm_thumb"} == {
        l.index for l in kws.layers if l.op in contract.MAC_OPS + ("AVERAGE_POOL_2D",)
    }
    assert all(p["verified"] for p in pts) and data["checks"]["points_failed"] == 0
    assert all(0 < p["tile_fraction"] <= 1 and p["heap_bytes"] > 0 for p in pts)
    assert all(p["bound"] in ("memory", "compute") and p["advice"] for p in pts)
    assert data["model"]["macc"] == 2656768 and data["model"]["whole_model"]
    # KWS's live activations (16,000 B) do not fit the 8 KB heap: said, and its speed is an estimate
    assert data["model"]["fit"]["fits"] is False
    assert "does not fit: needs 15.6 KiB of RAM" in " ".join(printed.split())  # as wrapped at 80 columns
    # (a row lacking a layer no emitter could time is partial: no speed at all, estimate or not)
    rows = data["model"]["whole_model"]
    assert all(r["inferences_per_s"] is None and (r["estimated_inferences_per_s"] or r["partial"]) for r in rows)
    assert any(r["estimated_inferences_per_s"] for r in rows)
    # advice for a Cortex-M0: no cache, no SIMD, and int8 is never told to lower its precision
    assert not any("cache (tile" in p["advice"] or "precision" in p["advice"] or "DSP" in p["advice"] for p in pts)
    # the theoretical roofs of the run are those `mcuroof boards --show` prints for its profile
    theory = [r for r in data["roofs"] if r["source"] == "theoretical"]
    assert theory == boards.theoretical_roofs(boards.load_board("qemu-microbit"))
    assert main(["boards", "--show", "qemu-microbit"]) == 0
    shown = capsys.readouterr().out
    assert theory and all(cmd_boards.fmt_rate(r) in shown for r in records.roofs(theory))


@pytest.mark.slow
def test_layers_on_the_unix_port_through_the_cli(tmp_path, capsys):
    out = tmp_path / "u"
    assert (
        main(
            [
                "run",
                "--board",
                "unix",
                "--suite",
                "compute",
                "--model",
                "ad-autoencoder",
                "--emitter",
                "viper,bytecode",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    data = results.load(out / "results.json")
    pts = data["points"]
    assert len(pts) == 2 * 10 and all(p["verified"] for p in pts)
    assert sum(p["macc"] for p in pts if p["emitter"] == "viper") == 264192
    assert all(p["tile_fraction"] == 1 for p in pts)  # the host's heap holds every layer whole
    # the ceilings the layers are placed under were measured again in the layers' own process
    raw = [json.loads(ln) for ln in (out / "raw.jsonl").read_text().splitlines()]
    again = {
        (e["rec"]["em"], e["rec"]["ty"])
        for e in raw
        if e["kind"] == "record" and e.get("suite") == "layers" and e["rec"].get("t") == "mac"
    }
    assert again == {("viper", "int8"), ("bytecode", "int8")}
    # the plot and the summary come back from the saved file alone
    assert main(["report", str(out / "results.json")]) == 0
    assert "Layers of ad-autoencoder" in capsys.readouterr().out
    assert main(["plot", str(out / "results.json"), "-o", str(tmp_path / "p.svg")]) == 0
