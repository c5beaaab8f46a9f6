"""Every accounting rule against expected values worked out here by hand, never taken from the
code under test: STREAM bytes (host table and the firmware's count on the real unix port), MAC
counts, MACC and bytes of every op kind, OI, tile projection, headroom, the above-roof rule, the
timed_well filter and the whole-model sums. tools/mutations.toml lists the one-line bugs these
tests must catch (`make mutate`)."""

from __future__ import annotations

import dataclasses

import pytest

from factories import OP, T, build_tflite, point, run_result
from mcuroof.analysis import compare, points, roofs
from mcuroof.kernels import compute, contract, memory
from mcuroof.kernels.listing import sent
from mcuroof.kernels.ops import contract as ops_contract
from mcuroof.kernels.ops import layer_plan, reference, tiles
from mcuroof.model import builtins, network, tflite
from mcuroof.model.network import Layer

# ---------------------------------------------------------------- STREAM bytes

# arrays each kernel touches per element (STREAM's counting): copy B=A and scale B=3A read one
# array and write one; add C=A+B and triad C=A+3B read two and write one
ARRAYS = {"copy": 2, "scale": 2, "add": 3, "triad": 3}
ELEMENT_BYTES = {"int8": 1, "int16": 2, "int32": 4, "float32": 4}


def test_stream_table_counts_the_arrays_each_kernel_touches():
    table = {name: (na, stmt, dst, f) for name, na, stmt, dst, f in memory.STREAM}
    assert {name: na for name, (na, *_) in table.items()} == ARRAYS
    # the output factor: copy 1x, scale 3x, add A+B = 2x, triad A+3B = 4x (A and B hold the same values)
    assert {name: f for name, (_, _, _, f) in table.items()} == {"copy": 1, "scale": 3, "add": 2, "triad": 4}
    assert {name: dst for name, (_, _, dst, _) in table.items()} == {"copy": 1, "scale": 1, "add": 2, "triad": 2}


def test_every_rendered_sweep_call_passes_the_hand_array_count():
    cfg = {"emitters": ["bytecode", "viper", "asm_thumb", "c"], "types": ["b", "h", "i", "f"], "max_ws": {}}
    seen = set()
    for k in memory.memory_kernels(cfg):
        _, em, ty, name = k.key.split("/")
        call = k.source.splitlines()[-1]
        args = call[call.index("(") + 1 : -1].split(",")
        assert args[1:4] == [f"'{name}'", f"'{em}'", f"'{ty}'"]
        assert int(args[5]) == ARRAYS.get(name, 2), k.key  # copy4: a copy, 2 arrays
        seen.add((name, ty))
    assert {(n, t) for n in ARRAYS for t in ELEMENT_BYTES} <= seen


# copy4 copies its buffers in passes until 2048 elements are copied: 128 passes of 16 elements,
# 16 of 128, one of 2048 or 4096 (never fewer than one); other kernels make one pass
@pytest.mark.parametrize("n,want", [(16, 128), (128, 16), (1000, 3), (2048, 1), (4096, 1)])
def test_copy4_passes_by_hand(n, want):
    assert contract.passes({"k": "copy4x", "em": "asm_thumb", "n": n}) == want
    assert contract.passes({"k": "copy", "em": "asm_thumb", "n": n}) == 1


def test_copy4_of_older_raw_logs_made_one_pass():
    """Raw logs written before copy4x hold "copy4" records: one pass per call."""
    assert contract.passes({"k": "copy4", "em": "asm_thumb", "n": 16}) == 1


def test_copy4_bandwidth_counts_every_pass_by_hand():
    # n=128 int32, 2 arrays: 1024 bytes per pass, 16 passes; 50 calls in 24000 us of which
    # 4000 us were the harness: 16384 bytes per call / 400 us = 40.96e6 bytes/s
    rec = {
        "t": "mem",
        "k": "copy4x",
        "em": "asm_thumb",
        "ty": "int32",
        "n": 128,
        "bytes": 1024,
        "r": 50,
        "us": 24000,
        "ovh": 4000,
    }
    assert roofs.bandwidth(rec) == pytest.approx(40.96e6)
    assert roofs.series([rec])[("asm_thumb", "copy4x", "int32")][0][0] == 1024  # the working set


def test_copy4_source_copies_the_elements_the_host_counts():
    src = sent(memory.ASM_COPY4)  # what the board runs, without the listing's comments
    assert " mov(r4,128)\n" in src and src.count(" add(r4,r4,r4)\n") == 4  # 128 x 2^4 = 2048
    assert contract.COPY4_ELEMENTS == 2048
    assert src.count(",[r0,") == 4 and src.count(",[r1,") == 4  # 4 words read from A, 4 written to B


# ---------------------------------------------------------------- MAC counts of the compute kernels


def test_asm_compute_kernel_does_unroll_multiplies():
    cfg = {
        "emitters": ["asm_thumb"],
        "types": ["b", "h", "i"],
        "iters": {"asm_thumb": 10},
        "unroll": 3,
        "unroll_asm": 6,
    }
    for k in compute.compute_kernels(cfg):
        assert k.source.count("mul(r4,r5)") == 6 and ",6,10" in k.source, k.key
        # 4 instructions per MAC for every type: the layers' signed LDRSB costs what LDRB does
        assert k.source.count("asr(") == 0 and k.source.count("(r4,[r0,") == 6, k.key


# ---------------------------------------------------------------- MACC and bytes per op kind


def lay(op, inputs, output, weights=(), **kw):
    return Layer(
        index=kw.pop("index", 0),
        name=kw.pop("name", op.lower()),
        op=op,
        dtype="int8",
        inputs=inputs,
        output=output,
        weights=weights,
        **kw,
    )


CASES = {
    # conv: 9x7x3 -> 5x4x6 (3x3, stride 2, same); 6 filters of 3x3x3 + 6 biases
    "conv": (lay("CONV_2D", ((1, 9, 7, 3),), (1, 5, 4, 6), ((6, 3, 3, 3), (6,))), 5 * 4 * 6 * 27, 189 + 120 + 162, 6),
    # depthwise 3x5 (non-square), stride (2, 1), valid: 11x9x4 -> 5x5x4, filter 1x3x5x4
    "depthwise-3x5": (
        lay("DEPTHWISE_CONV_2D", ((1, 11, 9, 4),), (1, 5, 5, 4), ((1, 3, 5, 4), (4,))),
        5 * 5 * 4 * 15,
        396 + 100 + 60,
        4,
    ),
    # dense 256 -> 10: weights 10x256
    "dense": (lay("FULLY_CONNECTED", ((1, 256),), (1, 10), ((10, 256), (10,))), 2560, 256 + 10 + 2560, 10),
    # pools 8x8x4 -> 4x4x4 (2x2, stride 2): no MACC, input and output only
    "average-pool": (lay("AVERAGE_POOL_2D", ((1, 8, 8, 4),), (1, 4, 4, 4)), 0, 256 + 64, 0),
    "max-pool": (lay("MAX_POOL_2D", ((1, 8, 8, 4),), (1, 4, 4, 4)), 0, 256 + 64, 0),
    # ADD reads both inputs
    "add": (lay("ADD", ((1, 8, 8, 4), (1, 8, 8, 4)), (1, 8, 8, 4)), 0, 3 * 256, 0),
}


@pytest.mark.parametrize("case", list(CASES))
def test_macc_by_hand(case):
    layer, macc, _, _ = CASES[case]
    assert network.layer_macc(layer.op, [*layer.inputs, *layer.weights], layer.output) == macc


@pytest.mark.parametrize("case", list(CASES))
def test_layer_bytes_by_hand(case):
    """int8: every element one byte, biases int32; float32: four bytes each."""
    layer, _, elements, nbias = CASES[case]
    assert points.layer_bytes(layer, "int8") == elements + 4 * nbias
    assert points.layer_bytes(layer, "float32") == 4 * elements + 4 * nbias


def test_builtin_description_of_every_op_kind(monkeypatch):
    """The built-in path (Spec -> Layer): shapes, MACC, weight and activation bytes."""
    S = builtins.Spec
    specs = [
        S("CONV_2D", (9, 9, 6), (3, 3), 1, "RELU", "conv"),  # 9x9x2 in
        S("DEPTHWISE_CONV_2D", (4, 5, 6), (3, 5), (2, 1), "RELU", "dw", pad="valid"),
        S("MAX_POOL_2D", (2, 2, 6), (2, 2), 2, pad="valid", name="maxpool"),
        S("AVERAGE_POOL_2D", (2, 2, 6), (1, 1), 1, pad="valid", name="avgpool"),
        S("ADD", (2, 2, 6), name="add", src=("maxpool", "avgpool")),
        S("RESHAPE", (24,), name="flat"),
        S("FULLY_CONNECTED", (5,), name="fc"),
    ]
    monkeypatch.setitem(builtins.BUILTINS, "hand", ((9, 9, 2), specs, ""))
    net = builtins.builtin_network("hand")
    got = {l.name: (l.output, l.macc, l.weight_bytes, l.act_bytes) for l in net.layers}
    assert got == {
        # 9x9x2 -> 9x9x6 (same): 6 filters of 3x3x2 (int8) + 6 int32 biases
        "conv": ((1, 9, 9, 6), 81 * 6 * 18, 108 + 24, 162 + 486),
        # valid 3x5, stride (2, 1): rows ceil((9-3+1)/2) = 4, columns 9-5+1 = 5; 15 taps per output
        "dw": ((1, 4, 5, 6), 120 * 15, 90 + 24, 486 + 120),
        "maxpool": ((1, 2, 2, 6), 0, 0, 120 + 24),
        "avgpool": ((1, 2, 2, 6), 0, 0, 24 + 24),
        "add": ((1, 2, 2, 6), 0, 0, 3 * 24),
        "flat": ((1, 24), 0, 0, 48),
        "fc": ((1, 5), 5 * 24, 120 + 20, 24 + 5),
    }
    assert net.layers[1].weights == ((1, 3, 5, 6), (6,)) and net.layers[1].kernel == (3, 5)
    assert network.totals(net)["macc"] == 8748 + 1800 + 120


# ---------------------------------------------------------------- tiles, points and the roofline rules

CONV = Layer(
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
    macc=3240,
)
CONV_BYTES = {"int8": 189 + 120 + 162 + 24, "float32": 4 * (189 + 120 + 162) + 24}  # 495, 1908
POOL = Layer(
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
POOL_BYTES = 256 + 64


def test_tile_fractions_by_hand():
    assert tiles.tile(CONV, "int8", 2, 4, 6).fraction == pytest.approx(2 * 4 * 6 / (5 * 4 * 6))
    assert tiles.tile(CONV, "int8", 5, 2, 3).fraction == pytest.approx(5 * 2 * 3 / 120)
    dense = CASES["dense"][0]
    assert tiles.tile(dense, "int8", 1, 1, 5).fraction == pytest.approx(5 / 10)
    add = CASES["add"][0]
    assert tiles.tile(add, "int8", 64, 1, 1).fraction == pytest.approx(64 / 256)


def job_of(layer, dtype="int8", emitter="bytecode", shapes=None):
    rows, cols, chans = layer.output[1:]
    shapes = shapes or [(rows, cols, chans)]
    return ops_contract.Job(layer, dtype, emitter, tuple(tiles.tile(layer, dtype, *t) for t in shapes), "")


def rec_for(job, cand=0, us=100000, ovh=0, r=1, wrong=False):
    chk = reference.checksum(reference.reference_output(job.layer.op, job.dtype, job.tiles[cand]))
    return {"cand": cand, "chk": chk + (1 if wrong else 0), "us": us, "ovh": ovh, "r": r, "heap": 500}


def roofline(mem_bw=1e6, macs=1e5, emitter="bytecode", dtype="int8", extra=()):
    return [
        {"kind": "memory", "role": "roof", "source": "measured", "name": "memory", "emitter": "c", "bytes_per_s": 1e9},
        {
            "kind": "memory",
            "role": "ceiling",
            "source": "measured",
            "name": f"{emitter} copy",
            "emitter": emitter,
            "bytes_per_s": mem_bw,
        },
        {
            "kind": "compute",
            "role": "roof",
            "source": "measured",
            "name": f"{dtype} {emitter}",
            "emitter": emitter,
            "dtype": dtype,
            "macs_per_s": macs,
        },
        *extra,
    ]


def test_point_oi_and_rates_by_hand():
    # points are placed by executed MACs: padded taps skipped, 13 x 10 taps x 3 x 6 = 2340
    p = points.point(job_of(CONV), [rec_for(job_of(CONV))], roofline(), ["bytecode"])
    assert (p["macc"], p["macc_executed"], p["bytes"]) == (3240, 2340, 495)
    assert p["oi"] == pytest.approx(2340 / 495)
    assert p["seconds"] == pytest.approx(0.1)
    assert p["macs_per_s"] == pytest.approx(23400) and p["bytes_per_s"] == pytest.approx(4950)
    f32 = points.point(job_of(CONV, "float32"), [rec_for(job_of(CONV, "float32"))], roofline(dtype="float32"), [])
    assert f32["bytes"] == 1908 and f32["oi"] == pytest.approx(2340 / 1908)


@pytest.mark.parametrize(
    "us, ovh, r, call_s", [(100000, 0, 1, 0.1), (400000, 0, 4, 0.1), (150000, 50000, 1, 0.1), (30000, 10000, 2, 0.01)]
)
def test_tile_time_projected_to_the_whole_layer(us, ovh, r, call_s):
    """One call of a tile computing 2 of 5 output rows (fraction 0.4), all channels, takes
    call_s. It executes (2 + 3) x 10 taps x 18 = 900 of the layer's 2340 MACs (the first rows
    hold the padding): the whole layer takes call_s x 2340 / 900."""
    job = job_of(CONV, shapes=[(5, 4, 6), (2, 4, 6)])
    p = points.point(job, [rec_for(job, cand=1, us=us, ovh=ovh, r=r)], roofline(), ["bytecode"])
    assert p["verified"] and p["tile_fraction"] == pytest.approx(0.4) and p["projection"] == "scaled"
    assert p["seconds"] == pytest.approx(call_s * 2.6)
    assert p["macs_per_s"] == pytest.approx(900 / call_s)
    assert p["bytes_per_s"] == pytest.approx(495 / 2.6 / call_s)


def test_headroom_compute_bound_by_hand():
    # 0.1 s: 23,400 executed MAC/s. Roofs: memory 1e6 B/s x OI 4.727 = 4.7e6 MAC/s, compute 8e4
    p = points.point(job_of(CONV), [rec_for(job_of(CONV))], roofline(1e6, 8e4), ["bytecode"])
    assert p["bound"] == "compute" and p["roof_macs_per_s"] == pytest.approx(8e4)
    assert p["headroom"] == pytest.approx(8e4 / 23400)  # 3.42: below 4, at the ceiling
    assert p["memory_share"] == pytest.approx(4950 / 1e6)
    assert not p["above_roof"]


def test_headroom_memory_bound_by_hand():
    # memory 2e4 B/s x 2340/495 = 94,545 MAC/s under a compute ceiling of 1e6: memory-bound
    p = points.point(job_of(CONV), [rec_for(job_of(CONV))], roofline(2e4, 1e6), ["bytecode"])
    assert p["bound"] == "memory" and p["roof_macs_per_s"] == pytest.approx(2e4 * 2340 / 495)
    assert p["headroom"] == pytest.approx(2e4 * 2340 / 495 / 23400)


def test_the_emitters_own_memory_ceiling_is_its_roof():
    # the run's top memory roof is 1e9 B/s (emitter c); bytecode's own ceiling 2e4 is used
    p = points.point(job_of(CONV), [rec_for(job_of(CONV))], roofline(2e4, 1e9), ["bytecode"])
    assert p["memory_roof"] == "bytecode copy" and p["roof_macs_per_s"] == pytest.approx(2e4 * 2340 / 495)


def test_mac_free_point_headroom_is_memory_roof_over_its_rate():
    job = job_of(POOL)
    p = points.point(job, [rec_for(job, us=20000)], roofline(4e4, 1e5), ["bytecode"])  # 320 B in 0.02 s
    assert p["bytes"] == POOL_BYTES and p["macc"] == 0 and p["oi"] == 0
    assert p["bytes_per_s"] == pytest.approx(16000) and p["memory_share"] == pytest.approx(0.4)
    assert p["headroom"] == pytest.approx(2.5) and p["advice_kind"] == "nomac"


@pytest.mark.parametrize(
    "headroom, above", [(2.0, False), (1.0, False), (0.96, False), (0.94, True), (0.5, True), (0.05, True)]
)
def test_above_roof_rule(headroom, above):
    """Above its roof when the roof is below the measured rate by more than 5 % noise:
    headroom x 1.05 < 1, i.e. headroom < 0.952. The compute roof is 2340 MAC/s (the executed
    MACs of CONV), so a call of `headroom` seconds has exactly that headroom."""
    job = job_of(CONV)
    p = points.point(job, [rec_for(job, us=round(headroom * 1e6))], roofline(1e9, 2340), ["bytecode"])
    assert p["headroom"] == pytest.approx(headroom)
    assert p["above_roof"] is above
    assert (p["advice_kind"] == "above") is above


# ---------------------------------------------------------------- timed_well and the whole model


def mem_rec(us, ovh, n=16):
    # the firmware's pattern a[i] = i % 7 + 1: a[0] + a[8] + a[15] = 1 + 2 + 2
    return {
        "t": "mem",
        "k": "copy",
        "em": "bytecode",
        "ty": "int8",
        "n": n,
        "bytes": 2 * n,
        "r": 1,
        "us": us,
        "ovh": ovh,
        "chk": 5,
        "f": 1,
    }


def mac_rec(us, ovh):
    return {
        "t": "mac",
        "em": "bytecode",
        "ty": "int8",
        "macs": 32,
        "u": 4,
        "n": 8,
        "r": 1,
        "us": us,
        "ovh": ovh,
        "chk": 80,
    }


def test_records_dominated_by_the_harness_are_left_out():
    """The kernel must take at least 20 % of the timed window (us - ovh >= 0.2 us)."""
    recs = [
        mem_rec(100, 0),
        mem_rec(100, 80),
        mem_rec(100, 81),
        mem_rec(1000, 950),
        {**mem_rec(100, 0), "chk": 6},
        mac_rec(100, 10),
        mac_rec(100, 80),
        mac_rec(100, 90),
        {**mac_rec(100, 0), "chk": 81},
    ]
    mem, mac, bad = roofs.split(recs)
    assert [(r["us"], r["ovh"]) for r in mem] == [(100, 0), (100, 80)]
    assert [(r["us"], r["ovh"]) for r in mac] == [(100, 10), (100, 80)]
    assert [r["chk"] for r in bad] == [6, 81]
    # a region read of 64 pattern bytes, timed well and not
    reg = {
        "t": "reg",
        "rg": "SRAM",
        "em": "viper",
        "ws": 64,
        "pat": True,
        "r": 1,
        "chk": sum((i % 7 + 1) << 8 * (i % 4) for i in range(64)) & 0xFFFFFFFF,
        "bytes": 64,
    }
    ok, bad = roofs.region_split([{**reg, "us": 100, "ovh": 50}, {**reg, "us": 100, "ovh": 90}])
    assert [r["ovh"] for r in ok] == [50] and bad == []


def test_bandwidth_and_mac_rate_subtract_the_harness():
    assert roofs.bandwidth({**mem_rec(300, 100), "r": 2}) == pytest.approx(32 / 100e-6)
    assert roofs.mac_rate({**mac_rec(300, 100), "r": 4}) == pytest.approx(32 / 50e-6)


def test_whole_model_sums_verified_points_by_hand():
    roofs_ = roofline(1e4, 2e4) + [
        {
            "kind": "compute",
            "role": "ceiling",
            "source": "measured",
            "name": "float32 bytecode",
            "emitter": "bytecode",
            "dtype": "float32",
            "macs_per_s": 1e4,
        }
    ]
    conv, pool = job_of(CONV), job_of(POOL)
    bad = job_of(dataclasses.replace(CONV, index=1, name="conv1"))
    f32 = job_of(CONV, "float32")
    pts = [
        points.point(conv, [rec_for(conv, us=250000)], roofs_, []),  # 0.25 s, compute-bound 2340/2e4
        points.point(bad, [rec_for(bad, us=900000, wrong=True)], roofs_, []),  # not verified: left out
        points.point(pool, [rec_for(pool, us=100000)], roofs_, []),  # 0.1 s, 320 B at 1e4 B/s
        points.point(f32, [rec_for(f32, us=500000)], roofs_, []),
    ]  # 0.5 s, 2340 / 1e4
    assert [p["verified"] for p in pts] == [True, False, True, True]
    rows = {(r["dtype"], r["emitter"]): r for r in points.whole_model(pts)}
    assert set(rows) == {("int8", "bytecode"), ("float32", "bytecode")}
    i8 = rows["int8", "bytecode"]
    assert (i8["layers"], i8["macc"]) == (2, 3240)
    assert i8["predicted_seconds"] == pytest.approx(2340 / 2e4 + 320 / 1e4)
    assert i8["measured_seconds"] == pytest.approx(0.25 + 0.1)
    assert i8["inferences_per_s"] == pytest.approx(1 / 0.35)
    assert i8["measured_over_predicted"] == pytest.approx(0.35 / 0.149)
    f = rows["float32", "bytecode"]
    assert (f["layers"], f["predicted_seconds"], f["measured_seconds"]) == (1, pytest.approx(0.234), pytest.approx(0.5))


# ---------------------------------------------------------------- the same from a .tflite file


def _dw_opts(b):
    import tflite

    tflite.DepthwiseConv2DOptionsStart(b)
    tflite.DepthwiseConv2DOptionsAddPadding(b, tflite.Padding.VALID)
    tflite.DepthwiseConv2DOptionsAddStrideW(b, 1)
    tflite.DepthwiseConv2DOptionsAddStrideH(b, 2)
    tflite.DepthwiseConv2DOptionsAddDepthMultiplier(b, 1)
    return tflite.BuiltinOptions.DepthwiseConv2DOptions, tflite.DepthwiseConv2DOptionsEnd(b)


def _pool_opts(b):
    import tflite

    tflite.Pool2DOptionsStart(b)
    tflite.Pool2DOptionsAddPadding(b, tflite.Padding.VALID)
    tflite.Pool2DOptionsAddStrideW(b, 2)
    tflite.Pool2DOptionsAddStrideH(b, 1)
    tflite.Pool2DOptionsAddFilterWidth(b, 3)
    tflite.Pool2DOptionsAddFilterHeight(b, 2)
    return tflite.BuiltinOptions.Pool2DOptions, tflite.Pool2DOptionsEnd(b)


def test_tflite_depthwise_3x5_pools_and_add_by_hand(tmp_path):

    tensors = [
        ((1, 11, 9, 4), T.INT8, False),  # 0 input              396 B
        ((1, 3, 5, 4), T.INT8, True),  # 1 depthwise filter    60 B
        ((4,), T.INT32, True),  # 2 bias                16 B
        ((1, 5, 5, 4), T.INT8, False),  # 3 valid 3x5, stride (2, 1): 5x5x4
        ((1, 4, 2, 4), T.INT8, False),  # 4 max pool 2x3, stride (1, 2): rows 5-2+1, cols ceil(3/2)
        ((1, 4, 2, 4), T.INT8, False),  # 5 average pool, the same
        ((1, 4, 2, 4), T.INT8, False),
    ]  # 6 ADD of 4 and 5
    ops = [
        (OP.DEPTHWISE_CONV_2D, [0, 1, 2], [3], _dw_opts),
        (OP.MAX_POOL_2D, [3], [4], _pool_opts),
        (OP.AVERAGE_POOL_2D, [3], [5], _pool_opts),
        (OP.ADD, [4, 5], [6], None),
    ]
    path = tmp_path / "hand.tflite"
    path.write_bytes(build_tflite(tensors, ops, [0], [6]))
    dw, mx, avg, add = tflite.read_tflite(path).layers
    assert (dw.kernel, dw.stride, dw.padding, dw.macc) == ((3, 5), (2, 1), "valid", 5 * 5 * 4 * 15)
    assert (dw.weight_bytes, dw.act_bytes) == (60 + 16, 396 + 100)
    for pool in (mx, avg):
        assert (pool.kernel, pool.stride, pool.macc, pool.act_bytes) == ((2, 3), (1, 2), 0, 100 + 32)
    assert (add.inputs, add.macc, add.act_bytes) == (((1, 4, 2, 4),) * 2, 0, 3 * 32)
    assert [points.layer_bytes(l, "int8") for l in (dw, mx, avg, add)] == [396 + 100 + 60 + 16, 132, 132, 96]


# ---------------------------------------------------------------- executed MACs: a second implementation


def brute_executed(layer, t):
    """MACs a tile executes, by walking every output position and tap: taps that fall on padding
    are skipped. Written apart from layers.executed_work."""
    H, V, C, OH, OW, OC, KH, KW, SH, SW, PT, PL = t.params[:12]
    inside = sum(
        1
        for oy in range(OH)
        for ox in range(OW)
        for ky in range(KH)
        for kx in range(KW)
        if 0 <= oy * SH - PT + ky < H and 0 <= ox * SW - PL + kx < V
    )
    return inside * OC * (C if layer.op == "CONV_2D" else 1)


def spatial(op, h, w, c, oc, k, s, pad):
    out_h = -(-h // s[0]) if pad == "same" else -(-(h - k[0] + 1) // s[0])
    out_w = -(-w // s[1]) if pad == "same" else -(-(w - k[1] + 1) // s[1])
    weights = {"CONV_2D": ((oc, *k, c), (oc,)), "DEPTHWISE_CONV_2D": ((1, *k, c), (c,))}.get(op, ())
    out_c = oc if op == "CONV_2D" else c
    return Layer(
        index=0,
        name="l",
        op=op,
        dtype="int8",
        inputs=((1, h, w, c),),
        output=(1, out_h, out_w, out_c),
        weights=weights,
        kernel=k,
        stride=s,
        padding=pad,
        activation="NONE",
        depth_multiplier=1,
    )


GEOMETRIES = [
    ("CONV_2D", 9, 7, 3, 6, (3, 3), (2, 2), "same"),
    ("CONV_2D", 49, 10, 1, 4, (10, 4), (2, 2), "same"),
    ("DEPTHWISE_CONV_2D", 11, 9, 4, 4, (3, 5), (2, 1), "same"),
    ("DEPTHWISE_CONV_2D", 11, 9, 4, 4, (3, 5), (2, 1), "valid"),
    ("DEPTHWISE_CONV_2D", 8, 12, 2, 2, (5, 3), (1, 3), "same"),
    ("CONV_2D", 6, 6, 2, 3, (1, 1), (2, 2), "same"),
    ("MAX_POOL_2D", 8, 9, 3, 3, (2, 3), (2, 2), "same"),
    ("AVERAGE_POOL_2D", 7, 7, 2, 2, (3, 3), (2, 2), "valid"),
]


@pytest.mark.parametrize(
    "g", GEOMETRIES, ids=lambda g: f"{g[0]}-{g[1]}x{g[2]}-k{g[5][0]}x{g[5][1]}-s{g[6][0]}{g[6][1]}-{g[7]}"
)
def test_executed_work_equals_a_brute_force_count(g):
    layer = spatial(*g)
    _, oh, ow, oc = layer.output
    for rows, cols, chans in {(oh, ow, oc), (1, ow, oc), (-(-oh // 2), -(-ow // 2), oc), (oh, 1, -(-oc // 2))}:
        t = tiles.tile(layer, "int8", rows, cols, chans)
        assert tiles.executed_work(layer, t) == brute_executed(layer, t), (rows, cols, chans)
    if layer.op in ("CONV_2D", "DEPTHWISE_CONV_2D") and layer.padding == "valid":  # no padding: nominal MACC
        full = tiles.full_tile(layer, "int8")
        macc = network.layer_macc(layer.op, [layer.inputs[0], *layer.weights], layer.output)
        assert tiles.executed_work(layer, full) == macc


def test_fit_recovers_the_layer_time_of_a_known_cost_model():
    """Tile times made by a known model (a per-pixel cost paid once for all channels plus a
    per-MAC cost, each MAC counted by brute force): the fitted layer time is that model's."""
    layer = spatial("CONV_2D", 9, 7, 3, 6, (3, 3), (2, 2), "same")
    job = layer_plan.plan_layer(layer, "int8", "bytecode", 1 << 20, None)
    full = tiles.full_tile(layer, "int8")
    pixel_s, mac_s = 2e-3, 3e-6

    def cost(t):
        return pixel_s * brute_executed(layer, t) / t.chans + mac_s * brute_executed(layer, t)

    want = cost(full)
    for rows, cols in [(5, 4), (2, 4), (1, 2)]:
        t3, t2 = tiles.tile(layer, "int8", rows, cols, 3), tiles.tile(layer, "int8", rows, cols, 2)
        assert points.project(job, [(t3, cost(t3)), (t2, cost(t2))]) == (pytest.approx(want), "fit")
    tile = tiles.tile(layer, "int8", 2, 4, 6)  # every channel: scaled by executed MACs alone
    assert points.project(job, [(tile, cost(tile))]) == (pytest.approx(want), "scaled")


# ---------------------------------------------------------------- whole network in compare: the same layer set


def test_compare_network_sums_the_same_verified_layers_in_every_run():

    bad = {**point("fc", "int32", "viper", 0.001), "verified": False}
    a = run_result(
        "a",
        1,
        points=[
            point("conv1", "int8", "viper", 0.010),
            point("fc", "int8", "viper", 0.004),
            point("conv1", "int32", "viper", 0.020),
            bad,
            point("only-a", "int8", "viper", 1.0),
        ],
    )
    b = run_result("b", 2, points=[point("conv1", "int32", "viper", 0.005), point("fc", "int32", "viper", 0.008)])
    lay = compare.layer_comparison([("A", a), ("B", b)])
    assert lay["shared"] == 2  # conv1 and fc; only-a ran in A alone
    # A int8: 10 + 4 ms; B int32: 5 + 8 ms; A int32 has no verified fc: its 20 ms conv1 plus A's best
    # fc (int8, 4 ms), marked incomplete
    net = [(v["run"], v["dtype"], v["seconds"], v["measured_seconds"], v["complete"]) for v in lay["network"]]
    assert net == [
        (1, "int32", pytest.approx(0.013), pytest.approx(0.013), True),
        (0, "int8", pytest.approx(0.014), pytest.approx(0.014), True),
        (0, "int32", pytest.approx(0.024), pytest.approx(0.020), False),
    ]
    assert [(m["layer"], m["dtype"], m["seconds"]) for m in lay["network"][2]["missing"]] == [("fc", "int8", 0.004)]
    assert lay["best_total"] == [pytest.approx(0.014), pytest.approx(0.013)]


# ---------------------------------------------------------------- rules a review found unguarded (issue 22)


def test_a_multi_core_roof_is_its_core_roof_times_the_cores():
    from mcuroof.board import profiles

    board = profiles.load_board("pico")  # RP2040: two Cortex-M0+
    assert board.cores == 2
    single = {r["name"]: r["macs_per_s"] for r in profiles.theoretical_roofs(board) if r["kind"] == "compute"}
    multi = [r for r in profiles.theoretical_roofs(board, all_cores=True) if "x2 cores" in r["name"]]
    assert multi
    for r in multi:
        assert r["macs_per_s"] == pytest.approx(2 * single[r["name"].replace(" x2 cores", "")])
    memory = [r for r in profiles.theoretical_roofs(board, all_cores=True) if r["kind"] == "memory"]
    assert not [r for r in memory if "cores" in r["name"]]  # memory is shared: never scaled


# MACs one instruction of each ISA peak kernel does: MLA 1, SMLAD two 16-bit products, VMLADAVA
# a product per lane (128 / element bits), VFMA.F32 1, vector VFMA.F32 4 lanes
ISA_MACS = {
    "mla": lambda bits: 1,
    "smlad": lambda bits: 2,
    "vmladava": lambda bits: 128 // bits,
    "vfma": lambda bits: 1,
    "vfma-q": lambda bits: 4,
}


@pytest.mark.parametrize("name", sorted(ISA_MACS))
def test_isa_ceiling_kernels_declare_the_macs_their_instructions_do(name):
    """u MACs per dot product times reps dot products per loop iteration (what firmware/compute.py
    counts) against the MAC instructions in the loop, counted in the source."""
    from mcuroof.kernels import thumb2 as t

    mac_instructions = {
        "mla": lambda bits: [t.mla(2, 4, 6, 2), t.mla(2, 5, 7, 2)],
        "smlad": lambda bits: [t.smlad(2, 4, 6, 2), t.smlad(2, 5, 7, 2)],
        "vmladava": lambda bits: [t.vmladava(2, 0, 1, bits)],
        "vfma": lambda bits: [t.vfma_f32(0, 2, 4), t.vfma_f32(0, 3, 5)],
        "vfma-q": lambda bits: [t.vfma_q_f32(0, 1, 2)],
    }[name]
    found = 0
    for tc, bits in (("b", 8), ("h", 16), ("i", 32), ("f", 32)):
        body = compute._isa_body(name, tc, compute.ISA_REP)
        if body is None:
            continue
        found += 1
        u, reps, _, loop, _ = body
        count = sum(loop.count(ins) for ins in mac_instructions(bits))
        assert count * ISA_MACS[name](bits) == u * reps, (name, tc)
    assert found


def test_attainable_is_the_ceiling_of_the_points_own_type():
    rfs = [
        {"kind": "memory", "role": "roof", "source": "measured", "bytes_per_s": 1e9, "name": "SRAM", "level": 1},
        {"kind": "compute", "source": "measured", "emitter": "asm_thumb", "dtype": "int8", "macs_per_s": 4e6},
        {"kind": "compute", "source": "measured", "emitter": "asm_thumb", "dtype": "float32", "macs_per_s": 1e6},
        {"kind": "compute", "source": "measured", "emitter": "viper", "dtype": "int8", "macs_per_s": 9e6},
    ]
    assert roofs.attainable(100, rfs, "asm_thumb", "float32") == 1e6
    assert roofs.attainable(100, rfs, "asm_thumb", "int8") == 4e6
    assert roofs.attainable(100, rfs, "viper", "int8") == 9e6
    assert roofs.attainable(1e-6, rfs, "asm_thumb", "int8") == pytest.approx(1e3)  # under the memory slope
    # no ceiling of that type measured: the memory slope alone; no memory roof: the ceiling alone
    assert roofs.attainable(2.0, rfs, "native", "int8") == 2e9
    assert roofs.attainable(2.0, rfs[1:], "viper", "int8") == 9e6
    assert roofs.attainable(2.0, [], "viper", "int8") == float("inf")


def test_compare_takes_each_runs_fastest_variant_of_a_layer():
    a = run_result("a", 1, points=[point("conv", "int8", "bytecode", 2.0), point("conv", "int8", "asm_thumb", 0.5)])
    b = run_result("b", 1, points=[point("conv", "int8", "bytecode", 1.0), point("conv", "int8", "asm_thumb", 0.25)])
    (conv,) = compare.layer_comparison([("A", a), ("B", b)])["layers"]
    assert [x["seconds"] for x in conv["best"]] == [0.5, 0.25]
    assert [x["emitter"] for x in conv["best"]] == ["asm_thumb", "asm_thumb"]
    assert conv["ratio"] == [1.0, 2.0]


def test_whole_model_says_bound_and_projected_from_tiles_and_what_it_leaves_out():
    from rich.console import Console

    from mcuroof.report import html_tables, layer_tables

    roofs_ = roofline(1e4, 2e4)
    conv, pool = job_of(CONV), job_of(POOL)
    pts = [
        points.point(conv, [rec_for(conv, us=250000)], roofs_, []),
        points.point(pool, [rec_for(pool, us=100000)], roofs_, []),
    ]
    pts[0]["tile_fraction"] = 0.25  # the conv ran on a quarter of its outputs, projected to the whole
    rows = points.whole_model(pts)
    assert [r["projected"] for r in rows] == [[conv.layer.index]]
    not_profiled = [{"index": 7, "name": "Reshape", "op": "RESHAPE", "why": "no RESHAPE kernel"}]
    result = {
        "board": {"name": "t"},
        "points": pts,
        "model": {"name": "m", "whole_model": rows, "not_profiled": not_profiled},
    }
    console = Console(record=True, width=200)
    console.print(layer_tables.model_table(result))
    text = " ".join(console.export_text().split())
    assert "roofline bound" in text and "predicted" not in text and "time / bound" in text
    assert (
        "1 of 2" in text
        and "layers' time leaves out, not profiled: layer 7 Reshape RESHAPE (no RESHAPE kernel)" in text
        and "a bound, not a prediction" in text
    )
    html = html_tables.model_table(result)
    assert "roofline bound" in html and "projected from tiles" in html and "predicted" not in html
    assert "projected to the whole (projected from tiles: how many)" in text and "measured /" not in text
    del rows[0]["projected"]  # a file written before rows carried it: from its points
    assert layer_tables.projected(rows[0], result) == [conv.layer.index]
