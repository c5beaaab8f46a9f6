"""A .tflite file read into a Network (flatbuffers via the tflite package)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from mcuroof.errors import UserError
from mcuroof.model.network import FUSED_OPS, Layer, Network, Shape, layer_macc, nbytes

TFLITE_DTYPES = (
    "float32",
    "float16",
    "int32",
    "uint8",
    "int64",
    "string",
    "bool",
    "int16",
    "complex64",
    "int8",
    "float64",
    "complex128",
    "uint64",
    "resource",
    "variant",
    "uint32",
    "uint16",
    "int4",
    "bfloat16",
)
ACTIVATIONS = ("NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT")


# ---------------------------------------------------------------- .tflite files


class _Corrupt(Exception):
    """Raised inside the parser when a field is out of range; becomes a UserError."""


def _count(n: int, buf: bytes, what: str) -> int:
    if n < 0 or n * 4 > len(buf):
        raise _Corrupt(f"{what} count {n} out of range")
    return n


def _ints(arr) -> list[int]:
    return [] if isinstance(arr, int) else [int(x) for x in arr]


def _op_name(model, index: int) -> str:
    import tflite

    if not 0 <= index < model.OperatorCodesLength():
        raise _Corrupt(f"opcode index {index} out of range")
    oc = model.OperatorCodes(index)
    code = max(oc.DeprecatedBuiltinCode(), oc.BuiltinCode())
    if code == tflite.BuiltinOperator.CUSTOM:
        custom = oc.CustomCode()
        return custom.decode("utf-8", "replace") if custom else "CUSTOM"
    return tflite.BUILTIN_OPCODE2NAME.get(code, "unknown")


class _TensorInfo(NamedTuple):
    shape: Shape
    dtype: str
    const: bool
    nbytes: int


def _tensor(model, graph, t: int) -> _TensorInfo:
    if not 0 <= t < graph.TensorsLength():
        raise _Corrupt(f"tensor index {t} out of range")
    tensor = graph.Tensors(t)
    shape = tuple(1 if d == -1 else d for d in _ints(tensor.ShapeAsNumpy()))
    if any(d < 0 for d in shape):
        raise _Corrupt(f"tensor {t} has negative dimension")
    code = tensor.Type()
    dtype = TFLITE_DTYPES[code] if 0 <= code < len(TFLITE_DTYPES) else f"type{code}"
    b = tensor.Buffer()
    if not 0 <= b < max(model.BuffersLength(), 1):
        raise _Corrupt(f"buffer index {b} out of range")
    const = b > 0 and model.BuffersLength() > 0 and _has_data(model.Buffers(b))
    return _TensorInfo(shape, dtype, const, nbytes(shape, dtype))


def _has_data(buffer) -> bool:
    if buffer.DataLength() > 0:
        buffer.DataAsNumpy()  # a view; raises if the data runs past the end of the file
        return True
    return buffer.Offset() > 1  # large models keep data after the flatbuffer (offset, size)


def _options(op, cls_name: str):
    import tflite

    if op.BuiltinOptionsType() != getattr(tflite.BuiltinOptions, cls_name):
        return None
    table = op.BuiltinOptions()
    if table is None:
        return None
    opts = getattr(tflite, cls_name)()
    opts.Init(table.Bytes, table.Pos)
    return opts


def _act(opts) -> str:
    code = opts.FusedActivationFunction()
    return ACTIVATIONS[code] if 0 <= code < len(ACTIVATIONS) else f"act{code}"


def _params(op, name: str, all_inputs: list[Shape]) -> dict:
    """Kernel, stride, padding, depth multiplier and fused activation of the ops that have them."""
    kind = FUSED_OPS.get(name)
    opts = _options(op, kind) if kind else None
    if opts is None:
        return {}
    p = {"activation": _act(opts)}
    if kind in ("Conv2DOptions", "DepthwiseConv2DOptions", "Pool2DOptions"):
        p["stride"] = (opts.StrideH(), opts.StrideW())
        p["padding"] = ("same", "valid")[opts.Padding()] if opts.Padding() in (0, 1) else "unknown"
    if kind == "Pool2DOptions":
        p["kernel"] = (opts.FilterHeight(), opts.FilterWidth())
    elif kind != "FullyConnectedOptions" and kind.endswith("Conv2DOptions"):
        filt = all_inputs[1] if len(all_inputs) > 1 else ()
        p["kernel"] = (filt[1], filt[2]) if len(filt) == 4 else None
    if kind == "DepthwiseConv2DOptions":
        p["depth_multiplier"] = opts.DepthMultiplier()
    return p


def _tflite_layer(model, graph, i: int, buf: bytes) -> Layer:
    op = graph.Operators(i)
    name = _op_name(model, op.OpcodeIndex())
    in_ids = [t for t in _ints(op.InputsAsNumpy()) if t >= 0]  # -1: optional input absent
    out_ids = _ints(op.OutputsAsNumpy())
    _count(len(in_ids) + len(out_ids), buf, "operator tensor")
    ins = [(t, _tensor(model, graph, t)) for t in in_ids]
    outs = [_tensor(model, graph, t) for t in out_ids]
    acts = [(t, info) for t, info in ins if not info.const]
    consts = [info for _, info in ins if info.const]
    output = outs[0].shape if outs else ()
    first = acts[0][1] if acts else (outs[0] if outs else None)
    tname = graph.Tensors(out_ids[0]).Name() if out_ids else None
    return Layer(
        index=i,
        name=tname.decode("utf-8", "replace") if tname else f"op{i}",
        op=name,
        dtype=first.dtype if first else "none",
        inputs=tuple(info.shape for _, info in acts),
        output=output,
        weights=tuple(c.shape for c in consts),
        weight_dtypes=tuple(c.dtype for c in consts),
        macc=layer_macc(name, [info.shape for _, info in ins], output),
        weight_bytes=sum(c.nbytes for c in consts),
        act_bytes=sum(info.nbytes for _, info in acts) + sum(o.nbytes for o in outs),
        input_ids=tuple(t for t, _ in acts),
        output_ids=tuple(out_ids),
        **_params(op, name, [info.shape for _, info in ins]),
    )


def _const_bytes(model, graph) -> int:
    """Bytes of the distinct constant tensors read by any operator."""
    seen: set[int] = set()
    total = 0
    for i in range(graph.OperatorsLength()):
        for t in _ints(graph.Operators(i).InputsAsNumpy()):
            if t >= 0 and t not in seen:
                seen.add(t)
                info = _tensor(model, graph, t)
                total += info.nbytes if info.const else 0
    return total


def _act_sizes(model, graph, layers: list[Layer], extra: list[int]) -> dict[int, int]:
    ids = {t for l in layers for t in (*l.input_ids, *l.output_ids)} | set(extra)
    return {t: _tensor(model, graph, t).nbytes for t in ids}


def parse_tflite(buf: bytes, name: str, source: str) -> Network:
    """Network of subgraph 0 of a .tflite flatbuffer; raises _Corrupt or any accessor error."""
    import tflite

    model = tflite.Model.GetRootAsModel(buf, 0)
    if _count(model.SubgraphsLength(), buf, "subgraph") == 0:
        raise _Corrupt("model has no subgraphs")
    _count(model.BuffersLength(), buf, "buffer")
    _count(model.OperatorCodesLength(), buf, "operator code")
    graph = model.Subgraphs(0)
    _count(graph.TensorsLength(), buf, "tensor")
    n = _count(graph.OperatorsLength(), buf, "operator")
    layers = [_tflite_layer(model, graph, i, buf) for i in range(n)]
    inputs = [t for t in _ints(graph.InputsAsNumpy()) if t >= 0]
    outputs = [t for t in _ints(graph.OutputsAsNumpy()) if t >= 0]
    sizes = _act_sizes(model, graph, layers, inputs + outputs)
    notes = (f"subgraph 0 of {model.SubgraphsLength()} analysed",) if model.SubgraphsLength() > 1 else ()
    return Network(name, tuple(layers), sizes, tuple(inputs), tuple(outputs), _const_bytes(model, graph), source, notes)


def read_tflite(path: str | Path) -> Network:
    """Parse a .tflite file; every problem with the file becomes a one-line UserError."""
    path = Path(path)
    try:
        buf = path.read_bytes()
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a directory, not a .tflite file") from None
    except OSError as e:
        raise UserError(f"{path}: cannot read ({e.strerror or e})") from None
    if not buf:
        raise UserError(f"{path}: empty file, not a TFLite model")
    if len(buf) < 8 or buf[4:8] != b"TFL3":
        raise UserError(f"{path}: not a TFLite flatbuffer (bad identifier)")
    try:
        return parse_tflite(buf, path.stem, str(path))
    except _Corrupt as e:
        raise UserError(f"{path}: truncated or corrupt flatbuffer ({e})") from None
    except Exception as e:  # any accessor failure on a damaged buffer
        kind = type(e).__name__ if type(e).__module__ == "builtins" else f"{type(e).__module__}.{type(e).__name__}"
        raise UserError(f"{path}: truncated or corrupt flatbuffer ({kind})") from e
