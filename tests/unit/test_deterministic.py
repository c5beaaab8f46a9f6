"""The same results give byte-identical outputs, whatever Python's hash seed: every output kind
(terminal report, CSV, JSON, PNG, SVG, PDF, cliff, report.html, compare tables, PNG and HTML)
written in two processes with different PYTHONHASHSEEDs, and their hashes compared."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parents[1] / "data"
pytestmark = pytest.mark.slow

# every command that writes or prints an output, run in one process (one plotly, one matplotlib)
SCRIPT = """
import contextlib, io, json, sys
from pathlib import Path
from mcuroof.cli import main
for name, argv in json.loads(sys.argv[1]).items():
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        assert main(argv) == 0, argv
    Path(name + ".txt").write_text(text.getvalue())
"""
COMMANDS = {  # paths relative to the folder each process runs in
    "report-kws": ["report", "in/kws.json"],
    "report-vww": ["report", "in/vww.json"],
    "report-kws4": ["report", "in/kws4.json"],
    "export": ["export", "in/vww.json", "--csv", "csv", "--json", "all.json"],
    "export4": ["export", "in/kws4.json", "--csv", "csv4"],
    "png": ["plot", "in/kws.json", "-o", "roofline.png"],
    "svg": ["plot", "in/vww.json", "-o", "roofline.svg"],
    "pdf": ["plot", "in/kws4.json", "-o", "roofline.pdf", "--panels"],
    "cliff": ["plot", "in/vww.json", "--cliff", "-o", "cliff.svg"],
    "html": ["report", "in/kws4.json", "--html", "report.html"],
    "compare": ["compare", "in/kws.json", "in/vww.json", "in/kws4.json", "-o", "compare.png", "--html", "compare.html"],
    "compare2": ["compare", "in/kws.json", "in/kws4.json", "-o", "compare2.svg"],
}


def four_emitters(kws: Path, path: Path) -> None:
    """The KWS results with its points copied to native and viper too: four emitters whose points
    share layers and advice (where set order showed first: "advice fuse (9 viper, 9 asm_thumb)")."""
    data = json.loads(kws.read_text())
    extra = [{**p, "emitter": em} for em in ("native", "viper") for p in data["points"]]
    data["points"] += extra
    data["board"]["emitters"] = ["bytecode", "native", "viper", "asm_thumb"]
    path.write_text(json.dumps(data))


def outputs(tmp: Path, seed: str) -> dict[str, str]:
    out = tmp / f"seed{seed}"
    (out / "in").mkdir(parents=True)
    kws = DATA / "results-kws-microbit.json"
    (out / "in" / "kws.json").write_bytes(kws.read_bytes())
    (out / "in" / "vww.json").write_bytes((DATA / "results-vww-unix.json").read_bytes())
    four_emitters(kws, out / "in" / "kws4.json")
    env = {**os.environ, "PYTHONHASHSEED": seed, "COLUMNS": "300"}
    subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(COMMANDS)], cwd=out, env=env, check=True, timeout=900)
    return {
        str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.parent.name != "in"
    }


def test_every_output_is_the_same_under_two_hash_seeds(tmp_path):
    first, second = outputs(tmp_path, "1"), outputs(tmp_path, "2")
    kinds = {Path(name).suffix for name in first}
    assert kinds >= {".txt", ".csv", ".json", ".png", ".svg", ".pdf", ".html"}, kinds
    assert len(first) >= 25
    differ = sorted(name for name in first if first[name] != second.get(name))
    assert first.keys() == second.keys() and not differ, differ
