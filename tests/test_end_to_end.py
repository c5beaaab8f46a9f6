"""End to end on the emulated board: QEMU's micro:bit, real firmware, mpremote over a pty."""
import json
import subprocess

import pytest

from mcuroof import results
from mcuroof.cli import main

from conftest import needs_qemu


@needs_qemu
def test_run_on_qemu_microbit(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "--board", "qemu-microbit", "-o", str(out)]) == 0
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
    assert subprocess.run(["pgrep", "-f", "qemu-system-arm -M microbit"], capture_output=True).returncode != 0
    assert "Ridge points" in capsys.readouterr().out
