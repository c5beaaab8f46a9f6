"""The package's shape: every import (inside functions too) follows an edge of the layering table
(LAYERS, docs/development.md "Layering"), no import cycle, analysis apart from the kernel
generators, modules of a size one can read, and the layer-op contract in agreement with the
generators."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from mcuroof.kernels import emitters
from mcuroof.kernels.ops import contract, dispatch

PKG = Path(__file__).resolve().parents[2] / "host" / "mcuroof"
# the generator modules: every one the registry names (kernels.emitters), and their dispatcher
GENERATORS = set(emitters.generator_modules()) | {"dispatch"}


def modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        parts = p.relative_to(PKG.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def import_lines(name: str, path: Path, known: dict) -> list[tuple[str, int]]:
    """(mcuroof module, line) of every import of a module, at any depth of its file."""
    pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module or ""
            for a in node.names:
                out.append((f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod, node.lineno))
        elif isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
    return sorted((m, line) for m, line in out if m in known and m != name)


def imports(name: str, path: Path, known: dict) -> set[str]:
    """The mcuroof modules a module imports anywhere in its file."""
    return {m for m, _ in import_lines(name, path, known)}


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


# The layering: what each part of the package may import besides itself and FOUNDATION, lowest
# first. A new edge is a decision: add it here and to docs/development.md ("Layering"), which
# repeats this table (test_the_docs_show_the_table); an edge that closes a cycle is refused.
FOUNDATION = {"errors", "units", "version", "package_data"}  # import no other part; all may import them
LAYERS = {
    "model": set(),
    "kernels": set(),
    "kernels.ops": {"kernels", "model"},
    "board": {"kernels", "kernels.ops"},
    "analysis": {"board", "kernels", "kernels.ops", "model"},
    "predict": {"analysis", "kernels", "kernels.ops", "model"},
    "links": {"board", "kernels"},
    "suites": {"analysis", "board", "kernels", "kernels.ops", "model", "predict"},
    "results": {"analysis", "board", "model"},
    "measure": {"analysis", "board", "kernels", "links", "results", "suites"},
    "report": {"analysis", "board", "kernels", "model", "npu", "published", "results", "suites"},
    "published": {"board"},
    "npu": {"analysis", "model", "published"},
    "farm": {"measure", "suites"},
    "commands": {
        "analysis",
        "board",
        "farm",
        "kernels",
        "kernels.ops",
        "links",
        "measure",
        "model",
        "npu",
        "predict",
        "published",
        "report",
        "results",
        "suites",
    },
    "api": {"analysis", "commands", "model", "report", "results"},
    "cli": set(),  # finds the commands by name (cli.COMMANDS), imported when one runs
    "mcuroof": {"api"},  # the package: the notebook API on first use
}


def part(module: str) -> str:
    """The row of LAYERS (or FOUNDATION) a module belongs to: mcuroof.kernels.ops.m0 -> kernels.ops."""
    names = module.split(".")[1:]
    if not names:
        return "mcuroof"
    return "kernels.ops" if names[:2] == ["kernels", "ops"] else names[0]


def may_import(src: str, dst: str) -> bool:
    if src == dst or dst in FOUNDATION:
        return True
    return src not in FOUNDATION and dst in LAYERS.get(src, set())


def layering_errors() -> list[str]:
    """One line per import that follows no edge of the table, naming the module, line and import."""
    known = modules()
    errors = [f"{m}: its part {part(m)!r} has no row in LAYERS" for m in known if part(m) not in {*LAYERS, *FOUNDATION}]
    for name, path in sorted(known.items()):
        for dst, line in import_lines(name, path, known):
            if not may_import(part(name), part(dst)):
                allowed = ", ".join(sorted(LAYERS.get(part(name), set()))) or "nothing"
                errors.append(
                    f"{name} (line {line}) imports {dst}: {part(name)} may import {allowed} (and {', '.join(sorted(FOUNDATION))})"
                )
    return errors


def test_every_import_follows_the_layering():
    assert layering_errors() == []


def test_the_layering_is_a_layering():
    assert cycles(LAYERS) == []
    assert all(d in LAYERS for dsts in LAYERS.values() for d in dsts)


def test_the_layering_check_names_a_backward_import(tmp_path, monkeypatch):
    """A links module that imports measure is named with its line (the check can fail)."""
    (tmp_path / "mcuroof" / "links").mkdir(parents=True)
    (tmp_path / "mcuroof" / "measure").mkdir()
    (tmp_path / "mcuroof" / "links" / "serial.py").write_text("import os\n\nfrom mcuroof.measure import protocol\n")
    (tmp_path / "mcuroof" / "measure" / "protocol.py").write_text("from mcuroof.links import serial\n")
    monkeypatch.setattr(sys.modules[__name__], "PKG", tmp_path / "mcuroof")
    assert layering_errors() == [
        "mcuroof.links.serial (line 3) imports mcuroof.measure.protocol: links may import board, kernels "
        "(and errors, package_data, units, version)"
    ]


def test_measuring_imports_no_plotting():
    """A run's measuring (the pipeline, --clocks) loads neither matplotlib nor plotly: the command
    draws (report.outputs)."""
    code = (
        "import sys; import mcuroof.measure.pipeline, mcuroof.measure.clocks; "
        "print(sorted(m for m in ('matplotlib', 'plotly') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_docs_show_the_table():
    """docs/development.md's Layering table lists the same edges as LAYERS."""
    text = (PKG.parents[1] / "docs" / "development.md").read_text()
    section = text.split("## Layering", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 2 and cells[0] in LAYERS:
            rows[cells[0]] = {c.strip().strip("`") for c in cells[1].split(",") if c.strip() not in ("", "-")}
    assert rows == LAYERS


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


def test_predict_asks_the_generators_and_copies_none():
    """predict reads a kernel's family and grain from its generator's declaration
    (kernels.ops.dispatch.Generator.variant): it imports no generator module's internals."""
    g = graph()
    for name in (m for m in g if m.startswith("mcuroof.predict.")):
        used = {m.rpartition(".")[2] for m in g[name] if m.startswith("mcuroof.kernels.ops.")}
        assert not used & (GENERATORS - {"dispatch"}), (name, used & GENERATORS)


def test_functions_stay_short():
    """No function of host/mcuroof over 120 lines (a nested one counted on its own too)."""
    long = []
    for p in PKG.rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 120:
                long.append(f"{p.relative_to(PKG)}:{node.lineno} {node.name}")
    assert not long, long


def test_modules_stay_readable():
    top = [p for p in PKG.glob("*.py")]
    assert len(top) <= 30, [p.name for p in top]
    long = {str(p.relative_to(PKG)): n for p in PKG.rglob("*.py") if (n := len(p.read_text().splitlines())) > 600}
    assert not long, f"modules over 600 lines: {long}"


def test_the_generator_list_holds_every_generator_module():
    """A module of kernels/ops that dispatch's generators come from is in GENERATORS."""
    used = {g.applies.__module__.rpartition(".")[2] for g in dispatch.GENERATORS}
    assert used <= GENERATORS, used - GENERATORS
    assert {"rv32", "rv32_routines", "dsp_rows"} <= GENERATORS


def test_the_contract_says_what_the_generators_run():
    for op in contract.OPS:
        for em in emitters.LAYER_EMITTERS:
            for dt in contract.DTYPES:
                assert contract.runs(op, em, dt) == (dispatch.source(op, em, dt) is not None), (op, em, dt)
