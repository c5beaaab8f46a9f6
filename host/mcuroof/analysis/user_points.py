"""The points of the user's own kernels (`mcuroof kernel FILE.py`): each kernel that ran and
passed its check, placed under the board's roofs (analysis.points.place); one error line per
kernel that did not. Pure computation, no I/O.
"""

from __future__ import annotations

from mcuroof.analysis import points as points_mod
from mcuroof.analysis import roofs as roofs_mod
from mcuroof.kernels import user as user_kernel


def names(uf: user_kernel.UserFile) -> list[str]:
    """kernel_NAME of every kernel of the file, in file order."""
    return [f"{user_kernel.PREFIX}{n}" for n in uf.names]


def points(
    uf: user_kernel.UserFile, records: list[dict], roofs: list[dict], emitters: list[str], first: int = 1
) -> tuple[list[dict], list[str]]:
    """Points of the kernels that ran and checked (numbered from `first`), and one error line
    per kernel that did not."""
    pts, errors = [], []
    for rec in records:
        if rec.get("t") == "uerr":
            errors.append(user_kernel.error_line(uf, rec))
        elif rec.get("t") == "uk":
            try:
                pts.append(point(uf, rec, roofs, emitters, first + len(pts)))
            except ValueError as e:
                errors.append(f"{uf.path}: {user_kernel.PREFIX}{rec.get('k')}: {e}")
    return pts, errors


def point(uf: user_kernel.UserFile, rec: dict, roofs: list[dict], emitters: list[str], index: int) -> dict:
    macc, moved = rec.get("macc"), rec.get("bytes")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in (macc, moved)):
        raise ValueError(f"refused (macc {macc!r}, bytes {moved!r}): {user_kernel.CONTRACT}")
    emitter, dtype = user_kernel.roof_spec(rec.get("roof") or "")
    p = {
        "index": index,
        "name": rec["k"],
        "op": "user kernel",
        "user": True,
        "file": uf.path.name,
        "dtype": dtype,
        "emitter": emitter,
        "macc": macc,
        "bytes": moved,
        "oi": macc / moved,
        "seconds": roofs_mod.seconds(rec),
        "verified": True,
        "tile_fraction": 1.0,
        "tile_reason": "",
        "heap_bytes": None,
        "tile_data_bytes": None,
    }
    points_mod.place(p, roofs, emitters)
    if emitter is None:  # placed under the board's top roofs, whatever emitter the kernel used
        p["emitter"] = p["dtype"] = user_kernel.TOP
    return p
