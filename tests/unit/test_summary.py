"""The short summary of a run with a model (issue 33): a measured figure first, the best emitter
per layer by op kind, each piece of advice once; the long tables behind --details."""

import copy
from pathlib import Path

from rich.console import Console

from mcuroof.commands import run as run_cmd
from mcuroof.report import summary, tables, terminal
from mcuroof.results import document

DATA = Path(__file__).parents[1] / "data"


def _kws() -> dict:
    return document.load(DATA / "results-kws-microbit.json")  # its advice derived again, as `report` does


def _text(items, width: int) -> str:
    con = Console(width=width, color_system=None, record=True)
    for item in items:
        terminal.show(con, item)
    return con.export_text()


def test_the_best_emitter_per_layer_is_the_run_that_took_least_time():
    data = _kws()
    best = summary.best_per_layer(data)
    assert [p.index for p in best] == sorted({p["index"] for p in data["points"] if p["verified"]})
    for p in best:
        others = [q for q in data["points"] if q["index"] == p.index and q["verified"]]
        assert p.seconds == min(q["seconds"] for q in others)
    pool = next(p for p in best if p.op == "AVERAGE_POOL_2D")
    assert pool.emitter == "bytecode"  # its asm_thumb run is a lone tile, slower here
    rows = [[p.index for p in g] for g in summary.groups(best)]
    assert rows == [[0, 2, 4, 6, 8], [1, 3, 5, 7], [9], [11]]  # by op kind and emitter


def test_advice_that_differs_only_in_numbers_is_said_once_with_their_range():
    data = _kws()
    lines = summary.advice_lines(data)
    best = summary.best_per_layer(data)
    assert len(lines) < len({p.advice for p in best})  # merged
    for p in best:  # every best run's advice is in one line, with its layer named
        assert any(p.short_name in ln.split("):")[0] for ln in lines)
    far = next(ln for ln in lines if "far below its roof" in ln)
    heads = [p.headroom for p in best if (p.advice or "").startswith("far below")]
    assert f"({min(heads):.3g}-{max(heads):.3g}x)" in far
    # a number inside a name is not a number to merge
    assert summary.NUMBER.findall("int8 SXTB16 2.85x 79% 987x, smlad") == ["2.85", "79", "987"]


def test_the_first_line_is_a_measured_figure_and_says_a_projected_one_is_projected():
    data = _kws()  # the micro:bit's layers ran on tiles
    lead = summary.lead_line(data)
    top = max(r["macs_per_s"] for r in data["roofs"] if r["kind"] == "compute" and r["source"] == "measured")
    assert lead.startswith("measured: the fastest compute ceiling here is int32 asm_thumb, 3.48 MMACC/s")
    assert f"{top / 1e6:.3g} MMACC/s" in lead and "projected from them, not measured" in lead
    whole = copy.deepcopy(data)  # every layer whole, and the model fits: its time leads
    for p in whole["points"]:
        p["tile_fraction"] = 1.0
    whole["model"]["fit"] = {"fits": True, "text": "fits"}
    row = min(whole["model"]["whole_model"], key=lambda r: r["measured_seconds"])
    lead = summary.lead_line(whole)
    instr = row["measured_seconds"] * 1e9 / 64  # QEMU shift 6: 64 ns an instruction
    assert lead.startswith(f"measured: kws-dscnn takes {instr / 1e6:.3g} M instr per inference (")
    assert f"{row['measured_seconds']:.3g} s at 64 ns an instruction, {instr / row['macc']:.3g} instr a MAC)" in lead
    assert "inferences/s" not in lead and "with asm_thumb" in lead  # no rate in seconds where time is not a chip's
    assert "time counts instructions (QEMU shift=6" in lead
    skipped = [f"{s['op']} {s['index']}" for s in whole["model"]["not_profiled"] if not s.get("emitter")]
    assert f"({', '.join(skipped)} not profiled: left out)" in lead


def test_a_run_prints_the_summary_at_80_columns_and_piped_the_details_with_the_option():
    data = _kws()
    short = tables.renderables(data, details=False, folder="out")
    for width in (80, terminal.PIPE_WIDTH):
        text = _text(short, width)
        assert "…" not in text and max(len(x) for x in text.splitlines()) <= width
        assert text.lstrip().startswith("measured:")
        assert "Best emitter per layer" in text and "mcuroof report out/results.json" in " ".join(text.split())
        assert "ridge at" not in text and "Layers of" not in text
        assert "layer #" in text  # the layers a row holds are never the column left out
    long = _text(tables.renderables(data), 400)
    assert "ridge at memory" in long and "Layers of" in long and len(long.splitlines()) > len(text.splitlines())


def test_the_time_line_names_the_firmware_build():
    assert run_cmd._time_parts(36.2, True, 5.2) == "36.2 s building its firmware and opening the board, 5.2 s of suites"
    assert run_cmd._time_parts(0.07, False, 5.2) == "70 ms opening the board, 5.2 s of suites"
