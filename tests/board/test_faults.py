"""Nothing lost: the real suites on the emulated micro:bit through a fault-injecting pty proxy.

Each case runs `mcuroof run` (the real command, QEMU, mpremote over a pty) with the link pointed
at mcuroof.faultproxy.FaultProxy (fixed seed), then checks that the run either finished with the
same roofs as a clean run (within 1 %) and no unit of measurement missing, or stopped with a clear
one-line error and a directory that `mcuroof run --resume` completes. The matrix of faults
injected / detected / recovered / records lost is printed at the end of the module.
"""

import dataclasses
import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from conftest import needs_qemu
from mcuroof.cli import main
from mcuroof.commands import run as cmd_run
from mcuroof.links import open as links_open
from mcuroof.links.base import Opened
from mcuroof.links.faultproxy import FaultProxy
from mcuroof.links.qemu import QemuLink
from mcuroof.measure.rawlog import complete_kernels, read
from mcuroof.results import document as results
from mcuroof.suites import registry

pytestmark = needs_qemu
SUITES = "memory,compute"
# MCUROOF_FAULT_BOARD=qemu-m7 runs the matrix on the current MicroPython (raw-paste link)
BOARD = os.environ.get("MCUROOF_FAULT_BOARD", "qemu-microbit")
GREEDY_UNROLL = 64  # a bytecode unroll the micro:bit's heap cannot compile (the host retries with half)
SILENCE = 3.0  # the link's stall timeout here; a clean run's longest silence is about 0.3 s
MATRIX: dict[str, dict] = {}


def through_proxy(monkeypatch, proxy: FaultProxy, out: Path, argv=()) -> tuple[int, list[str]]:
    """`mcuroof run` on BOARD with the link going through the proxy."""

    def open_target(target, steps=None):
        shift = links_open.with_profile_defaults(target).icount_shift
        link = QemuLink(shift, wrap=proxy.attach, monitor=True, board=BOARD)
        link.timeout = SILENCE
        proxy.actions.update(reset=link.qemu.system_reset, kill=link.qemu.kill)
        return Opened(link, BOARD, shift, None)

    monkeypatch.setattr(cmd_run, "open_target", open_target)
    return main(["run", "--board", BOARD, "-o", str(out), "--suite", SUITES, *argv])


def measured(out: Path) -> dict[tuple, float]:
    data = results.load(out / "results.json")
    return {
        (r["kind"], r["name"], r["emitter"], r["dtype"]): r.get("bytes_per_s") or r.get("macs_per_s")
        for r in data["roofs"]
        if r["source"] == "measured"
    }


def points(out: Path) -> tuple[dict, set]:
    """Accepted units -> their measurement points, and the units where the board halved buffers."""
    units = complete_kernels(read(out / "raw.jsonl"))
    pts = {key: {(r["t"], r.get("n")) for r in recs if r["t"] in ("mem", "mac")} for key, recs in units.items()}
    halved = {key for key, recs in units.items() if any(r["t"] == "halved" for r in recs)}
    return pts, halved


def lost_records(clean: Path, out: Path) -> int:
    """Measurement points of the clean run missing here: a unit missing counts all its points;
    a smaller sweep is not a loss where the board recorded that a MemoryError halved its buffers
    (its heap is laid out differently after a restart)."""
    want, _ = points(clean)
    got, halved = points(out)
    lost = 0
    for key, pts in want.items():
        if key not in got:
            lost += len(pts)
        elif key not in halved:
            lost += len(pts - got[key])
    return lost


def faults_logged(out: Path) -> list[str]:
    return [e["what"] for e in read(out / "raw.jsonl") if e["kind"] == "fault"]


def fault_counts(out: Path) -> tuple[int, int]:
    """(faults raw.jsonl logged, those recovered): a fault is recovered when the log shows the
    suite it struck completing after it (a later `suite` line) and its unit was not left out."""
    entries = read(out / "raw.jsonl")
    detected = recovered = 0
    for i, e in enumerate(entries):
        if e["kind"] != "fault":
            continue
        detected += 1
        completed = any(x["kind"] == "suite" and x["suite"] == e["suite"] for x in entries[i + 1 :])
        recovered += completed and not e["what"].startswith("left out")
    return detected, recovered


def memory_error_counts(out: Path) -> tuple[int, int]:
    """(MemoryErrors logged: fault lines and the firmware's `halved` records, recovered: retries
    whose unit later finished intact, and halvings inside units that were accepted)."""
    entries = read(out / "raw.jsonl")
    faults = [e for e in entries if e["kind"] == "fault" and "MemoryError" in e["what"]]
    halved = [e for e in entries if e["kind"] == "record" and e["rec"].get("t") == "halved"]
    kept = complete_kernels(entries)
    retried = 0
    for i, e in enumerate(entries):
        if e["kind"] == "retry":
            retried += any(
                x["kind"] == "kernel" and (x["suite"], x["kernel"]) == (e["suite"], e["kernel"])
                for x in entries[i + 1 :]
            )
    kept_halved = sum(r["t"] == "halved" for recs in kept.values() for r in recs)
    return len(faults) + len(halved), retried + kept_halved


def assert_same_roofs(clean: Path, out: Path, keys=None) -> None:
    """The same roofs (all of them, or `keys`: a run that changed some kernels' loops names those
    ceilings by their other unroll) to 1 %."""
    a, b = measured(clean), measured(out)
    assert a.keys() == b.keys() if keys is None else set(keys) <= b.keys()
    for k in keys or a:
        assert b[k] == pytest.approx(a[k], rel=0.01), k


@pytest.fixture(scope="module")
def clean(tmp_path_factory, request):
    """A clean run through the proxy (no faults): the reference."""
    out = tmp_path_factory.mktemp("clean")
    with pytest.MonkeyPatch.context() as mp, FaultProxy(seed=1) as proxy:
        assert through_proxy(mp, proxy, out) == 0
    assert not faults_logged(out) and results.load(out / "results.json")["checks"]["failed"] == 0
    yield out
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter and capture and MATRIX:
        with capture.global_and_fixture_disabled():
            print_matrix(reporter)


def print_matrix(reporter) -> None:
    reporter.write_line("")
    reporter.write_line(f"fault matrix ({BOARD}, suites memory,compute, seed 7):")
    reporter.write_line(f"  {'fault':<14}{'injected':>9}{'detected':>9}{'recovered':>10}{'lost':>6}  outcome")
    for name, row in MATRIX.items():
        reporter.write_line(
            f"  {name:<14}{row['injected']:>9}{row['detected']:>9}{row['recovered']:>10}"
            f"{row['lost']:>6}  {row['outcome']}"
        )


CASES = {  # name: FaultProxy arguments
    "drop": {"faults": {"drop": 3}},
    "bit flip": {"faults": {"flip": 3}},
    "garbage": {"faults": {"garbage": 3}},
    "stall": {"faults": {"stall": 1}, "stall_s": 2 * SILENCE},
    "disconnect": {"faults": {"disconnect": 2}},
    "board reset": {"faults": {"reset": 2}},
    "qemu killed": {"faults": {"kill": 1}},
    "h2b garbage": {"h2b": {"garbage": 2}},
}


@pytest.mark.parametrize("name", list(CASES))
def test_fault_is_detected_and_recovered(name, clean, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    with FaultProxy(seed=7, start=1500, spacing=4500, **CASES[name]) as proxy:
        code = through_proxy(monkeypatch, proxy, out)
    err = capsys.readouterr().err
    assert code == 0, err
    injected = sum(proxy.injected.values())
    detected, recovered = fault_counts(out)
    lost = lost_records(clean, out)
    MATRIX[name] = {
        "injected": injected,
        "detected": detected,
        "recovered": recovered,
        "lost": lost,
        "outcome": "finished, same roofs",
    }
    assert injected == sum(n for kind in ("faults", "h2b") for n in CASES[name].get(kind, {}).values())
    if name != "h2b garbage":  # garbage in a script may land in a comment-free spot that still runs
        assert detected >= 1
    assert recovered == detected
    assert lost == 0
    assert complete_kernels(read(out / "raw.jsonl")).keys() == complete_kernels(read(clean / "raw.jsonl")).keys()
    # a record that failed its check first: a roof missing below would otherwise hide why
    assert results.load(out / "results.json")["checks"]["failed"] == 0
    assert_same_roofs(clean, out)


def test_hang_stops_with_clear_error_and_resume_finishes(clean, tmp_path, monkeypatch, capsys):
    """A board that stops answering for good: one line naming the suite and the last record,
    exit 2; `mcuroof run --resume DIR` then finishes without repeating finished units."""
    out = tmp_path / "out"
    with FaultProxy(seed=7, faults={"hang": 1}, start=3000, spacing=1000) as proxy:
        code = through_proxy(monkeypatch, proxy, out)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "Traceback" not in err[0]
    assert err[0].startswith("mcuroof: suite memory: ") and "last record received: memory/" in err[0]
    assert f"mcuroof run --resume {out}" in err[0]
    before = complete_kernels(read(out / "raw.jsonl"))
    assert before and not (out / "results.json").exists()
    assert fault_counts(out)[1] == 0  # nothing completed after the hang yet

    monkeypatch.undo()  # the real command, no proxy
    assert main(["run", "--resume", str(out)]) == 0
    entries = read(out / "raw.jsonl")
    done = Counter((e["suite"], e["kernel"]) for e in entries if e["kind"] == "kernel")
    assert max(done.values()) == 1  # nothing finished before the hang was run again
    assert [e for e in entries if e["kind"] == "header"][-1]["resumed"] is True
    lost = lost_records(clean, out)
    detected, recovered = fault_counts(out)
    MATRIX["hang + resume"] = {
        "injected": sum(proxy.injected.values()),
        "detected": detected,
        "recovered": recovered,
        "lost": lost,
        "outcome": f"exit 2 after {len(before)} units, --resume finished",
    }
    assert detected >= 1 and recovered == detected
    assert lost == 0
    assert_same_roofs(clean, out)


def test_memory_error_retried_with_a_smaller_working_set(clean, tmp_path, monkeypatch, capsys):
    """A config that asks for too much: buffers sized from all of the free heap (the firmware
    halves them and says so) and bytecode dot products unrolled 64x, which the micro:bit cannot
    compile (the host re-runs them with half the unroll and logs a retry)."""
    if BOARD != "qemu-microbit":  # qemu-m7: 4096 runs out of heap, but 2048 overflows the bytecode's jumps
        pytest.skip("the unroll that exhausts a big heap halves into a bytecode overflow, not a MemoryError")

    def greedy(name, **fields):
        suite = registry.get(name)
        monkeypatch.setitem(
            registry.SUITES,
            name,
            dataclasses.replace(suite, config=lambda probe, ctx: {**suite.config(probe, ctx), **fields}),
        )

    greedy("memory", heap=1)
    greedy("compute", unroll=GREEDY_UNROLL)
    out = tmp_path / "out"
    with FaultProxy(seed=7) as proxy:
        assert through_proxy(monkeypatch, proxy, out) == 0
    entries = read(out / "raw.jsonl")
    retries = [e for e in entries if e["kind"] == "retry"]
    halved = [e for e in entries if e["kind"] == "record" and e["rec"]["t"] == "halved"]
    memory_errors = [w for w in faults_logged(out) if "MemoryError" in w]
    assert retries and all(r["why"] == "MemoryError" and r["unroll"] < GREEDY_UNROLL for r in retries)
    assert halved and len(memory_errors) == len(retries)
    macs = [
        e["rec"] for e in entries if e["kind"] == "record" and e["rec"]["t"] == "mac" and e["rec"]["em"] == "bytecode"
    ]
    kept = complete_kernels(entries)
    assert all(
        r["u"] < GREEDY_UNROLL for (s, k), recs in kept.items() if "bytecode" in k and s == "compute" for r in recs
    )
    assert macs and kept.keys() == complete_kernels(read(clean / "raw.jsonl")).keys()
    # the kernels the config did not touch measure what the clean run measured
    assert_same_roofs(clean, out, [k for k in measured(clean) if k[0] == "compute" and k[2] == "asm_thumb"])
    detected, recovered = memory_error_counts(out)
    assert detected == len(memory_errors) + len(halved) and recovered >= len(retries)
    MATRIX["MemoryError"] = {
        "injected": "-",
        "detected": detected,
        "recovered": recovered,
        "lost": len(complete_kernels(read(clean / "raw.jsonl")).keys() - kept.keys()),
        "outcome": f"{len(retries)} host retries (unroll), {len(halved)} firmware halvings",
    }
    print(json.dumps(retries[:2]))


# every other emulated link through the same proxy: rp2040js-pico (its runner feeds the UART's
# 32-byte receive FIFO from the pty) and qemu-rv32 (QEMU's virt UART); each must finish with the
# clean run's roofs, or stop in one line with a folder that --resume completes
EMULATED = {
    "rp2040js-pico": pytest.mark.skipif(
        not shutil.which("node") or not shutil.which("arm-none-eabi-gcc"), reason="needs Node.js and gcc-arm-none-eabi"
    ),
    "qemu-rv32": pytest.mark.skipif(
        not shutil.which("qemu-system-riscv32") or not shutil.which("riscv64-unknown-elf-gcc"),
        reason="needs qemu-system-riscv32 and gcc-riscv64-unknown-elf",
    ),
}
EMULATED_FAULTS = {"faults": {"drop": 1, "flip": 1, "garbage": 1}, "h2b": {"garbage": 1}}


def through_emulator(monkeypatch, proxy: FaultProxy, out: Path, board: str) -> int:
    """`mcuroof run --suite memory,compute` on an emulated board whose link goes through the proxy."""

    def open_target(target, steps=None):
        if board == "rp2040js-pico":
            from mcuroof.links.rp2040js import Rp2040jsLink

            link = Rp2040jsLink(wrap=proxy.attach)
            proxy.actions.update(kill=link.emulator.kill)
            return Opened(link, board, None, None)
        shift = links_open.with_profile_defaults(target).icount_shift
        link = QemuLink(shift, wrap=proxy.attach, monitor=True, board=board)
        proxy.actions.update(reset=link.qemu.system_reset, kill=link.qemu.kill)
        return Opened(link, board, shift, None)

    monkeypatch.setattr(cmd_run, "open_target", open_target)
    return main(["run", "--board", board, "-o", str(out), "--suite", SUITES])


@pytest.mark.slow
@pytest.mark.parametrize("board", [pytest.param(b, marks=m) for b, m in EMULATED.items()])
def test_an_emulated_link_through_the_proxy_keeps_the_clean_roofs(board, tmp_path, monkeypatch, capsys):
    clean_out, out = tmp_path / "clean", tmp_path / "out"
    with FaultProxy(seed=1) as proxy:
        assert through_emulator(monkeypatch, proxy, clean_out, board) == 0
    assert not faults_logged(clean_out)
    with FaultProxy(seed=7, start=1500, spacing=4500, **EMULATED_FAULTS) as proxy:
        code = through_emulator(monkeypatch, proxy, out, board)
    err = capsys.readouterr().err.strip().splitlines()
    injected = sum(proxy.injected.values())
    assert injected == 4
    if code == 2:  # stopped: one line naming the folder to resume from, which --resume completes
        assert len(err) == 1 and "Traceback" not in err[0] and f"mcuroof run --resume {out}" in err[0]
        monkeypatch.undo()
        assert main(["run", "--resume", str(out)]) == 0
    else:
        assert code == 0, err
    detected, recovered = fault_counts(out)
    assert detected >= 1 and lost_records(clean_out, out) == 0
    assert results.load(out / "results.json")["checks"]["failed"] == 0
    assert_same_roofs(clean_out, out)
    MATRIX[f"{board} b2h+h2b"] = {
        "injected": injected,
        "detected": detected,
        "recovered": recovered,
        "lost": 0,
        "outcome": "finished, same roofs" if code == 0 else "exit 2, --resume finished, same roofs",
    }
    print(board, MATRIX[f"{board} b2h+h2b"], dict(proxy.injected))
