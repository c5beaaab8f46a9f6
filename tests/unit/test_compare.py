"""`mcuroof compare`, the measured / theoretical column, and `run --clocks`."""

import pytest

from factories import point, run_result
from mcuroof.analysis import compare
from mcuroof.cli import main
from mcuroof.measure import clocks
from mcuroof.results import document as results


def test_layer_speedups_and_fastest_target():
    # A: conv1 10 ms int8 / 20 ms int32, fc 4 ms int8; B: conv1 5 ms int32, fc 8 ms int32
    a = run_result(
        "a",
        1,
        points=[
            point("conv1", "int8", "viper", 0.010),
            point("conv1", "int32", "viper", 0.020),
            point("fc", "int8", "viper", 0.004),
            point("fc", "int32", "viper", 0.006),
        ],
    )
    b = run_result(
        "b",
        2,
        points=[
            point("conv1", "int32", "viper", 0.005),
            point("fc", "int32", "viper", 0.008),
            point("only-b", "int32", "viper", 1.0),
        ],
    )
    lay = compare.layer_comparison([("A", a), ("B", b)])
    conv, fc = lay["layers"]
    assert conv["layer"] == "conv1" and conv["ratio"] == [1.0, 2.0]
    assert conv["fastest"] == {"run": 1, "dtype": "int32", "emitter": "viper", "seconds": 0.005}
    assert fc["ratio"] == [1.0, 0.5] and fc["fastest"]["run"] == 0 and fc["fastest"]["dtype"] == "int8"
    # whole network over the 2 shared layers: A int8 14 ms, B int32 13 ms, A int32 26 ms
    assert [(v["run"], v["dtype"], v["seconds"]) for v in lay["network"]] == [
        (1, "int32", pytest.approx(0.013)),
        (0, "int8", pytest.approx(0.014)),
        (0, "int32", pytest.approx(0.026)),
    ]
    assert lay["shared"] == 2
    # no shared layers (points are empty in these runs): no layer comparison
    assert compare.layer_comparison([("A", run_result("a", 1)), ("B", run_result("b", 1))]) is None


@pytest.mark.parametrize(
    "argv, message",
    [
        (["compare", "{a}"], "two or more"),
        (["compare", "{a}", "{a}", "-o", "x.bmp"], "unknown plot format"),
        (["compare", "{a}", "{missing}"], "cannot read"),
    ],
)
def test_compare_bad_input(tmp_path, capsys, argv, message):
    a = tmp_path / "results.json"
    results.save(run_result("x", 1), a)
    code = main([s.format(a=a, missing=tmp_path / "nope.json") for s in argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("mcuroof: ") and message in err[0]


def test_clock_list_parsing():
    assert clocks.parse("64M,125M") == [64_000_000, 125_000_000]
    assert clocks.parse("80MHz, 240000000, 1.5G") == [80_000_000, 240_000_000, 1_500_000_000]
    assert clocks.folder(125_000_000) == "125MHz"
