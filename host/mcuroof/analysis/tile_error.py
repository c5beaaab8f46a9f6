"""How far a layer's time projected from a tile may lie from the whole layer's: the spread each
kind of tile showed against its whole layer (tools/tile_invariance.py on qemu-m3, docs/tiles.md),
and the board's timer tick carried through the projection. Pure computation, no I/O."""

from __future__ import annotations

from mcuroof.kernels.ops import tiles

# projected / whole - 1, the lowest and highest seen per kind of tile: KWS's first convolution,
# a depthwise, a 1x1 convolution, the average pool and the dense layer in asm_thumb, viper and
# bytecode on qemu-m3 (instruction-counted: every figure repeats exactly), on the tiles of time
# budgets 1/2 to 1/32 of the layer and of the shapes in docs/tiles.md, rounded outwards
SPREAD = {
    "whole": (0.0, 0.0),
    "row pair": (-0.045, 0.01),  # whole rows, and half of them
    "column pair": (-0.09, 0.195),  # part of each row, and half its columns
    "scaled": (0.0, 0.24),  # every channel, no companion (one whole row), scaled by its executed MACs
    "channel pair": (-0.005, 0.005),  # one output pixel (dense, global pool), and half its channels
    "channel pair of one": (0.0, 0.22),  # the same, two channels and one
    "pixel channel pair": (0.0, 0.94),  # part of a convolution's pixels, and half its channels
}


def kind(job, timed: list[tuple]) -> str | None:
    """The kind of tile (and companion) a point's time was projected from (SPREAD's keys); None
    for a lone channel-cut tile, which whole-model totals leave out."""
    layer = job.layer
    rows, cols, chans = tiles.extent(layer)
    t1 = timed[0][0]
    if (t1.rows, t1.cols, t1.chans) == (rows, cols, chans):
        return "whole"
    t2 = timed[1][0] if len(timed) > 1 else None
    if t2 is None:
        return "scaled" if t1.chans == chans else None
    if t2.chans < t1.chans:
        if t1.rows * t1.cols == rows * cols:
            return "channel pair of one" if t2.chans == 1 else "channel pair"
        return "pixel channel pair"
    return "row pair" if t2.rows < t1.rows else "column pair"


def tick_interval(project, job, timed: list[tuple], ticks: list[float]) -> tuple[float, float]:
    """The least and the most a projection can be when each tile's time may be off by its timer
    quantization (`ticks`: seconds a call, per tile): project(job, timed) at every corner."""
    corners = [[]]
    for (t, s), d in zip(timed, ticks):
        corners = [c + [(t, v)] for c in corners for v in (max(s - d, s * 1e-6), s + d)]
    got = [project(job, c)[0] for c in corners]
    return min(got), max(got)


def interval(projected: tuple[float, float], spread: tuple[float, float]) -> tuple[float, float]:
    """Where the whole layer's time lies: projected = whole * (1 + spread), so whole is
    projected / (1 + spread), between the projection's least and most."""
    return projected[0] / (1 + spread[1]), projected[1] / (1 + spread[0])


def tick_seconds(rec: dict, tick_us: float | None) -> float:
    """A call's time is a difference of two timed windows over rec["r"] calls: each window may be
    off by one timer tick."""
    return 2 * (tick_us or 0) * 1e-6 / rec["r"]
