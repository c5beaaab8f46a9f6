"""Summary tables of a results.json, as rich renderables (the caller's console prints them)."""

from __future__ import annotations

from rich.table import Table

from mcuroof.analysis import records, timing_basis
from mcuroof.analysis import roofs as roofs_mod
from mcuroof.analysis.records import Roof
from mcuroof.report import layer_tables as layer_report
from mcuroof.report import summary
from mcuroof.report import user_tables as user_report
from mcuroof.report.cliff import binary
from mcuroof.results import document as results_mod
from mcuroof.units import duration, si

RIDGE = "ridge at "  # the roofs table's ridge columns: "ridge at memory L1"


def roofs_table(result: dict, only: set[str] | None = None, ridges: bool = False) -> Table:
    """Every roof (or those named in `only`), its rate per second and per step, and / theory;
    `ridges`: each compute ceiling's ridge points too, one column per memory roof (RIDGE + its name),
    where the ridge matrix would be a table of its own."""
    board = result.get("board", {})
    basis = timing_basis.of(board)
    title = f"Roofs: {board.get('name', '?')} ({board.get('firmware', '')}); {basis.sentence}"
    limits = board.get("limits") or []
    caption = "\n".join(f"the emulator does not model: {limit}" for limit in limits) or None
    t = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    per = [f"per {basis.step}"] if basis.step else []  # host time: no step to count per
    oi = {(r["compute"], r["memory"]): r["oi"] for r in result.get("ridges") or []} if ridges else {}
    mems = list(dict.fromkeys(m for _, m in oi))
    for col in ("kind", "name", "emitter", "dtype", "source", "value", *per, "/ theory", *(RIDGE + m for m in mems)):
        t.add_column(col, justify="left" if col in ("kind", "name", "emitter", "dtype", "source") else "right")
    if mems:
        note = basis.bound_note
        t.caption = "\n".join(
            x
            for x in (
                t.caption,
                f"{RIDGE}MEMORY: the intensity (MACC/byte) where this compute ceiling meets that memory roof"
                + (f", as counted here, not the chip's: {note}" if note else ""),
            )
            if x
        )
    roofs = records.roofs(result)
    shown = [r for r in roofs if only is None or (r.name in only and r.measured)]
    for r in sorted(shown, key=lambda r: (r.kind, r.source, -r.rate, r.name)):
        unit = "B" if r.kind == "memory" else "MACC"
        t.add_row(
            r.kind,
            r.name,
            r.emitter or "-",
            r.dtype or "-",
            r.source,
            si(r.rate, unit + "/s"),
            *([basis.per_text(r.rate, unit)] if per else []),
            theory_ratio(r, roofs),
            *(f"{oi[(r.name, m)]:.3g}" if (r.name, m) in oi else "-" for m in mems),
        )
    return t


def theory_ratio(roof: Roof, roofs: list[Roof]) -> str:
    """measured / theoretical, against the profile's roof of the same kind and dtype (memory
    roofs name the memory they are compared with); "-" where the profile has no figure."""
    th = roofs_mod.theoretical_match(roof, roofs)
    if not th:
        return "-"
    ratio = f"{roof.rate / th.rate:.2g}"
    return f"{ratio} {th.name}" if roof.kind == "memory" else ratio


def ridges_table(result: dict) -> Table:
    """Ridge-point matrix: OI (MACC/byte) where each compute ceiling meets each memory roof."""
    ridges = result.get("ridges", [])
    mems = list(dict.fromkeys(r["memory"] for r in ridges))
    comps = list(dict.fromkeys(r["compute"] for r in ridges))
    oi = {(r["compute"], r["memory"]): r["oi"] for r in ridges}
    note = timing_basis.of(result.get("board") or {}).bound_note
    title = "Ridge points (MACC/byte)" + (
        f", where the roofs meet as counted here, not the chip's: {note}" if note else ""
    )
    t = Table(title=title, title_justify="left")
    t.add_column("compute \\ memory")
    for m in mems:
        t.add_column(m, justify="right")
    for c in comps:
        t.add_row(c, *[f"{oi[(c, m)]:.3g}" if (c, m) in oi else "-" for m in mems])
    return t


def reference_table(result: dict) -> Table | None:
    ref = result.get("reference")
    if not ref or not ref.get("levels"):
        return None
    t = Table(title=f"Memory roof against {ref['kind']}", title_justify="left")
    for col in ("level", "roof", "reference best", "at the roof's size", "median over sizes", "sizes"):
        t.add_column(col, justify="left" if col == "level" else "right")
    for lv in ref["levels"]:
        at_roof = f"{lv['ratio_at_roof']:.2f} ({si(lv['roof_ws'], 'B')})" if "ratio_at_roof" in lv else "-"
        t.add_row(
            lv["level"],
            si(lv["roof_bytes_per_s"], "B/s"),
            si(lv["reference_bytes_per_s"], "B/s"),
            at_roof,
            f"{lv['ratio']:.2f}",
            str(lv.get("sizes_compared", "-")),
        )
    return t


def calibration_text(result: dict) -> str:
    cal = result.get("calibration") or {}
    if not cal.get("shapes"):
        return ""
    text = (
        f"; {cal.get('shapes_verified', 0)} of {cal['shapes']} calibration shapes verified against the numpy "
        f"reference, {len(cal.get('families') or [])} kernel families fitted (for `mcuroof predict`)"
    )
    if cal.get("shapes_failed"):
        text += f", [bold red]{cal['shapes_failed']} FAILED (left out of the fit)[/]"
    return text


def checks_line(result: dict) -> str:
    """What was checked: the suites' measurements, the layer runs, the calibration shapes (a run
    of calibration alone measured no roof: it says nothing of measurements)."""
    c = result.get("checks", {})
    parts = []
    if c.get("verified") or c.get("failed") or not ("points_verified" in c or calibration_text(result)):
        line = f"{c.get('verified', 0)} measurements verified against their expected output"
        if c.get("failed"):
            line += f"; [bold red]{c['failed']} FAILED their check and were left out[/]"
        parts.append(line)
    if "points_verified" in c:
        line = f"{c['points_verified']} layer runs verified against the numpy reference"
        if c.get("points_failed"):
            line += f", [bold red]{c['points_failed']} FAILED (not plotted)[/]"
        parts.append(line)
    line = "; ".join(parts) + calibration_text(result)
    if c.get("noisy"):
        line += "; [bold]timing noise[/]" + noise_text(result)
    return line.removeprefix("; ")


def noise_text(result: dict) -> str:
    """What the noisy trials mean (after "timing noise"): under QEMU -icount time counts
    instructions, so host load cannot slow a trial down."""
    c = result.get("checks", {})
    board = result.get("board", {})
    why = _noise_cause(timing_basis.of(board).kind, bool(board.get("limits")))
    return (
        f": {c['noisy']} of {c['timed']} measurements had a median trial over "
        f"{results_mod.NOISY - 1:.0%} slower than their fastest (the fastest is kept; {why})"
    )


def _noise_cause(kind: str, emulated: bool) -> str:
    """Why a trial ran slower than the fastest, for what the board's time counts: an emulator's
    time follows its own work (QEMU -icount's instructions, rp2040js's cycles), so host load
    cannot slow it."""
    more = "those trials ran more {} (a garbage collection, an interrupt), not a busy host"
    if kind == timing_basis.INSTRUCTIONS:
        return "under QEMU time counts instructions, so " + more.format("of them")
    if kind == timing_basis.CYCLES and emulated:
        return "the emulator's time counts the core's cycles, so " + more.format("of them")
    if kind == timing_basis.SUSPECT:
        return (
            "an emulator is suspected: if its time counts instructions, " + more.format("of them") + "; "
            "on a real board, interrupts"
        )
    return "a busy host or interrupts: rerun on a quiet machine to confirm"


def renderables(result: dict, details: bool = True, folder: str = "DIR") -> list:
    """What a run or `mcuroof report` prints: every table (`details`), or for a run with layers
    the short summary (report.summary), the whole model and the checks."""
    if not details and layer_report.layer_points(result):
        return (
            summary.renderables(result, folder)
            + [x for x in (layer_report.model_table(result),) if x is not None]
            + layer_report.model_lines(result, advice=False)
            + [checks_line(result)]
        )
    out = ([roofs_table(result, ridges=True)] if result.get("roofs") else []) + icount_lines(result)
    ref = reference_table(result)
    if ref:
        out.append(ref)
    out += skipped_lines(result) + call_bound_lines(result)
    out += layer_report.renderables(result)
    out += user_report.renderables(result)
    out.append(checks_line(result))
    return out


def kernel_renderables(result: dict, measured_roofs: bool) -> list:
    """What `mcuroof kernel` prints: the user's kernels, the roofs that place them (not the whole
    characterisation) and counts of what it checked."""
    pts = user_report.user_points(result)
    named = {r for p in pts for r in (p.memory_roof, p.compute_roof) if r}
    out = user_report.renderables(result)
    if named:
        table = roofs_table(result, named)
        table.title = f"The roofs that place them ({', '.join(sorted(named))})"
        out.insert(1, table)
    uk = result.get("user_kernels") or {}
    line = f"{len(pts)} of {len(uk.get('kernels') or [])} kernel(s) checked on the board and placed"
    if measured_roofs:
        c = result.get("checks", {})
        line += f"; the roofs measured now: {c.get('verified', 0)} measurements verified against their expected output"
    return out + [line]


def icount_lines(result: dict) -> list[str]:
    """Under QEMU -icount, time counts instructions: memory and region roofs are the kernels'
    instruction counts, not the speed of a memory."""
    shift = result.get("board", {}).get("icount_shift")
    if not isinstance(shift, int):
        return []
    return [
        f"QEMU -icount shift={shift}: every instruction takes {2**shift} ns, whatever it reads; the "
        "memory and region figures count the kernels' instructions (bytes per instruction x "
        f"{1e3 / 2**shift:.6g} M instructions/s), not a memory's speed"
    ]


def skipped_lines(result: dict) -> list[str]:
    """Why a suite (regions) measured nothing, or left a region out."""
    return [f"regions: {s['rg'] + ' ' if s.get('rg') else ''}skipped: {s['why']}" for s in result.get("skipped", [])]


def call_bound_lines(result: dict) -> list[str]:
    """Sweeps left out of the roofs because their time per call is flat with size."""
    out = []
    for s in result.get("sweeps", []):
        if s.get("call_bound"):
            (lo, b0), (hi, b1) = s["points"][0], s["points"][-1]
            out.append(
                f"memory: {s['emitter']} {s['kernel']} {s['dtype']} is no ceiling: a call takes "
                f"{duration(lo / b0)} at {binary(lo)} and {duration(hi / b1)} at {binary(hi)}, so the "
                "call, not the memory, sets its rate (call-bound)"
            )
    return out
