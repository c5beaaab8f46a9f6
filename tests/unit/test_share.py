"""Results people share: the CSV/JSON exports, the notebook API and the example notebook."""

import csv
import json
import re
from pathlib import Path

import pytest

import mcuroof
from mcuroof.analysis import compare
from mcuroof.cli import main

DATA = Path(__file__).parents[1] / "data"
KWS = DATA / "results-kws-microbit.json"


def test_export_csv_is_tidy_with_units(tmp_path, capsys):
    assert main(["export", str(KWS), "--csv", str(tmp_path / "csv"), "--json", str(tmp_path / "all.json")]) == 0
    data = json.loads(KWS.read_text())
    names = {p.name for p in (tmp_path / "csv").iterdir()}
    assert names == {"roofs.csv", "ridges.csv", "points.csv", "sweeps.csv", "model.csv"}
    with (tmp_path / "csv" / "points.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(data["points"])
    assert {"executed_macs_per_s", "bytes_per_s", "seconds", "oi_executed_macc_per_byte", "short_name"} <= set(rows[0])
    first = data["points"][0]
    assert float(rows[0]["executed_macs_per_s"]) == pytest.approx(first["macs_per_s"])
    assert rows[0]["short_name"] == "CONV 0" and rows[0]["name"] == first["name"]
    # the columns agree with each other: rate = executed MACs / seconds, intensity = executed MACs / bytes
    for r in rows:
        assert float(r["executed_macs_per_s"]) == pytest.approx(float(r["macc_executed"]) / float(r["seconds"]))
        assert float(r["oi_executed_macc_per_byte"]) == pytest.approx(float(r["macc_executed"]) / float(r["bytes"]))
    # every row of every file names its board, what its time counts and the tool
    for name in names:
        with (tmp_path / "csv" / name).open() as f:
            for r in csv.DictReader(f):
                assert (r["board"], r["time_counts"], float(r["step_hz"])) == (
                    "qemu-microbit",
                    "instructions",
                    15.625e6,
                )
                assert r["tool"] == data["tool"]
    with (tmp_path / "csv" / "roofs.csv").open() as f:
        top = next(csv.DictReader(f))
    assert float(top["bytes_per_step"]) == pytest.approx(float(top["bytes_per_s"]) / 15.625e6)  # B/instr
    with (tmp_path / "csv" / "sweeps.csv").open() as f:
        sweeps = list(csv.DictReader(f))
    assert len(sweeps) == sum(len(s["points"]) for s in data["sweeps"])
    doc = json.loads((tmp_path / "all.json").read_text())
    assert len(doc["roofs"]) == len(data["roofs"]) and doc["model"][0]["model"] == "kws-dscnn"


def test_export_needs_a_target(capsys):
    assert main(["export", str(KWS)]) == 2
    assert "needs --csv DIR or --json FILE" in capsys.readouterr().err


def test_api_typed_records_and_plot(tmp_path):
    r = mcuroof.load(KWS)
    data = json.loads(KWS.read_text())
    assert len(r.roofs) == len(data["roofs"]) and len(r.points) == len(data["points"])
    assert r.points[0].short_name == "CONV 0" and r.points[0].output_shape == [1, 25, 5, 64]
    assert all(s.working_set_bytes == sorted(s.working_set_bytes) for s in r.sweeps)
    ax = r.plot()
    assert ax.get_xscale() == "log" and any(getattr(t, "mcuroof_roofs", None) for t in ax.texts)
    ax2 = mcuroof.plot_compare([r, mcuroof.load(DATA / "results-vww-unix.json")])
    assert ax2.get_xscale() == "log"
    assert {p.name for p in r.to_csv(tmp_path / "c")} >= {"points.csv"}


@pytest.mark.parametrize("name", ["results-kws-microbit.json", "results-vww-unix.json"])
def test_report_at_80_columns_cuts_no_number(name, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["report", str(DATA / name)]) == 0
    out = capsys.readouterr().out
    assert "…" not in out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "left out:" in out  # the columns it could not afford are named
    data = json.loads((DATA / name).read_text())
    p = data["points"][0]
    assert f"{p['oi']:.3g}" in out
    for row in data["model"]["whole_model"]:  # each row names its emitter beside its measured / predicted
        ratio = f"{row['measured_over_predicted']:.3g}x"
        assert any(row["emitter"] in ln and ln.rstrip(" │").endswith(ratio) for ln in out.splitlines()), ratio


def test_analyze_at_80_columns_keeps_every_number_whole(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["analyze", "--model", "kws-dscnn"]) == 0
    out = capsys.readouterr().out
    assert "…" not in out and max(len(line) for line in out.splitlines()) <= 80
    assert "left out: input, act B (in+out) (a wider terminal or mcuroof analyze --csv has them)" in " ".join(
        out.split()
    )
    assert "DEPTHWISE_CONV_2D" in out and "2,656,768" in out  # op names and the total, not cut


def test_report_piped_keeps_every_column(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    assert main(["report", str(DATA / "results-vww-unix.json")]) == 0
    out = capsys.readouterr().out
    assert "…" not in out and "left out:" not in out
    assert "bytes/s (of roof)" in out and "/ theory" in out
    # the unix port counts host time: no per-cycle column of dashes
    assert "host time" in out and not re.search(r"┃\s*per (cycle|instr)\s*┃", out)


def test_compare_matches_layers_by_shape_and_names_missing_ones():

    a = json.loads(KWS.read_text())
    b = json.loads(KWS.read_text())
    b["model"]["name"] = "kws_ref_model"  # the same network loaded from a .tflite: other names, same shapes
    for p in b["points"]:
        p["name"] = f"functional_1/very/long/tensor/{p['name']}"
    lay = compare.layer_comparison([("A", a), ("B", b)])
    assert lay["shared"] == len({p["index"] for p in a["points"]}) and "matched by op and shapes" in lay["match_note"]
    assert lay["layers"][0]["layer"] == "CONV 0"
    asm = next(v for v in lay["network"] if v["run"] == 0 and v["emitter"] == "asm_thumb")
    # asm_thumb has no AVERAGE_POOL kernel: its row stays, names the layer and its bytecode time
    assert not asm["complete"] and [m["layer"] for m in asm["missing"]] == ["AVGPOOL 9"]
    pool = next(p for p in a["points"] if p["index"] == 9)
    assert asm["missing"][0]["seconds"] == pytest.approx(pool["seconds"])
    assert asm["seconds"] == pytest.approx(asm["measured_seconds"] + pool["seconds"])


def test_cliff_marks_the_known_cache_sizes(tmp_path):
    """The cache sizes the levels were named after are drawn as lines on the cliff (PNG and HTML)."""
    from mcuroof.report import cliff
    from mcuroof.report import html_figures as html_report

    data = json.loads((DATA / "results-vww-unix.json").read_text())
    data["board"]["caches"] = [
        {"name": "L1d", "bytes": 32768},
        {"name": "L2", "bytes": 1 << 20},
        {"name": "DRAM", "bytes": None},
    ]
    assert cliff.known_sizes(data) == [{"name": "L1d", "bytes": 32768}, {"name": "L2", "bytes": 1 << 20}]
    assert cliff.draw(data, tmp_path / "cliff.png").stat().st_size > 0
    names = [t.name for t in html_report.cliff_figure(data).data]
    assert "L1d 32 KiB" in names and "L2 1 MiB" in names
