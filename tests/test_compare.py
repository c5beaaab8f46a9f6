"""`mcuroof compare`, the measured / theoretical column, and `run --clocks`."""
import pytest
from rich.console import Console

from mcuroof import clocks, compare, report, results
from mcuroof.cli import main

from conftest import needs_qemu


def roof(kind, name, value, emitter="asm_thumb", dtype="int32", role="ceiling", source="measured", **extra):
    unit = "bytes_per_s" if kind == "memory" else "macs_per_s"
    return {"kind": kind, "role": role, "name": name, "emitter": emitter, "dtype": dtype, "source": source,
            unit: value, **extra}


def run_result(name, scale, shift=None, points=(), theory=()):
    roofs = [roof("memory", "memory", 40e6 * scale, role="roof", level=1, ws_range=[48, 3072]),
             roof("memory", "flash read", 26e6 * scale, role="region", region="flash"),
             roof("compute", "int32 asm_thumb", 3.5e6 * scale, role="roof"),
             roof("compute", "int8 bytecode", 16e3 * scale, emitter="bytecode", dtype="int8"),
             *theory]
    return {"schema": 1, "board": {"name": name, "firmware": "MicroPython 1.9.2", "clock_hz": 16e6,
                                   "icount_shift": shift}, "roofs": roofs, "ridges": [], "points": list(points)}


def point(layer, dtype, emitter, seconds, macc=1000):
    return {"index": 0, "name": layer, "op": "conv", "dtype": dtype, "emitter": emitter, "seconds": seconds,
            "macc": macc, "oi": 1.0, "macs_per_s": macc / seconds, "bytes_per_s": macc / seconds, "verified": True,
            "bound": "compute", "tile_fraction": 1.0, "advice": ""}


def test_roof_rows_match_by_kind_name_emitter_dtype():
    a, b = run_result("qemu-microbit", 1, 6), run_result("qemu-microbit", 2, 5)
    b["roofs"].append(roof("compute", "float32 bytecode", 1e3, emitter="bytecode", dtype="float32"))  # only in B
    rows = compare.roof_rows([("A", a), ("B", b)])
    by_name = {r["name"]: r for r in rows}
    assert rows[0]["name"] == "top memory roof" and rows[0]["ratios"] == [1.0, 2.0]
    assert by_name["top compute roof"]["values"] == [3.5e6, 7e6]
    assert by_name["flash read"]["ratios"] == [1.0, 2.0]
    assert "float32 bytecode" not in by_name  # one run only: nothing to compare


def test_labels_are_distinct():
    a, b = run_result("qemu-microbit", 1, 6), run_result("qemu-microbit", 2, 6)
    from pathlib import Path
    labels = compare.labels([a, b], [Path("x/results.json"), Path("y/results.json")])
    assert labels == ["qemu-microbit shift=6 (x)", "qemu-microbit shift=6 (y)"]


def test_layer_speedups_and_fastest_target():
    # A: conv1 10 ms int8 / 20 ms int32, fc 4 ms int8; B: conv1 5 ms int32, fc 8 ms int32
    a = run_result("a", 1, points=[point("conv1", "int8", "viper", 0.010), point("conv1", "int32", "viper", 0.020),
                                   point("fc", "int8", "viper", 0.004), point("fc", "int32", "viper", 0.006)])
    b = run_result("b", 2, points=[point("conv1", "int32", "viper", 0.005), point("fc", "int32", "viper", 0.008),
                                   point("only-b", "int32", "viper", 1.0)])
    lay = compare.layer_comparison([("A", a), ("B", b)])
    conv, fc = lay["layers"]
    assert conv["layer"] == "conv1" and conv["speedup"] == [1.0, 2.0]
    assert conv["fastest"] == {"run": 1, "dtype": "int32", "emitter": "viper", "seconds": 0.005}
    assert fc["speedup"] == [1.0, 0.5] and fc["fastest"]["run"] == 0 and fc["fastest"]["dtype"] == "int8"
    # whole network over the 2 shared layers: A int8 14 ms, B int32 13 ms, A int32 26 ms
    assert [(v["run"], v["dtype"], v["seconds"]) for v in lay["network"]] == [
        (1, "int32", pytest.approx(0.013)), (0, "int8", pytest.approx(0.014)), (0, "int32", pytest.approx(0.026))]
    assert lay["shared"] == 2
    # no shared layers (points are empty in these runs): no layer comparison
    assert compare.layer_comparison([("A", run_result("a", 1)), ("B", run_result("b", 1))]) is None


def test_compare_command(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    pa, pb = tmp_path / "a" / "results.json", tmp_path / "b" / "results.json"
    pa.parent.mkdir()
    pb.parent.mkdir()
    results.save(run_result("qemu-microbit", 1, 6, points=[point("conv1", "int8", "asm_thumb", 0.01)]), pa)
    results.save(run_result("qemu-microbit", 2, 5, points=[point("conv1", "int8", "asm_thumb", 0.005)]), pb)
    out = tmp_path / "cmp.png"
    assert main(["compare", str(pa), str(pb), "-o", str(out)]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"
    text = capsys.readouterr().out
    assert "qemu-microbit shift=6" in text and "qemu-microbit shift=5" in text and "B/A" in text
    assert "flash read" in text and "fastest for the whole network: B" in text


@pytest.mark.parametrize("argv, message", [
    (["compare", "{a}"], "two or more"),
    (["compare", "{a}", "{a}", "-o", "x.bmp"], "unknown plot format"),
    (["compare", "{a}", "{missing}"], "cannot read"),
])
def test_compare_bad_input(tmp_path, capsys, argv, message):
    a = tmp_path / "results.json"
    results.save(run_result("x", 1), a)
    code = main([s.format(a=a, missing=tmp_path / "nope.json") for s in argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("mcuroof: ") and message in err[0]


def test_theory_ratio_column_by_hand():
    theory = [roof("memory", "SRAM", 80e6, emitter=None, dtype=None, role="roof", source="theoretical"),
              roof("compute", "Cortex-M0 int32", 7e6, emitter=None, source="theoretical"),
              roof("compute", "Cortex-M0 int8", 14e6, emitter=None, dtype="int8", source="theoretical")]
    data = run_result("qemu-microbit", 1, 6, theory=theory)
    rs = data["roofs"]
    assert report.theory_ratio(rs[0], rs) == "0.5 SRAM"          # 40 MB/s of 80 MB/s
    assert report.theory_ratio(rs[1], rs) == "-"                 # flash: the profile has no figure
    assert report.theory_ratio(rs[2], rs) == "0.5"               # int32 3.5 of 7 MMACC/s
    assert report.theory_ratio(rs[3], rs) == "0.0011"            # int8 bytecode 16 k of 14 MMACC/s
    assert report.theory_ratio(theory[0], rs) == "-"             # theoretical rows have no ratio
    console = Console(width=200, color_system=None, record=True)
    console.print(report.roofs_table(data))
    text = console.export_text()
    assert "/ theory" in text and "0.5 SRAM" in text


def test_clock_list_parsing():
    assert clocks.parse("64M,125M") == [64_000_000, 125_000_000]
    assert clocks.parse("80MHz, 240000000, 1.5G") == [80_000_000, 240_000_000, 1_500_000_000]
    assert clocks.folder(125_000_000) == "125MHz"


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
