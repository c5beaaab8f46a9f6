"""The user's own kernels (`mcuroof kernel FILE.py`): the contract, the file cut into pieces the
board can compile, the scripts that run each kernel (firmware/user.py), and the line that names
each kernel's error (their points: analysis.user_points). Pure computation apart from reading the file.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from pathlib import Path

from mcuroof.errors import UserError, read_text
from mcuroof.kernels import emitters as registry
from mcuroof.kernels.contract import SPLIT, TYPE_NAMES, Kernel, unit_key

CONTRACT = (
    "define kernel_NAME() returning (fn, macc, bytes, check[, 'EMITTER DTYPE']): fn() is timed, "
    "macc > 0 and bytes > 0 count one call, check is the value fn() must return or a function "
    "of it that returns True, the optional string names the roofs (e.g. 'viper int16')"
)
PREFIX = "kernel_"
PIECE_CHARS = 480  # the micro:bit parses a piece in what its 8 KB heap has left beside the harness
EMITTERS = registry.LAYER_EMITTERS  # what a point's 'EMITTER DTYPE' may name
DTYPES = tuple(TYPE_NAMES.values())
TOP = "top"  # emitter and dtype of a point that names no roofs: it sits under the top ones


@dataclass
class UserFile:
    path: Path
    pieces: list[str]  # top-level statements, grouped into pieces of under PIECE_CHARS
    lines: list[int]  # the first line of each piece in the file
    names: list[str]  # NAME of every kernel_NAME, in file order
    emitters: dict = None  # emitter of each @micropython.EMITTER decorator: the line of its first use
    line_maps: list = None  # per piece, the file line of each of its lines
    functions: list = None  # (name, first line, last line) of every def and lambda ("<lambda>")

    def missing_emitter(self, board_emitters: list[str], platform: str | None = None) -> tuple[str, int] | None:
        """(emitter, line) of the first decorator the board's MicroPython lacks, or None: one the
        probe tries and did not find (kernels.emitters.PROBED), or another core's assembler (an Arm
        board has asm_thumb, the unix port none); an assembler the probe does not try is left to the board."""
        arch = registry.arch_of(board_emitters, platform)

        def lacks(em: str) -> bool:
            other = registry.is_assembler(em) and arch is not None and arch not in registry.get(em).archs
            return em not in board_emitters and (em in registry.PROBED or other)

        lacking = [(line, em) for em, line in (self.emitters or {}).items() if lacks(em)]
        return (min(lacking)[1], min(lacking)[0]) if lacking else None

    def file_line(self, piece: int, line: int) -> int | None:
        """The file line of a piece's line (both counted from 1, pieces from 0); None: not a user line."""
        maps = self.line_maps or []
        if 0 <= piece < len(maps) and 1 <= line <= len(maps[piece]):
            return maps[piece][line - 1]
        return None

    def frame_line(self, frames: str) -> tuple[int, str, bool] | None:
        """(file line, function, exact) of the innermost frame of a board traceback ('line:name;...',
        firmware/user.py _tb) that lies in the user's file. Where each piece ran as its own script
        (a serial board), its line maps to the file; where they ran as one (the unix port), the
        frame's function is found by name and its first line given (exact False)."""
        frames = [f.partition(":")[::2] for f in reversed(frames.split(";")) if ":" in f]
        for number, name in frames:
            for piece in range(len(self.line_maps or []) if number.isdigit() else 0):
                at = self.file_line(piece, int(number))
                if at and any(n == name and lo <= at <= hi for n, lo, hi in self.functions or []):
                    return at, name, True
        for _, name in frames:
            spans = [lo for n, lo, _ in self.functions or [] if n == name]
            if len(spans) == 1:
                return spans[0], name, False
        return None

    def kernels(self) -> list[Kernel]:
        """One unit per kernel: the whole file, then the call that runs that kernel."""
        body = SPLIT.join(self.pieces) + SPLIT
        return [Kernel(unit_key("user", n), body + f"user('{n}',{PREFIX}{n})\n") for n in self.names]

    def line_of(self, piece: int) -> int:
        return self.lines[min(max(piece, 0), len(self.lines) - 1)]


def load(path: Path) -> UserFile:
    return parse(Path(path), read_text(path, "a Python file"))


def parse(path: Path, text: str) -> UserFile:
    try:
        tree = ast.parse(text, str(path))
    except SyntaxError as e:
        raise UserError(f"{path}:{e.lineno}: {e.msg}") from None
    names = [
        n.name[len(PREFIX) :]
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and n.name.startswith(PREFIX) and len(n.name) > len(PREFIX)
    ]
    if not names:
        raise UserError(f"{path}: no kernel: {CONTRACT}")
    lines = text.splitlines()
    keep = _code_lines(text)
    pieces, starts, maps = [], [], []
    for node in tree.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        sent = [i for i in range(first, node.end_lineno + 1) if i in keep]
        stmt = "".join(lines[i - 1] + "\n" for i in sent)
        if pieces and len(pieces[-1]) + len(stmt) <= PIECE_CHARS:
            pieces[-1] += stmt
            maps[-1] += sent
        else:
            pieces.append(stmt)
            starts.append(first)
            maps.append(sent)
    return UserFile(path, pieces, starts, names, _emitters(tree), maps, _functions(tree))


def _functions(tree: ast.Module) -> list[tuple[str, int, int]]:
    """(name, first line, last line) of every function and lambda, as a traceback names them."""
    return [
        ("<lambda>" if isinstance(n, ast.Lambda) else n.name, n.lineno, n.end_lineno)
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    ]


def _emitters(tree: ast.Module) -> dict:
    """The @micropython.EMITTER decorators of the file (at any depth), by first line."""
    found = {}
    for node in ast.walk(tree):
        for d in getattr(node, "decorator_list", []):
            if (
                isinstance(d, ast.Attribute)
                and isinstance(d.value, ast.Name)
                and d.value.id == "micropython"
                and d.attr in registry.BOARD_EMITTERS
            ):
                found[d.attr] = min(found.get(d.attr, d.lineno), d.lineno)
    return found


def _code_lines(text: str) -> set[int]:
    """Line numbers worth sending: not blank, not a comment alone, or inside a string."""
    lines = text.splitlines()
    keep = {i for i, ln in enumerate(lines, 1) if ln.strip() and not ln.lstrip().startswith("#")}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
            keep.update(range(tok.start[0], tok.end[0] + 1))
    return keep


def roof_spec(text: str) -> tuple[str | None, str | None]:
    """'viper int16' -> ('viper', 'int16'); '' -> the board's top roofs (None, None)."""
    if not text:
        return None, None
    parts = text.split()
    if len(parts) != 2 or parts[0] not in EMITTERS or parts[1] not in DTYPES:
        raise ValueError(
            f"roofs {text!r} are not 'EMITTER DTYPE' (emitters: {', '.join(EMITTERS)}; types: {', '.join(DTYPES)})"
        )
    return parts[0], parts[1]


IN = {"setup": "kernel_NAME()", "fn": "fn()", "timing": "fn(), while it was timed", "ok": "its check"}


def error_line(uf: UserFile, rec: dict) -> str:
    """One line for a kernel that did not give a point (firmware/user.py 'uerr' records): a refusal,
    a wrong result, or the board's exception with the line of the user's file it was raised at."""
    at, exc = rec.get("at"), rec.get("exc", "?")
    frame = uf.frame_line(rec.get("tb") or "") if at in IN else None
    where = f"{uf.path}:{frame[0]}" if frame and frame[2] else str(uf.path)
    where += f": {PREFIX}{rec.get('k')}"
    if at == "contract":
        return f"{where}: refused ({exc}): {CONTRACT}"
    if at == "check":
        return f"{where}: wrong result on the board: fn() returned {exc}, which does not pass its check"
    inner = ""
    if frame and frame[1] not in ("<lambda>", f"{PREFIX}{rec.get('k')}"):
        inner = f", in {frame[1]}()" if frame[2] else f", in {frame[1]}() (defined at line {frame[0]})"
    text = f"{where}: the board raised {exc} in {IN.get(at, 'fn()')}{inner}"
    if exc.startswith("MemoryError"):
        text += f"; the board's heap is {rec.get('heap', 0):,} bytes, {rec.get('free', 0):,} free after it"
    return text
