"""Rules where they belong: the link reads the board's exception type once; each suite's
shrink and leave-out rules live with its config (plan), not in the collector."""

import pytest

from mcuroof.links.base import ScriptError
from mcuroof.suites import memory, registry


@pytest.mark.parametrize(
    "text, exc_type",
    [
        ("MemoryError: memory allocation failed, allocating 664 bytes", "MemoryError"),
        ("MemoryError:", "MemoryError"),
        ("MemoryError", "MemoryError"),
        ("ValueError: no MemoryError here", "ValueError"),
        ("machine.SomeError: x", "SomeError"),
        ("unknown error", None),
    ],
)
def test_exception_type_read_once(text, exc_type):
    assert ScriptError("board: the board raised " + text, text, 3).exc_type == exc_type


def test_memory_suite_halves_the_emitters_working_set():
    cfg = {"max_ws": {"bytecode": 4096, "asm_thumb": 4096}}
    new, field, value = registry.get("memory").shrink(cfg, "memory/bytecode/int8/copy")
    assert (field, value) == ("max_ws", 2048) and new["max_ws"] == {"bytecode": 2048, "asm_thumb": 4096}
    assert cfg["max_ws"]["bytecode"] == 4096  # the suite's own config is left alone
    assert registry.get("memory").shrink({"max_ws": {"bytecode": memory.MIN_WS}}, "memory/bytecode/int8/copy") is None


def test_compute_suite_halves_the_unroll_of_the_emitter():
    cfg = {"unroll": 8, "unroll_asm": 4}
    assert registry.get("compute").shrink(cfg, "compute/asm_thumb/int8")[1:] == ("unroll_asm", 2)
    assert registry.get("compute").shrink(cfg, "compute/bytecode/int8")[1:] == ("unroll", 4)
    assert registry.get("compute").shrink({"unroll": 1}, "compute/bytecode/int8") is None
    assert registry.get("regions").shrink({}, "regions/asm_thumb/flash") is None


def test_only_the_layers_suite_leaves_failing_units_out():
    assert registry.get("layers").leaves_out_failing and not registry.get("memory").leaves_out_failing
