"""Per-layer roofline points from layer records: verified, placed under their roofs, advised (advice.py).
Pure computation: nothing here talks to a board or prints.

A point's roofline is its own emitter's: the memory ceiling that emitter reached (the top
memory roof where it has none) and the compute ceiling of its emitter and element type. Where
its op kind has no use for that ceiling's instruction (depthwise and VMLADAVA), the point is
also placed under the fastest ceiling it can use (op_roof), and advised there.

MACs: the model's figures are nominal (every tap, padding included: the usual convention);
a point is placed by the MACs its kernel executes (padded taps skipped), as the compute
ceilings count them. `macc` is nominal, `macc_executed` what the kernel executes.
"""

from __future__ import annotations

from mcuroof.analysis import advice as advice_mod
from mcuroof.analysis import records, tile_error
from mcuroof.analysis import roofs as roofs_mod
from mcuroof.analysis.records import Roof
from mcuroof.kernels import compute as compute_kernels
from mcuroof.kernels.emitters import DONORS
from mcuroof.kernels.ops import reference, tiles
from mcuroof.kernels.ops.contract import DTYPES
from mcuroof.model.network import Layer, nelem


def layer_bytes(layer: Layer, dtype: str) -> int:
    """Bytes one inference of the layer moves at this element type: activations in and out,
    weights, and int32 (or float32) biases."""
    isz = DTYPES[dtype][1]
    act = sum(nelem(s) for s in layer.inputs) + nelem(layer.output)
    shapes = list(layer.weights)
    weights = sum(nelem(s) for s in shapes[:1]) * isz + sum(nelem(s) for s in shapes[1:]) * 4
    return act * isz + weights


def _memory_roof(roofs: list[Roof], emitter: str, dtype: str | None = None) -> Roof | None:
    """The fastest memory roof or ceiling of this emitter and element type; of the emitter
    where it has none of that type; else the run's top memory roof."""
    own = [
        r
        for r in roofs
        if r.kind == "memory" and r.source == "measured" and r.emitter == emitter and r.role != "region"
    ]
    typed = [r for r in own if r.dtype == dtype]
    pick = typed or own
    return max(pick, key=lambda r: r.bytes_per_s) if pick else roofs_mod.top_memory(roofs)


def _compute_roof(roofs: list[Roof], emitter: str, dtype: str) -> Roof | None:
    comp = [
        r
        for r in roofs
        if r.kind == "compute"
        and r.source == "measured"
        and (emitter is None or r.emitter == emitter and r.dtype == dtype)
    ]
    return max(comp, key=lambda r: r.macs_per_s) if comp else None


def _op_roof(roofs: list[Roof], emitter: str, dtype: str, op: str) -> Roof | None:
    """The fastest compute ceiling of this emitter and type whose instruction `op` can use."""
    out = compute_kernels.UNUSABLE.get(op, {})
    comp = [
        r
        for r in roofs
        if r.kind == "compute"
        and r.source == "measured"
        and r.emitter == emitter
        and r.dtype == dtype
        and r.kernel not in out
    ]
    return max(comp, key=lambda r: r.macs_per_s) if comp else None


def _tile_of(job, rec: dict):
    cand = rec.get("cand", -1)
    return job.tiles[cand] if isinstance(cand, int) and 0 <= cand < len(job.tiles) else job.tiles[0]


def project(job, timed: list[tuple]) -> tuple[float, str]:
    """(seconds of the whole layer, how) from (tile, seconds) of its first tile and, where its
    channels were cut, of its companion. The kernels spend a per-pixel or per-tap cost once for
    all channels and a per-MAC cost per channel: t = a * W / c + b * W, where W is the work a
    tile executes and c its channels. With the full channels, W / c scales like W and the tile
    scales by executed work ("scaled"); with fewer, two channel counts fit a and b ("fit");
    with one only, the point is a tile that whole-model totals leave out ("tile"). A tile with
    every channel but fewer columns than the layer, and its companion with half the columns,
    fit a cost per output row (whatever its width) apart from the per-MAC cost ("rows")."""
    layer = job.layer
    full = tiles.full_tile(layer, job.dtype)
    work = tiles.executed_work(layer, full)
    t1, s1 = timed[0]
    w1 = tiles.executed_work(layer, t1)
    if _row_pair(timed):
        f, b = row_costs(layer, timed)
        return f * full.rows + b * work, "rows"
    if len(timed) < 2 or timed[1][0].chans == t1.chans:
        return s1 * work / w1, "scaled" if t1.chans >= full.chans else "tile"
    a, b = costs(layer, timed)
    return a * work / full.chans + b * work, "fit"


def _row_pair(timed: list[tuple]) -> bool:
    """A tile and its half-column companion (same rows and channels, fewer columns), or its
    half-row companion (same columns and channels, fewer rows)."""
    if len(timed) < 2:
        return False
    (t1, _), (t2, _) = timed[:2]
    narrower = (t2.rows, t2.chans) == (t1.rows, t1.chans) and t2.cols < t1.cols
    shorter = (t2.cols, t2.chans) == (t1.cols, t1.chans) and t2.rows < t1.rows
    return narrower or shorter


def row_costs(layer, timed: list[tuple]) -> tuple[float, float]:
    """(f, b) of t = f * rows + b * W from a tile and its half-column or half-row companion:
    f the cost of one output row of the tile's width whatever its MACs, b the per-MAC cost.
    Where the two tiles' MACs are in proportion to their rows (no padded row), b alone."""
    (t1, s1), (t2, s2) = timed[:2]
    w1, w2 = tiles.executed_work(layer, t1), tiles.executed_work(layer, t2)
    det = t1.rows * w2 - t2.rows * w1
    if not det:
        return 0.0, s1 / w1
    f, b = (s1 * w2 - s2 * w1) / det, (t1.rows * s2 - t2.rows * s1) / det
    if f < 0:
        return 0.0, s1 / w1
    if b < 0:
        return s1 / t1.rows, 0.0
    return f, b


def costs(layer, timed: list[tuple]) -> tuple[float, float]:
    """(a, b) of project's t = a * W / c + b * W from two tiles with different channel counts:
    a the per-pixel (per-call) cost, b the per-MAC cost."""
    (t1, s1), (t2, s2) = timed[:2]
    w1, w2 = tiles.executed_work(layer, t1), tiles.executed_work(layer, t2)
    u1, u2 = w1 / t1.chans, w2 / t2.chans
    det = u1 * w2 - u2 * w1
    a, b = (s1 * w2 - s2 * w1) / det, (u1 * s2 - u2 * s1) / det
    if a < 0:
        return 0.0, s1 / w1
    if b < 0:
        return s1 / u1, 0.0
    return a, b


def call_share(job, timed: list[tuple], seconds: float) -> float | None:
    """The share of a fitted layer's time spent once per pixel (the calls and the Python loop
    around them), whatever its channel count, or once per row ("rows"), whatever its width:
    what a tile too small cannot amortize."""
    full = tiles.full_tile(job.layer, job.dtype)
    if _row_pair(timed):
        f, _ = row_costs(job.layer, timed)
        return min(1.0, f * full.rows / seconds)
    if len(timed) < 2 or timed[0][0].chans == timed[1][0].chans:
        return None
    a, _ = costs(job.layer, timed)
    return min(1.0, a * tiles.executed_work(job.layer, full) / full.chans / seconds)


def point(
    job,
    recs: list[dict],
    roofs: list[dict],
    emitters: list[str],
    features=None,
    kernel_isa: str | None = None,
    tick_us: float | None = None,
) -> dict:
    """The point of a Job from its layer records (firmware/layers.py): the first candidate's
    record, then its companion's if the job has companions. `emitters` the board's (its
    probe's), `features` what the board has (advice.Features, or its profile's [core].features:
    None not declared), `kernel_isa` the
    extension its kernel used (kernels.ops.dispatch.kernel_isa), `tick_us` the board's timer
    step (its probe's), for the projection's interval (tile_error)."""
    layer = job.layer
    n = len(job.candidates)
    main = next(r for r in recs if r.get("cand", 0) < n)
    extra = [r for r in recs if r.get("cand", 0) >= n and reference.verify(job, r)]
    tile = _tile_of(job, main)
    verified = reference.verify(job, main)
    timed = [(tile, roofs_mod.seconds(main))] + [(_tile_of(job, r), roofs_mod.seconds(r)) for r in extra[:1]]
    seconds, how = project(job, timed)
    kind = tile_error.kind(job, timed)
    ticks = [tile_error.tick_seconds(r, tick_us) for r in [main] + extra[:1]]
    tick_iv = tile_error.tick_interval(project, job, timed, ticks)
    executed = tiles.executed_work(layer, tiles.full_tile(layer, job.dtype)) if layer.macc else 0
    moved = layer_bytes(layer, job.dtype)
    oi = executed / moved if moved else 0.0
    p = {
        "index": layer.index,
        "name": layer.name,
        "op": layer.op,
        "input_shapes": [list(s) for s in layer.inputs],
        "output_shape": list(layer.output),
        "dtype": job.dtype,
        "emitter": job.emitter,
        "macc": layer.macc,
        "macc_executed": executed,
        "bytes": moved,
        "oi": oi,
        "seconds": seconds,
        "tile_fraction": tile.fraction,
        "tile_reason": job.why_tiled,
        "projection": how,
        # where the whole layer's time lies: the timer's tick carried through the projection and
        # the spread this kind of tile showed against whole layers (analysis/tile_error.py)
        "tile_kind": kind,
        "seconds_interval": list(tile_error.interval(tick_iv, tile_error.spread(kind, job.emitter))) if kind else None,
        "tile_seconds": timed[0][1],
        # the empty call of the tile's Python k (its heap-allocated frame), left out of seconds
        "frame_seconds": roofs_mod.call_seconds(main),
        "verified": verified,
        "heap_bytes": main.get("heap"),
        "tile_data_bytes": tile.data_bytes(DTYPES[job.dtype][1]),
        "call_share": call_share(job, timed, seconds) if how in ("fit", "rows") else None,
        "kernel_isa": kernel_isa,
    }
    place(p, roofs, emitters, features)
    return amortize_note(p)


def bare_point(layer: Layer, dtype: str, emitter: str, seconds: float) -> dict:
    """The fields place() reads of a layer taking `seconds` (a prediction: no record, no check)."""
    executed = tiles.executed_work(layer, tiles.full_tile(layer, dtype)) if layer.macc else 0
    moved = layer_bytes(layer, dtype)
    return {
        "index": layer.index,
        "name": layer.name,
        "op": layer.op,
        "dtype": dtype,
        "emitter": emitter,
        "macc": layer.macc,
        "macc_executed": executed,
        "bytes": moved,
        "oi": executed / moved if moved else 0.0,
        "seconds": seconds,
    }


def amortize_note(p: dict) -> dict:
    """A point far below its roof only because of its per-pixel call cost says so: without that
    cost its MAC loops would be within FAR_BELOW of the roof, but its tile's channels (the
    board's heap) are too few to amortize the call."""
    share, head = p.get("call_share"), p.get("headroom")
    if not (share and head and head >= advice_mod.FAR_BELOW and head * (1 - share) < advice_mod.FAR_BELOW):
        return p
    alone = f"(its {'MAC ' if p.get('macc') else ''}loops alone: headroom {head * (1 - share):.2g}); "
    if p.get("projection") == "rows":
        p["advice"] = (
            f"rows too short to amortize the call: {share:.0%} of its time is spent once per "
            f"output row (the loop around the MAC loops, whatever the row's width), and its rows "
            f"hold few MACs " + alone + p["advice"]
        )
    else:
        p["advice"] = (
            f"tile too small to amortize the call: {share:.0%} of its time is spent once per "
            f"pixel (calls and loops around the MAC loops), shared by the few channels a tile "
            f"holds in this heap " + alone + p["advice"]
        )
    return p


def place(p: dict, roofs: list[dict], emitters: list[str], features=None) -> dict:
    """Put a point (macc, bytes, oi, seconds, emitter, dtype) under its roofs: achieved rates,
    memory share, bound, attainable roof, headroom and advice. An emitter of None goes under
    the board's top roofs (a user kernel that names none). The MAC rate counts `macc_executed`
    where the point has it (see the module docstring)."""
    roofs = records.roofs(roofs)
    seconds, moved, oi = p["seconds"], p["bytes"], p["oi"]
    p["macs_per_s"], p["bytes_per_s"] = p.get("macc_executed", p["macc"]) / seconds, moved / seconds
    mem, comp = _memory_roof(roofs, p["emitter"], p["dtype"]), _compute_roof(roofs, p["emitter"], p["dtype"])
    p["memory_roof"], p["compute_roof"] = (mem.name if mem else None), (comp.name if comp else None)
    p["memory_share"] = p["bytes_per_s"] / mem.bytes_per_s if mem else None
    if p["macc"]:
        by_mem = mem.bytes_per_s * oi if mem else float("inf")
        by_comp = comp.macs_per_s if comp else float("inf")
        roof = min(by_mem, by_comp)
        p["bound"] = "memory" if by_mem <= by_comp else "compute"
        p["roof_macs_per_s"] = roof if roof != float("inf") else None
        p["headroom"] = roof / p["macs_per_s"] if p["roof_macs_per_s"] else None
    else:
        p["bound"] = "memory"
        p["roof_macs_per_s"] = 0.0
        p["headroom"] = 1 / p["memory_share"] if p["memory_share"] else None
    if p["macc"] and comp:
        _place_under_op_roof(p, roofs, by_mem)
    # above the ceiling of the instructions it can use, too: a ceiling kernel slower than a layer's
    p["above_roof"] = any(roofs_mod.above_roof(h) for h in (p["headroom"], p.get("op_headroom")))
    feats = features if isinstance(features, advice_mod.Features) else advice_mod.Features(features, tuple(emitters))
    p["advice_kind"], p["advice"] = advice_mod.advise(p, roofs, feats)
    return p


def _place_under_op_roof(p: dict, roofs: list[Roof], by_mem: float) -> None:
    """Where the op kind cannot use the emitter's fastest ceiling (kernels.compute.UNUSABLE), its place
    under the fastest one it can use: op_roof (its name), op_bound, op_roof_macs_per_s,
    op_headroom. The advice judges the point there (advice.limiting)."""
    op = _op_roof(roofs, p["emitter"], p["dtype"], p.get("op"))
    if not op or op.name == p["compute_roof"]:
        return
    roof = min(by_mem, op.macs_per_s)
    p["op_roof"], p["op_bound"] = op.name, "memory" if by_mem <= op.macs_per_s else "compute"
    p["op_roof_macs_per_s"], p["op_headroom"] = roof, roof / p["macs_per_s"]


def whole_model(points: list[dict]) -> list[dict]:
    """Per element type and emitter: the roofline bound (`predicted_seconds`, a field name kept
    for old files: sum over layers of MACC / attainable, or bytes / memory roof for MAC-free
    layers; a bound, not a prediction), measured latency (sum of layer times, `projected`: the
    layers among them run on a tile and projected to the whole layer), inferences per second and
    measured / bound.

    Every row of an element type covers the same layers: those any emitter profiled at that
    type. A layer the emitter has no verified time for is timed by the fastest emitter that has
    one (`borrowed`: index and emitter); one that none has (`missing`) makes the row `partial`,
    with no inferences/s. Verified points only, and not those whose time is a lone tile's
    (projection "tile"): `tiles_left_out` names them."""
    timed = [p for p in points if p["verified"] and p.get("projection") != "tile"]
    out = []
    for key in sorted({(p["dtype"], p["emitter"]) for p in points}):
        dtype = key[0]
        mine = [p for p in points if (p["dtype"], p["emitter"]) == key and p["verified"]]
        own = {p["index"]: p for p in mine if p.get("projection") != "tile"}
        if not own:
            continue
        wanted = sorted({p["index"] for p in points if p["dtype"] == dtype and p["verified"]})
        borrowed, missing = [], []
        for i in (i for i in wanted if i not in own):
            donors = sorted(
                (p for p in timed if p["index"] == i and p["dtype"] == dtype),
                key=lambda p: DONORS.index(p["emitter"]) if p["emitter"] in DONORS else len(DONORS),
            )
            (borrowed.append(donors[0]) if donors else missing.append(i))
        pts = list(own.values()) + borrowed
        predicted = sum(roofline_seconds(p) for p in pts)
        measured = sum(p["seconds"] for p in pts)
        out.append(
            {
                "dtype": dtype,
                "emitter": key[1],
                "layers": len(pts),
                "macc": sum(p["macc"] for p in pts),
                "tiles_left_out": [p["index"] for p in mine if p.get("projection") == "tile"],
                "projected": sorted(p["index"] for p in pts if p.get("tile_fraction", 1) < 1),
                "borrowed": [{"index": p["index"], "emitter": p["emitter"]} for p in borrowed],
                "missing": missing,
                "partial": bool(missing),
                "predicted_seconds": predicted,
                "measured_seconds": measured,
                "measured_interval": _interval_sum(pts),
                "inferences_per_s": 1 / measured if measured and not missing else None,
                "measured_over_predicted": measured / predicted if predicted else None,
            }
        )
    return out


def _interval_sum(pts: list[dict]) -> list[float] | None:
    """The sum of the points' seconds_interval (None where a point has none)."""
    ivs = [p.get("seconds_interval") for p in pts]
    return None if not ivs or None in ivs else [sum(i[0] for i in ivs), sum(i[1] for i in ivs)]


def roofline_seconds(p: dict) -> float:
    """The layer's time at its roofline: under the ceiling its op kind can use (op_roof) where
    its emitter's fastest is out of its reach."""
    roof = p.get("op_roof_macs_per_s") or p["roof_macs_per_s"]
    if p["macc"] and roof:
        return p.get("macc_executed", p["macc"]) / roof
    if p.get("memory_share"):
        return p["seconds"] * p["memory_share"]  # bytes / memory roof
    return 0.0
