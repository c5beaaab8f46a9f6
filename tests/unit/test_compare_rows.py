"""analysis.compare by hand: matched roofs and their ratios, run labels, layers matched by
shape, and a whole network whose variants lack layers."""

from pathlib import Path

import pytest

from factories import point, roof, run_result
from mcuroof.analysis import compare


def _rows_by_name(rows):
    return {(r["kind"], r["name"], r["emitter"], r["dtype"]): r for r in rows}


def test_roof_rows_top_roofs_then_shared_ones_with_ratios_to_the_first_run():
    a = run_result("a", 1)  # memory 40 MB/s, int32 asm_thumb 3.5 MMACC/s, int8 bytecode 16 kMACC/s
    b = run_result("b", 2, theory=[roof("compute", "int8 viper", 1e9, emitter="viper", dtype="int8")])
    b["roofs"][-1]["source"] = "measured"  # B alone has a faster compute roof
    rows = compare.roof_rows([("A", a), ("B", b)])
    assert [r["name"] for r in rows[:2]] == ["top memory roof", "top compute roof"]
    assert rows[0]["values"] == [40e6, 80e6] and rows[0]["ratios"] == [1.0, 2.0]
    assert rows[1]["values"] == [3.5e6, 1e9]  # the top roof whatever its name
    assert rows[1]["ratios"] == [1.0, pytest.approx(1e9 / 3.5e6)]
    named = _rows_by_name(rows[2:])
    # shared by both runs: every measured roof of run_result; "int8 viper" is B's alone: no row
    assert ("compute", "int8 viper", "viper", "int8") not in named
    bytecode = named[("compute", "int8 bytecode", "bytecode", "int8")]
    assert bytecode["values"] == [16e3, 32e3] and bytecode["ratios"] == [1.0, 2.0]
    assert len(rows) == 2 + 4


def test_roof_rows_no_ratio_where_the_first_run_lacks_the_roof():
    a, b, c = run_result("a", 1), run_result("b", 2), run_result("c", 4)
    a["roofs"] = [r for r in a["roofs"] if r["name"] != "flash read"]
    flash = next(r for r in compare.roof_rows([("A", a), ("B", b), ("C", c)]) if r["name"] == "flash read")
    assert flash["values"] == [None, 52e6, 104e6]
    assert flash["ratios"] == [None, None, None]


def test_roof_rows_a_run_with_no_measured_roof():
    a, b = run_result("a", 1), run_result("b", 1)
    b["roofs"] = [dict(r, source="theoretical") for r in b["roofs"]]
    rows = compare.roof_rows([("A", a), ("B", b)])
    assert rows[0]["values"] == [40e6, None] and rows[0]["ratios"] == [1.0, None]
    assert rows[1]["values"] == [3.5e6, None]
    assert len(rows) == 2  # nothing measured is shared


def test_labels_add_only_what_tells_runs_apart():
    a, b = run_result("qemu-m3", 1, shift=6), run_result("qemu-m3", 1, shift=4)
    assert compare.labels([a, b], [Path("x/results.json"), Path("y/results.json")]) == [
        "qemu-m3 shift=6",
        "qemu-m3 shift=4",
    ]
    # the same shift: the folders; real boards at two clocks: the clocks
    c, d = run_result("qemu-m3", 1, shift=6), run_result("qemu-m3", 1, shift=6)
    assert compare.labels([c, d], [Path("x/results.json"), Path("y/results.json")]) == ["qemu-m3 (x)", "qemu-m3 (y)"]
    e, f = run_result("pico", 1), run_result("pico", 1)
    e["board"]["clock_hz"], f["board"]["clock_hz"] = 125e6, 250e6
    assert compare.labels([e, f], [Path("r.json"), Path("r.json")]) == ["pico 125 MHz", "pico 250 MHz"]
    # an instruction-counted run's timer clock is never shown; the same folder twice: numbered
    g, h = run_result("qemu-m3", 1, shift=6), run_result("qemu-m3", 1, shift=6)
    h["board"]["clock_hz"] = 50e6
    assert compare.labels([g, h], [Path("r.json"), Path("r.json")]) == ["qemu-m3 (r.json) #1", "qemu-m3 (r.json) #2"]


def _shaped(name, index, dtype, emitter, seconds, shape=(1, 8, 8, 4), verified=True):
    p = point(name, dtype, emitter, seconds)
    p.update(index=index, op="CONV_2D", input_shapes=[list(shape)], output_shape=list(shape), verified=verified)
    return p


def test_layers_match_by_op_and_shapes_across_names_and_repeats():
    # the same two identical-shape layers under other tensor names (a .tflite file vs built-ins)
    a = run_result(
        "a", 1, points=[_shaped("conv_a", 0, "int8", "viper", 0.010), _shaped("conv_b", 1, "int8", "viper", 0.030)]
    )
    b = run_result("b", 1, points=[_shaped("x", 0, "int8", "viper", 0.005), _shaped("y", 1, "int8", "viper", 0.010)])
    b["model"] = {"name": "other"}
    a["model"] = {"name": "kws"}
    lay = compare.layer_comparison([("A", a), ("B", b)])
    assert lay["shared"] == 2
    assert [r["ratio"] for r in lay["layers"]] == [[1.0, 2.0], [1.0, 3.0]]  # the first with the first
    assert lay["match_note"] == "matched by op and shapes: kws, other"
    assert lay["best_total"] == [pytest.approx(0.040), pytest.approx(0.015)]


def test_different_models_with_no_shared_layer_say_so():
    a = run_result("a", 1, points=[_shaped("c", 0, "int8", "viper", 0.01, shape=(1, 4, 4, 2))])
    b = run_result("b", 1, points=[_shaped("c", 0, "int8", "viper", 0.01, shape=(1, 6, 6, 2))])
    a["model"], b["model"] = "kws.tflite", {"path": "vww.tflite"}
    lay = compare.layer_comparison([("A", a), ("B", b)])
    assert lay["layers"] == [] and lay["note"].startswith("different models (kws.tflite, vww.tflite)")


def test_network_variant_lacking_a_layer_takes_its_best_time_from_the_same_run():
    # A: conv1 on int8 viper 10 ms and asm_thumb 4 ms; fc only on viper 2 ms; an unverified
    # asm_thumb fc (1 ms) is not a time. B: both on viper.
    a = run_result(
        "a",
        1,
        points=[
            point("conv1", "int8", "viper", 0.010),
            point("conv1", "int8", "asm_thumb", 0.004),
            point("fc", "int8", "viper", 0.002),
            dict(point("fc", "int8", "asm_thumb", 0.001), verified=False),
        ],
    )
    b = run_result("b", 1, points=[point("conv1", "int8", "viper", 0.020), point("fc", "int8", "viper", 0.004)])
    lay = compare.layer_comparison([("A", a), ("B", b)])
    rows = {(v["run"], v["emitter"]): v for v in lay["network"]}
    thumb = rows[(0, "asm_thumb")]
    assert thumb["layers"] == 1 and thumb["complete"] is False
    assert thumb["measured_seconds"] == pytest.approx(0.004)
    assert thumb["seconds"] == pytest.approx(0.006)  # fc's 2 ms on viper included
    assert thumb["missing"] == [{"layer": "fc", "seconds": 0.002, "dtype": "int8", "emitter": "viper"}]
    assert rows[(0, "viper")]["complete"] is True and rows[(0, "viper")]["seconds"] == pytest.approx(0.012)
    assert [(v["run"], v["emitter"]) for v in lay["network"]] == [(0, "asm_thumb"), (0, "viper"), (1, "viper")]
    fc = next(r for r in lay["layers"] if r["layer"] == "fc")
    assert fc["best"][0] == {"dtype": "int8", "emitter": "viper", "seconds": 0.002}
    assert lay["best_total"] == [pytest.approx(0.006), pytest.approx(0.024)]


def test_network_variant_of_a_run_lacking_a_shared_layer_has_no_total():
    a = run_result("a", 1, points=[point("conv1", "int8", "viper", 0.01), point("fc", "int8", "viper", 0.002)])
    b = run_result("b", 1, points=[point("conv1", "int8", "viper", 0.02), point("fc", "int8", "viper", 0.004)])
    c = run_result("c", 1, points=[point("conv1", "int8", "viper", 0.04)])
    lay = compare.layer_comparison([("A", a), ("B", b), ("C", c)])
    row_c = next(v for v in lay["network"] if v["run"] == 2)
    assert row_c["seconds"] is None and row_c["missing"][0]["seconds"] is None
    assert lay["network"][-1] is row_c  # no total: listed last
    assert lay["best_total"][2] is None
    fc = next(r for r in lay["layers"] if r["layer"] == "fc")
    assert fc["best"][2] is None and fc["ratio"] == [1.0, 0.5, None]


def test_tags_and_variants():
    assert [compare.tag(i) for i in (0, 1, 25, 26)] == ["A", "B", "Z", "R27"]
    assert compare.variant(1, None, "viper") == "B ? viper"


def test_runs_whose_times_do_not_compare_get_no_ratio_and_no_fastest():
    # A under QEMU (instructions), B on the unix port (host time): 10 ms against 5 ms is no speed-up
    a = run_result("qemu-m3", 1, shift=6, points=[_shaped("c", 0, "int8", "viper", 0.010)])
    b = run_result("unix", 2, points=[_shaped("c", 0, "int8", "viper", 0.005)])
    b["board"] = {"name": "unix", "platform": "linux"}
    runs = [("A", a), ("B", b)]
    assert [r["ratios"] for r in compare.roof_rows(runs)[:2]] == [[1.0, None], [1.0, None]]
    lay = compare.layer_comparison(runs)
    assert lay["layers"][0]["ratio"] == [1.0, None] and lay["layers"][0]["fastest"] is None
    assert all(v["over_slowest"] is None for v in lay["network"])
    why = compare.not_compared(runs)
    assert why == (
        "run A counts QEMU instructions (-icount), run B counts the host's time (the unix port): "
        "their times do not compare"
    )


def test_qemu_runs_at_two_shifts_compare_by_instruction_count():
    # shift 6: 15.625 M instr/s; shift 7: half that. 10 ms at shift 6 = 156,250 instructions,
    # 20 ms at shift 7 = 156,250 instructions: the same count, ratio 1 (not 0.5)
    a = run_result("qemu-m3", 1, shift=6, points=[_shaped("c", 0, "int8", "viper", 0.010)])
    b = run_result("qemu-m3", 0.5, shift=7, points=[_shaped("c", 0, "int8", "viper", 0.020)])
    lay = compare.layer_comparison([("A", a), ("B", b)])
    assert lay["layers"][0]["ratio"] == [1.0, pytest.approx(1.0)]
    assert compare.not_compared([("A", a), ("B", b)]) is None
    # the memory roof: 40 MB/s at shift 6 and 20 MB/s at shift 7 are 2.56 B/instr both
    assert compare.roof_rows([("A", a), ("B", b)])[0]["ratios"] == [1.0, pytest.approx(1.0)]


def test_times_that_do_not_compare_are_shown_apart_each_in_its_own_unit():
    """QEMU's instructions beside rp2040js's cycles: no "504 ms" beside "638 ms", each in what it counts."""
    import io

    from rich.console import Console

    from mcuroof.report import compare as report_compare

    a = run_result("qemu-m7", 1, shift=6, points=[_shaped("c", 0, "int8", "viper", 0.504)])
    b = run_result("rp2040js-pico", 1, points=[_shaped("c", 0, "int8", "viper", 0.638)])
    b["board"] = {"name": "rp2040js-pico", "platform": "rp2040js-pico", "clock_hz": 125e6}
    out = io.StringIO()
    con = Console(file=out, width=300, color_system=None)
    for item in report_compare.tables([("A", a), ("B", b)]):
        con.print(item)
    text = out.getvalue()
    assert "504 ms" not in text and "638 ms" not in text
    assert "7.88 M instr" in text and "79.8 M cycles" in text  # 0.504 s x 15.625 M/s; 0.638 s x 125 MHz
    assert "MMACC/s" not in text and "MB/s" not in text  # roofs per step, not per second of two clocks
    assert "their times do not compare" in text
