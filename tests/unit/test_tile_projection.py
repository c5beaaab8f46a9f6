"""Accounting rules of the layers suite, against values computed by hand: executed MACs of a
tile, the projection of a tile's time to its layer, full channels first, and the companion
tile the firmware runs after the first."""

from dataclasses import replace

import pytest

from mcuroof.analysis import points
from mcuroof.kernels import compute
from mcuroof.kernels.ops import layer_plan, reference, tiles
from mcuroof.model import builtins
from mcuroof.model.network import Layer
from mcuroof.suites import layers as layer_suite


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


def test_executed_macs_skip_the_padded_taps():
    layer = conv()
    # rows: output 0 starts at input -1 (2 taps inside), 1..3 have 3, output 4 starts at 7 (2): 13
    # columns: -1 (2), 1 (3), 3 (3), 5 (2): 10.  13 x 10 taps x 3 inputs x 6 outputs
    assert tiles.executed_work(layer, tiles.full_tile(layer, "int8")) == 2340
    assert layer.macc == 3240
    # the first two rows only: (2 + 3) x 10 taps x 3 x 6
    assert tiles.executed_work(layer, tiles.tile(layer, "int8", 2, 4, 6)) == 900
    dw = Layer(
        index=1,
        name="dw",
        op="DEPTHWISE_CONV_2D",
        dtype="int8",
        inputs=((1, 5, 5, 2),),
        output=(1, 5, 5, 2),
        weights=((1, 3, 3, 2), (2,)),
        kernel=(3, 3),
        stride=(1, 1),
        padding="same",
        activation="NONE",
        macc=450,
    )
    assert tiles.executed_work(dw, tiles.full_tile(dw, "int8")) == 13 * 13 * 2  # 2+3+3+3+2 per axis
    dense = Layer(
        index=2,
        name="fc",
        op="FULLY_CONNECTED",
        dtype="int8",
        inputs=((1, 10),),
        output=(1, 4),
        weights=((4, 10), (4,)),
        macc=40,
    )
    assert tiles.executed_work(dense, tiles.tile(dense, "int8", 1, 1, 3)) == 30


def timed(job, rows, cols, chans, a, b):
    """A tile and its time under t = a * W / c + b * W."""
    t = tiles.tile(job.layer, job.dtype, rows, cols, chans)
    w = tiles.executed_work(job.layer, t)
    return t, a * w / chans + b * w


def test_a_full_channel_tile_scales_by_executed_work():
    job = layer_plan.plan_layer(conv(), "int8", "bytecode", 1 << 20, None)
    t = tiles.tile(job.layer, "int8", 2, 4, 6)
    assert points.project(job, [(t, 0.09)]) == (pytest.approx(0.09 * 2340 / 900), "scaled")


def test_two_channel_counts_fit_the_per_pixel_cost_and_any_tile_pair_gives_the_same_layer_time():
    job = layer_plan.plan_layer(conv(), "int8", "bytecode", 1 << 20, None)
    a, b = 1e-3, 1e-5
    # whole layer: 2340 / 6 = 390 per-channel-free units, 2340 MACs: 0.39 + 0.0234
    want = 0.4134
    for rows in (5, 2):
        pair = [timed(job, rows, 4, 3, a, b), timed(job, rows, 4, 2, a, b)]
        assert points.project(job, pair) == (pytest.approx(want), "fit")
    # linear scaling of the 3-channel tile by its fraction would say 0.4017 * 2 = 0.8034
    assert timed(job, 5, 4, 3, a, b)[1] / 0.5 == pytest.approx(0.8034)


def test_a_lone_channel_cut_tile_is_left_out_of_the_whole_model_totals():
    layer = conv()
    job = layer_plan.plan_layer(layer, "int8", "bytecode", 1 << 20, None)
    cut = tiles.tile(layer, "int8", 5, 4, 3)
    full = tiles.full_tile(layer, "int8")
    ref = lambda t: reference.checksum(reference.reference_output("CONV_2D", "int8", t))
    job = type(job)(layer, "int8", "bytecode", (full, cut), "memory")
    roofs = [
        {
            "kind": "compute",
            "role": "roof",
            "source": "measured",
            "name": "int8 bytecode",
            "emitter": "bytecode",
            "dtype": "int8",
            "macs_per_s": 1e5,
        }
    ]
    lone = points.point(job, [{"cand": 1, "chk": ref(cut), "us": 100000, "ovh": 0, "r": 1}], roofs, [])
    assert lone["verified"] and lone["projection"] == "tile"
    assert lone["seconds"] == pytest.approx(0.1 * 2340 / 1170)
    other = points.point(job, [{"cand": 0, "chk": ref(full), "us": 50000, "ovh": 0, "r": 1}], roofs, [])
    other["index"] = 7
    rows = points.whole_model([lone, other])
    assert rows[0]["tiles_left_out"] == [0] and rows[0]["layers"] == 1
    assert rows[0]["measured_seconds"] == pytest.approx(0.05)


def test_tiles_keep_every_channel_where_one_fits():
    layer = conv()
    one_row = tiles.tile(layer, "int8", 1, 4, 6)
    heap = one_row.heap_bytes(1)
    job = layer_plan.plan_layer(layer, "int8", "bytecode", heap, None)
    # the largest tile with all 6 channels comes before any tile with fewer
    t = job.candidates[0]
    assert (t.rows, t.cols, t.chans) == (1, 4, 6)
    # a heap too small for any 6-channel tile: channels are cut, and each cut candidate has
    # a companion with half its channels and the same rows and columns
    small = layer_plan.plan_layer(layer, "int8", "bytecode", tiles.tile(layer, "int8", 1, 1, 6).heap_bytes(1) - 1, None)
    assert all(t.chans < 6 for t in small.candidates) and small.companions >= 1
    comp = small.tiles[len(small.candidates)]
    first = small.candidates[0]
    assert (comp.rows, comp.cols, comp.chans) == (first.rows, first.cols, -(-first.chans // 2))


# ---------------------------------------------------------------- element types and layer sets


def mem(em, k, ty, nbytes):
    """A memory record that moved nbytes in 1 us (no harness cost): nbytes * 1e6 B/s."""
    return {"em": em, "k": k, "ty": ty, "bytes": nbytes, "us": 1, "ovh": 0, "r": 1}


def test_each_emitter_and_layer_type_gets_its_own_memory_ceiling():
    from mcuroof.analysis import roofs

    got = roofs.memory_roofs(
        [
            mem("c", "copy", "int8", 4000),
            mem("viper", "add", "int32", 3000),
            mem("viper", "copy", "int8", 1000),
            mem("viper", "copy", "int32", 2000),
            mem("viper", "copy", "int16", 2500),
        ]
    )
    by_name = {r["name"]: (r["role"], r["emitter"], r["dtype"], r["bytes_per_s"]) for r in got}
    assert by_name == {
        "memory": ("roof", "c", "int8", 4e9),
        "viper add": ("ceiling", "viper", "int32", 3e9),
        "viper copy int8": ("ceiling", "viper", "int8", 1e9),
    }  # int16: no layer runs it


def test_an_int8_layer_sits_under_its_emitters_int8_ceiling():
    from mcuroof.analysis import roofs

    rs = roofs.memory_roofs(
        [mem("c", "copy", "int8", 4000), mem("viper", "add", "int32", 3000), mem("viper", "copy", "int8", 1000)]
    )
    pool = Layer(
        index=2,
        name="pool",
        op="AVERAGE_POOL_2D",
        dtype="int8",
        inputs=((1, 8, 8, 4),),
        output=(1, 4, 4, 4),
        kernel=(2, 2),
        stride=(2, 2),
        padding="valid",
    )
    job = layer_plan.plan_layer(pool, "int8", "viper", 1 << 20, None)
    chk = reference.checksum(reference.reference_output("AVERAGE_POOL_2D", "int8", job.tiles[0]))
    p = points.point(job, [{"cand": 0, "chk": chk, "us": 1, "ovh": 0, "r": 1}], rs, ["viper"])
    # 256 + 64 bytes in 1 us = 3.2e8 B/s against the viper int8 ceiling of 1e9: headroom 3.125
    assert p["memory_roof"] == "viper copy int8" and p["headroom"] == pytest.approx(1e9 / 3.2e8)


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


def test_whole_model_rows_cover_the_same_layers():
    # asm_thumb lacks layer 9 (pool): it is timed with the fastest emitter that has it (viper
    # over bytecode); layer 4 is a lone tile on asm_thumb, so its time comes from bytecode too
    pts = [
        pt(0, "asm_thumb", 0.25),
        pt(4, "asm_thumb", 9.0, "tile"),
        pt(0, "bytecode", 1.0),
        pt(4, "bytecode", 2.0),
        pt(9, "bytecode", 0.5),
        pt(9, "viper", 0.125),
        pt(0, "viper", 0.5),
        pt(4, "viper", 1.5, "tile"),
    ]
    rows = {r["emitter"]: r for r in points.whole_model(pts)}
    asm = rows["asm_thumb"]
    assert asm["layers"] == 3 and asm["measured_seconds"] == pytest.approx(0.25 + 2.0 + 0.125)
    assert asm["borrowed"] == [{"index": 4, "emitter": "bytecode"}, {"index": 9, "emitter": "viper"}]
    assert asm["tiles_left_out"] == [4] and not asm["partial"]
    assert asm["inferences_per_s"] == pytest.approx(1 / 2.375)
    assert rows["bytecode"]["borrowed"] == [] and rows["bytecode"]["measured_seconds"] == pytest.approx(3.5)
    assert rows["viper"]["measured_seconds"] == pytest.approx(0.5 + 2.0 + 0.125)


def test_a_layer_no_emitter_could_time_makes_every_row_partial():
    pts = [
        pt(0, "asm_thumb", 0.25),
        pt(0, "bytecode", 1.0),
        pt(5, "bytecode", 7.0, "tile"),
        pt(5, "asm_thumb", 0.5, verified=False),
    ]
    rows = points.whole_model(pts)
    assert [(r["emitter"], r["missing"], r["partial"], r["inferences_per_s"]) for r in rows] == [
        ("asm_thumb", [5], True, None),
        ("bytecode", [5], True, None),
    ]
    # layer 5 has a time, a lone tile's: the line says what it lacks, a whole layer's
    from mcuroof.report import layer_tables

    line = layer_tables.layer_set_lines({"whole_model": rows})[0]
    assert line.startswith("whole model asm_thumb int8: PARTIAL, layer(s) 5 have no whole-layer time from any emitter")


# ---------------------------------------------------------------- theoretical figures


def test_cortex_m4f_float32_and_the_h743_heap_memory():
    from mcuroof.analysis import roofs
    from mcuroof.board import profiles as boards

    for name, mhz in (("samd51", 120), ("nrf52840", 64), ("pyboard", 168)):
        th = boards.theoretical_roofs(boards.load_board(name))
        f32 = [r for r in th if r["kind"] == "compute" and r["dtype"] == "float32"]
        # Cortex-M4 TRM Table 7-1: VMUL.F32 + VADD.F32, 1 cycle each (VFMA.F32 3): 0.5 MAC per cycle
        assert f32[0]["macs_per_s"] == pytest.approx(0.5 * mhz * 1e6), name
    th = boards.theoretical_roofs(boards.load_board("stm32h743"))
    measured = {"kind": "memory", "role": "roof", "name": "memory", "source": "measured", "dtype": "int32"}
    measured["bytes_per_s"] = 1e9
    match = roofs.theoretical_match(measured, th)
    # MicroPython's heap is in the AXI SRAM: 8 B per HCLK, HCLK = 400 MHz / 2
    assert match.name == "AXI SRAM" and match.bytes_per_s == pytest.approx(8 * 200e6)


# ---------------------------------------------------------------- memory levels from the hardware

HOST = [
    {"name": "L1d", "bytes": 32 << 10},
    {"name": "L2", "bytes": 1 << 20},
    {"name": "L3", "bytes": 32 << 20},
    {"name": "DRAM", "bytes": None},
]


def test_levels_are_cut_at_the_cache_sizes_and_call_bound_sizes_left_out():
    from mcuroof.analysis import roofs

    # (working set, B/s): 64 B and 1 KiB take 0.1 us per call (the call's own cost), 16 KiB
    # 0.2 us (under 4x the smallest call: call-bound too), then real plateaus
    sweep = [
        (64, 640e6),
        (1024, 10.24e9),
        (16 << 10, 81.92e9),
        (64 << 10, 100e9),
        (512 << 10, 90e9),
        (2 << 20, 60e9),
        (16 << 20, 50e9),
        (32 << 20, 8e9),
        (128 << 20, 7e9),
    ]
    assert roofs.call_bound(sweep) == {64, 1024, 16 << 10}
    levels = roofs.hardware_levels(sweep, HOST)
    assert [(lv["name"], lv["min_ws"], lv["max_ws"], lv["bytes_per_s"]) for lv in levels] == [
        ("L2 (1 MiB)", 64 << 10, 512 << 10, 100e9),
        ("L3 (32 MiB)", 2 << 20, 16 << 20, 60e9),
        ("DRAM", 128 << 20, 128 << 20, 7e9),
    ]  # the 32 MiB set, the L3's size, is on neither side


def test_memory_roofs_named_after_the_caches():
    from mcuroof.analysis import roofs

    recs = [
        {"em": "c", "k": "copy", "ty": "int8", "bytes": ws, "us": round(ws / bw * 1e6 * 1000), "ovh": 0, "r": 1000}
        for ws, bw in [(64, 640e6), (64 << 10, 100e9), (2 << 20, 60e9), (64 << 20, 8e9)]
    ]
    names = [r["name"] for r in roofs.memory_roofs(recs, HOST) if r["role"] == "roof"]
    assert names == ["memory L2 (1 MiB)", "memory L3 (32 MiB)", "memory DRAM"]


def test_sysfs_cache_sizes(tmp_path):
    from mcuroof.board import caches

    for i, (level, kind, size) in enumerate(
        [(1, "Data", "32K"), (1, "Instruction", "32K"), (2, "Unified", "1024K"), (3, "Unified", "32768K")]
    ):
        d = tmp_path / f"index{i}"
        d.mkdir()
        for f, v in (("level", level), ("type", kind), ("size", size)):
            (d / f).write_text(f"{v}\n")
    got = [(c["name"], c["bytes"]) for c in caches.host_caches(tmp_path)]
    assert got == [("L1d", 32768), ("L2", 1 << 20), ("L3", 32 << 20), ("DRAM", None)]
    assert caches.host_caches(tmp_path / "none") == []


def test_the_harness_cost_is_an_empty_call_of_the_same_emitter():

    cfg = {
        "emitters": ["bytecode", "viper", "asm_thumb"],
        "types": ["b"],
        "iters": {"bytecode": 8, "viper": 8, "asm_thumb": 8},
        "unroll": 4,
        "unroll_asm": 4,
    }
    calls = {k.key: k.scripts()[-1].splitlines()[-1] for k in compute.compute_kernels(cfg)}
    assert calls["compute/bytecode/int8"].endswith(",4,8)")  # bytecode: the harness's own _nop
    for em in ("viper", "asm_thumb"):
        k = next(k for k in compute.compute_kernels(cfg) if k.key == f"compute/{em}/int8")
        assert k.scripts()[0] == compute.EMPTY[em] and calls[k.key].endswith(",z=z)")


def test_ceilings_measured_again_between_layers_merge_into_one():
    from mcuroof.analysis import roofs

    def mac(k, us):
        rec = {"t": "mac", "em": "bytecode", "ty": "float32", "macs": 1000, "r": 1, "us": us, "ovh": 0}
        return {**rec, "k": k} if k else rec

    got = {
        (r["name"], r["macs_per_s"])
        for r in roofs.compute_roofs([mac(None, 1000), mac("@3", 500), mac("@7", 800), mac("smlad", 100)])
    }
    # 1000 MACs in 500 us, the best of the three plain measurements: 2e6; an ISA kernel stays apart
    assert got == {("float32 bytecode", 2e6), ("float32 bytecode smlad", 1e7)}
    net = builtins.builtin_network("kws-dscnn")
    jobs, _ = layer_plan.plan(net, ["float32"], ["bytecode"], 1 << 26, None)
    cfg = {
        "jobs": jobs[:2],
        "peaks": {"emitters": ["bytecode"], "types": ["f"], "iters": {"bytecode": 100}, "unroll": 16, "unroll_asm": 16},
    }
    assert [k.key for k in layer_suite.kernels(cfg)] == [
        "layers/bytecode/float32/0",
        "compute/bytecode/float32/@0",
        "layers/bytecode/float32/1",
        "compute/bytecode/float32/@1",
        "compute/bytecode/float32",
    ]


def test_cut_tiles_keep_two_channels_so_a_companion_exists():

    # KWS depthwise 1 in float32 bytecode on the micro:bit (3184 B free, 4000 MACs a call):
    # 25x3x1 (75 outputs) would compute the most, but one channel cannot be halved
    dw = builtins.builtin_network("kws-dscnn").layers[1]
    job = layer_plan.plan_layer(dw, "float32", "bytecode", 3184, 4000)
    assert all(t.chans >= 2 for t in job.candidates) and job.companions == len(job.candidates)


def test_a_column_cut_tile_with_every_channel_fits_a_per_row_cost_from_two_widths():
    layer = conv()  # 5 x 4 output, 6 channels
    job = layer_plan.plan_layer(layer, "int8", "bytecode", tiles.tile(layer, "int8", 1, 2, 6).heap_bytes(1), None)
    first = job.candidates[0]
    assert first.chans == 6 and first.cols < 4 and job.companions >= 1
    comp = job.tiles[len(job.candidates)]
    assert (comp.rows, comp.cols, comp.chans) == (first.rows, -(-first.cols // 2), 6)
    f, b = 2e-3, 1e-5  # a cost per output row whatever its width, a cost per executed MAC

    def run(cols):
        t = tiles.tile(layer, "int8", 1, cols, 6)
        return t, f * t.rows + b * tiles.executed_work(layer, t)

    # whole layer: 5 rows, 2340 executed MACs: 0.01 + 0.0234
    seconds, how = points.project(job, [run(2), run(1)])
    assert (seconds, how) == (pytest.approx(0.0334), "rows")
    assert points.call_share(job, [run(2), run(1)], seconds) == pytest.approx(0.01 / 0.0334)
    # scaling the 2-column tile by executed work would count its per-row cost for every 2 columns
    t, s = run(2)
    assert s * 2340 / tiles.executed_work(layer, t) > 1.3 * seconds
    # a tile with every column and two rows or more has half its rows as companion; one row: none
    assert tiles.companion_shape(layer, tiles.tile(layer, "int8", 2, 4, 6)) == (1, 4, 6)
    assert tiles.companion_shape(layer, tiles.tile(layer, "int8", 1, 4, 6)) is None


def test_whole_rows_are_preferred_and_a_half_row_companion_fits_the_padded_rows_apart():
    layer = conv()  # 5 x 4 output, 6 channels; output row 0 reads 2 input rows (1 padded), rows 1-3 read 3
    # a heap for 2 whole rows (0.4 of the layer) or 3 rows of 2 columns (0.3): whole rows first
    heap = tiles.tile(layer, "int8", 2, 4, 6).heap_bytes(1)
    job = layer_plan.plan_layer(layer, "int8", "bytecode", heap, None)
    first, comp = job.tiles[0], job.tiles[len(job.candidates)]
    assert (first.rows, first.cols, first.chans) == (2, 4, 6) and (comp.rows, comp.cols, comp.chans) == (1, 4, 6)
    f, b = 2e-3, 1e-5  # per output row, per executed MAC

    def run(rows):
        t = tiles.tile(layer, "int8", rows, 4, 6)
        return t, f * rows + b * tiles.executed_work(layer, t)

    # executed MACs: row 0 2 x 10 taps x 3 x 6 = 360, rows 0-1 900, the layer 2340 in 5 rows
    assert [tiles.executed_work(layer, run(n)[0]) for n in (1, 2)] == [360, 900]
    assert points.project(job, [run(2), run(1)]) == (pytest.approx(5 * f + 2340 * b), "rows")
    # scaling the 2-row tile by its executed MACs alone: (0.004 + 0.009) * 2340 / 900 = 0.0338
    assert run(2)[1] * 2340 / 900 == pytest.approx(0.0338)
    # no padded row (MACs in proportion to rows): the pair cannot tell a row's cost apart; scaled
    one = conv(kernel=(1, 1), stride=(1, 1), padding="valid", inputs=((1, 5, 4, 3),), weights=((6, 1, 1, 3), (6,)))
    pw = layer_plan.plan_layer(one, "int8", "bytecode", 1 << 20, None)
    pair = [(tiles.tile(one, "int8", n, 4, 6), 0.01 * n) for n in (2, 1)]
    assert points.project(pw, pair) == (pytest.approx(0.05), "rows")


def test_a_point_whose_rows_are_mostly_call_cost_says_so():
    p = {"projection": "rows", "call_share": 0.4, "headroom": 5.0, "advice": "below its compute roof (5x)"}
    assert points.amortize_note(p)["advice"].startswith("rows too short to amortize the call: 40% ")
    p = {"projection": "fit", "call_share": 0.4, "headroom": 5.0, "advice": "below"}
    assert points.amortize_note(p)["advice"].startswith("tile too small to amortize the call: 40% ")
    p = {"projection": "rows", "call_share": 0.1, "headroom": 5.0, "advice": "below"}
    assert points.amortize_note(p)["advice"] == "below"  # 4.5 without the calls: not the reason


def test_a_single_column_tile_with_every_channel_fits_its_per_pixel_cost_from_half_its_channels():
    layer = conv()  # 5 x 4 output, 6 channels
    one = tiles.tile(layer, "int8", 1, 1, 6)
    assert tiles.companion_shape(layer, one) == (1, 1, 3)
    job = layer_plan.plan_layer(layer, "int8", "bytecode", 1 << 20, None)
    a, b = 1e-3, 1e-5
    seconds, how = points.project(job, [timed(job, 1, 1, 6, a, b), timed(job, 1, 1, 3, a, b)])
    assert (seconds, how) == (pytest.approx(0.4134), "fit")  # as from any tile pair (above)


def test_layers_without_a_kernel_say_why():
    assert tiles.unsupported(conv()) is None
    assert tiles.unsupported(conv(op="SOFTMAX")) == "no SOFTMAX kernel"
    dw = conv(op="DEPTHWISE_CONV_2D", output=(1, 5, 4, 6), weights=((1, 3, 3, 6), (6,)))
    assert tiles.unsupported(dw) is None and tiles.unsupported(replace(dw, depth_multiplier=1)) is None
    assert tiles.unsupported(replace(dw, depth_multiplier=2)) == "depth multiplier other than 1"
    add = conv(op="ADD", inputs=((1, 5, 4, 6), (1, 5, 4, 6)), output=(1, 5, 4, 6), weights=(), kernel=None)
    assert tiles.unsupported(add) is None
    assert tiles.unsupported(replace(add, inputs=((1, 5, 4, 6), (1, 1, 1, 6)))) == "broadcasting ADD"
    assert tiles.unsupported(replace(add, inputs=((1, 5, 4, 6),))) == "broadcasting ADD"
    assert tiles.unsupported(conv(inputs=((1, 63, 3),))) == "input or output is not NHWC"
    assert tiles.unsupported(conv(output=(1, 20, 6))) == "input or output is not NHWC"
    assert tiles.unsupported(conv(kernel=None)) == "input or output is not NHWC"


def test_a_python_kernel_returns_at_once_on_no_input_so_its_own_call_is_timed_apart():
    from mcuroof.analysis import roofs
    from mcuroof.kernels.ops import dispatch

    src, g = dispatch.guarded("def rq(P):\n pass\n#--\ndef k(X,W,O,P):\n H=P[0]\n")
    assert (src, g) == ("def rq(P):\n pass\n#--\ndef k(X,W,O,P):\n if X is None:return\n H=P[0]\n", 1)
    for dec in ("@micropython.viper\n", "@micropython.native\n", "@micropython.asm_thumb\n"):
        assert dispatch.guarded(dec + "def k(X,W,O,P):\n pass\n") == (dec + "def k(X,W,O,P):\n pass\n", 0)
    job = layer_plan.plan_layer(conv(), "int8", "bytecode", 1 << 20, None)
    call = [line for line in dispatch.listing(job).splitlines() if line.startswith("_j=")]
    assert call[0].endswith("]],0,1)")  # g=1: firmware/layers.py times k(None)
    assert dispatch.listing(job).splitlines()[-1].endswith("[_j],1)")  # and the companion's
    viper = layer_plan.plan_layer(conv(), "int8", "viper", 1 << 20, None)
    assert [line for line in dispatch.listing(viper).splitlines() if line.startswith("_j=")][0].endswith("]],0,0)")
    # 10 calls: 1000 us; the harness's loop and empty call 100 us; k's own empty call 300 us
    rec = {"us": 1000, "ovh": 100, "call": 300, "r": 10}
    assert roofs.seconds(rec) == pytest.approx(70e-6) and roofs.call_seconds(rec) == pytest.approx(20e-6)
    assert roofs.seconds({"us": 1000, "ovh": 100, "r": 10}) == pytest.approx(90e-6)
    assert roofs.call_seconds({"us": 1000, "ovh": 100, "r": 10}) is None


def test_a_projection_carries_the_spread_of_its_kind_of_tile_and_the_timers_tick():
    from mcuroof.analysis import tile_error

    layer = conv()  # 5 x 4 output, 6 channels
    job = layer_plan.plan_layer(layer, "int8", "bytecode", 1 << 20, None)
    t = lambda r, c, ch: tiles.tile(layer, "int8", r, c, ch)  # noqa: E731
    assert tile_error.kind(job, [(t(5, 4, 6), 1.0)]) == "whole"
    assert tile_error.kind(job, [(t(2, 4, 6), 1.0), (t(1, 4, 6), 0.5)]) == "row pair"
    assert tile_error.kind(job, [(t(2, 2, 6), 1.0), (t(2, 1, 6), 0.5)]) == "column pair"
    assert tile_error.kind(job, [(t(1, 4, 6), 1.0)]) == "scaled"
    assert tile_error.kind(job, [(t(1, 1, 6), 1.0), (t(1, 1, 3), 0.5)]) == "pixel channel pair"
    assert tile_error.kind(job, [(t(1, 1, 3), 1.0)]) is None  # a lone cut tile: left out of totals
    assert tile_error.kind(job, [(t(5, 4, 4), 1.0), (t(5, 4, 2), 0.5)]) == "channel pair"  # every pixel
    assert tile_error.kind(job, [(t(2, 4, 4), 1.0), (t(2, 4, 2), 0.5)]) == "row channel pair"
    one = conv(
        kernel=(1, 1), stride=(1, 1), padding="valid", inputs=((1, 5, 4, 3),), weights=((6, 1, 1, 3), (6,)), macc=360
    )
    pw = layer_plan.plan_layer(one, "int8", "bytecode", 1 << 20, None)
    cut = [(tiles.tile(one, "int8", 1, 1, c), 1.0) for c in (6, 3)]
    assert tile_error.kind(pw, cut) == "pixel channel pair, no padding"
    # a tick of 23 us over 10 calls: each call's time within 2 x 2.3 us; a projection that adds
    # the two tiles' times moves by both
    assert tile_error.tick_seconds({"r": 10}, 23) == pytest.approx(4.6e-6)
    add = lambda job, timed: (sum(s for _, s in timed), "x")  # noqa: E731
    lo, hi = tile_error.tick_interval(add, job, [(t(2, 4, 6), 0.01), (t(1, 4, 6), 0.004)], [4.6e-6, 1e-6])
    assert (lo, hi) == (pytest.approx(0.014 - 5.6e-6), pytest.approx(0.014 + 5.6e-6))
    # projected = whole x (1 + spread): a row pair's -4.5 % .. +1 % puts the whole at 0.014 / 1.01 .. 0.014 / 0.955
    assert tile_error.spread("row pair", "native") == (-0.045, 0.01)  # not measured: the widest
    assert tile_error.interval((0.014, 0.014), tile_error.spread("row pair", "asm_thumb")) == (
        pytest.approx(0.014 / 1.01),
        pytest.approx(0.014 / 0.955),
    )
    # on a point: the row pair's interval, and the whole model's sum of them
    ref = lambda tl: reference.checksum(reference.reference_output("CONV_2D", "int8", tl))  # noqa: E731
    pair = layer_plan.shaped(layer, "int8", "bytecode", 2, 4, 6)
    recs = [
        {"cand": 0, "chk": ref(pair.tiles[0]), "us": 13000, "ovh": 0, "r": 1},
        {"cand": 1, "chk": ref(pair.tiles[1]), "us": 5600, "ovh": 0, "r": 1},
    ]
    p = points.point(replace(pair, emitter="native"), recs, [], [], tick_us=None)
    assert p["tile_kind"] == "row pair" and p["projection"] == "rows"
    assert p["seconds_interval"] == [pytest.approx(p["seconds"] / 1.01), pytest.approx(p["seconds"] / 0.955)]
    assert points.whole_model([p])[0]["measured_interval"] == p["seconds_interval"]
