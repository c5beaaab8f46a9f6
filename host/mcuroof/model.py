"""Static layer analysis of a network: shapes, MACC, bytes, operational intensity, peak memory.

A `Network` comes either from a .tflite file (parsed with the `tflite` package) or from one of
the built-in layer-shape descriptions of the MLPerf Tiny networks; both give the same `Layer`
objects, so the on-device profiler can rerun any layer with its real shapes and parameters.
Definitions are in docs/model-analysis.md. Pure computation: nothing here prints.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from .errors import UserError

Shape = tuple[int, ...]

# bits per element of each tflite TensorType name (int4 is packed two to a byte)
DTYPE_BITS = {"float32": 32, "float16": 16, "int32": 32, "uint8": 8, "int64": 64, "string": 8,
              "bool": 8, "int16": 16, "complex64": 64, "int8": 8, "float64": 64,
              "complex128": 128, "uint64": 64, "resource": 0, "variant": 0, "uint32": 32,
              "uint16": 16, "int4": 4, "bfloat16": 16}
TFLITE_DTYPES = ("float32", "float16", "int32", "uint8", "int64", "string", "bool", "int16",
                 "complex64", "int8", "float64", "complex128", "uint64", "resource", "variant",
                 "uint32", "uint16", "int4", "bfloat16")
ACTIVATIONS = ("NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT")
# ops whose tflite options carry a fused activation
FUSED_OPS = {"CONV_2D": "Conv2DOptions", "DEPTHWISE_CONV_2D": "DepthwiseConv2DOptions",
             "AVERAGE_POOL_2D": "Pool2DOptions", "MAX_POOL_2D": "Pool2DOptions",
             "L2_POOL_2D": "Pool2DOptions", "FULLY_CONNECTED": "FullyConnectedOptions",
             "ADD": "AddOptions", "SUB": "SubOptions", "MUL": "MulOptions",
             "CONCATENATION": "ConcatenationOptions"}
SCRATCH_NOTE = "0: im2col-free kernels need no per-layer scratch buffer"


@dataclass(frozen=True)
class Layer:
    """One operator, in execution order. Shapes include the batch dimension (NHWC)."""
    index: int
    name: str
    op: str                                   # builtin name, custom code, or "unknown"
    dtype: str                                # element type of the activations
    inputs: tuple[Shape, ...]                 # non-constant input tensors
    output: Shape                             # first output tensor
    weights: tuple[Shape, ...] = ()           # constant input tensors (filter, bias, ...)
    weight_dtypes: tuple[str, ...] = ()
    kernel: tuple[int, int] | None = None     # (KH, KW) of conv/depthwise/pool
    stride: tuple[int, int] | None = None     # (SH, SW)
    padding: str | None = None                # "same" or "valid"
    depth_multiplier: int | None = None
    activation: str | None = None             # fused activation, e.g. "RELU"
    macc: int = 0
    weight_bytes: int = 0
    act_bytes: int = 0                        # non-constant inputs + all outputs
    input_ids: tuple[int, ...] = ()           # activation tensor ids (for liveness)
    output_ids: tuple[int, ...] = ()

    @property
    def intensity(self) -> float:
        """Operational intensity, MACC per byte moved (weights + activations)."""
        moved = self.weight_bytes + self.act_bytes
        return self.macc / moved if moved else 0.0


@dataclass(frozen=True)
class Peak:
    bytes: int
    layer: int
    weights: int
    activations: int
    scratch: int


@dataclass(frozen=True)
class Network:
    name: str
    layers: tuple[Layer, ...]
    tensor_bytes: dict[int, int]              # activation tensor id -> bytes
    input_ids: tuple[int, ...]
    output_ids: tuple[int, ...]
    weight_bytes: int                         # distinct constant tensors
    source: str = "builtin"                   # path of the .tflite, or "builtin"
    notes: tuple[str, ...] = field(default_factory=tuple)


# ---------------------------------------------------------------- shared computation

def nelem(shape: Shape) -> int:
    return math.prod(shape)


def nbytes(shape: Shape, dtype: str) -> int:
    return (nelem(shape) * DTYPE_BITS.get(dtype, 8) + 7) // 8


def layer_macc(op: str, all_inputs: list[Shape], output: Shape) -> int:
    """MACC of conv/depthwise/dense from the op's inputs in tflite order (input, filter, bias)."""
    if len(all_inputs) < 2 or not output:
        return 0
    filt = all_inputs[1]
    if op == "CONV_2D" and len(filt) == 4 and len(output) == 4:
        return nelem(output) * filt[1] * filt[2] * filt[3]
    if op == "DEPTHWISE_CONV_2D" and len(filt) == 4 and len(output) == 4:
        return nelem(output) * filt[1] * filt[2]
    if op == "FULLY_CONNECTED" and len(filt) == 2:
        return nelem(output) * filt[1]      # batch*OUT*IN, output elements = batch*OUT
    return 0


def totals(net: Network) -> dict:
    macc = sum(l.macc for l in net.layers)
    act = sum(l.act_bytes for l in net.layers)
    moved = net.weight_bytes + act
    return {"layers": len(net.layers), "macc": macc, "weight_bytes": net.weight_bytes,
            "act_bytes": act, "intensity": macc / moved if moved else 0.0}


def live_ranges(net: Network) -> dict[int, tuple[int, int]]:
    """Tensor id -> (first, last) layer index during which it must be held in RAM."""
    last = len(net.layers) - 1
    birth: dict[int, int] = {}
    death: dict[int, int] = {}
    for layer in net.layers:
        for t in layer.output_ids:
            birth.setdefault(t, layer.index)
            death[t] = max(death.get(t, layer.index), layer.index)
        for t in layer.input_ids:
            birth.setdefault(t, 0)          # model inputs and unproduced (variable) tensors
            death[t] = max(death.get(t, 0), layer.index)
    for t in net.output_ids:
        birth.setdefault(t, 0)
        death[t] = max(last, 0)
    for t in net.input_ids:
        birth[t] = 0
        death.setdefault(t, 0)
    return {t: (birth[t], death[t]) for t in birth}


def live_bytes(net: Network) -> list[int]:
    """Bytes of activation tensors alive during each layer."""
    ranges = live_ranges(net)
    return [sum(net.tensor_bytes.get(t, 0) for t, (a, b) in ranges.items() if a <= i <= b)
            for i in range(len(net.layers))]


def peak_memory(net: Network) -> Peak:
    """Weights + largest live activation set + scratch (0, see SCRATCH_NOTE)."""
    live = live_bytes(net) or [sum(net.tensor_bytes.get(t, 0) for t in net.input_ids)]
    act = max(live)
    return Peak(net.weight_bytes + act, live.index(act), net.weight_bytes, act, 0)


# ---------------------------------------------------------------- built-in networks

class Spec(NamedTuple):
    """One layer of a built-in description. out is HWC (or C for dense); src names inputs."""
    op: str
    out: Shape
    kernel: tuple[int, int] | None = None
    stride: int | tuple[int, int] = 1
    act: str = "NONE"
    name: str | None = None
    src: tuple[str, ...] | None = None     # default: the previous layer
    pad: str = "same"


def _mobilenet_block(hw: int, cin: int, cout: int, stride: int) -> list[Spec]:
    return [Spec("DEPTHWISE_CONV_2D", (hw, hw, cin), (3, 3), stride, "RELU"),
            Spec("CONV_2D", (hw, hw, cout), (1, 1), 1, "RELU")]


KWS_DSCNN = [  # MLPerf Tiny KWS DS-CNN: input 49x10x1 (MFCC), 12 classes
    Spec("CONV_2D", (25, 5, 64), (10, 4), 2, "RELU"),
    *[s for _ in range(4) for s in (Spec("DEPTHWISE_CONV_2D", (25, 5, 64), (3, 3), 1, "RELU"),
                                     Spec("CONV_2D", (25, 5, 64), (1, 1), 1, "RELU"))],
    Spec("AVERAGE_POOL_2D", (1, 1, 64), (25, 5), (25, 5), pad="valid"),
    Spec("RESHAPE", (64,)),
    Spec("FULLY_CONNECTED", (12,)),
    Spec("SOFTMAX", (12,)),
]

AD_AUTOENCODER = [  # MLPerf Tiny AD: dense autoencoder on 640 log-mel features
    *[Spec("FULLY_CONNECTED", (n,), act="RELU") for n in (128, 128, 128, 128, 8, 128, 128, 128, 128)],
    Spec("FULLY_CONNECTED", (640,)),
]

VWW_MOBILENET = [  # MLPerf Tiny VWW: MobileNetV1 alpha 0.25, input 96x96x3, 2 classes
    Spec("CONV_2D", (48, 48, 8), (3, 3), 2, "RELU"),
    *_mobilenet_block(48, 8, 16, 1),
    *_mobilenet_block(24, 16, 32, 2),
    *_mobilenet_block(24, 32, 32, 1),
    *_mobilenet_block(12, 32, 64, 2),
    *_mobilenet_block(12, 64, 64, 1),
    *_mobilenet_block(6, 64, 128, 2),
    *[s for _ in range(5) for s in _mobilenet_block(6, 128, 128, 1)],
    *_mobilenet_block(3, 128, 256, 2),
    *_mobilenet_block(3, 256, 256, 1),
    Spec("AVERAGE_POOL_2D", (1, 1, 256), (3, 3), (3, 3), pad="valid"),
    Spec("RESHAPE", (256,)),
    Spec("FULLY_CONNECTED", (2,)),
    Spec("SOFTMAX", (2,)),
]


def _resnet_stack(n: int, hw: int, ch: int, stride: int, block_in: str) -> list[Spec]:
    main = [Spec("CONV_2D", (hw, hw, ch), (3, 3), stride, "RELU", f"s{n}_conv1", (block_in,)),
            Spec("CONV_2D", (hw, hw, ch), (3, 3), 1, "NONE", f"s{n}_conv2")]
    if stride == 1:
        return main + [Spec("ADD", (hw, hw, ch), act="RELU", name=f"s{n}_add",
                            src=(block_in, f"s{n}_conv2"))]
    return main + [Spec("CONV_2D", (hw, hw, ch), (1, 1), stride, "NONE", f"s{n}_shortcut", (block_in,)),
                   Spec("ADD", (hw, hw, ch), act="RELU", name=f"s{n}_add",
                        src=(f"s{n}_shortcut", f"s{n}_conv2"))]


IC_RESNET8 = [  # MLPerf Tiny IC: ResNet-8 (resnet_v1_eembc), input 32x32x3, 10 classes
    Spec("CONV_2D", (32, 32, 16), (3, 3), 1, "RELU", "conv0"),
    *_resnet_stack(1, 32, 16, 1, "conv0"),
    *_resnet_stack(2, 16, 32, 2, "s1_add"),
    *_resnet_stack(3, 8, 64, 2, "s2_add"),
    Spec("AVERAGE_POOL_2D", (1, 1, 64), (8, 8), (8, 8), pad="valid"),
    Spec("RESHAPE", (64,)),
    Spec("FULLY_CONNECTED", (10,)),
    Spec("SOFTMAX", (10,)),
]

BUILTINS: dict[str, tuple[Shape, list[Spec], str]] = {
    "kws-dscnn": ((49, 10, 1), KWS_DSCNN, "published 2,656,768 MACC"),
    "vww-mobilenet": ((96, 96, 3), VWW_MOBILENET, "published ~7.5M MACC (7,489,664 by these shapes)"),
    "ic-resnet8": ((32, 32, 3), IC_RESNET8, "published 12.5M MACC (12,501,632 by these shapes)"),
    "ad-autoencoder": ((640,), AD_AUTOENCODER, "published 264,192 MACC"),
}


def _conv_out(size: int, k: int, s: int, pad: str) -> int:
    return -(-size // s) if pad == "same" else -(-(size - k + 1) // s)


def _pair(v: int | tuple[int, int]) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else tuple(v)


def _spec_weights(spec: Spec, cin: int) -> tuple[Shape, ...]:
    cout = spec.out[-1]
    if spec.op == "CONV_2D":
        return ((cout, *spec.kernel, cin), (cout,))
    if spec.op == "DEPTHWISE_CONV_2D":
        return ((1, *spec.kernel, cout), (cout,))
    if spec.op == "FULLY_CONNECTED":
        return ((cout, cin), (cout,))
    return ()


def _check_spatial(spec: Spec, src: Shape, where: str) -> None:
    """The description's output shape must follow from its input, kernel, stride and padding."""
    if spec.kernel is None or len(src) != 4:
        return
    want = tuple(_conv_out(src[i + 1], spec.kernel[i], _pair(spec.stride)[i], spec.pad) for i in (0, 1))
    if want != spec.out[:2]:
        raise ValueError(f"{where}: output {spec.out} does not follow from input {src}")


def _spec_layer(i: int, spec: Spec, srcs: list[tuple[int, Shape]], where: str) -> Layer:
    ids, shapes = zip(*srcs)
    out = (1, *spec.out)
    _check_spatial(spec, shapes[0], where)
    weights = _spec_weights(spec, nelem(shapes[0][1:]) if spec.op == "FULLY_CONNECTED" else shapes[0][-1])
    wdt = tuple(("int8", "int32")[: len(weights)])
    conv = spec.kernel is not None
    return Layer(
        index=i, name=spec.name or f"{spec.op.lower()}_{i}", op=spec.op, dtype="int8",
        inputs=tuple(shapes), output=out, weights=weights, weight_dtypes=wdt,
        kernel=spec.kernel, stride=_pair(spec.stride) if conv else None,
        padding=spec.pad if conv else None,
        depth_multiplier=1 if spec.op == "DEPTHWISE_CONV_2D" else None,
        activation=spec.act if spec.op in FUSED_OPS else None, macc=layer_macc(spec.op, [shapes[0], *weights], out),
        weight_bytes=sum(nbytes(w, d) for w, d in zip(weights, wdt)),
        act_bytes=sum(nelem(s) for s in shapes) + nelem(out),
        input_ids=tuple(ids), output_ids=(i + 1,))


def builtin_network(name: str) -> Network:
    """Network from a built-in description; tensor 0 is the input, tensor i+1 is layer i's output."""
    if name not in BUILTINS:
        raise UserError(f"unknown built-in network '{name}' (choose from {', '.join(BUILTINS)})")
    in_shape, specs, note = BUILTINS[name]
    by_name: dict[str, tuple[int, Shape]] = {}
    prev = (0, (1, *in_shape))
    layers = []
    for i, spec in enumerate(specs):
        srcs = [by_name[s] for s in spec.src] if spec.src else [prev]
        layer = _spec_layer(i, spec, srcs, f"{name} layer {i}")
        layers.append(layer)
        prev = (i + 1, layer.output)
        by_name[layer.name] = prev
    sizes = {0: nelem((1, *in_shape))} | {l.index + 1: nelem(l.output) for l in layers}
    return Network(name, tuple(layers), sizes, (0,), (len(layers),),
                   sum(l.weight_bytes for l in layers), "builtin", (note,))


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
        buffer.DataAsNumpy()        # a view; raises if the data runs past the end of the file
        return True
    return buffer.Offset() > 1      # large models keep data after the flatbuffer (offset, size)


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
    in_ids = [t for t in _ints(op.InputsAsNumpy()) if t >= 0]   # -1: optional input absent
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
        index=i, name=tname.decode("utf-8", "replace") if tname else f"op{i}", op=name,
        dtype=first.dtype if first else "none",
        inputs=tuple(info.shape for _, info in acts), output=output,
        weights=tuple(c.shape for c in consts), weight_dtypes=tuple(c.dtype for c in consts),
        macc=layer_macc(name, [info.shape for _, info in ins], output),
        weight_bytes=sum(c.nbytes for c in consts),
        act_bytes=sum(info.nbytes for _, info in acts) + sum(o.nbytes for o in outs),
        input_ids=tuple(t for t, _ in acts), output_ids=tuple(out_ids),
        **_params(op, name, [info.shape for _, info in ins]))


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
    return Network(name, tuple(layers), sizes, tuple(inputs), tuple(outputs),
                   _const_bytes(model, graph), source, notes)


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


def load_network(spec: str) -> Network:
    """A built-in network by name (see BUILTINS), or a .tflite file by path."""
    if spec in BUILTINS:
        return builtin_network(spec)
    path = Path(spec)
    if not path.exists() and not spec.lower().endswith(".tflite") and "/" not in spec:
        raise UserError(f"{spec}: no such file, and not a built-in network "
                        f"(built-ins: {', '.join(BUILTINS)})")
    return read_tflite(path)


def layer_dict(layer: Layer) -> dict:
    """Plain-data form of a layer (shapes as lists), for JSON and CSV."""
    d = {k: getattr(layer, k) for k in layer.__dataclass_fields__}
    d["intensity"] = layer.intensity
    return json_ready(d)


def json_ready(value):
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [json_ready(v) for v in value]
    return value
