"""`mcuroof kernel FILE.py`: the contract, the file cut for the board, the points, the errors.
Runs the user's kernels on the real unix port (and the micro:bit example under QEMU)."""

import json
from pathlib import Path

from conftest import needs_qemu
from mcuroof.cli import main
from mcuroof.results import document as results
from unit.test_user_kernel import EXAMPLES


def _roofs_file(tmp_path: Path, name="unix", platform="linux") -> Path:
    """A results.json holding hand-written roofs (the values only place the points)."""
    board = {"name": name, "platform": platform, "firmware": "MicroPython", "emitters": ["bytecode", "viper"]}
    data = results.build(board, [])
    data["roofs"] = [
        {
            "kind": "memory",
            "role": "roof",
            "name": "memory L1",
            "dtype": "int8",
            "emitter": "c",
            "source": "measured",
            "bytes_per_s": 1e10,
        },
        {
            "kind": "compute",
            "role": "ceiling",
            "name": "int16 viper",
            "dtype": "int16",
            "emitter": "viper",
            "source": "measured",
            "macs_per_s": 1e9,
        },
        {
            "kind": "compute",
            "role": "ceiling",
            "name": "int16 bytecode",
            "dtype": "int16",
            "emitter": "bytecode",
            "source": "measured",
            "macs_per_s": 2e7,
        },
    ]
    path = tmp_path / "roofs" / "results.json"
    path.parent.mkdir()
    results.save(data, path)
    return path


def test_examples_on_unix_are_checked_points(tmp_path, capsys):
    roofs = _roofs_file(tmp_path)
    for name in ("fir_viper.py", "kws_mel.py"):
        assert (
            main(
                ["kernel", str(EXAMPLES / name), "--board", "unix", "--roofs", str(roofs), "-o", str(tmp_path / "out")]
            )
            == 0
        )
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    pts = {p["name"]: p for p in data["points"]}
    assert set(pts) == {"fir", "mel"} and all(p["user"] and p["verified"] for p in pts.values())
    assert (pts["fir"]["index"], pts["mel"]["index"]) == (1, 2)  # numbered across the files of one folder
    assert pts["fir"]["macc"] == 256 * 16 and pts["fir"]["bytes"] == 271 * 2 + 16 * 2 + 256 * 4
    assert (pts["fir"]["emitter"], pts["fir"]["dtype"], pts["fir"]["compute_roof"]) == ("viper", "int16", "int16 viper")
    assert pts["mel"]["macc"] == (128 + 121) - (1 + 0)  # sum of EDGES[f+2] - EDGES[f] telescopes
    assert all(p["headroom"] and p["advice"] for p in pts.values())
    assert (tmp_path / "out" / "roofline.png").stat().st_size > 10000
    assert data["user_kernels"]["roofs_from"] == str(roofs.resolve())
    out = capsys.readouterr().out
    assert "Your kernels" in out and "U1 fir" in out
    # the kernels' table and the roofs that place them, not the whole characterisation
    assert "The roofs that place them (int16 viper" in out and "Ridge points" not in out
    assert "2 of 2 kernel(s) checked" not in out and "1 of 1 kernel(s) checked on the board and placed" in out
    assert "measurements verified" not in out  # the roofs were not measured in this run


def test_the_same_roofs_by_another_spelling_gather_in_one_folder(tmp_path, capsys, monkeypatch):
    roofs = _roofs_file(tmp_path)
    out = str(tmp_path / "out")
    assert main(["kernel", str(EXAMPLES / "fir_viper.py"), "--board", "unix", "--roofs", str(roofs), "-o", out]) == 0
    monkeypatch.chdir(roofs.parent)
    spelled = "../roofs/./results.json"  # relative, through the parent: the same file
    assert main(["kernel", str(EXAMPLES / "kws_mel.py"), "--board", "unix", "--roofs", spelled, "-o", out]) == 0
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert sorted(p["name"] for p in data["points"]) == ["fir", "mel"]


def _run_file(tmp_path, text, capsys, extra=()):
    path = tmp_path / "mine.py"
    path.write_text(text)
    code = main(
        [
            "kernel",
            str(path),
            "--board",
            "unix",
            "--roofs",
            str(_roofs_file(tmp_path)),
            "-o",
            str(tmp_path / "out"),
            *extra,
        ]
    )
    return code, capsys.readouterr().err


BAD = {  # a kernel each, and the one line it must give
    "def kernel_bad():\n raise ValueError('size 3')\n": "mine.py: kernel_bad: the board raised ValueError: size 3 in kernel_NAME()",
    "def boom(a):\n return a // 0\n\ndef kernel_div():\n return (lambda: boom(7), 1, 1, 0)\n": "mine.py: kernel_div: the board raised ZeroDivisionError: divide by zero in fn(), in boom() (defined at line ",
    "def kernel_big():\n b = bytearray(1 << 40)\n return (len, 1, 1, 0)\n": "mine.py: kernel_big: the board raised MemoryError",
    "def kernel_nomac():\n return (lambda: 0, 0, 8, 0)\n": "mine.py: kernel_nomac: refused (macc 0, bytes 8): define kernel_NAME() returning",
    "def kernel_wrong():\n return (lambda: 41, 1, 8, 42)\n": "mine.py: kernel_wrong: wrong result on the board: fn() returned 41",
    "def kernel_spec():\n return (lambda: 1, 1, 8, 1, 'turbo int8')\n": "mine.py: kernel_spec: roofs 'turbo int8' are not 'EMITTER DTYPE'",
}


def test_user_errors_are_one_line_each(tmp_path, capsys):
    body = "def kernel_ok():\n return (lambda: 7, 3, 12, 7)\n\n" + "\n".join(BAD)
    code, err = _run_file(tmp_path, body, capsys)
    assert code == 2
    lines = [ln for ln in err.splitlines() if ln]
    assert len(lines) == len(BAD) and all(ln.startswith("mcuroof: ") for ln in lines)
    for line, message in zip(lines, BAD.values()):
        assert message in line
    assert "bytes, " in lines[2] and "heap" in lines[2]
    assert "returned" not in lines[1]  # an exception is not a return value
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [p["name"] for p in data["points"]] == ["ok"]  # what was measured is kept


def test_a_file_the_board_cannot_compile(tmp_path, capsys):
    code, err = _run_file(
        tmp_path,
        "import micropython\n\n@micropython.viper\ndef f(a: int) -> int:\n return a @ a\n\n"
        "def kernel_f():\n return (f, 1, 1, 1)\n",
        capsys,
    )
    assert code == 2
    # the unix port runs the pieces as one program: its line is mapped back to the file's (the def, 4)
    assert err.startswith("mcuroof: ") and "mine.py:4: the board could not load it" in err
    assert "ViperTypeError" in err and len(err.strip().splitlines()) == 1


def test_an_emitter_the_board_lacks_is_named_before_loading(tmp_path, capsys):
    code, err = _run_file(
        tmp_path,
        "import micropython\n\n@micropython.asm_thumb\ndef f(r0):\n mov(r0, 1)\n\n"
        "def kernel_f():\n return (f, 1, 1, 1)\n",
        capsys,
    )
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "mine.py:3: @micropython.asm_thumb: this board's MicroPython" in err and "has no asm_thumb emitter" in err


def test_another_cores_assembler_is_refused_on_the_host_with_its_line(tmp_path, capsys):
    code, err = _run_file(
        tmp_path,
        "import micropython\n@micropython.asm_xtensa\ndef f(a2):\n movi(a2, 1)\n\ndef kernel_f():\n return (f, 1, 1, 1)\n",
        capsys,
    )
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "mine.py:2: @micropython.asm_xtensa: this board's MicroPython" in err and "no asm_xtensa emitter" in err


def test_roofs_of_another_board_are_refused(tmp_path, capsys):
    roofs = _roofs_file(tmp_path, name="qemu-microbit", platform="microbit")
    assert (
        main(
            [
                "kernel",
                str(EXAMPLES / "fir_viper.py"),
                "--board",
                "unix",
                "--roofs",
                str(roofs),
                "-o",
                str(tmp_path / "out"),
            ]
        )
        == 2
    )
    assert "roofs of qemu-microbit (microbit), but this board is unix (linux)" in capsys.readouterr().err


@needs_qemu
def test_mel_example_on_the_microbit(tmp_path, capsys):
    roofs = _roofs_file(tmp_path, name="qemu-microbit", platform="microbit")
    assert (
        main(
            [
                "kernel",
                str(EXAMPLES / "kws_mel.py"),
                "--board",
                "qemu-microbit",
                "--roofs",
                str(roofs),
                "-o",
                str(tmp_path / "out"),
            ]
        )
        == 0
    )
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    (p,) = data["points"]
    assert p["name"] == "mel" and p["verified"] and p["compute_roof"] == "int16 bytecode"
