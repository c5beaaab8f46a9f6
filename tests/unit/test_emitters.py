"""The emitter and ISA registry (kernels.emitters) is consistent with every part that reads it:
each emitter a suite, plot style or board profile names is in it, each generator module it names
imports, dispatch has a kernel for each (emitter, op, type) it claims and none beyond, and the
probe that runs on the board (firmware/probe.py, which cannot import host code) tries the same
emitters."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from mcuroof.analysis import advice, points
from mcuroof.board import identity, profiles
from mcuroof.kernels import compute, emitters, regions
from mcuroof.kernels.ops import contract, dispatch
from mcuroof.predict import design
from mcuroof.report import styles
from mcuroof.suites import calibration, layers, memory, timing

ROOT = Path(__file__).resolve().parents[2]
PROBE = ROOT / "firmware" / "probe.py"


def _probe_tree() -> ast.Module:
    return ast.parse(PROBE.read_text())


def probe_list() -> tuple[list[str], list[tuple[str, str]]]:
    """(emitters always found, (emitter, function source) tried) as firmware/probe.py's emitters() has them."""
    fn = next(n for n in _probe_tree().body if isinstance(n, ast.FunctionDef) and n.name == "emitters")
    found = next(n for n in fn.body if isinstance(n, ast.Assign) and n.targets[0].id == "found")
    loop = next(n for n in fn.body if isinstance(n, ast.For))
    return ast.literal_eval(found.value), [tuple(p) for p in ast.literal_eval(loop.iter)]


def test_the_probe_tries_the_registrys_emitters():
    always, tried = probe_list()
    assert always == [e.name for e in emitters.EMITTERS if e.found == "always"]
    assert tried == emitters.probe_list()


def test_the_probe_list_check_can_fail(monkeypatch):
    """A registry emitter the probe does not try is told apart."""
    extra = emitters.Emitter("asm_new", "probe", frozenset({"new"}), "asm", probe_src="def f():\n pass")
    monkeypatch.setattr(emitters, "EMITTERS", emitters.EMITTERS + (extra,))
    assert probe_list()[1] != emitters.probe_list()


def test_the_probes_host_platforms_are_the_registrys():
    """The probe reads no ID register on a host OS: its list of host platforms is the registry's."""
    text = PROBE.read_text()
    listed = re.search(r"sys\.platform not in (\([^)]*\))", text).group(1)
    assert set(ast.literal_eval(listed)) <= set(emitters.HOST_PLATFORMS)


def test_host_platforms_are_defined_once():
    pkg = ROOT / "host" / "mcuroof"
    defined = [p for p in pkg.rglob("*.py") if re.search(r"^HOST_PLATFORMS\s*=", p.read_text(), re.M)]
    assert [p.relative_to(pkg).as_posix() for p in defined] == ["kernels/emitters.py"]
    spelled = [p for p in pkg.rglob("*.py") if '"darwin"' in p.read_text()]
    assert [p.relative_to(pkg).as_posix() for p in spelled] == ["kernels/emitters.py"]


@pytest.mark.parametrize(
    "where, names",
    [
        ("timing.ITERS", timing.ITERS),
        ("timing.ITERS_LARGE", timing.ITERS_LARGE),
        ("layers.EMITTERS", layers.EMITTERS),
        ("calibration.EMITTERS", calibration.EMITTERS),
        ("design.WORK", design.WORK),
        ("points.DONORS", points.DONORS),
        ("advice.ASSEMBLERS", advice.ASSEMBLERS.values()),
        ("profiles.EMITTERS", profiles.EMITTERS),
        ("contract.EMITTER_DTYPES", contract.EMITTER_DTYPES),
        ("compute.EMPTY", compute.EMPTY),
        ("peak writers", [e.name for e in emitters.EMITTERS if emitters.hook(e.name, "peaks")]),
        ("styles.EMITTER_COLORS", [e for e in styles.EMITTER_COLORS if e]),
        ("memory", memory.working_sets({"free": 1 << 30, "platform": "linux"}, list(emitters.in_suite("memory")))),
    ],
)
def test_every_emitter_named_is_in_the_registry(where, names):
    assert set(names) <= set(emitters.NAMES), where


def test_every_emitter_has_a_style_and_the_suites_their_iterations():
    assert all(e.name in styles.EMITTER_COLORS for e in emitters.EMITTERS)
    swept = {e for s in ("compute", "memory") for e in emitters.in_suite(s)} - {"c"}
    assert swept <= set(timing.ITERS) and swept <= set(timing.ITERS_LARGE)
    assert set(emitters.LAYER_EMITTERS) <= set(design.WORK)


@pytest.mark.parametrize("module", emitters.generator_modules())
def test_every_generator_module_imports(module):
    importlib.import_module(f"mcuroof.kernels.ops.{module}")


def test_every_dispatch_generator_is_the_registrys():
    """A generator needs only instruction sets the registry knows, and its module is one the
    registry lists (an emitter's generic one or an extension's)."""
    names = set(emitters.EXTENSION_BY_NAME)
    listed = set(emitters.generator_modules())
    for g in dispatch.GENERATORS:
        assert g.needs <= names, g.name
        module = g.applies.__module__.rpartition(".")[2]
        assert module in listed | {"dispatch"}, (g.name, module)
    for e in emitters.EMITTERS:  # the generic module each emitter names, and its hooks
        mod = dispatch.generic_module(e.name)
        assert (mod is not None) == bool(e.generic), e.name
        if mod:
            assert all(callable(getattr(mod, hook, None)) for hook in ("generic", "limit", "variant")), e.name


def test_dispatch_covers_what_the_registry_claims():
    for e in emitters.EMITTERS:
        for op in contract.OPS:
            for dt in contract.DTYPES:
                claimed = e.layers and dt in e.dtypes and (e.ops is None or op in e.ops)
                assert (dispatch.source(op, e.name, dt) is not None) == claimed, (e.name, op, dt)
                assert contract.runs(op, e.name, dt) == claimed, (e.name, op, dt)


def test_every_ceiling_has_its_writer():
    """Each extension's ceilings run under its assembler, whose row names their writer (its
    `peaks` hook), and the suite runs them in the registry's order."""
    for x in emitters.EXTENSIONS:
        if x.ceilings:
            assert callable(emitters.hook(x.emitter, "peaks")), x.name
    assert [k for k, _ in identity.PEAK_KERNELS] == [k for x in emitters.EXTENSIONS for k in x.ceilings]
    assert set(identity.FEATURE_ISA) <= set(profiles.FEATURES)


def test_the_widest_simd_is_named_first():
    assert list(advice.ASSEMBLERS)[0] == "mve"
    assert advice.ASSEMBLERS == {"mve": "asm_thumb", "simd": "asm_xtensa", "dsp": "asm_thumb"}


def test_an_assemblers_architecture():
    assert emitters.assembler_of(emitters.RV32) == "asm_rv32"
    assert emitters.arch_of(["bytecode", "viper", "asm_rv32"]) == emitters.RV32
    assert emitters.arch_of(["bytecode", "viper"]) is None
    assert emitters.arch_of(["bytecode"], "linux") == emitters.HOST


def test_the_memory_suite_adds_the_c_copy_where_there_is_memoryview():
    probe = {"emitters": ["bytecode", "viper", "asm_rv32"], "memoryview": True}
    assert emitters.present(probe, "memory") == ["bytecode", "viper", "asm_rv32", "c"]
    assert emitters.present({**probe, "memoryview": False}, "compute") == ["bytecode", "viper", "asm_rv32"]


def test_every_hook_a_row_names_is_there():
    """Each ISA hook an emitter's row names imports and is what its callers take: the MAC body,
    the movers and the peak writer callables, the reader a kernels.regions.Reader."""
    for e in emitters.EMITTERS:
        for name in emitters.HOOKS:
            found = emitters.hook(e.name, name)
            assert (found is not None) == bool(getattr(e, name)), (e.name, name)
            if found is not None:
                assert isinstance(found, regions.Reader) if name == "reader" else callable(found), (e.name, name)
    assert set(emitters.in_suite("compute")) <= {e.name for e in emitters.EMITTERS if e.mac_body}
    assert set(emitters.in_suite("memory")) <= {e.name for e in emitters.EMITTERS if e.movers}
