"""mcuroof npu's per-layer table (Vela's NPU cycles beside the CPU run's measured time and its
steps) and its report.html (the interactive stacked roofline and the same tables), from a
Vela output parsed by hand-written CSV; and the C-engine mark's rule on the NPU figures."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from mcuroof.npu import document
from mcuroof.report import npu_html, npu_plot, npu_tables, reference_marks
from mcuroof.report.html_tables import cell_value
from unit.test_npu import estimate


def cpu_run(board: dict, core: str) -> dict:
    """A measured CPU run whose layer conv_1 took 2 ms and dense 40 us (asm_thumb int8)."""
    points = [
        {"index": 0, "name": "conv_1", "op": "CONV_2D", "emitter": "asm_thumb", "dtype": "int8", "macc": 512000,
         "seconds": 2e-3, "macs_per_s": 2.56e8, "oi": 20.0},
        {"index": 1, "name": "dense", "op": "FULLY_CONNECTED", "emitter": "asm_thumb", "dtype": "int8", "macc": 768,
         "seconds": 4e-5, "macs_per_s": 1.92e7, "oi": 0.7},
    ]  # fmt: skip
    results = {"board": {**board, "core": {"name": core}}, "roofs": [], "points": points}
    return document.cpu_section(results, "cpu/results.json")


QEMU = {"name": "qemu-m55", "icount_shift": 6}
PICO = {"name": "rp2040js-pico", "clock_hz": 125_000_000}


def doc_on(board: dict, core: str) -> dict:
    return document.document([document.Compiled(estimate(), {"probs": 0}, None, "int8")], cpu_run(board, core), core)


def test_per_layer_table_by_hand():
    g = npu_tables.per_layer_grid(doc_on(QEMU, "Cortex-M55"))
    rows = {r[2]: dict(zip(g.headers, r)) for r in g.rows}
    conv = rows["CONV 0"]
    # Vela: 5,944 cycles at 500 MHz = 11.9 us; QEMU shift 6: 2 ms = 31,250 instructions of 64 ns
    assert conv["NPU cycles"] == "5,944" and conv["NPU time"] == "11.9 us"
    assert cell_value(conv["CPU instructions (QEMU)"]) == pytest.approx(31_250, rel=1e-2)
    # QEMU's instructions are no cycles at a clock: no CPU seconds beside the NPU's, no ratio, and why
    assert "CPU time" not in g.headers and "CPU / NPU time" not in g.headers
    assert "no CPU / NPU ratio" in g.caption and "instructions" in g.caption
    assert rows["FC 1"]["NPU cycles"] == "1,040"
    assert "not measured" in g.caption and "500 MHz" in g.caption
    pico = npu_tables.per_layer_grid(doc_on(PICO, "Cortex-M0+"))
    assert "CPU cycles" in pico.headers  # 2 ms at 125 MHz = 250 k cycles
    assert cell_value(pico.rows[0][pico.headers.index("CPU cycles")]) == pytest.approx(250_000)
    conv = dict(zip(pico.headers, pico.rows[0]))  # cycles at stated clocks both: seconds and their ratio
    assert conv["CPU time"] == "2 ms" and conv["CPU / NPU time"] == f"{2e-3 / (5944 / 500e6):.0f}x"  # 168x


def test_terminal_and_html_carry_the_same_tables_and_say_estimated():
    doc = doc_on(QEMU, "Cortex-M55")
    con = Console(file=io.StringIO(), width=250, color_system=None)
    for item in npu_tables.renderables(doc):
        con.print(item)
    text = con.file.getvalue()
    page = npu_html.page(doc)
    for title in ("Per layer: NPU estimate beside qemu-m55", "Operators Vela leaves on the CPU", "NPU roofs"):
        assert title in text and title in page
    assert page.count("estimated by Vela 5.2, not measured") >= 3 and "probs" in page
    fig = npu_html.figure(doc)
    vela = [t for t in fig.data if "Vela estimate" in (t.name or "")]
    assert [len(t.x) for t in vela] == [2]  # conv_1 and dense; the fused Relu is no point
    assert any("no published result on a Cortex-M55" in a.text for a in fig.layout.annotations)


def test_npu_figures_draw_the_c_engine_only_on_a_cycle_counted_cpu():
    pico, qemu = doc_on(PICO, "Cortex-M0+"), doc_on({"name": "qemu-m7", "icount_shift": 6}, "Cortex-M7")
    (drawn,) = reference_marks.npu_marks(pico)  # no MLPerf model here: the core's best of the four
    assert drawn.macs_per_s == pytest.approx(drawn.macs_per_cycle * 125e6)
    assert [m.macs_per_s for m in reference_marks.npu_marks(qemu)] == [None]
    fig = npu_plot.figure(qemu)
    assert "not drawn" in fig.texts[0].get_text()
    assert not [ln for ln in fig.axes[0].get_lines() if "C engine" in ln.get_label()]
    npu_plot.plt.close(fig)
    fig = npu_plot.figure(pico)
    assert [ln for ln in fig.axes[0].get_lines() if "C engine" in ln.get_label()]
    npu_plot.plt.close(fig)
    assert [t for t in npu_html.figure(pico).data if (t.name or "").startswith("C engine")]


def test_per_layer_table_sums_each_model_and_configuration():
    g = npu_tables.per_layer_grid(doc_on(PICO, "Cortex-M55"))
    total = dict(zip(g.headers, g.rows[-1]))
    # conv_1 + dense: 5,944 + 1,040 NPU cycles; 2 ms + 40 us measured
    assert total["layer"] == "sum of 2" and total["NPU cycles"] == "6,984" and total["MACs"] == "512,768"
    assert total["CPU time"] == "2.04 ms" and total["CPU / NPU time"] == f"{2.04e-3 / (6984 / 500e6):.0f}x"


def test_roofs_of_several_runs_of_one_board_merge_and_two_boards_are_refused(tmp_path, capsys):
    import json
    from pathlib import Path

    from mcuroof.cli import main
    from mcuroof.commands import npu as npu_command

    examples = Path(__file__).resolve().parents[2] / "examples"
    kws = json.loads((examples / "kws-microbit.json").read_text())
    other = {**kws, "roofs": [], "model": {**kws["model"], "name": "other"}}
    (tmp_path / "other.json").write_text(json.dumps(other))
    cpu, core = npu_command.cpu_of([tmp_path / "other.json", examples / "kws-microbit.json"])
    assert cpu["roofs"] and cpu["board"] == "qemu-microbit"  # the roofs of the run that measured some
    assert {p["model"] for p in cpu["points"]} == {"other", kws["model"]["name"]}
    assert len(cpu["points"]) == 2 * len(kws["points"])
    args = ["npu", "kws-dscnn", "--config", "ethos-u55-128", "-o", str(tmp_path / "o"), "--roofs"]
    assert main(args + [str(examples / "kws-microbit.json"), str(examples / "vww-unix.json")]) == 2
    assert "one CPU board at a time" in capsys.readouterr().err


def test_a_layer_is_never_placed_by_another_model_s_run_of_the_same_layer_name():
    doc = doc_on(QEMU, "Cortex-M55")  # the CPU run's points carry no model: one run, matched by name
    assert npu_tables.per_layer_grid(doc) is not None
    cpu = cpu_run(QEMU, "Cortex-M55")
    two = [{**p, "model": "kws"} for p in cpu["points"]] + [{**p, "model": "vww"} for p in cpu["points"]]
    cpu = {**cpu, "points": two}  # m.tflite is neither kws nor vww
    doc = document.document([document.Compiled(estimate(), {"probs": 0}, None, "int8")], cpu, "Cortex-M55")
    assert npu_tables.per_layer_grid(doc) is None and doc["whole_model"][0]["seconds"] is None


def test_a_cpu_run_without_a_memory_roof_still_draws_its_compute_roof_and_says_so():
    import math

    from mcuroof.report import npu_plot

    comp = {"kind": "compute", "name": "int8 asm_thumb smlad", "macs_per_s": 2.94e7}
    mem = {"kind": "memory", "name": "memory", "bytes_per_s": 4.1e7}
    assert npu_plot.cpu_roof({"roofs": []}) is None
    compute, bandwidth, what = npu_plot.cpu_roof({"roofs": [comp]})
    assert (compute, bandwidth) == (2.94e7, math.inf) and what.endswith("(no memory roof measured)")
    assert npu_plot.cpu_roof({"roofs": [comp, mem]})[:2] == (2.94e7, 4.1e7)


def test_bad_roofs_are_named_before_vela_is_required(tmp_path, capsys, monkeypatch):
    """Without the npu extra, a user's bad input is still named (and this file's tests need no
    Vela: pip install -e '.[test]' runs them)."""
    import importlib.metadata
    from pathlib import Path

    from mcuroof.cli import main

    def absent(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", absent)
    examples = Path(__file__).resolve().parents[2] / "examples"
    args = ["npu", "kws-dscnn", "--config", "ethos-u55-128", "-o", str(tmp_path / "o"), "--roofs"]
    assert main(args + [str(examples / "kws-microbit.json"), str(examples / "vww-unix.json")]) == 2
    assert "one CPU board at a time" in capsys.readouterr().err
    assert main(args + [str(examples / "kws-microbit.json")]) == 2
    assert "Vela is not installed" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
