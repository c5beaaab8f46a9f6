"""Bad input through the real command line: one line `mcuroof: <place>: <problem>`, exit status 2,
no traceback (tests/test_cli.py and tests/test_model.py hold a few more cases)."""

from __future__ import annotations

import json
import os
import pty
import threading
from pathlib import Path

import pytest

from conftest import one_line_error, shared_model
from factories import SMALL_OPS, SMALL_TENSORS, T, build_tflite
from mcuroof.cli import main

SMALL = build_tflite(SMALL_TENSORS, SMALL_OPS, [0], [10])


def flipped(data: bytes, i: int, bit: int = 0x40) -> bytes:
    out = bytearray(data)
    out[i] ^= bit
    return bytes(out)


# ------------------------------------------------------------------ models (mcuroof analyze)

MODEL_CASES = {
    "empty": (b"", "empty file, not a TFLite model"),
    "text": (b"layer1: conv 3x3\n", "not a TFLite flatbuffer (bad identifier)"),
    "zip archive": (b"PK\x03\x04" + bytes(60), "not a TFLite flatbuffer (bad identifier)"),
    "three bytes": (b"TFL", "not a TFLite flatbuffer (bad identifier)"),
    "json": (json.dumps({"schema": 1, "roofs": []}).encode(), "not a TFLite flatbuffer (bad identifier)"),
    "truncated to the header": (SMALL[:12], "truncated or corrupt flatbuffer"),
    "truncated in half": (SMALL[: len(SMALL) // 2], "truncated or corrupt flatbuffer"),
    "identifier bit flip": (flipped(SMALL, 6, 0x01), "not a TFLite flatbuffer (bad identifier)"),
    "root offset bit flip": (flipped(SMALL, 3), "truncated or corrupt flatbuffer"),
}


@pytest.mark.parametrize("name", list(MODEL_CASES))
def test_bad_model_file(name, tmp_path, capsys):
    data, fragment = MODEL_CASES[name]
    path = tmp_path / "model.tflite"
    path.write_bytes(data)
    line = one_line_error(capsys, ["analyze", str(path)], fragment)
    assert str(path) in line


def test_model_path_is_a_directory(tmp_path, capsys):
    (tmp_path / "m.tflite").mkdir()
    one_line_error(capsys, ["analyze", str(tmp_path / "m.tflite")], "is a directory, not a .tflite file")


@pytest.mark.parametrize("damage", ["truncated", "bit flip"])
def test_real_model_damaged(damage, tmp_path, capsys):
    model = shared_model("kws_ref_model.tflite")
    data = model.read_bytes()
    data = data[: len(data) // 3] if damage == "truncated" else flipped(data, 2, 0x10)
    path = tmp_path / f"damaged-{model.name}"
    path.write_bytes(data)
    one_line_error(capsys, ["analyze", str(path)], "truncated or corrupt flatbuffer")


def test_unknown_op_is_listed_not_a_crash(tmp_path, capsys):
    tensors = [((1, 16), T.INT8, False), ((1, 16), T.INT8, False)]
    path = tmp_path / "odd.tflite"
    path.write_bytes(build_tflite(tensors, [(250, [0], [1], None)], [0], [1]))
    assert main(["analyze", str(path), "--csv"]) == 0
    out = capsys.readouterr().out
    assert ",unknown," in out.splitlines()[1]


# ------------------------------------------------------------------ results.json (plot, report)


def good_results() -> dict:
    return {
        "schema": 1,
        "board": {"name": "x"},
        "roofs": [
            {
                "kind": "compute",
                "role": "roof",
                "name": "int8 bytecode",
                "dtype": "int8",
                "emitter": "bytecode",
                "source": "measured",
                "macs_per_s": 1e4,
            }
        ],
        "ridges": [],
        "points": [],
    }


RESULTS_CASES = {
    "not text": (b"\xff\xfe\x00\x81" * 8, "not a results.json (not text)"),
    "a list": (b"[1, 2, 3]", "not a results.json (no schema or roofs)"),
    "truncated": (json.dumps(good_results()).encode()[:40], "corrupt results.json"),
    "roofs not a list": (json.dumps({**good_results(), "roofs": {"a": 1}}).encode(), "roofs must be a list"),
    "rate is text": (
        json.dumps({**good_results(), "roofs": [{**good_results()["roofs"][0], "macs_per_s": "fast"}]}).encode(),
        "roofs[0].macs_per_s must be a positive number",
    ),
    "newer schema": (
        json.dumps({**good_results(), "schema": 2}).encode(),
        "results schema 2 is newer than this mcuroof reads",
    ),
}


@pytest.mark.parametrize("name", list(RESULTS_CASES))
def test_bad_results_file(name, tmp_path, capsys):
    data, fragment = RESULTS_CASES[name]
    path = tmp_path / "results.json"
    path.write_bytes(data)
    line = one_line_error(capsys, ["report", str(path)], fragment)
    assert str(path) in line


def test_results_path_is_a_directory(tmp_path, capsys):
    one_line_error(capsys, ["plot", str(tmp_path), "-o", str(tmp_path / "r.png")], "cannot read")


# ------------------------------------------------------------------ raw.jsonl (run --resume)

HEADER = {"schema": 1, "kind": "header", "board": "unix", "suites": ["compute"]}
RECORD = {
    "schema": 1,
    "kind": "record",
    "suite": "probe",
    "attempt": 1,
    "seq": 0,
    "kernel": "probe",
    "rec": {"t": "probe"},
}

RAW_CASES = {
    "corrupt line": ([HEADER, "{not json", RECORD], ":2: corrupt line (not JSON)"),
    "newer schema": ([HEADER, {**RECORD, "schema": 7}], ":2: schema 7 is newer than this mcuroof reads"),
    "schema not a number": ([{**HEADER, "schema": "one"}], ":1: schema must be a number"),
    "entry not an object": ([HEADER, [1, 2]], ":2: not a raw.jsonl entry"),
    "record without rec": (
        [HEADER, {k: v for k, v in RECORD.items() if k != "rec"}],
        ":2: record entry has no valid 'rec'",
    ),
    "record with text seq": ([HEADER, {**RECORD, "seq": "0"}], ":2: record entry has no valid 'seq'"),
    "kernel entry without count": (
        [HEADER, {"schema": 1, "kind": "kernel", "suite": "probe", "attempt": 1, "kernel": "probe"}],
        ":2: kernel entry has no valid 'records'",
    ),
    "no header": ([RECORD], "no header line: not a run to resume"),
    "empty": ([], "no header line: not a run to resume"),
}


@pytest.mark.parametrize("name", list(RAW_CASES))
def test_bad_raw_log_on_resume(name, tmp_path, capsys):
    lines, fragment = RAW_CASES[name]
    (tmp_path / "raw.jsonl").write_text("".join((ln if isinstance(ln, str) else json.dumps(ln)) + "\n" for ln in lines))
    line = one_line_error(capsys, ["run", "--resume", str(tmp_path)], fragment)
    assert str(tmp_path / "raw.jsonl") in line


def test_raw_log_not_text(tmp_path, capsys):
    (tmp_path / "raw.jsonl").write_bytes(b"\x80\x81\xfe" * 10)
    one_line_error(capsys, ["run", "--resume", str(tmp_path)], "not a raw.jsonl (not text)")


def test_resume_without_a_raw_log(tmp_path, capsys):
    one_line_error(capsys, ["run", "--resume", str(tmp_path / "nothing-here")], "raw.jsonl: cannot read")


# ------------------------------------------------------------------ board profiles

PROFILE = Path(__file__).resolve().parents[2] / "boards" / "pico.toml"

PROFILE_CASES = {
    "invalid TOML": (lambda t: t.replace("[core]", "[core", 1), "invalid TOML"),
    "clock as text": (lambda t: _set(t, "clock_hz", '"fast"'), "[core].clock_hz"),
    "unknown field": (lambda t: t.replace("[core]\n", "[core]\nturbo = true\n", 1), "unknown field [core].turbo"),
    "no core table": (lambda t: t.replace("[core]", "[kore]", 1), "[core] is missing"),
}


def _set(text: str, key: str, value: str) -> str:
    lines = text.splitlines()
    i = next(i for i, ln in enumerate(lines) if ln.split("=")[0].strip() == key)
    lines[i] = f"{key} = {value}"
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", list(PROFILE_CASES))
def test_malformed_board_profile_names_file_and_field(name, tmp_path, capsys):
    damage, fragment = PROFILE_CASES[name]
    path = tmp_path / "pico.toml"  # a profile's name must match its file name
    path.write_text(damage(PROFILE.read_text()))
    line = one_line_error(capsys, ["boards", "--show", str(path)], fragment)
    assert str(path) in line


def test_missing_board_profile_file(tmp_path, capsys):
    one_line_error(capsys, ["boards", "--show", str(tmp_path / "gone.toml")], "gone.toml: cannot read")


# ------------------------------------------------------------------ ports, boards and output folders


def test_busy_port(tmp_path, capsys):
    """A port another program holds (pyserial's exclusive lock, as mpremote takes it)."""
    import serial

    master, slave = pty.openpty()
    name = os.ttyname(slave)
    holder = serial.Serial(name, exclusive=True)
    try:
        one_line_error(capsys, ["run", "--port", name, "-o", str(tmp_path / "o")], f"{name}: cannot open serial port")
    finally:
        holder.close()
        os.close(master)
        os.close(slave)


def test_board_not_running_micropython(tmp_path, capsys):
    """Something on the port that answers, but not with MicroPython's raw REPL."""
    master, slave = pty.openpty()
    name = os.ttyname(slave)
    stop = threading.Event()

    def answer_garbage():
        import select

        while not stop.is_set():
            if select.select([master], [], [], 0.05)[0]:
                try:
                    os.read(master, 1024)
                    os.write(master, b"AT OK\r\n?\r\nERROR\r\n")
                except OSError:
                    return

    t = threading.Thread(target=answer_garbage, daemon=True)
    t.start()
    try:
        one_line_error(
            capsys,
            ["run", "--port", name, "-o", str(tmp_path / "o")],
            "no MicroPython raw REPL answered (is it running MicroPython?)",
        )
    finally:
        stop.set()
        t.join()
        os.close(master)
        os.close(slave)
    assert not (tmp_path / "o" / "results.json").exists()


def test_unwritable_output_folder(tmp_path, capsys):
    if os.geteuid() == 0:  # root writes anywhere a permission would stop; sysfs refuses even root
        target = Path("/sys")
    else:
        target = tmp_path / "ro"
        target.mkdir()
        target.chmod(0o555)
    one_line_error(capsys, ["run", "--board", "unix", "-o", str(target)], "output folder is not writable")


def test_output_is_an_existing_file(tmp_path, capsys):
    f = tmp_path / "out"
    f.write_text("x")
    one_line_error(capsys, ["run", "--board", "unix", "-o", str(f)], "cannot create output folder")


@pytest.mark.parametrize("suite, fragment", [(",", "unknown suite (none)"), ("memory,gpu", "unknown suite gpu")])
def test_bad_suite(suite, fragment, tmp_path, capsys):
    one_line_error(capsys, ["run", "--board", "unix", "--suite", suite, "-o", str(tmp_path / "o")], fragment)


def test_auto_port_without_a_board(tmp_path, capsys):
    from serial.tools import list_ports

    if any(p.vid is not None for p in list_ports.comports()):
        pytest.skip("a USB serial device is connected")
    one_line_error(capsys, ["run", "--port", "auto", "-o", str(tmp_path / "o")], "no USB serial device found")


def test_debug_shows_the_traceback(tmp_path):
    path = tmp_path / "m.tflite"
    path.write_bytes(b"")
    from mcuroof.errors import UserError

    with pytest.raises(UserError, match="empty file"):
        main(["--debug", "analyze", str(path)])
