"""Hashes of every script mcuroof sends to a board, for the boards and networks it knows.

A refactoring must not change a number; the cheapest proof is that every generated kernel is
byte-identical before and after. Run before and after, compare the two files:

    python tools/kernel_hashes.py > before.json   # ... refactor ...
    python tools/kernel_hashes.py | diff before.json -

Covered: the memory, compute and regions suites' kernels for a probe of each emulated board (and
of real ports by name), and the layer kernels of every built-in network and ../shared model for
every emitter (asm_rv32's apart), element type and instruction set, at a board's heap and at a small one (tiles),
with and without a time budget.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from pathlib import Path

from mcuroof.board import profiles
from mcuroof.kernels.ops import dispatch, layer_plan
from mcuroof.model import builtins as model_builtins
from mcuroof.model import load as model_load
from mcuroof.suites import registry
from mcuroof.suites.base import Context

EMITTERS = ("bytecode", "native", "viper", "asm_thumb")
PROBES = {
    "qemu-microbit": {
        "cpu": [0x410CC200],
        "platform": "microbit",
        "free": 8000,
        "float": True,
        "memoryview": False,
        "emitters": ["bytecode", "asm_thumb"],
        "tick_us": 1,
    },
    "qemu-m3": {
        "cpu": [0x410FC231, 0x01111110],
        "platform": "qemu-m3",
        "free": 3_900_000,
        "float": True,
        "memoryview": True,
        "emitters": list(EMITTERS),
        "tick_us": 1,
    },
    "qemu-m7": {
        "cpu": [0x411FC272, 0x01111131, 0x10110221, 0x12000011],
        "platform": "qemu-m7",
        "free": 3_900_000,
        "float": True,
        "memoryview": True,
        "emitters": list(EMITTERS),
        "tick_us": 1,
    },
    "qemu-m55": {
        "cpu": [0x410FD221, 0x01111131, 0x10110221, 0x12100211],
        "platform": "qemu-m55",
        "free": 400_000,
        "float": True,
        "memoryview": True,
        "emitters": list(EMITTERS),
        "tick_us": 1,
    },
    "unix": {
        "platform": "linux",
        "free": 600 << 20,
        "float": True,
        "memoryview": True,
        "emitters": ["bytecode", "native", "viper"],
        "tick_us": 1,
    },
    "rp2": {
        "platform": "rp2",
        "cpu": [0x410CC601],
        "free": 190_000,
        "float": True,
        "memoryview": True,
        "emitters": list(EMITTERS),
        "tick_us": 1,
    },
    "esp32": {
        "platform": "esp32",
        "free": 4_000_000,
        "float": True,
        "memoryview": True,
        "emitters": ["bytecode", "native", "viper"],
        "tick_us": 1,
    },
}
# the probe's ID registers (CPUID, ID_ISAR3, MVFR0, MVFR1) as each emulated core reports them
# (board.identity decodes them); a real M7 port's firmware names itself otherwise and gets the
# same kernels as qemu-m7
PROBES["mimxrt"] = {**PROBES["qemu-m7"], "platform": "mimxrt"}
# qemu-rv32 (RV32IMAC): no CPUID; _mpy's architecture 11 (RV32IMC) and misa (MXL 1, I, M, A, C)
PROBES["qemu-rv32"] = {
    "platform": "qemu-rv32",
    "mpy": 11 << 10 | 6,
    "misa": 0x40001105,
    "free": 200_000,
    "float": True,
    "memoryview": True,
    "emitters": ["bytecode", "native", "viper", "asm_rv32"],
    "tick_us": 1,
}
PROBES["esp32-rv32"] = {**PROBES["qemu-rv32"], "platform": "esp32", "misa": 0}
# rp2040js-pico's probe (a 2 us tick), sized as a slow emulator by its profile ([run].slow_emulator,
# suites.timing.slow), whatever its pace; no other board's profile says so
PROBES["rp2040js-pico"] = {**PROBES["rp2"], "platform": "rp2040js-pico", "free": 186016, "tick_us": 2}
SLOW = {"rp2040js-pico": profiles.find("rp2040js-pico")}
# (name, dsp, mve) the layer kernels are generated for
ISAS = (("m0", False, False), ("dsp", True, False), ("mve", True, True))


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def networks():
    nets = [model_builtins.builtin_network(name) for name in model_builtins.BUILTINS]
    shared = Path(__file__).resolve().parents[2] / "shared" / "models"
    nets += [model_load.load_network(str(p)) for p in sorted(shared.glob("*.tflite"))]
    return nets


def suite_hashes() -> dict[str, str]:
    out = {}
    for board, probe in PROBES.items():
        for suite in ("memory", "compute", "regions"):
            cfg = registry.suite_config(suite, probe, Context(profile=SLOW.get(board)))
            for k in registry.for_suite(suite, cfg):
                out[f"suite {board} {k.key}"] = digest("\n#==\n".join(k.scripts("finish()\n")))
    return out


def layer_hashes() -> dict[str, str]:
    out = {}
    for net in networks():
        for heap, budget in ((8000, 4e3), (3_900_000, None), (400_000, 2e6)):
            for dtype in ("int8", "float32"):
                max_work = {(em, dtype): budget for em in EMITTERS} if budget else None
                jobs, _ = layer_plan.plan(net, [dtype], list(EMITTERS), heap, max_work)
                for job in jobs:
                    for isa, dsp, mve in ISAS:
                        j = dataclasses.replace(job, isa=frozenset(n for n, on in (("dsp", dsp), ("mve", mve)) if on))
                        name = f"layer {net.name} heap={heap} {job.key} {isa}"
                        out[name] = digest(dispatch.script(j))
                # the RV32 assembler's kernels, planned on their own (an RV32 core has no DSP or MVE)
                max_work = {("asm_rv32", dtype): budget} if budget else None
                for job in layer_plan.plan(net, [dtype], ["asm_rv32"], heap, max_work)[0]:
                    out[f"layer {net.name} heap={heap} {job.key} rv32"] = digest(dispatch.script(job))
    return out


def main() -> int:
    hashes = {**suite_hashes(), **layer_hashes()}
    json.dump(dict(sorted(hashes.items())), sys.stdout, indent=0)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
