"""The NPU's theoretical roofs, Vela's per-operator points, the CPU-fallback operators and the
whole-model estimate. Pure computation: no I/O.

Roofs (`source: "theory"`): the configuration's MACs per cycle at the clock of Vela's system
config, and each memory the system config places data in at its design peak bandwidth. A point's
time is Vela's cycles at that clock; its bytes are the access cycles Vela charges to it in each
memory at that memory's design peak bytes per cycle, and its intensity is its MACs over them.
The memories sit on separate AXI ports and work at once, so the memory bound of a point is the
sum of their bandwidths times its intensity; no Vela point may lie above min(compute roof, that
bound) (`roof_macs_per_s`): it holds where Vela's cycles cover its access cycles and its MACs per
cycle stay within the configuration's, which the check tests rather than assumes.
"""

from __future__ import annotations

from mcuroof.npu.vela import ESTIMATED, Estimate
from mcuroof.npu.vela_output import Summary

MEASURED_CPU = "measured on the CPU board of --roofs"


def npu_name(summary: Summary) -> str:
    """ "Ethos-U55-128" from Vela's "Ethos_U55_128"."""
    return summary.accelerator.replace("_", "-", 1).replace("_", "-")


def roofs(summary: Summary) -> list[dict]:
    """The NPU's theoretical roofs from Vela's summary: compute, then one per memory."""
    clock, npu = summary.clock_hz, npu_name(summary)
    where = f"Vela's {summary.system} ({summary.memory_mode})"
    out = [
        {
            "kind": "compute",
            "role": "roof",
            "name": f"{npu} int8",
            "dtype": "int8",
            "macs_per_s": summary.macs_per_cycle * clock,
            "source": "theory",
            "per_cycle": summary.macs_per_cycle,
            "clock_hz": clock,
            "basis": f"{summary.macs_per_cycle} MAC/cycle ({npu}) x {clock / 1e6:g} MHz, {where}",
        }
    ]
    for name in summary.placed:
        bps = summary.bandwidths[name]
        out.append(
            {
                "kind": "memory",
                "role": "roof",
                "name": f"{npu} {name}",
                "bytes_per_s": bps,
                "source": "theory",
                "per_cycle": bps / clock,
                "clock_hz": clock,
                "basis": f"design peak {bps / 1e9:.3g} GB/s ({bps / clock:g} B/cycle x {clock / 1e6:g} MHz), {where}",
            }
        )
    return out


def roof_macs_per_s(intensity: float | None, npu_roofs: list[dict]) -> float:
    """The most an NPU operation of this intensity can do: min(compute, summed bandwidths x intensity)."""
    compute = min(r["macs_per_s"] for r in npu_roofs if r["kind"] == "compute")
    if intensity is None:
        return compute
    bandwidth = sum(r["bytes_per_s"] for r in npu_roofs if r["kind"] == "memory")  # one AXI port each
    return min(compute, bandwidth * intensity)


def op_bytes(op, summary: Summary) -> dict:
    """Bytes per memory: Vela's access cycles there at the memory's design peak bytes per cycle."""
    return {m: round(c * summary.bandwidths[m] / summary.clock_hz) for m, c in op.access_cycles.items()}


def _bound(op) -> str | None:
    """The memory with the most access cycles, if any."""
    return max(op.access_cycles, key=op.access_cycles.get) if op.access_cycles else None


def npu_point(op, est: Estimate, npu_roofs: list[dict]) -> dict:
    """One Vela operation as a roofline point (time: its cycles at the NPU clock)."""
    s = est.summary
    seconds = op.cycles / s.clock_hz
    by_memory = op_bytes(op, s)
    nbytes = sum(by_memory.values())
    intensity = op.macs / nbytes if nbytes and op.macs else None
    roof = roof_macs_per_s(intensity, npu_roofs)
    return {
        "model": est.model,
        "config": est.config,
        "name": op.name,
        "op": op.op,
        "tflite_op": op.original,
        "target": "npu",
        "macs": op.macs,
        "cycles": op.cycles,
        "seconds": seconds,
        "macs_per_s": op.macs / seconds,
        "bytes": nbytes,
        "bytes_by_memory": by_memory,
        "access_cycles": dict(op.access_cycles),
        "intensity": intensity,
        "roof_macs_per_s": roof,
        "bound_memory": _bound(op),
        "source": "vela",
        "note": ESTIMATED,
    }


def npu_points(est: Estimate) -> list[dict]:
    """Vela's NPU operations with cycles; those of 0 cycles are fused into a neighbour (a Relu
    into its convolution, a LUT into its elementwise op) and are counted in `fused`."""
    npu_roofs = roofs(est.summary)
    return [npu_point(op, est, npu_roofs) for op in est.operations if op.target == "npu" and op.cycles > 0]


def fused(est: Estimate) -> list[str]:
    """The NPU operations Vela gives 0 cycles (done inside another)."""
    return [op.op for op in est.operations if op.target == "npu" and op.cycles == 0]


def cpu_operators(est: Estimate, layer_macs: dict[str, int]) -> list[dict]:
    """The operators Vela leaves on the CPU, with MACs from mcuroof's analyzer (by output tensor)."""
    return [
        {"name": op.name, "tflite_op": op.original, "macs": layer_macs.get(op.name)}
        for op in est.operations
        if op.target == "cpu"
    ]


def cpu_point(cpu_op: dict, measured: dict, est: Estimate) -> dict:
    """A CPU-fallback operator placed by its measured per-layer point from the CPU run."""
    return {
        "model": est.model,
        "config": est.config,
        "name": cpu_op["name"],
        "op": measured["op"],
        "tflite_op": cpu_op["tflite_op"],
        "target": "cpu",
        "macs": measured["macc"],
        "seconds": measured["seconds"],
        "macs_per_s": measured["macs_per_s"],
        "intensity": measured["oi"],
        "emitter": measured["emitter"],
        "source": "measured",
        "note": MEASURED_CPU,
    }


def best_measured(points: list[dict], dtype: str | None = None) -> dict[str, dict]:
    """The fastest measured point of each layer name (over emitters; of the model's dtype where
    given: a float32 model's operator is not placed by an int8 kernel's time) in a CPU run."""
    best: dict[str, dict] = {}
    for p in points:
        if dtype and p.get("dtype") != dtype:
            continue
        if p.get("seconds") and (p["name"] not in best or p["seconds"] < best[p["name"]]["seconds"]):
            best[p["name"]] = p
    return best


def whole_model(est: Estimate, cpu_ops: list[dict], measured: dict[str, dict] | None) -> dict:
    """Vela's NPU time plus the measured time of the CPU-fallback operators (None where a CPU
    operator has no measurement, or no CPU run was given and some operator is on the CPU)."""
    cpu_seconds = 0.0
    for op in cpu_ops:
        m = (measured or {}).get(op["name"])
        if m is None:
            cpu_seconds = None
            break
        cpu_seconds += m["seconds"]
    npu_seconds = est.summary.seconds
    return {
        "model": est.model,
        "config": est.config,
        "npu_seconds": npu_seconds,
        "npu_cycles": est.summary.cycles,
        "cpu_seconds": cpu_seconds,
        "seconds": None if cpu_seconds is None else npu_seconds + cpu_seconds,
        "cpu_operators": len(cpu_ops),
        "note": f"NPU: {ESTIMATED}" + ("; CPU: " + MEASURED_CPU if cpu_ops and cpu_seconds is not None else ""),
    }
