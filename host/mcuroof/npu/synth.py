"""An int8 .tflite made from a built-in network's layer shapes, for Vela to compile. No I/O.

The MLPerf Tiny VWW and IC .tflite files are not shipped (the project writes what it ships), so
`mcuroof npu vww-mobilenet` compiles this file instead: the same operators, shapes, strides and
padding as the published network (mcuroof.model.builtins), per-tensor int8 quantisation, and
weights drawn from a seeded generator. Vela's cycles follow the shapes; its weight compression
follows the values, so the flash traffic of random weights may differ from a trained model's.
"""

from __future__ import annotations

import numpy as np
import tflite

from mcuroof.model import tflite_writer
from mcuroof.model.network import Layer, Network

SYNTH_NOTE = "built-in layer shapes with seeded random int8 weights (not the trained model's weights)"
ACT = {"NONE": 0, "RELU": 1, "RELU6": 3}
PAD = {"same": tflite.Padding.SAME, "valid": tflite.Padding.VALID}
T = tflite.TensorType
ACT_SCALE, W_SCALE = 0.05, 0.02


class _Model:
    """Tensors and operators being collected before they are written."""

    def __init__(self):
        self.tensors: list[tflite_writer.Tensor] = []
        self.ops: list[tflite_writer.Operator] = []

    def tensor(self, name: str, shape, ttype, scale: float, zero: int, data: bytes | None = None) -> int:
        quant = tflite_writer.Quant(scale=(scale,), zero_point=(zero,))
        self.tensors.append(tflite_writer.Tensor(name, tuple(shape), ttype, data, quant))
        return len(self.tensors) - 1

    def quant(self, index: int) -> tuple[float, int]:
        q = self.tensors[index].quant
        return q.scale[0], q.zero_point[0]

    def op(self, code: int, ins: list[int], outs: list[int], options=None) -> None:
        self.ops.append(tflite_writer.Operator(code, 1, tuple(ins), tuple(outs), options))


# ---------------------------------------------------------------- operator options


def _conv_options(l: Layer, depthwise: bool):
    def build(b):
        mod = "DepthwiseConv2DOptions" if depthwise else "Conv2DOptions"
        getattr(tflite, f"{mod}Start")(b)
        getattr(tflite, f"{mod}AddPadding")(b, PAD[l.padding])
        getattr(tflite, f"{mod}AddStrideH")(b, l.stride[0])
        getattr(tflite, f"{mod}AddStrideW")(b, l.stride[1])
        if depthwise:
            tflite.DepthwiseConv2DOptionsAddDepthMultiplier(b, 1)
        getattr(tflite, f"{mod}AddFusedActivationFunction")(b, ACT[l.activation or "NONE"])
        return getattr(tflite.BuiltinOptions, mod), getattr(tflite, f"{mod}End")(b)

    return build


def _pool_options(l: Layer):
    def build(b):
        tflite.Pool2DOptionsStart(b)
        tflite.Pool2DOptionsAddPadding(b, PAD[l.padding])
        tflite.Pool2DOptionsAddStrideH(b, l.stride[0])
        tflite.Pool2DOptionsAddStrideW(b, l.stride[1])
        tflite.Pool2DOptionsAddFilterHeight(b, l.kernel[0])
        tflite.Pool2DOptionsAddFilterWidth(b, l.kernel[1])
        return tflite.BuiltinOptions.Pool2DOptions, tflite.Pool2DOptionsEnd(b)

    return build


def _act_options(mod: str, act: str | None):
    def build(b):
        getattr(tflite, f"{mod}Start")(b)
        getattr(tflite, f"{mod}AddFusedActivationFunction")(b, ACT[act or "NONE"])
        return getattr(tflite.BuiltinOptions, mod), getattr(tflite, f"{mod}End")(b)

    return build


def _softmax_options(b):
    tflite.SoftmaxOptionsStart(b)
    tflite.SoftmaxOptionsAddBeta(b, 1.0)
    return tflite.BuiltinOptions.SoftmaxOptions, tflite.SoftmaxOptionsEnd(b)


# ---------------------------------------------------------------- layers


def _consts(m: _Model, l: Layer, in_scale: float, rng) -> list[int]:
    """The weight and bias tensors of a conv, depthwise or dense layer."""
    if not l.weights:
        return []
    wshape, bshape = l.weights
    w = rng.integers(-127, 128, size=wshape, dtype=np.int8)
    bias = rng.integers(-1000, 1000, size=bshape, dtype=np.int32)
    wi = m.tensor(f"{l.name}/weights", wshape, T.INT8, W_SCALE, 0, w.tobytes())
    bi = m.tensor(f"{l.name}/bias", bshape, T.INT32, in_scale * W_SCALE, 0, bias.tobytes())
    return [wi, bi]


def _add_layer(m: _Model, l: Layer, ids: dict[int, int], rng) -> None:
    ins = [ids[i] for i in l.input_ids]
    in_scale, in_zero = m.quant(ins[0])
    out_scale, out_zero = (1 / 256, -128) if l.op == "SOFTMAX" else (ACT_SCALE, 0)
    if l.op in ("AVERAGE_POOL_2D", "RESHAPE"):
        out_scale, out_zero = in_scale, in_zero
    out = m.tensor(l.name, l.output, T.INT8, out_scale, out_zero)
    ids[l.output_ids[0]] = out
    op, options = l.op, None
    if op in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        ins += _consts(m, l, in_scale, rng)
        options = _conv_options(l, op == "DEPTHWISE_CONV_2D")
    elif op == "FULLY_CONNECTED":
        ins += _consts(m, l, in_scale, rng)
        options = _act_options("FullyConnectedOptions", l.activation)
    elif op == "AVERAGE_POOL_2D":
        options = _pool_options(l)
    elif op == "ADD":
        options = _act_options("AddOptions", l.activation)
    elif op == "SOFTMAX":
        options = _softmax_options
    elif op == "RESHAPE":
        shape = np.array(l.output, dtype=np.int32)
        ins.append(m.tensor(f"{l.name}/shape", (len(l.output),), T.INT32, 1.0, 0, shape.tobytes()))
    else:
        raise ValueError(f"{l.name}: {op} is not written by npu.synth")
    m.op(getattr(tflite.BuiltinOperator, op), ins, [out], options)


def tflite_bytes(net: Network, seed: int = 0) -> bytes:
    """The .tflite of a built-in network (mcuroof.model.builtins.builtin_network)."""
    m = _Model()
    rng = np.random.default_rng(seed)
    first = net.layers[0]
    ids = {first.input_ids[0]: m.tensor("input", first.inputs[0], T.INT8, 1 / 128, 0)}
    for l in net.layers:
        _add_layer(m, l, ids, rng)
    inputs, outputs = [ids[first.input_ids[0]]], [ids[net.layers[-1].output_ids[0]]]
    return tflite_writer.write_model(m.tensors, m.ops, inputs, outputs, SYNTH_NOTE)
