"""The Cortex-M0+ cycle model against rp2040js: the same kernels on qemu-m0plus (QEMU's micro:bit
machine timed by the cycle model as a Cortex-M0+ at 125 MHz) and on rp2040js-pico (rp2040js, an
independent implementation of the same core's timing, at 125 MHz), side by side.

    PYTHONPATH=host .venv/bin/python tools/cycle_crosscheck.py [-o DIR] [--model kws-dscnn]

Runs `mcuroof run --board B --suite compute` on both boards (with --model, also `--suite layers
--model M --emitter asm_thumb --dtype int8`) into DIR/B-compute and DIR/B-layers; a folder that
already holds a results.json is read, not run again. Then it times, on both, a call micro-loop
(BL, PUSH {r4, lr}, POP {r4, pc}): where the two disagree, the disagreement is there (docs/timing.md
"Validation"). Prints one table: kernel, rp2040js cycles per MAC (layers: microseconds), the
model's, and model / rp2040js. Nothing here is tuned to rp2040js: the model's basis is the TRM."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from mcuroof.cli import main as mcuroof
from mcuroof.links.base import Target
from mcuroof.links.open import open_link

BOARDS = ("rp2040js-pico", "qemu-m0plus")
CLOCK_HZ = 125_000_000  # both boards' clock: cycles = microseconds x 125
AGREE = 0.02  # the goal: within 2 %
CALL_N = 20_000
# the call micro-loop: per iteration BL (3) + the leaf + SUBS (1) + BGT taken (2), against the
# same loop with a leaf of BX LR (2); the leaf's PUSH {r4, lr} and POP {r4, pc} move 2 registers
# each: 1+N = 3 and 3+N = 5 cycles by the Cortex-M0+ TRM (ARM DDI 0484C, table 3-1)
CALLS = (
    f"N = {CALL_N}\n"
    + r"""
import time
@micropython.asm_thumb
def push_pop(r0):
    b(START)
    label(LEAF)
    push({r4, lr})
    pop({r4, pc})
    label(START)
    label(L)
    bl(LEAF)
    sub(r0, 1)
    bgt(L)
@micropython.asm_thumb
def bx_lr(r0):
    b(START)
    label(LEAF)
    bx(lr)
    label(START)
    label(L)
    bl(LEAF)
    sub(r0, 1)
    bgt(L)
def t(f, n):
    a = time.ticks_us()
    f(n)
    return time.ticks_diff(time.ticks_us(), a)
for f in (push_pop, bx_lr):
    t(f, N)  # a first call takes longer (by some microseconds, on both boards): not timed
    print('CALL', t(f, N), t(f, 2 * N))
"""
)
CALL_TRM = {"push_pop": 3 + 3 + 5 + 1 + 2, "bx_lr": 3 + 2 + 1 + 2}  # cycles an iteration


def results(out: Path, board: str, suite: str, extra: list[str]) -> dict:
    """DIR/BOARD-SUITE's results.json, run first where the folder holds none (the run's own
    output goes to stderr: stdout is the tables)."""
    folder = out / f"{board}-{suite}"
    if not (folder / "results.json").exists():
        argv = ["run", "--board", board, "--suite", suite, "-o", str(folder), *extra]
        print("mcuroof " + " ".join(argv), file=sys.stderr)
        with contextlib.redirect_stdout(sys.stderr):
            status = mcuroof(argv)
        if status != 0:
            raise SystemExit(f"mcuroof {' '.join(argv)} failed")
    return json.loads((folder / "results.json").read_text())


def cycles_per_mac(data: dict) -> dict[str, float]:
    """Each measured compute roof's cycles per MAC at the common clock."""
    return {
        r["name"]: CLOCK_HZ / r["macs_per_s"]
        for r in data["roofs"]
        if r["kind"] == "compute" and r["source"] == "measured" and r.get("macs_per_s")
    }


def layer_us(data: dict) -> dict[str, float]:
    """Each profiled layer's time in microseconds (projected from a tile where it ran on one: the
    two boards have the same heap and clock, so the same tiles)."""
    return {f"{p['name']} {p['emitter']}": p["seconds"] * 1e6 for p in data.get("points", []) if p.get("seconds")}


def call_cycles(board: str) -> dict[str, float]:
    """Cycles an iteration of each call micro-loop (the difference of N and 2N iterations)."""
    lines: list[str] = []
    with open_link(Target(board=board)).link as link:
        link.run([CALLS], lines.append, timeout=300)
    got = [ln.split()[1:] for ln in lines if ln.startswith("CALL ")]
    if len(got) != len(CALL_TRM):
        raise SystemExit(f"{board}: the call micro-loop printed {lines[-3:]}")
    return {name: (int(b) - int(a)) * CLOCK_HZ / 1e6 / CALL_N for name, (a, b) in zip(CALL_TRM, got)}


def rows(ref: dict[str, float], model: dict[str, float]) -> list[tuple[str, float, float, float]]:
    return [(k, ref[k], model[k], model[k] / ref[k]) for k in ref if k in model]


def table(title: str, unit: str, lines: list[tuple[str, float, float, float]], digits: int) -> None:
    print(f"\n{title}\n| kernel | rp2040js {unit} | modelled {unit} | modelled / rp2040js |\n|---|---|---|---|")
    for k, a, b, r in lines:
        flag = "" if abs(r - 1) <= AGREE else " (outside 2 %)"
        print(f"| {k} | {a:,.{digits}f} | {b:,.{digits}f} | {r:.4f}{flag} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default="crosscheck", help="the runs' folder (default: crosscheck)")
    ap.add_argument("--model", help="also the int8 asm_thumb layer kernels of this model (kws-dscnn)")
    args = ap.parse_args()
    out = Path(args.output)
    ref, model = (results(out, b, "compute", []) for b in BOARDS)
    table("Compute ceilings (suite compute)", "cycles/MAC", rows(cycles_per_mac(ref), cycles_per_mac(model)), 3)
    if args.model:
        extra = ["--model", args.model, "--emitter", "asm_thumb", "--dtype", "int8"]
        ref, model = (results(out, b, "layers", extra) for b in BOARDS)
        table(f"{args.model} int8 asm_thumb layers (suite layers)", "us", rows(layer_us(ref), layer_us(model)), 1)
    calls = {b: call_cycles(b) for b in BOARDS}
    print("\nCall micro-loop, cycles an iteration (TRM: the Cortex-M0+ TRM's table 3-1 by hand)")
    print("| loop | TRM | rp2040js | modelled |\n|---|---|---|---|")
    for name, trm in CALL_TRM.items():
        print(f"| {name} | {trm} | {calls[BOARDS[0]][name]:.2f} | {calls[BOARDS[1]][name]:.2f} |")


if __name__ == "__main__":
    main()
