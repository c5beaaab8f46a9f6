"""The C-engine reference of a core (MLPerf Tiny closed int8, as MAC/cycle) beside a run's own
whole-model figure, as rich renderables. A run under QEMU counts instructions, the published
figures count cycles: the table says so rather than comparing them as one unit."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from mcuroof.analysis import timing_basis
from mcuroof.published import mlperf
from mcuroof.report.grid import Grid, to_rich, without_empty
from mcuroof.report.reference_marks import run_core
from mcuroof.units import si

EFFECTIVE = "effective MAC/cycle of a whole system at its declared clock"


def rows_grid(rows: list[dict], title: str) -> Grid:
    """MAC/cycle per (core, benchmark): the core alone, beside accelerated and flagged figures."""
    body = []
    for row in rows:
        b, a = row["best"], row["with_accelerator"]
        body.append(
            [
                row["core"],
                row["bench"],
                f"{b['macs_per_cycle']:.3g}" if b else "-",
                b["system"] if b else "-",
                si(b["clock_hz"], "Hz") if b else "-",
                b["round"] if b else "-",
                f"{a['macs_per_cycle']:.3g} {a['system']} ({a['accelerator']})" if a else "-",
                "; ".join(f"{f['system']} v{f['round']}: {f['flag']}" for f in row["flagged"]) or "-",
            ]
        )
    headers = ("core", "bench", "MAC/cycle", "system", "clock", "round", "with accelerator", "flagged")
    caption = f"MAC/cycle: {EFFECTIVE} (the framework, flash wait states and caches included); source: {mlperf.SOURCE}; MACs: mcuroof analyze"
    grid = Grid(title, headers, body, caption, tuple(h for h in headers if h not in ("MAC/cycle", "clock")))
    one_core = len({row["core"] for row in rows}) == 1  # then the title names it
    return without_empty(grid, *(("core",) if one_core else ()))


def rows_table(rows: list[dict], title: str) -> Table:
    return to_rich(rows_grid(rows, title))


def _model_words(bench: str | None, name: str | None) -> str:
    """The model as the line names it: a model is the MLPerf Tiny reference only where it is the
    built-in one; another with the same MAC count is said to have its MACs, with why."""
    if not bench:
        return "this model"
    if name == mlperf.BENCH_MODEL.get(bench):
        return f"the MLPerf Tiny {bench} model"
    macs = mlperf.MACS[bench][0]
    return f"{name or 'this model'} (the same {macs:,} MACs as MLPerf Tiny's {bench} reference, so its figures compare)"


def run_lines(result: dict) -> list[str]:
    """The run's measured whole-model MACs per step, per emitter and dtype, in its own unit."""
    basis = timing_basis.of(result.get("board", {}))
    lines = []
    for w in (result.get("model") or {}).get("whole_model", []):
        if not w.get("measured_seconds") or not w.get("macc") or not basis.rate_hz:
            continue
        per = w["macc"] / w["measured_seconds"] / basis.rate_hz
        bench = mlperf.bench_of(w["macc"])
        what = _model_words(bench, (result.get("model") or {}).get("name"))
        lines.append(f"this run, {what}, {w['emitter']} {w['dtype']}: {per:.3g} MAC/{basis.step} ({basis.label})")
    return lines


def renderables(result: dict) -> list:
    """The core's published C-engine figures and the run's own, for `mcuroof report`."""
    core = run_core(result)
    rows = mlperf.best_for(core)
    if not core:
        return []
    if not rows:
        return [Text(mlperf.no_result_text(core))]
    items: list = [rows_table(rows, f"C engines on a {core}: best MLPerf Tiny closed int8 figure ({EFFECTIVE})")]
    lines = run_lines(result)
    basis = timing_basis.of(result.get("board", {}))
    if lines and basis.kind == timing_basis.INSTRUCTIONS:
        lines.append(
            "QEMU counts instructions, the published figures count cycles: compare them as orders of magnitude only"
        )
    return items + [Text(line) for line in lines]
