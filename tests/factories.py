"""Builders shared by the tests: small .tflite files, layers and their jobs, results with roofs."""

from __future__ import annotations

import dataclasses
import shutil

import numpy as np
import pytest
import tflite

from mcuroof.kernels.ops import layer_plan, reference
from mcuroof.measure.collect import Collector
from mcuroof.measure.rawlog import RawLog
from mcuroof.model import builtins, tflite_writer
from mcuroof.model.network import Layer
from mcuroof.suites import registry

# ---------------------------------------------------------------- from test_model.py

T = tflite.TensorType


OP = tflite.BuiltinOperator


def _conv_opts(b, stride=1, pad=tflite.Padding.VALID, act=tflite.ActivationFunctionType.RELU):
    tflite.Conv2DOptionsStart(b)
    tflite.Conv2DOptionsAddPadding(b, pad)
    tflite.Conv2DOptionsAddStrideW(b, stride)
    tflite.Conv2DOptionsAddStrideH(b, stride)
    tflite.Conv2DOptionsAddFusedActivationFunction(b, act)
    return tflite.BuiltinOptions.Conv2DOptions, tflite.Conv2DOptionsEnd(b)


def _dw_opts(b):
    tflite.DepthwiseConv2DOptionsStart(b)
    tflite.DepthwiseConv2DOptionsAddPadding(b, tflite.Padding.SAME)
    tflite.DepthwiseConv2DOptionsAddStrideW(b, 1)
    tflite.DepthwiseConv2DOptionsAddStrideH(b, 1)
    tflite.DepthwiseConv2DOptionsAddDepthMultiplier(b, 1)
    tflite.DepthwiseConv2DOptionsAddFusedActivationFunction(b, tflite.ActivationFunctionType.RELU6)
    return tflite.BuiltinOptions.DepthwiseConv2DOptions, tflite.DepthwiseConv2DOptionsEnd(b)


def _fc_opts(b):
    tflite.FullyConnectedOptionsStart(b)
    tflite.FullyConnectedOptionsAddFusedActivationFunction(b, tflite.ActivationFunctionType.NONE)
    return tflite.BuiltinOptions.FullyConnectedOptions, tflite.FullyConnectedOptionsEnd(b)


def build_tflite(tensors, ops, inputs, outputs) -> bytes:
    """tensors: (shape, TensorType, const?); ops: (builtin code or custom name, ins, outs, options).
    A constant tensor holds zeros."""
    ts = [
        tflite_writer.Tensor(
            f"t{i}", tuple(shape), ttype, bytes(max(1, int(np.prod(shape))) * _size(ttype)) if const else None
        )
        for i, (shape, ttype, const) in enumerate(tensors)
    ]
    os_ = [tflite_writer.Operator(code, 1, tuple(ins), tuple(outs), opt) for code, ins, outs, opt in ops]
    return tflite_writer.write_model(ts, os_, inputs, outputs, "mcuroof tests")


def _size(ttype):
    return {T.INT8: 1, T.INT16: 2, T.INT32: 4, T.FLOAT32: 4}[ttype]


# conv 10x10x2 -> 8x8x4 (3x3 valid); depthwise 3x3 same; ADD of both (a skip); dense 256 -> 10
SMALL_TENSORS = [
    ((1, 10, 10, 2), T.INT8, False),  # 0 input            200 B
    ((4, 3, 3, 2), T.INT8, True),  # 1 conv filter       72 B
    ((4,), T.INT32, True),  # 2 conv bias         16 B
    ((1, 8, 8, 4), T.INT8, False),  # 3 conv out         256 B
    ((1, 3, 3, 4), T.INT8, True),  # 4 dw filter         36 B
    ((4,), T.INT32, True),  # 5 dw bias           16 B
    ((1, 8, 8, 4), T.INT8, False),  # 6 dw out           256 B
    ((1, 8, 8, 4), T.INT8, False),  # 7 add out          256 B
    ((10, 256), T.INT8, True),  # 8 fc weights      2560 B
    ((10,), T.INT32, True),  # 9 fc bias           40 B
    ((1, 10), T.INT8, False),  # 10 output           10 B
]


SMALL_OPS = [
    (OP.CONV_2D, [0, 1, 2], [3], _conv_opts),
    (OP.DEPTHWISE_CONV_2D, [3, 4, 5], [6], _dw_opts),
    (OP.ADD, [3, 6], [7], None),
    (OP.FULLY_CONNECTED, [7, 8, 9], [10], _fc_opts),
]


# ---------------------------------------------------------------- from test_layer_kernels_dsp.py

needs_arm = pytest.mark.skipif(
    not shutil.which("qemu-system-arm") or not shutil.which("arm-none-eabi-gcc"),
    reason="needs qemu-system-arm and gcc-arm-none-eabi",
)


DSP, MVE = frozenset({"dsp"}), frozenset({"dsp", "mve"})


def spatial(index, op, hwc, out, kernel, stride, act="NONE"):
    (h, w, c), (oh, ow, oc), (kh, kw) = hwc, out, kernel
    weights = ((1, kh, kw, oc), (oc,)) if op == "DEPTHWISE_CONV_2D" else ((oc, kh, kw, c), (oc,))
    macc = oh * ow * oc * kh * kw * (1 if op == "DEPTHWISE_CONV_2D" else c)
    return Layer(
        index=index,
        name=f"l{index}",
        op=op,
        dtype="int8",
        inputs=((1, h, w, c),),
        output=(1, oh, ow, oc),
        weights=weights,
        kernel=kernel,
        stride=stride,
        padding="same",
        activation=act,
        macc=macc,
    )


def pool(index, hwc, out, kernel, stride, padding="same", op="AVERAGE_POOL_2D"):
    (h, w, c), (oh, ow, _) = hwc, out
    return Layer(
        index=index,
        name=f"p{index}",
        op=op,
        dtype="int8",
        inputs=((1, h, w, c),),
        output=(1, oh, ow, c),
        kernel=kernel,
        stride=stride,
        padding=padding,
    )


def dense(index, cin, cout, act="NONE"):
    return Layer(
        index=index,
        name=f"l{index}",
        op="FULLY_CONNECTED",
        dtype="int8",
        inputs=((1, cin),),
        output=(1, cout),
        weights=((cout, cin), (cout,)),
        activation=act,
        macc=cin * cout,
    )


LAYERS = [
    spatial(0, "CONV_2D", (9, 6, 1), (5, 3, 6), (4, 3), (2, 2), "RELU"),  # first layer: C=1, padded, K=12
    spatial(1, "CONV_2D", (5, 4, 10), (5, 4, 5), (3, 3), (1, 1)),  # K=90 (not a multiple of 4), OC odd
    spatial(2, "CONV_2D", (5, 3, 8), (5, 3, 7), (1, 1), (1, 1), "RELU"),  # 1x1 in place, 15 pixels (odd)
    spatial(3, "CONV_2D", (4, 4, 6), (2, 2, 4), (1, 1), (2, 2)),  # 1x1, C=6 gathered, strided
    spatial(4, "DEPTHWISE_CONV_2D", (5, 4, 6), (5, 4, 6), (3, 3), (1, 1), "RELU"),  # C=6: last group overlaps
    spatial(5, "DEPTHWISE_CONV_2D", (7, 5, 8), (4, 3, 8), (3, 3), (2, 2)),  # strided, padded
    spatial(11, "DEPTHWISE_CONV_2D", (6, 5, 12), (6, 5, 12), (3, 3), (1, 1), "RELU"),  # the row-slot kernel
    spatial(12, "DEPTHWISE_CONV_2D", (3, 20, 96), (3, 20, 96), (3, 3), (1, 1)),  # row slots, 3 blocks of 32 channels
    spatial(8, "DEPTHWISE_CONV_2D", (4, 4, 3), (4, 4, 3), (3, 3), (1, 1)),  # under 4 channels: one at a time
    spatial(9, "CONV_2D", (4, 4, 20), (4, 4, 3), (3, 3), (1, 1)),  # K=180: two pixels a pass, K looped
    spatial(20, "CONV_2D", (8, 5, 64), (8, 5, 9), (1, 1), (1, 1), "RELU"),  # blocks: 27 + 13 pixels, OC odd
    spatial(13, "DEPTHWISE_CONV_2D", (7, 7, 16), (7, 7, 16), (3, 3), (1, 1), "RELU"),  # planes: OW odd
    spatial(14, "DEPTHWISE_CONV_2D", (6, 10, 5), (6, 10, 5), (3, 3), (1, 1)),  # planes: OW even, C odd
    spatial(15, "DEPTHWISE_CONV_2D", (9, 10, 6), (5, 5, 6), (3, 3), (2, 2)),  # planes, strided, padded
    spatial(19, "DEPTHWISE_CONV_2D", (8, 10, 4), (4, 5, 4), (3, 3), (2, 2), "RELU"),  # planes, strided, PT=PL=0
    spatial(16, "DEPTHWISE_CONV_2D", (5, 5, 3), (3, 3, 3), (3, 3), (2, 2), "RELU"),  # strided, C=3
    spatial(30, "DEPTHWISE_CONV_2D", (6, 6, 16), (3, 3, 16), (3, 3), (2, 2), "RELU"),  # strided in place, 3x3 out
    spatial(31, "DEPTHWISE_CONV_2D", (13, 22, 4), (7, 11, 4), (3, 3), (2, 2)),  # strided in place, rows looped
    spatial(32, "DEPTHWISE_CONV_2D", (3, 3, 16), (3, 3, 16), (3, 3), (1, 1), "RELU"),  # 3x3 in registers
    spatial(34, "DEPTHWISE_CONV_2D", (3, 3, 8), (3, 3, 8), (3, 3), (1, 1)),  # 3x3 in registers, no ReLU
    spatial(35, "DEPTHWISE_CONV_2D", (2, 3, 8), (2, 3, 8), (3, 3), (1, 1)),  # planes, 2 rows: both edges
    spatial(36, "DEPTHWISE_CONV_2D", (44, 5, 4), (44, 5, 4), (3, 3), (1, 1)),  # MVE: tall columns, two bases
    spatial(37, "DEPTHWISE_CONV_2D", (9, 9, 4), (5, 5, 4), (3, 3), (2, 2), "RELU"),  # strided, two rows a pass, PL=1
    spatial(33, "DEPTHWISE_CONV_2D", (1, 5, 8), (1, 5, 8), (3, 3), (1, 1)),  # planes, one row: kernel row 1 only
    spatial(17, "DEPTHWISE_CONV_2D", (6, 5, 8), (6, 5, 8), (3, 2), (1, 1)),  # 3x2: row slots
    spatial(18, "DEPTHWISE_CONV_2D", (5, 4, 6), (3, 2, 6), (2, 3), (2, 2), "RELU"),  # 2x3 strided, C=6: per tap
    dense(6, 10, 3),
    dense(10, 200, 5, "RELU"),
    dense(7, 16, 1, "RELU"),  # one output channel
    dense(21, 64, 12),  # 7 channels a pass, the last overlapping
    dense(22, 256, 9, "RELU"),
]


def dsp_jobs():
    jobs, skipped = layer_plan.plan(dataclasses.replace(_net(), layers=tuple(LAYERS)), ["int8"], ["asm_thumb"], 1 << 16)
    assert not skipped
    return [dataclasses.replace(j, isa=DSP) for j in jobs]


def _net():
    return builtins.builtin_network("kws-dscnn")


MVE_LAYERS = [
    spatial(0, "CONV_2D", (3, 5, 64), (3, 5, 7), (1, 1), (1, 1)),  # K=64 (four vectors), OC odd
    spatial(1, "CONV_2D", (6, 4, 16), (3, 2, 6), (1, 1), (2, 2), "RELU"),  # K=16, strided
    dense(2, 48, 5, "RELU"),
    dense(3, 32, 1),
    spatial(4, "CONV_2D", (9, 6, 1), (5, 3, 7), (4, 3), (2, 2), "RELU"),  # gathered: C=1, padded, K=12
    spatial(5, "CONV_2D", (6, 5, 3), (3, 3, 4), (3, 3), (2, 2)),  # gathered: K=27
    spatial(6, "CONV_2D", (3, 4, 24), (3, 4, 5), (1, 1), (1, 1)),  # 1x1, K=24: gathered
    spatial(7, "CONV_2D", (2, 3, 128), (2, 3, 3), (1, 1), (1, 1), "RELU"),  # K=128: inputs streamed
    spatial(8, "CONV_2D", (4, 4, 10), (4, 4, 3), (3, 3), (1, 1)),  # gathered K=90, streamed
    # gathered K=144 and K=180 (a part vector): weights past VLDRB's 127-byte offset (ResNet-8's 3x3 convs)
    spatial(9, "CONV_2D", (4, 4, 16), (4, 4, 4), (3, 3), (1, 1), "RELU"),
    spatial(10, "CONV_2D", (5, 3, 20), (5, 3, 8), (3, 3), (1, 1), "RELU"),
]


def mve_jobs():
    jobs, skipped = layer_plan.plan(
        dataclasses.replace(_net(), layers=tuple(MVE_LAYERS)), ["int8"], ["asm_thumb"], 1 << 16
    )
    assert not skipped
    return [dataclasses.replace(j, isa=MVE) for j in jobs]


def _run_and_check(tmp_path, board, jobs):
    from mcuroof.links.qemu import QemuLink

    link = QemuLink(6, board=board)
    log = RawLog(tmp_path / "raw.jsonl")
    try:
        recs = Collector(link, log).run_suite("layers", {"win_us": 500, "trials": 1, "jobs": jobs})
    finally:
        log.close()
        link.close()
    by_key = {j.key: j for j in jobs}
    runs = {registry.record_key(r): r for r in recs if r["t"] == "layer"}
    assert set(runs) == set(by_key)
    for key, rec in runs.items():
        job = by_key[key]
        assert rec["cand"] == 0 and reference.verify(job, rec), (job.layer, rec)


# ---------------------------------------------------------------- from test_compare.py


def roof(kind, name, value, emitter="asm_thumb", dtype="int32", role="ceiling", source="measured", **extra):
    unit = "bytes_per_s" if kind == "memory" else "macs_per_s"
    return {
        "kind": kind,
        "role": role,
        "name": name,
        "emitter": emitter,
        "dtype": dtype,
        "source": source,
        unit: value,
        **extra,
    }


def run_result(name, scale, shift=None, points=(), theory=()):
    roofs = [
        roof("memory", "memory", 40e6 * scale, role="roof", level=1, ws_range=[48, 3072]),
        roof("memory", "flash read", 26e6 * scale, role="region", region="flash"),
        roof("compute", "int32 asm_thumb", 3.5e6 * scale, role="roof"),
        roof("compute", "int8 bytecode", 16e3 * scale, emitter="bytecode", dtype="int8"),
        *theory,
    ]
    return {
        "schema": 1,
        "board": {"name": name, "firmware": "MicroPython 1.9.2", "clock_hz": 16e6, "icount_shift": shift},
        "roofs": roofs,
        "ridges": [],
        "points": list(points),
    }


def point(layer, dtype, emitter, seconds, macc=1000):
    return {
        "index": 0,
        "name": layer,
        "op": "conv",
        "dtype": dtype,
        "emitter": emitter,
        "seconds": seconds,
        "macc": macc,
        "oi": 1.0,
        "macs_per_s": macc / seconds,
        "bytes_per_s": macc / seconds,
        "verified": True,
        "bound": "compute",
        "tile_fraction": 1.0,
        "advice": "",
    }


# the probe's ID registers (CPUID, ID_ISAR3, MVFR0, MVFR1: board.identity) as each emulated core
# reports them (read over each board's pty with machine.mem32)
CPU_REGS = {
    "qemu-microbit": [0x410CC200],
    "qemu-m3": [0x410FC231, 0x01111110],
    "qemu-m7": [0x411FC272, 0x01111131, 0x10110221, 0x12000011],
    "qemu-m55": [0x410FD221, 0x01111131, 0x10110221, 0x12100211],
    "rp2040js-pico": [0x410CC601],
}
