"""An int8 .tflite made from a built-in network's layer shapes, for Vela to compile. No I/O.

The MLPerf Tiny VWW and IC .tflite files are not shipped (the project writes what it ships), so
`mcuroof npu vww-mobilenet` compiles this file instead: the same operators, shapes, strides and
padding as the published network (mcuroof.model.builtins), per-tensor int8 quantisation, and
weights drawn from a seeded generator. Vela's cycles follow the shapes; its weight compression
follows the values, so the flash traffic of random weights may differ from a trained model's.
"""

from __future__ import annotations

import flatbuffers
import numpy as np
import tflite

from mcuroof.model.network import Layer, Network

SYNTH_NOTE = "built-in layer shapes with seeded random int8 weights (not the trained model's weights)"
ACT = {"NONE": 0, "RELU": 1, "RELU6": 3}
PAD = {"same": tflite.Padding.SAME, "valid": tflite.Padding.VALID}
T = tflite.TensorType
ACT_SCALE, W_SCALE = 0.05, 0.02


class _Model:
    """Tensors, buffers and operators being collected before they are written."""

    def __init__(self, b: flatbuffers.Builder):
        self.b, self.tensors, self.buffers, self.ops, self.codes = b, [], [b""], [], []

    def tensor(self, name: str, shape, ttype, scale: float, zero: int, data: bytes | None = None) -> int:
        buf = 0
        if data is not None:
            self.buffers.append(data)
            buf = len(self.buffers) - 1
        self.tensors.append((name, tuple(shape), ttype, scale, zero, buf))
        return len(self.tensors) - 1

    def op(self, code: int, ins: list[int], outs: list[int], options=None) -> None:
        if code not in self.codes:
            self.codes.append(code)
        self.ops.append((self.codes.index(code), ins, outs, options))


def _ivec(b, values):
    return b.CreateNumpyVector(np.array(values, dtype=np.int32))


def _vector(b, items):
    b.StartVector(4, len(items), 4)
    for item in reversed(items):
        b.PrependUOffsetTRelative(item)
    return b.EndVector()


def _quant(b, scale: float, zero: int):
    sv = b.CreateNumpyVector(np.array([scale], dtype=np.float32))
    zv = b.CreateNumpyVector(np.array([zero], dtype=np.int64))
    tflite.QuantizationParametersStart(b)
    tflite.QuantizationParametersAddScale(b, sv)
    tflite.QuantizationParametersAddZeroPoint(b, zv)
    return tflite.QuantizationParametersEnd(b)


def _write_tensor(b, name, shape, ttype, scale, zero, buf):
    n, shp, q = b.CreateString(name), _ivec(b, shape), _quant(b, scale, zero)
    tflite.TensorStart(b)
    tflite.TensorAddShape(b, shp)
    tflite.TensorAddType(b, ttype)
    tflite.TensorAddBuffer(b, buf)
    tflite.TensorAddName(b, n)
    tflite.TensorAddQuantization(b, q)
    return tflite.TensorEnd(b)


def _write_buffer(b, data: bytes):
    vec = b.CreateByteVector(data) if data else None
    tflite.BufferStart(b)
    if vec:
        tflite.BufferAddData(b, vec)
    return tflite.BufferEnd(b)


def _write_op(b, index, ins, outs, options):
    iv, ov = _ivec(b, ins), _ivec(b, outs)
    kind, table = options(b) if options else (0, None)
    tflite.OperatorStart(b)
    tflite.OperatorAddOpcodeIndex(b, index)
    tflite.OperatorAddInputs(b, iv)
    tflite.OperatorAddOutputs(b, ov)
    if table is not None:
        tflite.OperatorAddBuiltinOptionsType(b, kind)
        tflite.OperatorAddBuiltinOptions(b, table)
    return tflite.OperatorEnd(b)


def _write_code(b, code):
    tflite.OperatorCodeStart(b)
    tflite.OperatorCodeAddDeprecatedBuiltinCode(b, min(code, 127))
    tflite.OperatorCodeAddBuiltinCode(b, code)
    tflite.OperatorCodeAddVersion(b, 1)
    return tflite.OperatorCodeEnd(b)


def _finish(m: _Model, inputs: list[int], outputs: list[int]) -> bytes:
    b = m.b
    buffers = _vector(b, [_write_buffer(b, d) for d in m.buffers])
    tvec = _vector(b, [_write_tensor(b, *t) for t in m.tensors])
    ovec = _vector(b, [_write_op(b, *o) for o in m.ops])
    iv, outv = _ivec(b, inputs), _ivec(b, outputs)
    tflite.SubGraphStart(b)
    tflite.SubGraphAddTensors(b, tvec)
    tflite.SubGraphAddOperators(b, ovec)
    tflite.SubGraphAddInputs(b, iv)
    tflite.SubGraphAddOutputs(b, outv)
    graphs = _vector(b, [tflite.SubGraphEnd(b)])
    codes = _vector(b, [_write_code(b, c) for c in m.codes])
    tflite.ModelStart(b)
    tflite.ModelAddVersion(b, 3)
    tflite.ModelAddOperatorCodes(b, codes)
    tflite.ModelAddSubgraphs(b, graphs)
    tflite.ModelAddBuffers(b, buffers)
    b.Finish(tflite.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())


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
    in_scale = m.tensors[ins[0]][3]
    out_scale, out_zero = (1 / 256, -128) if l.op == "SOFTMAX" else (ACT_SCALE, 0)
    if l.op in ("AVERAGE_POOL_2D", "RESHAPE"):
        out_scale, out_zero = in_scale, m.tensors[ins[0]][4]
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
    m = _Model(flatbuffers.Builder(1 << 16))
    rng = np.random.default_rng(seed)
    first = net.layers[0]
    ids = {first.input_ids[0]: m.tensor("input", first.inputs[0], T.INT8, 1 / 128, 0)}
    for l in net.layers:
        _add_layer(m, l, ids, rng)
    return _finish(m, [ids[first.input_ids[0]]], [ids[net.layers[-1].output_ids[0]]])
