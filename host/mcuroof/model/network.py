"""Static layer analysis of a network: shapes, MACC, bytes, operational intensity, peak memory.

A `Network` comes either from a .tflite file (parsed with the `tflite` package) or from one of
the built-in layer-shape descriptions of the MLPerf Tiny networks; both give the same `Layer`
objects, so the on-device profiler can rerun any layer with its real shapes and parameters.
Definitions are in docs/model-analysis.md. Pure computation: nothing here prints.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

Shape = tuple[int, ...]

# bits per element of each tflite TensorType name (int4 is packed two to a byte)
DTYPE_BITS = {
    "float32": 32,
    "float16": 16,
    "int32": 32,
    "uint8": 8,
    "int64": 64,
    "string": 8,
    "bool": 8,
    "int16": 16,
    "complex64": 64,
    "int8": 8,
    "float64": 64,
    "complex128": 128,
    "uint64": 64,
    "resource": 0,
    "variant": 0,
    "uint32": 32,
    "uint16": 16,
    "int4": 4,
    "bfloat16": 16,
}
# ops whose tflite options carry a fused activation
FUSED_OPS = {
    "CONV_2D": "Conv2DOptions",
    "DEPTHWISE_CONV_2D": "DepthwiseConv2DOptions",
    "AVERAGE_POOL_2D": "Pool2DOptions",
    "MAX_POOL_2D": "Pool2DOptions",
    "L2_POOL_2D": "Pool2DOptions",
    "FULLY_CONNECTED": "FullyConnectedOptions",
    "ADD": "AddOptions",
    "SUB": "SubOptions",
    "MUL": "MulOptions",
    "CONCATENATION": "ConcatenationOptions",
}
# what peak_memory's scratch (0) covers: the heap; kernels' stack frames are not in it
SCRATCH_NOTE = "0 B of heap: no layer kernel allocates a per-layer heap buffer"


@dataclass(frozen=True)
class Layer:
    """One operator, in execution order. Shapes include the batch dimension (NHWC)."""

    index: int
    name: str
    op: str  # builtin name, custom code, or "unknown"
    dtype: str  # element type of the activations
    inputs: tuple[Shape, ...]  # non-constant input tensors
    output: Shape  # first output tensor
    weights: tuple[Shape, ...] = ()  # constant input tensors (filter, bias, ...)
    weight_dtypes: tuple[str, ...] = ()
    kernel: tuple[int, int] | None = None  # (KH, KW) of conv/depthwise/pool
    stride: tuple[int, int] | None = None  # (SH, SW)
    padding: str | None = None  # "same" or "valid"
    depth_multiplier: int | None = None
    activation: str | None = None  # fused activation, e.g. "RELU"
    macc: int = 0
    weight_bytes: int = 0
    act_bytes: int = 0  # non-constant inputs + all outputs
    input_ids: tuple[int, ...] = ()  # activation tensor ids (for liveness)
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
    tensor_bytes: dict[int, int]  # activation tensor id -> bytes
    input_ids: tuple[int, ...]
    output_ids: tuple[int, ...]
    weight_bytes: int  # distinct constant tensors
    source: str = "builtin"  # path of the .tflite, or "builtin"
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
        return nelem(output) * filt[1]  # batch*OUT*IN, output elements = batch*OUT
    return 0


def totals(net: Network) -> dict:
    macc = sum(l.macc for l in net.layers)
    act = sum(l.act_bytes for l in net.layers)
    moved = net.weight_bytes + act
    return {
        "layers": len(net.layers),
        "macc": macc,
        "weight_bytes": net.weight_bytes,
        "act_bytes": act,
        "intensity": macc / moved if moved else 0.0,
    }


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
            birth.setdefault(t, 0)  # model inputs and unproduced (variable) tensors
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
    return [
        sum(net.tensor_bytes.get(t, 0) for t, (a, b) in ranges.items() if a <= i <= b) for i in range(len(net.layers))
    ]


def peak_memory(net: Network) -> Peak:
    """Weights + largest live activation set + scratch (0, see SCRATCH_NOTE)."""
    live = live_bytes(net) or [sum(net.tensor_bytes.get(t, 0) for t in net.input_ids)]
    act = max(live)
    return Peak(net.weight_bytes + act, live.index(act), net.weight_bytes, act, 0)


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
