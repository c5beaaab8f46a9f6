"""results.json has one owner: documents the builder makes pass the schema; damaged, foreign and
hand-edited files give report, plot and compare one line naming the field, and exit status 2."""

from __future__ import annotations

import copy
import json

import pytest

from mcuroof.cli import main
from mcuroof.errors import UserError
from mcuroof.results import document as results
from mcuroof.suites import timing

MEM = {
    "kind": "memory",
    "role": "roof",
    "name": "memory",
    "dtype": "int32",
    "emitter": "asm_thumb",
    "kernel": "copy4",
    "source": "measured",
    "level": 1,
    "ws_range": [1024, 2048],
    "bytes_per_s": 4.2e7,
}
MAC = {
    "kind": "compute",
    "role": "roof",
    "name": "int8 bytecode",
    "dtype": "int8",
    "emitter": "bytecode",
    "source": "measured",
    "macs_per_s": 1.6e4,
}
POINT = {
    "index": 0,
    "name": "conv_2d_0",
    "op": "CONV_2D",
    "dtype": "int8",
    "emitter": "bytecode",
    "macc": 320000,
    "bytes": 11306,
    "oi": 28.3,
    "seconds": 45.5,
    "macs_per_s": 7027.0,
    "bytes_per_s": 248.3,
    "tile_fraction": 0.0125,
    "verified": True,
    "bound": "compute",
    "advice": "at its compute ceiling",
    "advice_kind": "compute",
    "roof_macs_per_s": 16391.0,
    "headroom": 2.33,
    "above_roof": False,
    "memory_share": 0.0016,
}
GOOD = {
    "schema": 1,
    "tool": "mcuroof 0.1.0",
    "created": "2026-12-01T10:26:40Z",
    "board": {
        "name": "qemu-microbit",
        "platform": "microbit",
        "firmware": "MicroPython 1.9.2",
        "clock_hz": 16000000,
        "emitters": ["bytecode", "asm_thumb"],
        "icount_shift": 6,
    },
    "roofs": [MEM, MAC],
    "ridges": [{"compute": "int8 bytecode", "memory": "memory", "oi": 3.8e-4}],
    "checks": {"verified": 3, "failed": 0},
    "points": [POINT],
    "model": {
        "name": "kws-dscnn",
        "peak_memory_bytes": 40368,
        "peak_memory_layer": 1,
        "measured_peak_heap_bytes": 720,
        "not_profiled": [{"index": 10, "why": "no RESHAPE kernel"}],
        "whole_model": [
            {
                "dtype": "int8",
                "emitter": "bytecode",
                "layers": 1,
                "predicted_seconds": 19.5,
                "measured_seconds": 45.5,
                "inferences_per_s": 0.022,
                "measured_over_predicted": 2.3,
            }
        ],
    },
}


def damaged(edit) -> str:
    data = copy.deepcopy(GOOD)
    edit(data)
    return json.dumps(data)


def drop(d: dict, key: str) -> None:
    del d[key]


# name -> (file text, the field the one-line error must name)
CASES = {
    "roof without source": (damaged(lambda d: drop(d["roofs"][1], "source")), "roofs[1].source is missing"),
    "roof without name": (damaged(lambda d: drop(d["roofs"][0], "name")), "roofs[0].name is missing"),
    "memory roof without its rate": (
        damaged(lambda d: drop(d["roofs"][0], "bytes_per_s")),
        "roofs[0].bytes_per_s is missing",
    ),
    "roof of an unknown source": (
        damaged(lambda d: d["roofs"][0].update(source="guessed")),
        "roofs[0].source must be one of",
    ),
    "board as a string": (damaged(lambda d: d.update(board="qemu-microbit")), "board must be an object"),
    "board without a name": (damaged(lambda d: drop(d["board"], "name")), "board.name is missing"),
    "clock as text": (
        damaged(lambda d: d["board"].update(clock_hz="16 MHz")),
        "board.clock_hz must be a positive number or null",
    ),
    "point without macs_per_s": (
        damaged(lambda d: drop(d["points"][0], "macs_per_s")),
        "points[0].macs_per_s is missing",
    ),
    "points not a list": (damaged(lambda d: d.update(points={"0": POINT})), "points must be a list"),
    "point index as text": (
        damaged(lambda d: d["points"][0].update(index="0")),
        "points[0].index must be a whole number",
    ),
    "verified as a string": (
        damaged(lambda d: d["points"][0].update(verified="true")),
        "points[0].verified must be true or false",
    ),
    "tile fraction over 1": (
        damaged(lambda d: d["points"][0].update(tile_fraction=3)),
        "points[0].tile_fraction must be a number in (0, 1]",
    ),
    "garbage ridges": (damaged(lambda d: d.update(ridges=["int8 bytecode", 3])), "ridges[0] must be an object"),
    "ridge without oi": (damaged(lambda d: drop(d["ridges"][0], "oi")), "ridges[0].oi is missing"),
    "negative ridge": (damaged(lambda d: d["ridges"][0].update(oi=-1)), "ridges[0].oi must be a positive number"),
    "model without peak memory": (
        damaged(lambda d: drop(d["model"], "peak_memory_bytes")),
        "model.peak_memory_bytes is missing",
    ),
    "whole model rows not objects": (
        damaged(lambda d: d["model"].update(whole_model=[1])),
        "model.whole_model[0] must be an object",
    ),
    "checks count negative": (
        damaged(lambda d: d["checks"].update(failed=-2)),
        "checks.failed must be a whole number >= 0",
    ),
    "NaN rate": (
        json.dumps(GOOD).replace("16000.0", "NaN"),
        "roofs[1].macs_per_s must be a positive number (got \"NaN\")",
    ),
    "Infinity in a point": (
        json.dumps(GOOD).replace("7027.0", "Infinity"),
        "points[0].macs_per_s must be a number >= 0",
    ),
    "truncated": (json.dumps(GOOD)[:300], "corrupt results.json"),
    "schema as text": (damaged(lambda d: d.update(schema="1")), "schema must be a whole number >= 1"),
}


def test_the_good_document_passes():
    results.validate(copy.deepcopy(GOOD))


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("command", ["report", "plot", "compare"])
def test_damaged_results_name_the_field(name, command, tmp_path, capsys):
    text, fragment = CASES[name]
    bad = tmp_path / "results.json"
    bad.write_text(text)
    argv = {
        "report": ["report", str(bad)],
        "plot": ["plot", str(bad), "-o", str(tmp_path / "r.png")],
        "compare": ["compare", str(bad), str(bad), "-o", str(tmp_path / "c.png")],
    }[command]
    code = main(argv)
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in cap.err + cap.out, cap.err
    assert lines[0].startswith(f"mcuroof: {bad}: ") and fragment in lines[0], lines[0]
    assert not (tmp_path / "r.png").exists() and not (tmp_path / "c.png").exists()


def test_save_refuses_a_document_that_would_not_load(tmp_path):
    data = copy.deepcopy(GOOD)
    data["points"][0]["oi"] = float("nan")
    with pytest.raises(UserError, match=r"points\[0\]\.oi must be a finite number"):
        results.save(data, tmp_path / "results.json")
    data["points"][0]["oi"] = 1.0
    data["checks"]["failed_records"] = [{"t": "mac", "us": float("inf")}]
    with pytest.raises(UserError, match=r"checks\.failed_records\[0\]\.us must be a finite number"):
        results.save(data, tmp_path / "results.json")
    assert not (tmp_path / "results.json").exists()


def test_unknown_fields_are_kept_for_newer_readers(tmp_path):
    data = copy.deepcopy(GOOD)
    data["points"][0]["fit"] = {"verdict": "fits"}
    results.save(data, tmp_path / "results.json")
    assert results.load(tmp_path / "results.json")["points"][0]["fit"] == {"verdict": "fits"}


def test_timing_noise_counts_records_whose_median_trial_was_much_slower():
    from mcuroof.report import tables as report
    from mcuroof.results import document as results

    recs = [
        {"t": "mem", "us": 100, "med": 105},
        {"t": "mac", "us": 100, "med": 111},
        {"t": "layer", "us": 50, "med": 80},
        {"t": "end", "records": 3},
    ]
    assert results.timing_noise(recs) == {"timed": 3, "noisy": 2}
    line = report.checks_line({"checks": {"verified": 3, "timed": 3, "noisy": 2}})
    assert "timing noise" in line and "2 of 3" in line
    assert "noise" not in report.checks_line({"checks": {"verified": 3, "timed": 3, "noisy": 0}})


def test_a_host_os_gets_more_trials_than_a_microcontroller():

    assert (
        timing.timing({"platform": "linux", "free": 1 << 26})["trials"]
        > timing.timing({"platform": "rp2", "free": 200000})["trials"]
    )


def test_checks_line_of_a_calibration_only_run_says_nothing_of_measurements():
    from mcuroof.report import tables as report

    cal = {"shapes": 212, "shapes_verified": 210, "shapes_failed": 2, "families": [{}] * 30}
    line = report.checks_line({"checks": {"verified": 0}, "calibration": cal})
    assert line.startswith("210 of 212 calibration shapes verified") and "measurements" not in line
    assert "2 FAILED" in line
    both = report.checks_line({"checks": {"verified": 5, "points_verified": 2}, "calibration": cal})
    assert both.startswith("5 measurements verified") and "; 2 layer runs verified" in both and "; 210 of 212" in both
    assert report.checks_line({"checks": {"verified": 0}}) == "0 measurements verified against their expected output"
