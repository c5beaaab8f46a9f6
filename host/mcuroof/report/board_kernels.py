"""One model on many boards: a table of board x kernel with each row's time, what its time counts,
the fit and the best row among those whose times compare (report for `mcuroof predict --roofs A B
...`). QEMU's instruction time, real time, a cycle model's (rp2040js) cycles, a host's time and Vela's NPU
estimate are scales that never compare; a theoretical bound or an estimate is never 'best'."""

from __future__ import annotations

import dataclasses

from rich.table import Table

from mcuroof.analysis import fit, timing_basis
from mcuroof.board import profiles
from mcuroof.units import duration

JSON_KEYS = ("model", "board", "emitter", "dtype", "seconds", "unit", "fits", "fit", "best", "kind")


@dataclasses.dataclass(frozen=True)
class Row:
    """One board and kernel of a model: its time, what the time counts (unit) and on which scale
    it compares, the fit, and whether it is a prediction, a bound or an estimate."""

    model: str
    board: str
    emitter: str | None
    dtype: str
    kernel: str
    seconds: float | None
    unit: str
    scale: str
    fits: bool | None
    fit: str
    kind: str  # "prediction", "bound" or "estimate"
    complete: bool  # every layer of the model has a time
    best: bool = False

    def to_dict(self) -> dict:
        """The row as `mcuroof predict --json` prints it."""
        return {k: getattr(self, k) for k in JSON_KEYS}


def scale(basis: timing_basis.Basis, board: str) -> str:
    """The scale a board's times are on: rows compare only within one."""
    if basis.kind == timing_basis.INSTRUCTIONS:
        return f"QEMU instruction time (shift {basis.icount_shift})"
    if basis.modelled:
        return "modelled time (the cycle model: ms of each modelled chip)"
    if basis.kind == timing_basis.CYCLES and basis.model:
        return f"{basis.model}'s modelled {basis.core or 'core'} cycles"
    if basis.kind == timing_basis.CYCLES:
        return "real time (cycles at each board's clock)"
    if basis.kind == timing_basis.HOST:
        return "host time"
    return f"{board}: {basis.kind}"


def predicted_rows(bd, data: dict, nets_whole: list[tuple]) -> list[Row]:
    """A row per model and kernel of a characterised board; `nets_whole`: each network with its
    whole-model predictions (predict.predictor.network's whole_model)."""
    board = data.get("board", {})
    basis = timing_basis.of(board)
    rows = []
    for net, whole in nets_whole:
        verdict = fit.verdict(net, fit.budget(profiles.find(board.get("name")), bd.free_heap))
        for w in whole:
            rows.append(
                Row(
                    model=net.name,
                    board=bd.name,
                    emitter=w["emitter"],
                    dtype=w["dtype"],
                    kernel=f"{w['emitter']} {w['dtype']}",
                    seconds=w["seconds"],
                    unit=basis.label,
                    scale=scale(basis, bd.name),
                    fits=verdict.fits,
                    fit=verdict.text(),
                    kind="prediction",
                    complete=w["coverage"]["macs_share"] > 0.999,
                )
            )
    return rows


def bound_rows(name: str, prof: profiles.Board, bounds: list[tuple]) -> list[Row]:
    """A row per model and element type of a board's profile (`name`: as given): the roofline bound
    of its theory; `bounds`: (network, dtypes, seconds per dtype) (predict.bound)."""
    clock = profiles.roof_clock_hz(prof, None, None)
    scale_ = "real time (cycles at each board's clock)"
    unit = f"cycles at {clock / 1e6:g} MHz (the profile's theory)" if clock else "no theoretical roofs in the profile"
    if prof.connect == "qemu":  # an emulated board's theory is per instruction
        shift = prof.run["icount_shift"]
        unit, scale_ = (
            f"instructions (the profile's theory, QEMU shift={shift})",
            f"QEMU instruction time (shift {shift})",
        )
    rows = []
    for net, dtypes, seconds in bounds:
        verdict = fit.verdict(net, fit.budget(prof))
        for dtype, seconds in zip(dtypes, seconds):
            rows.append(
                Row(
                    net.name,
                    name,
                    None,
                    dtype,
                    f"roofline bound {dtype}",
                    seconds,
                    unit,
                    scale_,
                    verdict.fits,
                    verdict.text(),
                    "bound",
                    True,
                )  # fmt: skip
            )
    return rows


def npu_row(net, board: str, dtype: str, seconds: float, clock_hz: float, cpu_ops: int) -> Row:
    """Vela's estimate of a model on an Ethos-U configuration: never compared with a measured scale."""
    unit = f"NPU cycles at {clock_hz / 1e6:g} MHz, estimated by Vela, not measured"
    unit += f"; {cpu_ops} operators on the CPU, not timed" if cpu_ops else ""
    fit_text = "fit unknown: Vela places the tensors in the system's memories"
    return Row(net.name, board, None, dtype, "NPU (Vela)", seconds, unit, "Vela's estimate", None, fit_text,
               "estimate", not cpu_ops)  # fmt: skip


def mark_best(rows: list[Row]) -> list[Row]:
    """best: the least-time prediction of each model and scale (bounds and rows without a time aside)."""
    groups: dict[tuple, list[int]] = {}
    for i, r in enumerate(rows):
        if r.kind == "prediction" and r.seconds is not None and r.complete:
            groups.setdefault((r.model, r.scale), []).append(i)
    best = {min(group, key=lambda i: rows[i].seconds) for group in groups.values()}
    return [dataclasses.replace(r, best=i in best) for i, r in enumerate(rows)]


def table(model: str, rows: list[Row]) -> Table:
    """One row a board and kernel; what each time counts is a footnote ([1], [2], ...) spelled
    out once in the caption, so a row stays one line at 80 columns."""
    t = Table(title=f"{model} on each board: predicted from each board's calibration; 'bound': a profile's roofs")
    for h in ("board", "kernel", "time", "counts", "fit", "best"):
        t.add_column(h, justify="right" if h == "time" else "left")
    scales, units = [], []
    for r in rows:
        if r.scale not in scales:
            scales.append(r.scale)
        if r.unit not in units:
            units.append(r.unit)
        what = f"[{units.index(r.unit) + 1}]" + ("; a bound, not a prediction" if r.kind == "bound" else "")
        if r.kind == "prediction" and not r.complete:
            what += "; not every layer predicted"
        fit_word = r.fit.split(":")[0]
        t.add_row(r.board, r.kernel, duration(r.seconds), what, fit_word, "best" if r.best else "")
    t.caption = "; ".join(f"[{i}] {unit}" for i, unit in enumerate(units, 1))
    t.caption += ". best is marked within each scale, never across: " + "; ".join(scales)
    t.caption += ". fit: `mcuroof analyze MODEL --board B` says why"
    return t
