"""Safety: nothing the board sends is evaluated, only firmware code is sent to the board, and a run
writes inside its output folder only."""

import ast
from pathlib import Path

from mcuroof.measure.protocol import frame, parse_line

HOST = Path(__file__).resolve().parents[2] / "host" / "mcuroof"
BUILTINS = {"eval", "exec", "compile", "__import__"}
UNSAFE = {("ast", "literal_eval"), ("os", "system"), ("os", "popen")}


def test_host_code_has_no_evaluator_of_board_output():
    """No eval/exec/compile/literal_eval/pickle in the package: board output is parsed by
    protocol.parse_line with json.loads only."""
    for path in HOST.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            where = f"{path.name}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Call):
                f = node.func
                assert not (isinstance(f, ast.Name) and f.id in BUILTINS), where
                if isinstance(f, ast.Attribute):
                    owner = f.value.id if isinstance(f.value, ast.Name) else ""
                    assert (owner, f.attr) not in UNSAFE and f.attr != "literal_eval", where
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = {a.name for a in node.names} | {getattr(node, "module", None) or ""}
                assert not {"pickle", "marshal", "shelve", "yaml"} & names, where


def test_a_record_carrying_code_stays_data():
    line = frame(0, {"t": "probe", "platform": "__import__('os').system('touch /tmp/x')"})
    rec = parse_line(line)
    assert rec.data["platform"].startswith("__import__")  # a string, never run
