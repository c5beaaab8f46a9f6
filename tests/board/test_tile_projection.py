"""Accounting rules of the layers suite, against values computed by hand: executed MACs of a
tile, the projection of a tile's time to its layer, full channels first, and the companion
tile the firmware runs after the first."""

from mcuroof.analysis import points
from mcuroof.kernels.ops import reference, tiles
from mcuroof.links.unix import UnixLink
from mcuroof.measure.collect import Collector
from mcuroof.measure.rawlog import RawLog
from mcuroof.model.network import Layer
from mcuroof.suites import layer_plan


def conv(**kw):
    # 9x7x3 -> 5x4x6, 3x3 stride 2, "same": one padded row and column on top and left
    base = dict(
        index=0,
        name="conv",
        op="CONV_2D",
        dtype="int8",
        inputs=((1, 9, 7, 3),),
        output=(1, 5, 4, 6),
        weights=((6, 3, 3, 3), (6,)),
        kernel=(3, 3),
        stride=(2, 2),
        padding="same",
        activation="NONE",
        macc=5 * 4 * 6 * 27,
    )
    base.update(kw)
    return Layer(**base)


def timed(job, rows, cols, chans, a, b):
    """A tile and its time under t = a * W / c + b * W."""
    t = tiles.tile(job.layer, job.dtype, rows, cols, chans)
    w = tiles.executed_work(job.layer, t)
    return t, a * w / chans + b * w


def test_the_firmware_runs_the_companion_of_the_tile_it_ran(tmp_path, micropython):
    layer = conv()
    job = layer_plan.plan_layer(layer, "int8", "bytecode", tiles.tile(layer, "int8", 1, 1, 6).heap_bytes(1) - 1, None)
    log = RawLog(tmp_path / "raw.jsonl")
    recs = Collector(UnixLink(micropython), log).run_suite("layers", {"win_us": 1000, "trials": 3, "jobs": [job]})
    log.close()
    runs = [r for r in recs if r["t"] == "layer"]
    n = len(job.candidates)
    assert [r["cand"] for r in runs] == [0, n] and all(reference.verify(job, r) for r in runs)
    p = points.point(job, runs, [], [])
    assert p["projection"] == "fit" and p["verified"]


# ---------------------------------------------------------------- element types and layer sets


def mem(em, k, ty, nbytes):
    """A memory record that moved nbytes in 1 us (no harness cost): nbytes * 1e6 B/s."""
    return {"em": em, "k": k, "ty": ty, "bytes": nbytes, "us": 1, "ovh": 0, "r": 1}


def pt(index, emitter, seconds, projection="scaled", dtype="int8", verified=True):
    return {
        "index": index,
        "emitter": emitter,
        "dtype": dtype,
        "seconds": seconds,
        "verified": verified,
        "projection": projection,
        "macc": 0,
        "roof_macs_per_s": 0.0,
        "memory_share": 0.5,
    }


# ---------------------------------------------------------------- theoretical figures


def test_one_icount_shift_and_the_per_instruction_column():
    from mcuroof.analysis import timing_basis
    from mcuroof.board import profiles as boards
    from mcuroof.links import qemu

    board = boards.load_board("qemu-microbit")
    assert board.run["icount_shift"] == qemu.DEFAULT_ICOUNT_SHIFT == 6
    # the theory and the report's column both use 1e9 / 2^6 = 15.625 M instructions/s, not 16 MHz
    assert boards.roof_clock_hz(board) == 15.625e6
    qemu_basis = timing_basis.of({"clock_hz": 16e6, "icount_shift": 6, "platform": "microbit"})
    assert (qemu_basis.rate_hz, qemu_basis.step, qemu_basis.timer_hz) == (15.625e6, "instr", 16e6)
    real = timing_basis.of({"clock_hz": 16e6, "icount_shift": None, "platform": "microbit"})
    assert (real.rate_hz, real.step) == (16e6, "cycle")
    assert timing_basis.of({"clock_hz": None, "icount_shift": None, "platform": "linux"}).step is None


# ---------------------------------------------------------------- memory levels from the hardware

HOST = [
    {"name": "L1d", "bytes": 32 << 10},
    {"name": "L2", "bytes": 1 << 20},
    {"name": "L3", "bytes": 32 << 20},
    {"name": "DRAM", "bytes": None},
]


def test_the_firmware_runs_the_column_companion_of_the_tile_it_ran(tmp_path, micropython):
    layer = conv()
    job = layer_plan.plan_layer(layer, "int8", "bytecode", tiles.tile(layer, "int8", 1, 2, 6).heap_bytes(1), None)
    log = RawLog(tmp_path / "raw.jsonl")
    recs = Collector(UnixLink(micropython), log).run_suite("layers", {"win_us": 1000, "trials": 3, "jobs": [job]})
    log.close()
    runs = [r for r in recs if r["t"] == "layer"]
    assert [r["cand"] for r in runs] == [0, len(job.candidates)] and all(reference.verify(job, r) for r in runs)
    assert points.point(job, runs, [], [])["projection"] == "rows"
