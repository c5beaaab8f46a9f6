"""The user's own kernels (`mcuroof kernel FILE.py`): the contract, the file cut into pieces the
board can compile, the scripts that run each kernel (firmware/user.py), and their points.
Pure computation apart from reading the file.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from pathlib import Path

from mcuroof.analysis import points as points_mod
from mcuroof.analysis import roofs as roofs_mod
from mcuroof.errors import UserError, read_text
from mcuroof.kernels.contract import SPLIT, TYPE_NAMES, Kernel, unit_key

CONTRACT = (
    "define kernel_NAME() returning (fn, macc, bytes, check[, 'EMITTER DTYPE']): fn() is timed, "
    "macc > 0 and bytes > 0 count one call, check is the value fn() must return or a function "
    "of it that returns True, the optional string names the roofs (e.g. 'viper int16')"
)
PREFIX = "kernel_"
PIECE_CHARS = 480  # the micro:bit parses a piece in what its 8 KB heap has left beside the harness
EMITTERS = ("bytecode", "native", "viper", "asm_thumb")
DTYPES = tuple(TYPE_NAMES.values())
TOP = "top"  # emitter and dtype of a point that names no roofs: it sits under the top ones


@dataclass
class UserFile:
    path: Path
    pieces: list[str]  # top-level statements, grouped into pieces of under PIECE_CHARS
    lines: list[int]  # the first line of each piece in the file
    names: list[str]  # NAME of every kernel_NAME, in file order
    emitters: dict = None  # emitter of each @micropython.EMITTER decorator: the line of its first use

    def missing_emitter(self, board_emitters: list[str]) -> tuple[str, int] | None:
        """(emitter, line) of the first decorator the board's MicroPython lacks, or None."""
        lacking = [(line, em) for em, line in (self.emitters or {}).items() if em not in board_emitters]
        return (min(lacking)[1], min(lacking)[0]) if lacking else None

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
    pieces, starts = [], []
    for node in tree.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        stmt = "".join(lines[i - 1] + "\n" for i in range(first, node.end_lineno + 1) if i in keep)
        if pieces and len(pieces[-1]) + len(stmt) <= PIECE_CHARS:
            pieces[-1] += stmt
        else:
            pieces.append(stmt)
            starts.append(first)
    return UserFile(path, pieces, starts, names, _emitters(tree))


def _emitters(tree: ast.Module) -> dict:
    """The @micropython.EMITTER decorators of the file (at any depth), by first line."""
    found = {}
    for node in ast.walk(tree):
        for d in getattr(node, "decorator_list", []):
            if (
                isinstance(d, ast.Attribute)
                and isinstance(d.value, ast.Name)
                and d.value.id == "micropython"
                and d.attr in EMITTERS
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


def error_line(uf: UserFile, rec: dict) -> str:
    """One line for a kernel that did not give a point (firmware/user.py 'uerr' records)."""
    where = f"{uf.path}: {PREFIX}{rec.get('k')}"
    at, exc = rec.get("at"), rec.get("exc", "?")
    if at == "contract":
        return f"{where}: refused ({exc}): {CONTRACT}"
    if at == "check":
        return f"{where}: wrong result on the board: fn() returned {exc}, which does not pass its check"
    text = f"{where}: the board raised {exc} (in {'kernel_NAME()' if at == 'setup' else 'fn()'})"
    if exc.startswith("MemoryError"):
        text += f"; the board's heap is {rec.get('heap', 0):,} bytes, {rec.get('free', 0):,} free after it"
    return text


def points(
    uf: UserFile, records: list[dict], roofs: list[dict], emitters: list[str], first: int = 1
) -> tuple[list[dict], list[str]]:
    """Points of the kernels that ran and checked (numbered from `first`), and one error line
    per kernel that did not."""
    pts, errors = [], []
    for rec in records:
        if rec.get("t") == "uerr":
            errors.append(error_line(uf, rec))
        elif rec.get("t") == "uk":
            try:
                pts.append(point(uf, rec, roofs, emitters, first + len(pts)))
            except ValueError as e:
                errors.append(f"{uf.path}: {PREFIX}{rec.get('k')}: {e}")
    return pts, errors


def point(uf: UserFile, rec: dict, roofs: list[dict], emitters: list[str], index: int) -> dict:
    macc, moved = rec.get("macc"), rec.get("bytes")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in (macc, moved)):
        raise ValueError(f"refused (macc {macc!r}, bytes {moved!r}): {CONTRACT}")
    emitter, dtype = roof_spec(rec.get("roof") or "")
    p = {
        "index": index,
        "name": rec["k"],
        "op": "user kernel",
        "user": True,
        "file": uf.path.name,
        "dtype": dtype,
        "emitter": emitter,
        "macc": macc,
        "bytes": moved,
        "oi": macc / moved,
        "seconds": roofs_mod.seconds(rec),
        "verified": True,
        "tile_fraction": 1.0,
        "tile_reason": "",
        "heap_bytes": None,
        "tile_data_bytes": None,
    }
    points_mod.place(p, roofs, emitters)
    if emitter is None:  # placed under the board's top roofs, whatever emitter the kernel used
        p["emitter"] = p["dtype"] = TOP
    return p
