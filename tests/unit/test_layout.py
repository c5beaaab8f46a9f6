"""The package's shape: no import cycle (imports inside functions count), analysis apart from the
kernel generators, modules of a size one can read, and the layer-op contract in agreement with
the generators."""

from __future__ import annotations

import ast
from pathlib import Path

from mcuroof.kernels.ops import contract, dispatch

PKG = Path(__file__).resolve().parents[2] / "host" / "mcuroof"
GENERATORS = {
    "python",
    "viper",
    "m0",
    "m0_routines",
    "asm_text",
    "dsp_common",
    "dsp_conv",
    "dsp_dense",
    "dsp_depthwise",
    "dsp_planes",
    "mve",
    "pool",
    "dispatch",
}


def modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        parts = p.relative_to(PKG.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def imports(name: str, path: Path, known: dict) -> set[str]:
    """The mcuroof modules a module imports anywhere in its file."""
    pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module or ""
            for a in node.names:
                out.add(f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return {m for m in out if m in known and m != name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_no_import_cycle():
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_analysis_depends_on_the_kernel_contract_only():
    g = graph()
    for name in (m for m in g if m.startswith("mcuroof.analysis.")):
        used = {m.rpartition(".")[2] for m in g[name] if m.startswith("mcuroof.kernels.ops.")}
        assert not used & GENERATORS, (name, used & GENERATORS)


def test_modules_stay_readable():
    top = [p for p in PKG.glob("*.py")]
    assert len(top) <= 30, [p.name for p in top]
    long = {
        str(p.relative_to(PKG)): n
        for p in (PKG / "kernels").rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 600
    }
    assert not long, long


def test_the_contract_says_what_the_generators_run():
    emitters = ("bytecode", "native", "viper", "asm_thumb")
    for op in contract.OPS:
        for em in emitters:
            for dt in contract.DTYPES:
                assert contract.runs(op, em, dt) == (dispatch.source(op, em, dt) is not None), (op, em, dt)
