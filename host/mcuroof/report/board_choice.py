"""Which board: one model on each board of a list, a row per board and element type, every cell a
time in ms of that board's chip with its label and basis, or "-" with the reason (`mcuroof choose`).

Pure computation over what the command gathered: the boards' profiles, the calibrations given
(each a whole-model time per kernel in its own time basis), Vela's estimates, the published MLPerf
Tiny figures. The labels:

- predicted: the board's own calibration (a real board's time at its clock);
- modelled: a calibration of a cycle model of the same core (its modelled cycles / this board's clock);
- estimated: a published C engine's effective MAC/cycle of a whole system, or Vela's NPU estimate;
- bound: the least time the board's profile roofs allow, or QEMU's instruction count of the same
  core at its widest issue (an instruction takes at least 1/issue cycles): never a chip's time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mcuroof.analysis import fit, records, timing_basis
from mcuroof.board import profiles
from mcuroof.model import network
from mcuroof.npu import vela
from mcuroof.published import mlperf

SCHEMA = 1
LABELS = ("measured", "predicted", "modelled", "estimated", "bound")
CHIP_TIME = ("measured", "predicted", "modelled")  # labels whose ms are a chip's time (the sort)
# instructions a core issues per cycle at most (dual-issue: Arm's Cortex-M7 and -M55 TRMs); a core
# not named here has no instruction bound
ISSUE = {
    "Cortex-M0": 1,
    "Cortex-M0+": 1,
    "Cortex-M3": 1,
    "Cortex-M4": 1,
    "Cortex-M33": 1,
    "Cortex-M7": 2,
    "Cortex-M55": 2,
}
EMULATED = ("qemu", "rp2040js", "unix")  # profiles' connect of boards that are no chip


@dataclass(frozen=True)
class Calibration:
    """One --roofs calibration's whole-model prediction: the least time per element type over its
    kernels whose every MAC is predicted, in the time basis of the board it ran on."""

    path: str
    board: dict  # results.json's board
    seconds: dict  # dtype -> (seconds, emitter)

    @classmethod
    def of(cls, path: str, board: dict, whole_model: list[dict]) -> Calibration:
        """The least whole-model time per element type of a run's calibration (`whole_model`:
        predict.predictor.network's), over the kernels whose prediction holds every MAC."""
        best: dict[str, tuple[float, str]] = {}
        for w in whole_model:
            if w["seconds"] and w["coverage"]["macs_share"] > 0.999:
                if w["dtype"] not in best or w["seconds"] < best[w["dtype"]][0]:
                    best[w["dtype"]] = (w["seconds"], w["emitter"])
        return cls(path, board, best)

    @property
    def basis(self) -> timing_basis.Basis:
        return timing_basis.of(self.board)

    @property
    def core(self) -> str | None:
        return (self.board.get("core") or {}).get("name")


@dataclass(frozen=True)
class NpuEstimate:
    """Vela's estimate of the model on a board's NPU (or why there is none)."""

    seconds: float | None
    config: str | None = None
    system: str | None = None
    clock_hz: float | None = None
    cpu_ops: int = 0
    why: str | None = None


def cell(
    ms: float | None = None, label: str | None = None, basis: str = "", why: str | None = None, note: str = ""
) -> dict:
    """A time in ms with its label and basis (`note`: the basis as rows share it, for a table's
    notes), or None with the reason."""
    assert (ms is None) == (label is None) and (ms is not None or why), "a time with its label, or a reason"
    return {"ms": ms, "label": label, "basis": basis, "note": note or basis or why, "why": why}


def macs(net: network.Network) -> int:
    return sum(layer.macc for layer in net.layers)


def family(core: str | None) -> str | None:
    """A core's family: "Cortex-M4F" is a Cortex-M4."""
    return core[:-1] if core and core.startswith("Cortex-M") and core.endswith("F") else core


def micropython(board: profiles.Board, dtype: str, cals: list[Calibration]) -> dict:
    """MicroPython's time on the board: its own calibration (predicted), a cycle model's of its core
    (modelled at its clock), QEMU's instructions of its core (a bound), else why none."""
    clock = board.clock_hz
    mine = [c for c in cals if dtype in c.seconds and family(c.core) == family(board.core_name)]
    mine.sort(key=lambda c: c.board.get("name") != board.name)  # this board's own (modelled) run first
    for c in mine:
        b = c.basis
        if c.board.get("name") == board.name and b.kind == timing_basis.CYCLES and not b.model and b.rate_hz:
            s, em = c.seconds[dtype]
            return cell(
                s * 1e3,
                "predicted",
                f"this board's calibration ({c.path}), {em} {dtype}, {b.label}",
                note="this board's own calibration (--roofs)",
            )
    for c in mine:
        b = c.basis
        if b.model and b.rate_hz and clock:  # cycles of a cycle model (rp2040js, QEMU's cycle model)
            s, em = c.seconds[dtype]
            cycles = s * b.rate_hz
            what = (
                getattr(b, "modelled", None) or f"cycles of {b.model}'s modelled {c.core}, memory without wait states"
            )
            return cell(
                cycles / clock * 1e3,
                "modelled",
                f"{cycles:,.0f} modelled cycles of {c.board.get('name')}'s calibration ({c.path}, {em} {dtype}; "
                f"{what}) at this board's {clock / 1e6:g} MHz",
                note=f"{c.core} cycles of {c.board.get('name')}'s calibration ({c.path}; {what}) at the board's clock",
            )
    for c in mine:
        b = c.basis
        issue = ISSUE.get(family(board.core_name) or "")
        if b.kind == timing_basis.INSTRUCTIONS and b.rate_hz and clock and issue:
            s, em = c.seconds[dtype]
            instr = s * b.rate_hz
            return cell(
                instr / (issue * clock) * 1e3,
                "bound",
                f"{instr:,.0f} QEMU instructions of a {c.core} ({c.path}, {em} {dtype}) at most {issue} a cycle at "
                f"{clock / 1e6:g} MHz: a least time, not the chip's (QEMU counts instructions, not cycles)",
                note=f"QEMU instructions of a {c.core} ({c.path}) at most {issue} a cycle at the board's clock: "
                "a least time, not the chip's (QEMU counts instructions, not cycles)",
            )
    return cell(why=_no_micropython(board, dtype, cals))


def _no_micropython(board: profiles.Board, dtype: str, cals: list[Calibration]) -> str:
    core = family(board.core_name)
    emulated = sorted(b.name for b in profiles.list_boards() if b.connect in EMULATED and family(b.core_name) == core)
    if not emulated:
        return f"no emulated core for {board.core_name}: no calibration can stand in for it"
    same = [c for c in cals if family(c.core) == core]
    if same and not any(dtype in c.seconds for c in same):
        return f"the {core} calibration given predicts no {dtype} kernel of every layer"
    how = f"--board {emulated[0]}" + (f" --as {board.name}" if getattr(board, "cycle_model", None) else "")
    return f"no calibration of a {core} given: mcuroof run {how}, then --roofs its results.json"


def c_engine(board: profiles.Board, dtype: str, net: network.Network) -> dict:
    """The best published MLPerf Tiny closed figure of the board's core family as effective
    MAC/cycle of a whole system, at this board's clock (an estimate of a C engine, not MicroPython)."""
    if dtype != "int8":
        return cell(why="MLPerf Tiny's closed division is int8 only")
    core = family(board.core_name)
    rows = mlperf.best_for(core) if core else []
    best = [r for r in rows if r["best"]]
    if not rows or not best:
        more = "; its figures name an accelerator or are flagged" if rows else ""
        return cell(
            why=f"no MLPerf Tiny closed result of a {board.core_name} alone in {mlperf.SOURCE}{more}",
            note=f"no MLPerf Tiny closed result of a {board.core_name} alone (mcuroof's table of them){more}",
        )
    bench = mlperf.bench_of(macs(net))
    row = next((r for r in best if r["bench"] == bench), None)
    how = f"MLPerf Tiny {bench}"
    if row is None:  # another model: the benchmark nearest in MACs
        row = min(best, key=lambda r: abs(math.log(mlperf.MACS[r["bench"]][0] / max(macs(net), 1))))
        how = f"MLPerf Tiny {row['bench']}, the benchmark nearest in MACs"
    b = row["best"]
    if not board.clock_hz:
        return cell(why=f"{board.name}'s profile gives no clock")
    system = (
        f"{b['macs_per_cycle']:.3g} effective MAC/cycle of a whole system ({b['system']}, "
        f"{(b['framework'] or 'framework not named').strip()}, {b['clock_hz'] / 1e6:g} MHz; {how}, v{b['round']})"
    )
    return cell(
        macs(net) / (b["macs_per_cycle"] * board.clock_hz) * 1e3,
        "estimated",
        f"{system} at this board's {board.clock_hz / 1e6:g} MHz",
        note=f"a C engine: {system} at the board's clock",
    )


def npu(board: profiles.Board, dtype: str, est: NpuEstimate | None) -> dict:
    if not board.npu:
        return cell(why="no NPU")
    if dtype != "int8":
        return cell(why="an Ethos-U runs int8 only")
    if est is None or est.seconds is None:
        return cell(why=est.why if est else "no Vela estimate made")
    cpu = f"; {est.cpu_ops} operators left on the CPU, not timed" if est.cpu_ops else ""
    whose = "the vendor's system config" if est.system in vela.VENDOR_SYSTEMS else "Arm's generic system config"
    return cell(
        est.seconds * 1e3,
        "estimated",
        f"Vela 5.2's estimate, {est.config} on {est.system} ({whose}) at {est.clock_hz / 1e6:g} MHz{cpu}",
    )


def roofline(board: profiles.Board, dtype: str, seconds: float | None) -> dict:
    """Every layer at the profile's theoretical roofs, at its clock (predict.bound): a least time."""
    roofs = records.roofs(profiles.theoretical_roofs(board))
    compute = [r.macs_per_s for r in roofs if r.kind == "compute" and r.dtype == dtype]
    memory = [r.bytes_per_s for r in roofs if r.kind == "memory" and r.bytes_per_s]
    if not compute:
        why = f"{board.name}'s profile has no {dtype} compute figure (MAC/cycle)"
        return cell(why=why, note=f"the profile has no {dtype} compute figure (MAC/cycle): no roofline")
    if not memory or seconds is None:
        why = f"{board.name}'s profile has no memory bandwidth (bus bytes per cycle)"
        return cell(why=why, note="the profile has no memory bandwidth (bus bytes per cycle): no roofline")
    return cell(
        seconds * 1e3,
        "bound",
        f"every layer at {board.name}'s theoretical roofs ({max(compute) / 1e6:.4g} M {dtype} MAC/s, "
        f"{max(memory) / 1e6:.4g} MB/s at {board.clock_hz / 1e6:g} MHz): a least time",
        note="every layer at the board's theoretical roofs (its profile's MAC/cycle and bus at its clock): "
        "a least time",
    )


def fits(board: profiles.Board, net: network.Network) -> dict:
    """yes / no / may / unknown, and what does not fit by how much."""
    v = fit.verdict(net, fit.budget(board))
    short = [n for n in v.needs if n.fits is False]
    word = {True: "yes", False: "no", None: "may" if all(n.has is not None for n in v.needs) else "?"}[v.fits]
    text = v.text().split("; weights")[0]
    if short:
        text += "; short by " + ", ".join(f"{fit.size(n.needs - n.has)} of {n.what}" for n in short)
    return {"fits": v.fits, "word": word, "text": text}


def document(
    net: network.Network,
    boards: list[profiles.Board],
    dtypes: list[str],
    cals: list[Calibration],
    npus: dict[str, NpuEstimate],
    bounds: dict[tuple[str, str], float | None],
) -> dict:
    """The table's rows, sorted by the time that compares (_order)."""
    rows = []
    for board in boards:
        if board.connect in EMULATED:
            why = f"{board.name} is an emulated board: its time is no chip's (choose the chip it stands in for)"
            rows += [_emulated(board, d, net, why) for d in dtypes]
            continue
        for dtype in dtypes:
            rows.append(
                {
                    "board": board.name,
                    "core": board.core_name,
                    "clock_hz": board.clock_hz,
                    "dtype": dtype,
                    "fits": fits(board, net),
                    "micropython": micropython(board, dtype, cals),
                    "c_engine": c_engine(board, dtype, net),
                    "npu": npu(board, dtype, npus.get(board.name)),
                    "bound": roofline(board, dtype, bounds.get((board.name, dtype))),
                }
            )
    rows.sort(key=_order)
    return {
        "schema": SCHEMA,
        "model": net.name,
        "macs": macs(net),
        "rows": rows,
        "calibrations": [c.path for c in cals],
        "sorted_by": "MicroPython ms of the chip (predicted or modelled), then the least estimate (C engine or NPU), "
        "then the bound",
    }


def _emulated(board: profiles.Board, dtype: str, net: network.Network, why: str) -> dict:
    none = cell(why=why)
    return {
        "board": board.name,
        "core": board.core_name,
        "clock_hz": board.clock_hz,
        "dtype": dtype,
        "fits": fits(board, net),
        "micropython": none,
        "c_engine": none,
        "npu": none,
        "bound": none,
    }


def _order(row: dict) -> tuple:
    """A chip's MicroPython ms first (predicted or modelled), then the least estimate (a C engine's
    or the NPU's), then the bound; a row with none of them last."""
    mp, b = row["micropython"], row["bound"]
    if mp["label"] in CHIP_TIME:
        return (0, mp["ms"], row["board"], row["dtype"])
    estimates = [row[k]["ms"] for k in ("c_engine", "npu") if row[k]["ms"] is not None]
    if estimates:
        return (1, min(estimates), row["board"], row["dtype"])
    return (2, b["ms"] if b["ms"] is not None else math.inf, row["board"], row["dtype"])
