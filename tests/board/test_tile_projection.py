"""Accounting rules of the layers suite, against values computed by hand: executed MACs of a
tile, the projection of a tile's time to its layer, full channels first, and the companion
tile the firmware runs after the first."""

from mcuroof.analysis import points
from mcuroof.kernels.ops import layer_plan, reference, tiles
from mcuroof.links.unix import UnixLink
from mcuroof.measure.collect import Collector
from mcuroof.measure.rawlog import RawLog
from unit.test_tile_projection import conv


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


def test_the_firmware_runs_the_column_companion_of_the_tile_it_ran(tmp_path, micropython):
    layer = conv()
    job = layer_plan.plan_layer(layer, "int8", "bytecode", tiles.tile(layer, "int8", 1, 2, 6).heap_bytes(1), None)
    log = RawLog(tmp_path / "raw.jsonl")
    recs = Collector(UnixLink(micropython), log).run_suite("layers", {"win_us": 1000, "trials": 3, "jobs": [job]})
    log.close()
    runs = [r for r in recs if r["t"] == "layer"]
    assert [r["cand"] for r in runs] == [0, len(job.candidates)] and all(reference.verify(job, r) for r in runs)
    assert points.point(job, runs, [], [])["projection"] == "rows"
