"""How far a layer's time projected from a tile may lie from the whole layer's: the spread each
kind of tile showed against its whole layer (tools/tile_invariance.py on qemu-m3, docs/tiles.md),
and the board's timer tick carried through the projection. Pure computation, no I/O."""

from __future__ import annotations

from mcuroof.kernels.ops import tiles

# projected / whole - 1, the lowest and highest seen per kind of tile and emitter: KWS's first
# convolution, a depthwise, a 1x1 convolution, the average pool and the dense layer on qemu-m3
# (instruction-counted: every figure repeats exactly), on the tiles of time budgets 1/2 to 1/32
# of the layer and of the shapes in docs/tiles.md, rounded outwards to 0.5 %. An emitter not
# measured (native; the DSP and MVE kernels) takes the widest of the three.
SPREAD = {
    "whole": {"asm_thumb": (0.0, 0.0), "viper": (0.0, 0.0), "bytecode": (0.0, 0.0)},
    # whole rows, and half of them: t = f * rows + b * MACs (9 tiles each)
    "row pair": {"asm_thumb": (-0.045, 0.01), "viper": (-0.005, 0.005), "bytecode": (-0.005, 0.005)},
    # part of each row, and half its columns (20 tiles each)
    "column pair": {"asm_thumb": (-0.035, 0.195), "viper": (-0.09, 0.155), "bytecode": (-0.03, 0.025)},
    # every channel of one whole row, no companion, scaled by its executed MACs (3 each)
    "scaled": {"asm_thumb": (0.0, 0.24), "viper": (0.0, 0.20), "bytecode": (0.0, 0.07)},
    # every output pixel (dense, global pool, or a convolution's), and half its channels (12
    # each): asm_thumb -2.3 .. +0.5 % on qemu-m3; on the micro:bit its pool's projections from
    # 8, 4 and 2 channels spread 5.75-6.16 ms over two runs (its 23 us timer tick, and a call
    # whose cost still moves with the interpreter's state by 5-10 us, extrapolated 14-62 times)
    "channel pair": {"asm_thumb": (-0.04, 0.04), "viper": (-0.005, 0.005), "bytecode": (-0.005, 0.005)},
    # the same from two channels and one (3 each)
    "channel pair of one": {"asm_thumb": (0.0, 0.22), "viper": (-0.005, 0.005), "bytecode": (-0.005, 0.005)},
    # whole rows of a convolution, and half their channels (16 each; no padding 8): asm_thumb's depthwise
    # from 2 rows of 4 or 8 channels -32 % and -44 %, from 13 rows of 4 -1.8 %
    "row channel pair": {"asm_thumb": (-0.445, 0.255), "viper": (-0.005, 0.205), "bytecode": (-0.005, 0.07)},
    "row channel pair, no padding": {
        "asm_thumb": (-0.005, 0.025),
        "viper": (-0.005, 0.005),
        "bytecode": (-0.005, 0.005),
    },
    # part of a convolution's rows (one column, or one pixel), and half its channels (10 each)
    "pixel channel pair": {"asm_thumb": (0.0, 1.05), "viper": (0.0, 0.385), "bytecode": (0.0, 0.23)},
    # the same of a convolution with no padded tap (KWS's 1x1: 6 each)
    "pixel channel pair, no padding": {"asm_thumb": (0.0, 0.225), "viper": (0.0, 0.005), "bytecode": (0.0, 0.005)},
}


def spread(kind: str, emitter: str) -> tuple[float, float]:
    """SPREAD of this kind of tile for this emitter; the widest of the kind's where not measured."""
    by = SPREAD[kind]
    return by.get(emitter) or (min(lo for lo, _ in by.values()), max(hi for _, hi in by.values()))


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
        padded = tiles.executed_work(layer, tiles.full_tile(layer, job.dtype)) < layer.macc
        part = "row channel pair" if t1.cols == cols else "pixel channel pair"
        return part if padded else part + ", no padding"
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
