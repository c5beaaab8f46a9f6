"""Saved results: plot and report without a board; bad input gives one line and exit 2."""

import pytest
from rich.console import Console

from mcuroof.cli import main
from mcuroof.report import plot
from mcuroof.report import tables as report
from mcuroof.results import document as results


def sample_result(n_compute=3):
    roofs = [
        {
            "kind": "memory",
            "role": "roof",
            "name": "memory L1",
            "dtype": "int8",
            "emitter": "c",
            "source": "measured",
            "level": 1,
            "ws_range": [32, 65536],
            "bytes_per_s": 5e10,
        },
        {
            "kind": "memory",
            "role": "roof",
            "name": "memory L2 (main)",
            "dtype": "int8",
            "emitter": "c",
            "source": "measured",
            "level": 2,
            "ws_range": [131072, 1 << 27],
            "bytes_per_s": 1e10,
        },
    ]
    for i in range(n_compute):
        roofs.append(
            {
                "kind": "compute",
                "role": "roof" if i == 0 else "ceiling",
                "name": f"int32 e{i}",
                "dtype": "int32",
                "emitter": "viper",
                "source": "measured",
                "macs_per_s": 5e8 / (i + 1),
            }
        )
    data = {
        "schema": 1,
        "board": {"name": "unix", "firmware": "MicroPython 1.29.0", "clock_hz": None},
        "roofs": roofs,
        "points": [],
    }
    from mcuroof.analysis.roofs import ridges

    data["ridges"] = ridges(roofs)
    return data


@pytest.fixture
def saved(tmp_path):
    p = tmp_path / "results.json"
    results.save(sample_result(), p)
    return p


def test_plot_and_report_from_saved_results(saved, tmp_path, capsys):
    assert main(["plot", str(saved), "-o", str(tmp_path / "r.svg")]) == 0
    assert (tmp_path / "r.svg").read_text().lstrip().startswith("<?xml")
    assert main(["report", str(saved)]) == 0
    out = capsys.readouterr().out
    assert "memory L2 (main)" in out and "10 GB/s" in out and "ridge at memory L2 (main)" in out


def test_report_renders_ridge_matrix_by_hand():
    console = Console(width=120, color_system=None, record=True)
    console.print(report.ridges_table(sample_result(1)))
    text = console.export_text()
    # 5e8 MACC/s over 5e10 B/s = 0.01 MACC/byte; over 1e10 B/s = 0.05
    assert "0.01" in text and "0.05" in text


def error_of(capsys, argv):
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    return code, err


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "corrupt results.json"),
        ("{not json", "corrupt results.json"),
        ('{"schema": 99, "roofs": []}', "newer than this mcuroof reads"),
        ('{"hello": 1}', "not a results.json"),
        (
            '{"schema": 1, "board": {"name": "x"}, "roofs": [{"kind": "memory", "role": "roof", "name": "m", '
            '"source": "measured", "bytes_per_s": -1}]}',
            "roofs[0].bytes_per_s must be a positive number",
        ),
        (
            '{"schema": 1, "board": {"name": "x"}, "roofs": [{"kind": "gpu", "role": "roof", "name": "m", '
            '"source": "measured"}]}',
            "roofs[0].kind must be one of",
        ),
        ('{"schema": 1, "roofs": []}', "board is missing"),
    ],
)
def test_bad_results_files(tmp_path, capsys, content, message):
    p = tmp_path / "results.json"
    p.write_text(content)
    for cmd in ("plot", "report"):
        code, err = error_of(capsys, [cmd, str(p)])
        assert code == 2 and len(err) == 1 and err[0].startswith("mcuroof: ") and message in err[0]


def test_missing_results_file(tmp_path, capsys):
    code, err = error_of(capsys, ["report", str(tmp_path / "nope.json")])
    assert code == 2 and "cannot read" in err[0]


def test_unknown_plot_format(saved, capsys, tmp_path):
    code, err = error_of(capsys, ["plot", str(saved), "-o", str(tmp_path / "x.bmp")])
    assert code == 2 and "unknown plot format" in err[0]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "--suite", "cache"], "unknown suite"),
        (["run", "--board", "nosuch"], "unknown board"),
        (["run", "--board", "pico"], "needs --port"),
        (["run", "--port", "/dev/does-not-exist"], "cannot open serial port"),
    ],
)
def test_run_bad_arguments(tmp_path, capsys, argv, message):
    code, err = error_of(capsys, argv + ["-o", str(tmp_path / "o")])
    assert code == 2 and len(err) == 1 and message in err[0]


def test_unwritable_output(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, err = error_of(capsys, ["run", "--board", "unix", "-o", str(blocker / "sub")])
    assert code == 2 and "cannot create output folder" in err[0]


def test_plot_with_many_roofs_writes_png(tmp_path):
    path = plot.draw(sample_result(12), tmp_path / "many.png")
    assert path.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "given, suites",
    [
        (["--suite", "memory", "--suite", "compute"], "memory,compute"),
        (["--suite", "memory,compute", "--suite", "regions"], "memory,compute,regions"),
        (["--suite", " compute , compute"], "compute"),
        ([], None),
    ],
)
def test_run_suite_repeated_or_comma_separated(given, suites):
    from mcuroof.cli import command_parser

    parser, run = command_parser("run")
    assert run.request(parser.parse_args(["--board", "unix", *given])).suite == suites


def test_farm_suite_repeated(monkeypatch, tmp_path):
    """Both --suite values reach every place's run; an unknown one stops before any place."""
    from mcuroof.commands import farm as farm_command

    seen = {}
    monkeypatch.setattr(farm_command, "_check_options", lambda options: seen.update(options) or 1 / 0)
    with pytest.raises(ZeroDivisionError):
        main(["farm", "run", "--all", "-o", str(tmp_path / "f"), "--suite", "memory", "--suite", "regions"])
    assert seen["suite"] == "memory,regions"
