"""`mcuroof compare`, the measured / theoretical column, and `run --clocks`."""

import pytest
from rich.console import Console

from conftest import needs_qemu
from factories import point, roof, run_result
from mcuroof.analysis import compare
from mcuroof.analysis.records import Roof
from mcuroof.cli import main
from mcuroof.report import tables as report
from mcuroof.results import document as results


def test_roof_rows_match_by_kind_name_emitter_dtype():
    a, b = run_result("qemu-microbit", 1, 6), run_result("qemu-microbit", 2, 5)
    b["roofs"].append(roof("compute", "float32 bytecode", 1e3, emitter="bytecode", dtype="float32"))  # only in B
    rows = compare.roof_rows([("A", a), ("B", b)])
    by_name = {r["name"]: r for r in rows}
    # B's rates are twice A's per second, but shift 5 runs twice the instructions a second: per
    # instruction (what QEMU runs compare by) they are the same
    assert rows[0]["name"] == "top memory roof" and rows[0]["ratios"] == [1.0, 1.0]
    assert by_name["top compute roof"]["values"] == [3.5e6, 7e6]
    assert by_name["flash read"]["ratios"] == [1.0, 1.0]
    assert "float32 bytecode" not in by_name  # one run only: nothing to compare


def test_labels_are_distinct():
    a, b = run_result("qemu-microbit", 1, 6), run_result("qemu-microbit", 2, 6)
    from pathlib import Path

    labels = compare.labels([a, b], [Path("x/results.json"), Path("y/results.json")])
    assert labels == ["qemu-microbit (x)", "qemu-microbit (y)"]  # one shift: not a difference
    # an instruction-counted run's timer clock is never part of its name; a real board's clock is
    real = [run_result("teensy4", 1, None), run_result("teensy4", 1, None)]
    real[0]["board"].update(platform="mimxrt", clock_hz=600e6)
    real[1]["board"].update(platform="mimxrt", clock_hz=150e6)
    assert compare.labels(real, [Path("a/r.json"), Path("b/r.json")]) == ["teensy4 600 MHz", "teensy4 150 MHz"]


def test_compare_command(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    pa, pb = tmp_path / "a" / "results.json", tmp_path / "b" / "results.json"
    pa.parent.mkdir()
    pb.parent.mkdir()
    results.save(run_result("qemu-microbit", 1, 6, points=[point("conv1", "int8", "asm_thumb", 0.01)]), pa)
    # 10 ms at shift 6 (64 ns an instruction) is 156,250 instructions, 4 ms at shift 5 (32 ns) 125,000
    results.save(run_result("qemu-microbit", 2, 5, points=[point("conv1", "int8", "asm_thumb", 0.004)]), pb)
    out = tmp_path / "cmp.png"
    assert main(["compare", str(pa), str(pb), "-o", str(out)]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"
    text = capsys.readouterr().out
    assert "qemu-microbit shift=6" in text and "qemu-microbit shift=5" in text and "B/A" in text
    # both runs count instructions: the ratios say so, and nothing is called a speed-up or a clock
    assert "flash read" in text and "fewest instructions (QEMU time) for the whole network: B" in text
    assert "instruction-count ratio" in text and "speed-up" not in text and "MHz" not in text
    assert "instructions (QEMU shift=6: 15.6 M instr/s)" in text and "(2.56/instr)" in text


def test_a_ratio_against_a_missing_roof_is_a_dash_everywhere():
    a, b = run_result("qemu-microbit", 1, 6), run_result("qemu-microbit", 2, 6)
    c = run_result("qemu-microbit", 3, 6)
    extra = roof("compute", "float32 bytecode", 1e3, emitter="bytecode", dtype="float32")
    b["roofs"].append(extra)
    c["roofs"].append({**extra, "macs_per_s": 3e3})
    row = next(r for r in compare.roof_rows([("A", a), ("B", b), ("C", c)]) if r["name"] == "float32 bytecode")
    assert row["values"] == [None, 1e3, 3e3] and row["ratios"] == [None, None, None]  # never against B


def test_compare_checks_its_outputs_before_it_prints(tmp_path, capsys):
    pa = tmp_path / "a.json"
    results.save(run_result("qemu-microbit", 1, 6), pa)
    out = tmp_path / "new" / "folder" / "compare.png"  # made, as run -o makes its folder
    assert main(["compare", str(pa), str(pa), "-o", str(out)]) == 0 and out.exists()
    capsys.readouterr()
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert main(["compare", str(pa), str(pa), "-o", str(blocked / "compare.png")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "cannot write the plot" in captured.err  # no table printed first


def test_many_runs_are_told_apart_and_named_beside_the_plot(tmp_path):
    from mcuroof.report import compare as report_compare

    runs = [
        (f"r{i}", run_result("qemu-microbit", i + 1, 6, points=[point("conv1", "int8", "asm_thumb", 0.01 / (i + 1))]))
        for i in range(4)
    ]
    seen = {}

    def keep(fig, path):
        seen["ax"] = fig.axes[0]
        return path

    real = report_compare.plot_mod.save
    report_compare.plot_mod.save = keep
    try:
        report_compare.draw(runs, tmp_path / "c.png")
    finally:
        report_compare.plot_mod.save = real
    ax = seen["ax"]
    colors = [tuple(c.get_facecolor()[0][:3]) for c in ax.collections]  # a run's points in its line's colour
    import matplotlib.colors as mc

    assert colors == [mc.to_rgb(report_compare.run_color(i)) for i in range(4)]
    assert not [t for t in ax.texts if getattr(t, "mcuroof_roofs", None)]  # no roof label on the plot
    table = [
        t.get_text() for lg in ax.get_children() if hasattr(lg, "get_texts") and lg is not ax for t in lg.get_texts()
    ]
    assert any(t.startswith("D: r3") for t in table)


def test_theory_ratio_column_by_hand():
    theory = [
        roof("memory", "SRAM", 80e6, emitter=None, dtype=None, role="roof", source="theoretical"),
        roof("compute", "Cortex-M0 int32", 7e6, emitter=None, source="theoretical"),
        roof("compute", "Cortex-M0 int8", 14e6, emitter=None, dtype="int8", source="theoretical"),
    ]
    data = run_result("qemu-microbit", 1, 6, theory=theory)
    rs = [Roof.from_dict(r) for r in data["roofs"]]
    theory = [Roof.from_dict(r) for r in theory]
    assert report.theory_ratio(rs[0], rs) == "0.5 SRAM"  # 40 MB/s of 80 MB/s
    assert report.theory_ratio(rs[1], rs) == "-"  # flash: the profile has no figure
    assert report.theory_ratio(rs[2], rs) == "0.5"  # int32 3.5 of 7 MMACC/s
    assert report.theory_ratio(rs[3], rs) == "0.0011"  # int8 bytecode 16 k of 14 MMACC/s
    assert report.theory_ratio(theory[0], rs) == "-"  # theoretical rows have no ratio
    console = Console(width=200, color_system=None, record=True)
    console.print(report.roofs_table(data))
    text = console.export_text()
    assert "/ theory" in text and "0.5 SRAM" in text


@pytest.mark.parametrize("text, message", [("64M,12x", "cannot read '12x'"), ("64M,64M", "twice"), ("", "cannot read")])
def test_bad_clock_lists(tmp_path, capsys, text, message):
    code = main(["run", "--board", "unix", "--clocks", text or ",", "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and message in err[0]


def test_clocks_on_a_port_without_settable_freq_unix(tmp_path, capsys):
    code = main(["run", "--board", "unix", "--suite", "regions", "--clocks", "64M", "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "unix cannot set its clock" in err[0]


@needs_qemu
def test_clocks_on_qemu_microbit_is_one_line_error(tmp_path, capsys):
    code = main(["run", "--board", "qemu-microbit", "--suite", "regions", "--clocks", "64M", "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "qemu-microbit cannot set its clock: machine.freq(64000000)" in err[0]
