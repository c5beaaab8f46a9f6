"""The one document `mcuroof npu` writes (npu.json, --json): NPU roofs, points, CPU-fallback
operators, whole-model estimates, the measured CPU roofs it is stacked on, and the C-engine
reference of the CPU's core. Built here only; pure computation.

Units: base SI (MAC/s, bytes/s, seconds). NPU seconds are Vela's cycles at its system config's
clock; the CPU's seconds are what its results.json counts (QEMU: instructions, 2^K ns each;
a real board: its clock), named in `cpu.time_basis`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mcuroof.analysis import timing_basis
from mcuroof.npu import roofline
from mcuroof.npu.vela import ESTIMATED, VERSION, Estimate
from mcuroof.published import mlperf
from mcuroof.version import __version__

SCHEMA = 1
CPU_POINT_FIELDS = ("model", "index", "name", "op", "emitter", "dtype", "macc", "seconds", "macs_per_s", "oi")


@dataclass(frozen=True)
class Compiled:
    """One model compiled for one NPU configuration, and what mcuroof knows of the model."""

    estimate: Estimate
    layer_macs: dict  # output tensor name -> MACs (mcuroof's analyzer)
    model_note: str | None = None  # e.g. synth.SYNTH_NOTE for a built-in network
    dtype: str | None = None  # the model's element type (its first layer's), to match CPU points


def _tag(items: list[dict], est: Estimate) -> list[dict]:
    return [{"config": est.config, "system": est.summary.system, **r} for r in items]


def cpu_section(results: dict, path: str) -> dict:
    """The measured CPU run given with --roofs: its measured roofs and how its time counts."""
    basis = timing_basis.of(results["board"])
    core = (results["board"].get("core") or {}).get("name")
    model = (results.get("model") or {}).get("name")
    return {
        "results": path,
        "board": results["board"]["name"],
        "core": core,
        "time_basis": basis.sentence,
        "step": basis.step,
        "step_rate_hz": basis.rate_hz,
        "roofs": [r for r in results["roofs"] if r["source"] == "measured" and r["role"] == "roof"],
        "points": [{**p, "model": model} for p in results.get("points", [])],
        "whole_model": (results.get("model") or {}).get("whole_model", []),
    }


def units_note(cpu: dict | None) -> str:
    """Where NPU and CPU figures meet: what each one's time counts."""
    npu = "NPU figures: Vela's cycles at its system config's NPU clock (estimated by Vela 5.2, not measured)"
    if not cpu:
        return npu
    return f"{npu}; CPU figures ({cpu['board']}): {cpu['time_basis']}. They add up as seconds, not as like units."


def _own_points(points: list[dict], model: str) -> list[dict]:
    """The CPU points of this model (its runs name it as the file's stem or the built-in's name);
    where none does, those of a single run of another name (a renamed file), never another model's
    when several runs are given."""
    own = [p for p in points if p.get("model") == Path(model).stem]
    return own or (points if len({p.get("model") for p in points}) == 1 else [])


def _run(c: Compiled, cpu: dict | None) -> tuple[dict, list[dict], list[dict], dict]:
    est = c.estimate
    measured = roofline.best_measured(_own_points(cpu["points"], est.model), c.dtype) if cpu else None
    cpu_ops = roofline.cpu_operators(est, c.layer_macs)
    points = roofline.npu_points(est)
    points += [
        roofline.cpu_point(op, measured[op["name"]], est) for op in cpu_ops if measured and op["name"] in measured
    ]
    s = est.summary
    run = {
        "model": est.model,
        "config": est.config,
        "system": s.system,
        "memory_mode": s.memory_mode,
        "clock_hz": s.clock_hz,
        "macs_per_cycle": s.macs_per_cycle,
        "npu_operations": sum(1 for op in est.operations if op.target == "npu"),
        "fused_operations": len(roofline.fused(est)),
        "vela_dir": str(est.out_dir),
        "vela_cpu_reasons": est.cpu_note or None,
        "model_note": c.model_note,
        "model_macs": sum(m for m in c.layer_macs.values() if m),
        "mlperf_bench": mlperf.bench_of(sum(m for m in c.layer_macs.values() if m)),
    }
    return (
        run,
        points,
        [{"model": est.model, "config": est.config, **op} for op in cpu_ops],
        roofline.whole_model(est, cpu_ops, measured),
    )


def reference(core: str | None) -> dict:
    """The MLPerf Tiny C-engine figures of a core (int8 MAC/cycle), with their source."""
    return {"core": core, "source": mlperf.SOURCE, "rows": mlperf.best_for(core)}


def document(compiled: list[Compiled], cpu: dict | None, core: str | None) -> dict:
    """The whole npu.json: every (model, configuration) compiled, stacked on the CPU run if any."""
    roofs, points, cpu_ops, whole, runs, seen = [], [], [], [], [], set()
    for c in compiled:
        run, pts, ops, wm = _run(c, cpu)
        key = (c.estimate.config, c.estimate.summary.system, c.estimate.summary.memory_mode)
        if key not in seen:
            seen.add(key)
            roofs += _tag(roofline.roofs(c.estimate.summary), c.estimate)
        runs.append(run)
        points += pts
        cpu_ops += ops
        whole.append(wm)
    above = [p["name"] for p in points if p["source"] == "vela" and p["macs_per_s"] > p["roof_macs_per_s"] * (1 + 1e-9)]
    return {
        "schema": SCHEMA,
        "tool": f"mcuroof {__version__} npu",
        "vela": VERSION,
        "estimated": ESTIMATED,
        "units": units_note(cpu),
        "runs": runs,
        "roofs": roofs,
        "points": points,
        "cpu_operators": cpu_ops,
        "whole_model": whole,
        "checks": {"points_above_roof": len(above), "above_roof": above},
        "cpu": {k: v for k, v in cpu.items() if k != "points"} if cpu else None,
        "cpu_points": [{k: p.get(k) for k in CPU_POINT_FIELDS} for p in cpu["points"]] if cpu else [],
        "reference": reference(core),
    }
