"""Every accounting rule against expected values worked out here by hand, never taken from the
code under test: STREAM bytes (host table and the firmware's count on the real unix port), MAC
counts, MACC and bytes of every op kind, OI, tile projection, headroom, the above-roof rule, the
timed_well filter and the whole-model sums. tools/mutations.toml lists the one-line bugs these
tests must catch (`make mutate`)."""

from __future__ import annotations

from mcuroof.analysis import roofs
from mcuroof.kernels import compute
from mcuroof.kernels.ops import contract as ops_contract
from mcuroof.kernels.ops import reference, tiles
from mcuroof.links.unix import UnixLink
from mcuroof.measure.collect import Collector
from mcuroof.measure.rawlog import RawLog
from mcuroof.model.network import Layer

# ---------------------------------------------------------------- STREAM bytes

# arrays each kernel touches per element (STREAM's counting): copy B=A and scale B=3A read one
# array and write one; add C=A+B and triad C=A+3B read two and write one
ARRAYS = {"copy": 2, "scale": 2, "add": 3, "triad": 3}
ELEMENT_BYTES = {"int8": 1, "int16": 2, "int32": 4, "float32": 4}


def run_unix(tmp_path, micropython, suite, cfg):
    log = RawLog(tmp_path / f"{suite}.jsonl")
    try:
        return Collector(UnixLink(micropython), log).run_suite(suite, cfg)
    finally:
        log.close()


def test_firmware_byte_count_on_the_unix_port(tmp_path, micropython):
    """firmware/memory.py's own count, from real MicroPython: arrays x n x element size."""
    cfg = {
        "win_us": 200,
        "trials": 1,
        "emitters": ["bytecode"],
        "types": ["b", "h", "i", "f"],
        "max_ws": {"bytecode": 3 * 64},
        "min_n": 8,
    }
    recs = [r for r in run_unix(tmp_path, micropython, "memory", cfg) if r["t"] == "mem"]
    got = {(r["k"], r["ty"], r["n"]): r["bytes"] for r in recs}
    # 3 x 64 bytes: 64-byte buffers, so n = 8..64 / element size
    want = {
        (k, ty, n): ARRAYS[k] * n * size
        for k in ARRAYS
        for ty, size in ELEMENT_BYTES.items()
        for n in (8, 16, 32, 64)
        if n * size <= 64
    }
    assert got == want
    assert all(roofs.memory_ok(r) for r in recs)


# ---------------------------------------------------------------- MAC counts of the compute kernels


def test_compute_kernel_mac_count_on_the_unix_port(tmp_path, micropython):
    cfg = {
        "win_us": 200,
        "trials": 1,
        "emitters": ["bytecode", "viper"],
        "types": ["b", "f"],
        "iters": {"bytecode": 8, "viper": 8},
        "unroll": 4,
        "unroll_asm": 4,
    }
    for k in compute.compute_kernels(cfg):  # 4 multiply-accumulates per iteration
        if k.key == "compute/viper/int8":  # signed, as the layers read int8: (v ^ 128) - 128, in one sum
            assert k.source.count(")*((q[") == 4 and k.source.count("^128)-128)") == 8, k.source
        else:
            assert k.source.count("a+=") == 4, k.key
    recs = [r for r in run_unix(tmp_path, micropython, "compute", cfg) if r["t"] == "mac"]
    assert {(r["em"], r["ty"]) for r in recs} == {("bytecode", "int8"), ("bytecode", "float32"), ("viper", "int8")}
    for r in recs:
        assert r["macs"] == 4 * 8  # unroll x iterations
        assert r["chk"] == 8 * (1 + 2 + 3 + 4)  # x = 1, w = 1..4: one dot product per iteration
        assert roofs.mac_ok(r)


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


# ---------------------------------------------------------------- whole network in compare: the same layer set
