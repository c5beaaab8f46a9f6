"""A TFLite flatbuffer written from a list of tensors and operators, without TensorFlow.

The tables are laid out as the TFLite converter (MLIR) lays out the MLPerf Tiny int8 models:
buffer 0 empty, one buffer per tensor (empty for activations, data 16-byte aligned for
constants), a `min_runtime_version` metadata buffer, shape signatures with -1 for the batch,
and quantisation parameters (scale, zero point, min/max, quantised dimension) on every tensor.
Built with the `tflite` package's generated builder functions and `flatbuffers`; the output
depends only on the input (no time stamps), so a fixed-seed caller gets identical bytes.
The one writer of the project: the zoo (tools/make_zoo.py), Vela's inputs for the built-in
networks (npu.synth) and the tests' small models (tests/factories.py) all use it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import flatbuffers
import numpy as np
import tflite

SCHEMA_VERSION = 3
MIN_RUNTIME = b"1.14.0"


@dataclass(frozen=True)
class Quant:
    """Quantisation parameters of a tensor (per tensor: one scale; per channel: one per channel)."""

    scale: tuple[float, ...] = ()
    zero_point: tuple[int, ...] = ()
    min: tuple[float, ...] = ()
    max: tuple[float, ...] = ()
    dim: int = 0  # quantized_dimension: 0 for OHWI filters, 3 for 1HWC depthwise filters


@dataclass(frozen=True)
class Tensor:
    name: str
    shape: tuple[int, ...]
    ttype: int  # tflite.TensorType
    data: bytes | None = None  # constant data, or None for an activation
    quant: Quant | None = None
    batch: bool = False  # first dimension is the batch (shape signature -1)


@dataclass(frozen=True)
class Operator:
    code: int | str  # tflite.BuiltinOperator, or the name of a custom operator
    version: int
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    options: Callable | None = None  # builder -> (BuiltinOptions kind, table offset)


def _vector(b: flatbuffers.Builder, items: list[int]) -> int:
    b.StartVector(4, len(items), 4)
    for item in reversed(items):
        b.PrependUOffsetTRelative(item)
    return b.EndVector()


def _numbers(b: flatbuffers.Builder, values, dtype) -> int:
    return b.CreateNumpyVector(np.asarray(values, dtype=dtype))


def _aligned_bytes(b: flatbuffers.Builder, data: bytes, alignment: int = 16) -> int:
    b.StartVector(1, len(data), alignment)
    b.head -= len(data)
    b.Bytes[b.head : b.head + len(data)] = data
    return b.EndVector()


def _buffer(b: flatbuffers.Builder, data: bytes | None) -> int:
    vec = _aligned_bytes(b, data) if data else None
    tflite.BufferStart(b)
    if vec is not None:
        tflite.BufferAddData(b, vec)
    return tflite.BufferEnd(b)


def _quant(b: flatbuffers.Builder, q: Quant) -> int:
    vecs = {
        "min": _numbers(b, q.min, np.float32) if q.min else None,
        "max": _numbers(b, q.max, np.float32) if q.max else None,
        "scale": _numbers(b, q.scale, np.float32) if q.scale else None,
        "zero": _numbers(b, q.zero_point, np.int64) if q.zero_point else None,
    }
    tflite.QuantizationParametersStart(b)
    for key, add in (
        ("min", tflite.QuantizationParametersAddMin),
        ("max", tflite.QuantizationParametersAddMax),
        ("scale", tflite.QuantizationParametersAddScale),
        ("zero", tflite.QuantizationParametersAddZeroPoint),
    ):
        if vecs[key] is not None:
            add(b, vecs[key])
    tflite.QuantizationParametersAddQuantizedDimension(b, q.dim)
    return tflite.QuantizationParametersEnd(b)


def _tensor(b: flatbuffers.Builder, t: Tensor, buffer: int) -> int:
    name, shape = b.CreateString(t.name), _numbers(b, t.shape, np.int32)
    sig = _numbers(b, (-1, *t.shape[1:]), np.int32) if t.batch else None
    quant = _quant(b, t.quant or Quant())
    tflite.TensorStart(b)
    tflite.TensorAddShape(b, shape)
    tflite.TensorAddType(b, t.ttype)
    tflite.TensorAddBuffer(b, buffer)
    tflite.TensorAddName(b, name)
    tflite.TensorAddQuantization(b, quant)
    if sig is not None:
        tflite.TensorAddShapeSignature(b, sig)
    return tflite.TensorEnd(b)


def _operator(b: flatbuffers.Builder, op: Operator, opcode_index: int) -> int:
    ins, outs = _numbers(b, op.inputs, np.int32), _numbers(b, op.outputs, np.int32)
    kind, table = op.options(b) if op.options else (0, None)
    tflite.OperatorStart(b)
    tflite.OperatorAddOpcodeIndex(b, opcode_index)
    tflite.OperatorAddInputs(b, ins)
    tflite.OperatorAddOutputs(b, outs)
    if table is not None:
        tflite.OperatorAddBuiltinOptionsType(b, kind)
        tflite.OperatorAddBuiltinOptions(b, table)
    return tflite.OperatorEnd(b)


def _opcode(b: flatbuffers.Builder, code: int | str, version: int) -> int:
    custom = b.CreateString(code) if isinstance(code, str) else None
    builtin = tflite.BuiltinOperator.CUSTOM if custom else code
    tflite.OperatorCodeStart(b)
    tflite.OperatorCodeAddDeprecatedBuiltinCode(b, min(builtin, 127))  # 127: see builtin_code
    tflite.OperatorCodeAddVersion(b, version)
    tflite.OperatorCodeAddBuiltinCode(b, builtin)
    if custom:
        tflite.OperatorCodeAddCustomCode(b, custom)
    return tflite.OperatorCodeEnd(b)


def _metadata(b: flatbuffers.Builder, name: str, buffer: int) -> int:
    s = b.CreateString(name)
    tflite.MetadataStart(b)
    tflite.MetadataAddName(b, s)
    tflite.MetadataAddBuffer(b, buffer)
    return tflite.MetadataEnd(b)


def _subgraph(b: flatbuffers.Builder, tensors, ops, inputs, outputs, codes) -> int:
    tvec = _vector(b, [_tensor(b, t, i + 1) for i, t in enumerate(tensors)])
    ovec = _vector(b, [_operator(b, op, codes.index((op.code, op.version))) for op in ops])
    iv, ov = _numbers(b, inputs, np.int32), _numbers(b, outputs, np.int32)
    name = b.CreateString("main")
    tflite.SubGraphStart(b)
    tflite.SubGraphAddTensors(b, tvec)
    tflite.SubGraphAddInputs(b, iv)
    tflite.SubGraphAddOutputs(b, ov)
    tflite.SubGraphAddOperators(b, ovec)
    tflite.SubGraphAddName(b, name)
    return tflite.SubGraphEnd(b)


def write_model(
    tensors: list[Tensor], ops: list[Operator], inputs: list[int], outputs: list[int], description: str
) -> bytes:
    """The .tflite bytes of one subgraph: tensor i uses buffer i + 1; the last buffer holds the
    min_runtime_version metadata."""
    b = flatbuffers.Builder(1 << 16)
    codes = list(dict.fromkeys((op.code, op.version) for op in ops))
    graph = _subgraph(b, tensors, ops, inputs, outputs, codes)
    desc = b.CreateString(description)
    runtime = MIN_RUNTIME.ljust(16, b"\0")
    buffers = _vector(b, [_buffer(b, d) for d in [None, *(t.data for t in tensors), runtime]])
    meta = _vector(b, [_metadata(b, "min_runtime_version", len(tensors) + 1)])
    opcodes = _vector(b, [_opcode(b, code, version) for code, version in codes])
    graphs = _vector(b, [graph])
    tflite.ModelStart(b)
    tflite.ModelAddVersion(b, SCHEMA_VERSION)
    tflite.ModelAddOperatorCodes(b, opcodes)
    tflite.ModelAddSubgraphs(b, graphs)
    tflite.ModelAddDescription(b, desc)
    tflite.ModelAddBuffers(b, buffers)
    tflite.ModelAddMetadata(b, meta)
    b.Finish(tflite.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())
