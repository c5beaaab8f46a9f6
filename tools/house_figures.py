"""The house figures of issue 42: how easy the package is to change, measured from its source.

    python tools/house_figures.py [--top N]

Printed (from host/mcuroof's source alone, by its syntax tree; nothing is imported):
- the longest functions (lines from `def` to the last line of the body, a nested function counted
  in its own right and inside its parent);
- string-key subscripts (`r["kind"]`: a subscript whose key is a string constant);
- emitter names written as code outside kernels/ (a string constant equal to an emitter's name of
  kernels/emitters.py, docstrings left out);
- the generator internals predict/design.py imports (any kernels.ops module the registry names as
  a generator module: design.py should ask kernels.ops.dispatch only).
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "host" / "mcuroof"
# the kernels.ops modules that hold generator code (kernels.emitters.generator_modules() and the
# generators dispatch lists); read from the source so that this tool imports nothing
NOT_GENERATORS = {"__init__", "contract", "dispatch", "layer_plan", "reference", "tiles"}
# modules whose strings equal to an emitter's name are something else
NOT_EMITTERS = {
    "report/styles.py": "its keys are style keys (kernels.emitters.Emitter.style)",
    "links/ports.py": "'c' is a port shortcut (COM)",
}


def modules() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(), str(p))) for p in sorted(PACKAGE.rglob("*.py"))]


def functions(trees) -> list[tuple[int, str]]:
    """(lines, where) of every function, longest first."""
    out = []
    for path, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                out.append((n, f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name}"))
    return sorted(out, key=lambda t: (-t[0], t[1]))


def string_subscripts(trees) -> dict[str, int]:
    """String-key subscripts per sub-package."""
    out: dict[str, int] = {}
    for path, tree in trees:
        part = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
                if isinstance(node.slice.value, str):
                    out[part] = out.get(part, 0) + 1
    return out


def emitter_names() -> set[str]:
    """The emitters' names, read from the registry's source (Emitter("name", ...))."""
    tree = ast.parse((PACKAGE / "kernels" / "emitters.py").read_text())
    return {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Emitter" and node.args
    }


def _docstrings(tree) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _tables(tree) -> set[int]:
    """The nodes inside a module-level assignment's value (a table of data, not code)."""
    out = set()
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            out.update(id(n) for n in ast.walk(node.value))
    return out


def emitter_literals(trees, names: set[str]) -> list[str]:
    """Where a string constant outside kernels/ (and NOT_EMITTERS) is an emitter's name; "(table)"
    where it sits in a module-level table."""
    out = []
    for path, tree in trees:
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] == "kernels" or rel.as_posix() in NOT_EMITTERS:
            continue
        skip, tables = _docstrings(tree), _tables(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in names and id(node) not in skip:
                out.append(f"{rel}:{node.lineno} {node.value!r}" + (" (table)" if id(node) in tables else ""))
    return sorted(out)


def design_imports(trees) -> list[str]:
    """The generator modules predict/design.py imports (or imports names from)."""
    ops = {p.stem for p in (PACKAGE / "kernels" / "ops").glob("*.py")} - NOT_GENERATORS
    tree = next(t for p, t in trees if p == PACKAGE / "predict" / "design.py")
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "mcuroof.kernels.ops":
                out += [f"{node.lineno} {a.name}" for a in node.names if a.name in ops]
            elif node.module.rsplit(".", 1)[-1] in ops and node.module.startswith("mcuroof.kernels.ops."):
                out.append(f"{node.lineno} {node.module}")
        elif isinstance(node, ast.Import):
            out += [f"{node.lineno} {a.name}" for a in node.names if a.name.rsplit(".", 1)[-1] in ops]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--top", type=int, default=8, help="how many of the longest functions to list")
    args = ap.parse_args(argv)
    trees = modules()
    funcs = functions(trees)
    over = [f for f in funcs if f[0] > 120]
    print(f"longest function: {funcs[0][0]} lines ({funcs[0][1]}); {len(over)} over 120 lines")
    for n, where in funcs[: args.top]:
        print(f"  {n:4d}  {where}")
    subs = string_subscripts(trees)
    print(f"string-key subscripts: {sum(subs.values())} ({', '.join(f'{k} {v}' for k, v in sorted(subs.items()))})")
    lits = emitter_literals(trees, emitter_names())
    in_tables = sum(w.endswith("(table)") for w in lits)
    print(
        f"emitter names as code outside kernels/: {len(lits)}, {in_tables} of them in module-level tables"
        f" (not counted: {', '.join(NOT_EMITTERS)})"
    )
    for where in lits:
        print(f"  {where}")
    imports = design_imports(trees)
    print(f"generator internals predict/design.py imports: {len(imports)}")
    for where in imports:
        print(f"  line {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
