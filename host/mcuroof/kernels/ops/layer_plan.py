"""Layer profiling plan and reference: which layers run on the board, on which tile, with
which parameters, and what their output must be. Pure computation, no I/O.

A layer whose buffers do not fit the board's heap (or whose run would exceed the time budget)
runs on a tile: the first output rows and columns (or elements), with all output channels where
a tile of them fits, else the first channels too. The tile's share of the layer's output is its
`fraction`. A tile's bytes are NOT the layer's bytes times that fraction (a tile allocates every
weight of its channels, and the input rows its output rows need: conv_2d_2 of KWS allocates
1184 B for a 163 B share), and its MACs are not either: the kernels skip padded taps, and the
first rows and columns hold the most padding. `executed_work` counts what a tile really
executes. The firmware is given a few candidate tiles, largest first, and runs the first one it
can allocate (firmware/layers.py); the numpy reference here computes the same tile.

Where only tiles with fewer output channels fit, the job also carries `companions`: the same
tiles with half the channels, run after the first. The kernels pay some costs once per pixel or
tap for all channels, so time is not proportional to channels; two channel counts let
points.project fit that cost apart from the per-MAC cost. Tiles that keep every channel of a
spatial MAC layer but not every column have companions with half the columns: the kernels pay
some costs once per row (the Python loop around the assembler or viper row), whatever its
width, and two widths fit that cost apart from the per-MAC one.
"""

from __future__ import annotations

import dataclasses

from mcuroof.kernels.ops import dispatch, m0
from mcuroof.kernels.ops.contract import DTYPES, Job, Tile
from mcuroof.kernels.ops.tiles import companion_shape, extent, full_tile, tile, unsupported
from mcuroof.model.network import Layer, Network

MAX_CANDIDATES = 5
# a board with less free heap than this is "small": shorter tiles (TILE_SECONDS), fewer iterations
SMALL_HEAP = 256 * 1024
TILE_SECONDS = {"small": 0.25, "large": 1.0}
# MACC/s assumed for the time budget where the run measured no compute ceiling
FALLBACK_RATE = {"small": 16e3, "large": 10e6}


def heap_class(free_heap: int) -> str:
    """ "small" or "large": which TILE_SECONDS and FALLBACK_RATE a board of this free heap takes."""
    return "small" if free_heap < SMALL_HEAP else "large"


def _halvings(n: int) -> list[int]:
    out = [n]
    while out[-1] > 1:
        out.append(-(-out[-1] // 2))
    return out


def _with_scratch(layer: Layer, dtype: str, emitter: str, t: Tile) -> Tile:
    """t with the words its kernel keeps after the biases in P (m0.scratch_words):
    carried as biases, so they cost no allocation on the board."""
    extra = m0.scratch_words(layer, emitter, dtype, t.chans, t.cols)
    return dataclasses.replace(t, nb=t.nb + extra) if extra else t


def _companion(layer: Layer, dtype: str, emitter: str, t: Tile) -> Tile:
    return _with_scratch(layer, dtype, emitter, tile(layer, dtype, *companion_shape(layer, t)))


def _tile_work(layer: Layer, t: Tile) -> float:
    """Operations of a tile: its MACC, or for MAC-free ops the elements it reads."""
    return layer.macc * t.fraction if layer.macc else (t.nx + t.nw) or 1


def _fits_asm(t: Tile) -> bool:
    lim = m0.ASM_PACK_LIMIT
    return t.nx < lim and t.nw < lim and t.params.C * max(t.params.KW, 1) < 4096


def _row_pairable(layer: Layer, t: Tile) -> bool:
    """Whether a tile of a convolution spans whole output rows, two or more (or the layer has one
    row): its half-row companion then fits a per-row cost apart from the per-MAC cost, which
    held the projection within 0.4 % of the whole layer on qemu-m3 where tiles of part of a
    row were off by up to 19 % (docs/tiles.md). True for other ops (no preference)."""
    if layer.op not in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        return True
    rows, cols, _ = extent(layer)
    return t.cols == cols and (t.rows >= 2 or rows == 1)


def plan_layer(layer: Layer, dtype: str, emitter: str, heap: int, max_work: float | None) -> Job | None:
    """The job for one layer: candidate tiles, largest first, that fit heap and time budget."""
    if unsupported(layer) or not dispatch.source(layer.op, emitter, dtype):
        return None
    isz = DTYPES[dtype][1]
    rows, cols, chans = extent(layer)
    tiles = sorted(
        {tile(layer, dtype, r, w, c) for r in _halvings(rows) for w in _halvings(cols) for c in _halvings(chans)},
        # every channel first; else two or more, so a half-channel companion exists; then
        # whole rows, two or more (a half-row companion: _row_pairable)
        key=lambda t: (
            t.chans < chans,
            t.chans < min(2, chans),
            not _row_pairable(layer, t),
            -t.fraction,
            t.heap_bytes(isz),
        ),
    )
    tiles = [_with_scratch(layer, dtype, emitter, t) for t in tiles]
    full = tiles[0]
    fit = [
        t
        for t in tiles
        if t.heap_bytes(isz) <= heap
        and (max_work is None or _tile_work(layer, t) <= max_work)
        and (emitter not in m0.EMITTERS or _fits_asm(t))
    ]
    if not fit:
        return None
    picked = [fit[0]]
    for t in fit[1:]:
        if len(picked) == MAX_CANDIDATES:
            break
        if t.heap_bytes(isz) <= 0.7 * picked[-1].heap_bytes(isz):
            picked.append(t)
    why = "" if picked[0] == full else ("memory" if full.heap_bytes(isz) > heap else "time")
    comp = [_companion(layer, dtype, emitter, t) for t in picked if companion_shape(layer, t)]
    return Job(layer, dtype, emitter, tuple(picked + comp), why, len(comp))


def whole(layer: Layer, dtype: str, emitter: str, heap: int) -> Job | None:
    """The job of a layer run whole (one tile, no companion): plan_layer's first candidate where
    that is the whole layer, without planning its tiles; None where the whole layer does not fit."""
    if unsupported(layer) or not dispatch.source(layer.op, emitter, dtype):
        return None
    t = _with_scratch(layer, dtype, emitter, full_tile(layer, dtype))
    if t.heap_bytes(DTYPES[dtype][1]) > heap or (emitter in m0.EMITTERS and not _fits_asm(t)):
        return None
    return Job(layer, dtype, emitter, (t,), "")


def at_fraction(layer: Layer, dtype: str, emitter: str, heap: int, fraction: float | None) -> Job | None:
    """The job a run plans for this layer in this heap under a time budget of `fraction` of the
    layer's work (None: no budget), cut to its first tile and that tile's companion: to measure a
    projection against the whole layer (tools/tile_invariance.py, docs/tiles.md)."""
    budget = None if fraction is None else fraction * _tile_work(layer, full_tile(layer, dtype))
    job = plan_layer(layer, dtype, emitter, heap, budget)
    if job is None:
        return None
    first, shape = job.tiles[0], companion_shape(layer, job.tiles[0])
    comp = [t for t in job.tiles[len(job.candidates) :] if (t.rows, t.cols, t.chans) == shape][:1]
    return dataclasses.replace(job, tiles=(first, *comp), companions=len(comp))


def shaped(layer: Layer, dtype: str, emitter: str, rows: int, cols: int, chans: int) -> Job:
    """The job of the tile of the first `rows` x `cols` x `chans` of the layer's output and its
    companion (tiles.companion_shape), as a run would make it: to measure a projection."""
    t = _with_scratch(layer, dtype, emitter, tile(layer, dtype, rows, cols, chans))
    comp = [_companion(layer, dtype, emitter, t)] if companion_shape(layer, t) else []
    return Job(layer, dtype, emitter, (t, *comp), "time", len(comp))


def plan(
    net: Network,
    dtypes: list[str],
    emitters: list[str],
    heap: int,
    max_work: dict[tuple[str, str], float] | None = None,
) -> tuple[list[Job], list[dict]]:
    """Jobs for every layer x dtype x emitter that can run, and the layers left out (and why)."""
    jobs, skipped = [], []
    for layer in net.layers:
        why = unsupported(layer)
        if why:
            skipped.append({"index": layer.index, "name": layer.name, "op": layer.op, "why": why})
            continue
        for dtype in dtypes:
            for em in emitters:
                if not dispatch.source(layer.op, em, dtype):
                    continue
                why = dispatch.limit(layer, em)
                job = None if why else plan_layer(layer, dtype, em, heap, (max_work or {}).get((em, dtype)))
                if job:
                    jobs.append(job)
                else:
                    why = why or "no tile fits the heap"
                    skipped.append(
                        {
                            "index": layer.index,
                            "name": layer.name,
                            "op": layer.op,
                            "dtype": dtype,
                            "emitter": em,
                            "why": why,
                        }
                    )
    return jobs, skipped


def max_work(ceilings: list[dict], emitters: list[str], dtypes: list[str], size: str, tile_seconds=None) -> dict:
    """The work a tile may hold per (emitter, dtype): tile_seconds at the measured compute
    ceilings (roofs.compute_roofs, in its order: the last of an emitter and type counts)."""
    rate = {(r["emitter"], r["dtype"]): r["macs_per_s"] for r in ceilings}
    seconds = tile_seconds or TILE_SECONDS[size]
    return {(em, dt): rate.get((em, dt), FALLBACK_RATE[size]) * seconds for em in emitters for dt in dtypes}
