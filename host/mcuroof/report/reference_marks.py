"""The C-engine reference of a run's core as marks on its roofline: the best published whole-model
MAC/cycle of that core (MLPerf Tiny closed int8, published.mlperf), at the run's step rate. Pure
computation: the plot (report.plot) and report.html (report.html_figures) draw what this returns.

Only a run whose time counts the board's cycles (a real board, rp2040js) gets a drawn mark: there
MAC/cycle x cycles/s is a MAC/s on the run's own axis. A QEMU run counts instructions and the
published figures count cycles; drawing one on the other's axis would be a false comparison, so
the mark is not drawn and the figure says why (`Mark.macs_per_s` None, `Mark.why_not`). A figure
above the core's int8 bound is drawn apart and carries its reason (`Mark.flag`), never silently.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcuroof.analysis import timing_basis
from mcuroof.board import profiles
from mcuroof.published import mlperf

NO_RUN = "no CPU run"


@dataclass(frozen=True)
class Mark:
    label: str  # what the mark is, with its source: "C engine, Cortex-M0+, kws: 0.088 MAC/cycle (...)"
    macs_per_cycle: float
    macs_per_s: float | None  # on the run's axis; None where the units do not compare
    flag: str | None = None  # why a figure above the core's bound is there (mlperf.flag)
    why_not: str | None = None  # why it is not drawn


def run_core(result: dict) -> str | None:
    """The core a results document ran on: the probe's, else its board profile's; None on a host
    OS (the unix port), whose CPU no MCU C engine compares with."""
    if timing_basis.of(result.get("board", {})).kind == timing_basis.HOST:
        return None
    core = (result.get("board", {}).get("core") or {}).get("name")
    if core:
        return core
    profile = profiles.find(result.get("board", {}).get("name"))
    return profile.core_name if profile else None


def run_bench(result: dict) -> str | None:
    """The MLPerf Tiny benchmark whose reference model the run profiled (by its MACs), if any."""
    model = result.get("model") or {}
    macs = model.get("macc") or next((w.get("macc") for w in model.get("whole_model") or []), None)
    return mlperf.bench_of(macs)


def _label(core: str, f: dict) -> str:
    return (
        f"C engine on a {core}, MLPerf Tiny {f['bench']}: {f['macs_per_cycle']:.3g} MAC/cycle "
        f"({f['system']}, {f['clock_hz'] / 1e6:g} MHz, v{f['round']})"
    )


def _why_not(basis: timing_basis.Basis) -> str | None:
    if basis.kind == timing_basis.CYCLES and basis.rate_hz:
        return None
    if basis.kind == timing_basis.INSTRUCTIONS:
        return "not drawn: this run counts QEMU instructions, the published figure counts cycles"
    if basis.kind == NO_RUN:
        return "not drawn: no measured CPU run (--roofs) to draw it at"
    return f"not drawn: this run's time ({basis.kind}) has no cycle to put it per"


def marks(result: dict) -> list[Mark]:
    """The marks of a run: the core's best figure on the run's benchmark (the best over the four
    where the run is not an MLPerf Tiny model), then the flagged figures of the same scope."""
    bench = run_bench(result)
    return marks_for(run_core(result), [bench] if bench else [], timing_basis.of(result.get("board", {})))


def marks_for(core: str | None, benches: list[str], basis: timing_basis.Basis) -> list[Mark]:
    """The marks of a core on these benchmarks (all four where none is given): per benchmark the
    best figure where several are given, else the best of all; then the flagged figures."""
    rows = mlperf.best_for(core)
    rows = [r for r in rows if r["bench"] in benches] if benches else rows
    why = _why_not(basis)

    def mark(f: dict, flag: str | None = None) -> Mark:
        y = None if why else f["macs_per_cycle"] * basis.rate_hz
        return Mark(_label(core, f), f["macs_per_cycle"], y, flag, why)

    groups = [[r] for r in rows] if len(benches) > 1 else [rows]
    out = []
    for group in groups:
        best = [r["best"] for r in group if r["best"]]
        out += [mark(max(best, key=lambda f: f["macs_per_cycle"]))] if best else []
    return out + [mark(f, f["flag"]) for r in rows for f in r["flagged"]]


def cpu_basis(cpu: dict | None) -> timing_basis.Basis:
    """The timing basis of an npu.json's CPU run (its `step` and `step_rate_hz`)."""
    if not cpu:
        return timing_basis.Basis(NO_RUN, None, None)
    kind = {"instr": timing_basis.INSTRUCTIONS, "cycle": timing_basis.CYCLES}.get(cpu.get("step"), timing_basis.HOST)
    return timing_basis.Basis(kind, cpu.get("step_rate_hz"), cpu.get("step"))


def npu_marks(doc: dict) -> list[Mark]:
    """The marks of an npu.json: its CPU core's best figure on each shown MLPerf Tiny model."""
    benches = sorted({r["mlperf_bench"] for r in doc["runs"] if r.get("mlperf_bench")})
    return marks_for(doc["reference"]["core"], benches, cpu_basis(doc.get("cpu")))


def note(result: dict) -> str | None:
    """One line for a figure where a mark is not drawn, or where the core has no published figure."""
    return note_for(run_core(result), marks(result))


def note_for(core: str | None, ms: list[Mark]) -> str | None:
    """The note of `note` for these marks of a core."""
    if not core:
        return None
    if not ms:
        return mlperf.no_result_text(core)
    hidden = [m for m in ms if m.macs_per_s is None]
    if not hidden:
        return None
    return "; ".join(m.label for m in hidden) + f"\n{hidden[0].why_not}"
