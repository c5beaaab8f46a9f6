"""`mcuroof kernel FILE.py`: the contract, the file cut for the board, the points, the errors.
Runs the user's kernels on the real unix port (and the micro:bit example under QEMU)."""

import re
import runpy

import numpy as np
import pytest

from conftest import ROOT
from mcuroof.cli import main
from mcuroof.errors import UserError
from mcuroof.kernels import user as user_kernel

EXAMPLES = ROOT / "examples" / "kernels"


def test_parse_splits_the_file_at_statements_and_keeps_strings(tmp_path):
    body = "# header\nimport array\n\n" + "".join(
        f"def kernel_k{i}():\n    # comment\n    s = '''a\n# kept\n'''\n    return (len, 1, 1, 0)\n\n"
        for i in range(12)
    )
    uf = user_kernel.parse(tmp_path / "k.py", body)
    assert uf.names == [f"k{i}" for i in range(12)]
    assert all(len(p) <= user_kernel.PIECE_CHARS for p in uf.pieces) and len(uf.pieces) > 1
    assert "# header" not in "".join(uf.pieces) and "    # comment" not in "".join(uf.pieces)
    assert "".join(uf.pieces).count("# kept") == 12  # inside a string: sent as written
    assert uf.lines[0] == 2
    script = uf.kernels()[3].scripts("finish()\n")
    assert script[-1] == "user('k3',kernel_k3)\nfinish()\n"


@pytest.mark.parametrize(
    "text, message",
    [
        ("def helper():\n pass\n", "no kernel: define kernel_NAME() returning (fn, macc, bytes, check"),
        ("def kernel_x(:\n", "k.py:1:"),
    ],
)
def test_parse_refuses(tmp_path, text, message):
    with pytest.raises(UserError, match=re.escape(message)):
        user_kernel.parse(tmp_path / "k.py", text)


def test_mel_example_constants_match_numpy():
    ns = runpy.run_path(str(EXAMPLES / "kws_mel.py"))
    edges, spec, s = ns["EDGES"], [], 1
    for _ in range(ns["BINS"]):
        s = (s * 75 + 74) % 65537
        spec.append(s % 4096)
    w = np.zeros((ns["NF"], ns["BINS"]), dtype=np.int64)
    for f in range(ns["NF"]):
        a, m, b = edges[f : f + 3]
        for i in range(a, b):
            w[f, i] = 128 * (i - a) // (m - a) if i < m else 128 * (b - i) // (b - m)
    out = w @ np.array(spec)
    assert (ns["TOTAL"], ns["OUT20"]) == (out.sum(), out[20])


BAD = {  # a kernel each, and the one line it must give
    "def kernel_bad():\n raise ValueError('size 3')\n": "mine.py: kernel_bad: the board raised ValueError: size 3 (in kernel_NAME())",
    "def kernel_big():\n b = bytearray(1 << 40)\n return (len, 1, 1, 0)\n": "mine.py: kernel_big: the board raised MemoryError",
    "def kernel_nomac():\n return (lambda: 0, 0, 8, 0)\n": "mine.py: kernel_nomac: refused (macc 0, bytes 8): define kernel_NAME() returning",
    "def kernel_wrong():\n return (lambda: 41, 1, 8, 42)\n": "mine.py: kernel_wrong: wrong result on the board: fn() returned 41",
    "def kernel_spec():\n return (lambda: 1, 1, 8, 1, 'turbo int8')\n": "mine.py: kernel_spec: roofs 'turbo int8' are not 'EMITTER DTYPE'",
}


def test_a_traceback_line_maps_to_the_users_file(tmp_path):
    """firmware/user.py sends the traceback's frames as 'line:name;...' (innermost last); on a board
    that runs each piece as its own script, the piece's line maps to the file's."""
    text = "# a comment the host leaves out\n\ndef boom(a):\n    b = a\n    return b // 0\n\n\ndef kernel_div():\n    return (lambda: boom(7), 1, 1, 0)\n"
    uf = user_kernel.parse(tmp_path / "mine.py", text)
    assert uf.line_maps[0][:3] == [3, 4, 5]  # piece 0 holds boom: its line 3 is the file's line 5
    assert uf.frame_line("131:user;2:<lambda>;3:boom") == (5, "boom", True)
    # the unix port runs everything as one program: the function is found by its name
    assert uf.frame_line("131:user;149:<lambda>;147:boom") == (3, "boom", False)
    assert uf.frame_line("") is None
    line = user_kernel.error_line(
        uf,
        {
            "t": "uerr",
            "k": "div",
            "at": "fn",
            "exc": "ZeroDivisionError: divide by zero",
            "tb": "9:user;2:<lambda>;3:boom",
        },
    )
    assert (
        line
        == f"{tmp_path / 'mine.py'}:5: kernel_div: the board raised ZeroDivisionError: divide by zero in fn(), in boom()"
    )


@pytest.mark.parametrize(
    "emitters, platform, lacking",
    [
        (["bytecode", "native", "viper", "asm_thumb"], "rp2", ("asm_xtensa", 2)),  # an Arm core has asm_thumb
        (["bytecode", "native", "viper"], "linux", ("asm_xtensa", 2)),  # the unix port: no inline assembler
        (["bytecode", "native", "viper"], "esp32", None),  # the probe does not try asm_xtensa: the board decides
    ],
)
def test_another_cores_assembler(tmp_path, emitters, platform, lacking):
    uf = user_kernel.parse(
        tmp_path / "m.py",
        "import micropython\n@micropython.asm_xtensa\ndef f(a2):\n    movi(a2, 1)\n\ndef kernel_f():\n    return (f, 1, 1, 1)\n",
    )
    assert uf.missing_emitter(emitters, platform) == lacking


def test_kernel_help_lists_the_boards(capsys):
    with pytest.raises(SystemExit):
        main(["kernel", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert all(name in out for name in ("qemu-microbit", "qemu-m3", "qemu-m7", "qemu-m55", "unix"))
