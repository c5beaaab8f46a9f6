"""Loaded results are checked, not trusted: each point's rates are derived again from its stored
work and time, and its place under its roofs (roof, headroom, above-roof flag) from the roofs it
names. A rate that disagrees with its work and time is one line naming the field (exit 2); a
point above its roof is marked whoever wrote the file. The layers' advice is derived again by
today's analysis (a file written by an older mcuroof kept its older wording). Pure computation."""

from __future__ import annotations

from mcuroof.analysis import advice as advice_mod
from mcuroof.analysis import points as points_mod
from mcuroof.analysis import records
from mcuroof.analysis import roofs as roofs_mod
from mcuroof.analysis.records import Roof
from mcuroof.errors import UserError

RTOL = 0.01  # a rate rounded to 3 significant figures passes; one edited by more does not


def recheck(data: dict) -> dict:
    """The document with every point placed again; UserError on a rate its work and time disagree with."""
    roofs = records.roofs(data)
    for i, p in enumerate(data.get("points") or []):
        _rates(p, f"points[{i}]")
        _place(p, roofs)
    layers = [p for p in data.get("points") or [] if not p.get("user") and not p.get("above_roof") and "advice" in p]
    if layers:
        advice_mod.advise_all(layers, roofs, advice_mod.board_features(data.get("board") or {}))
        for p in layers:  # as suites.layers does after advise_all
            points_mod.amortize_note(p)
    checks = data.get("checks")
    if isinstance(checks, dict) and "points_above_roof" in checks:
        checks["points_above_roof"] = sum(bool(p.get("above_roof")) for p in data.get("points") or [])
    return data


def _rates(p: dict, where: str) -> None:
    """macs_per_s = executed MACs / seconds, bytes_per_s = bytes / seconds, oi = executed MACs / bytes."""
    seconds, executed, moved = p["seconds"], p.get("macc_executed", p["macc"]), p.get("bytes")
    derived = {"macs_per_s": executed / seconds if seconds else None}
    if isinstance(moved, (int, float)):
        derived["bytes_per_s"] = moved / seconds if seconds else None
        derived["oi"] = executed / moved if moved else None
    for field, want in derived.items():
        got = p[field]
        if want is not None and abs(got - want) > RTOL * max(abs(want), 1e-300):
            how = {"macs_per_s": "MACs / seconds", "bytes_per_s": "bytes / seconds", "oi": "MACs / bytes"}[field]
            raise UserError(
                f"{where}.{field} is {got:.4g} but its own {how} give {want:.4g}: the file was edited or is damaged"
            )


def _named(roofs: list[Roof], kind: str, name: str | None) -> Roof | None:
    return next((r for r in roofs if r.kind == kind and r.name == name and r.measured), None)


def _place(p: dict, roofs: list[Roof]) -> None:
    """Roof, headroom and above-roof flag again from the roofs the point names (points.place's rule)."""
    mem, comp = _named(roofs, "memory", p.get("memory_roof")), _named(roofs, "compute", p.get("compute_roof"))
    if p["macc"] and (mem or comp) and p["macs_per_s"]:
        by_mem = mem.bytes_per_s * p["oi"] if mem else float("inf")
        roof = min(by_mem, comp.macs_per_s if comp else float("inf"))
        p["roof_macs_per_s"], p["headroom"] = roof, roof / p["macs_per_s"]
    elif not p["macc"] and mem and p.get("bytes_per_s"):
        p["memory_share"] = p["bytes_per_s"] / mem.bytes_per_s
        p["headroom"] = 1 / p["memory_share"]
    op = _named(roofs, "compute", p.get("op_roof"))  # the ceiling its op kind can use (points._place_under_op_roof)
    if op and p["macc"] and p["macs_per_s"]:
        by_mem = mem.bytes_per_s * p["oi"] if mem else float("inf")
        p["op_roof_macs_per_s"] = min(by_mem, op.macs_per_s)
        p["op_headroom"] = p["op_roof_macs_per_s"] / p["macs_per_s"]
    p["above_roof"] = any(roofs_mod.above_roof(h) for h in (p.get("headroom"), p.get("op_headroom")))
    if p["above_roof"]:
        p["advice_kind"], p["advice"] = "above", advice_mod.POSITION["above"]
