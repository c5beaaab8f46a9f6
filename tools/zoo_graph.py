"""An int8 network built layer by layer, as the TFLite converter would quantise it.

Each layer is computed in float64 with numpy on a fixed random input as it is added (He-normal
weights, small biases), so every activation tensor gets the scale, zero point and min/max of
the values it really takes, the way post-training quantisation calibrates them. Filters are
quantised symmetrically per output channel (conv OHWI: dimension 0; depthwise 1HWC: dimension
3), dense weights per tensor, biases to int32 at input scale x weight scale. Pools and RESHAPE
keep their input's quantisation; SOFTMAX outputs 1/256 with zero point -128 (TFLite's rule).
"""

from __future__ import annotations

import numpy as np
import tflite
from numpy.lib.stride_tricks import sliding_window_view

from mcuroof.model.tflite_writer import Operator, Quant, Tensor, write_model

OP = tflite.BuiltinOperator
ACT = {"NONE": 0, "RELU": 1, "RELU6": 3}
PAD = {"same": tflite.Padding.SAME, "valid": tflite.Padding.VALID}
# operator versions of int8 kernels, as in the MLPerf Tiny models (ADD, MAX_POOL: TFLite's int8 versions)
VERSION = {OP.CONV_2D: 3, OP.DEPTHWISE_CONV_2D: 3, OP.FULLY_CONNECTED: 4, OP.AVERAGE_POOL_2D: 2}
VERSION |= {OP.MAX_POOL_2D: 2, OP.ADD: 2, OP.RESHAPE: 1, OP.SOFTMAX: 2}


def _activate(y: np.ndarray, act: str) -> np.ndarray:
    return {"NONE": y, "RELU": np.maximum(y, 0), "RELU6": np.clip(y, 0, 6)}[act]


def out_size(size: int, k: int, s: int, padding: str) -> int:
    return -(-size // s) if padding == "same" else (size - k) // s + 1


def windows(x: np.ndarray, k: tuple[int, int], s: tuple[int, int], padding: str, fill=0.0) -> np.ndarray:
    """(OH, OW, C, KH, KW) views of an (H, W, C) input, with TensorFlow's SAME padding."""
    (h, w, _), (kh, kw), (sh, sw) = x.shape, k, s
    oh, ow = out_size(h, kh, sh, padding), out_size(w, kw, sw, padding)
    if padding == "same":
        ph, pw = max((oh - 1) * sh + kh - h, 0), max((ow - 1) * sw + kw - w, 0)
        x = np.pad(x, ((ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)), constant_values=fill)
    return sliding_window_view(x, (kh, kw), axis=(0, 1))[::sh, ::sw][:oh, :ow]


def activation_quant(y: np.ndarray) -> Quant:
    """Asymmetric int8 parameters covering [min(y, 0), max(y, 0)]."""
    lo, hi = _round(min(float(y.min()), 0.0)), _round(max(float(y.max()), 0.0))
    scale = max(hi - lo, 1e-6) / 255
    zero = int(np.clip(round(-128 - lo / scale), -128, 127))
    return Quant((scale,), (zero,), (lo,), (hi,))


def _round(v: float) -> float:
    """v to 4 significant digits: the last bits of a float sum differ between BLAS builds, and
    the file must not."""
    return float(f"{v:.4g}")


def weight_quant(w: np.ndarray, dim: int | None) -> tuple[bytes, Quant]:
    """Symmetric int8 weights: per channel along `dim`, or per tensor where dim is None."""
    axes = tuple(a for a in range(w.ndim) if a != dim) if dim is not None else None
    peak = np.maximum(np.abs(w).max(axis=axes), 1e-8).astype(np.float32).reshape(-1)
    shape = [-1 if a == dim else 1 for a in range(w.ndim)] if dim is not None else [1] * w.ndim
    q = np.clip(np.round(w / (peak / 127).reshape(shape)), -127, 127).astype(np.int8)
    scales = tuple(float(p / 127) for p in peak)
    return q.tobytes(), Quant(
        scales, (0,) * len(scales), tuple(-float(p) for p in peak), tuple(map(float, peak)), dim or 0
    )


def bias_quant(bias: np.ndarray, in_scale: float, w_scales: tuple[float, ...]) -> tuple[bytes, Quant]:
    scales = np.float32(in_scale) * np.asarray(w_scales, dtype=np.float32)
    q = np.round(bias / (scales if len(w_scales) > 1 else scales[0])).astype(np.int32)
    return q.tobytes(), Quant(tuple(map(float, scales)), (0,) * len(scales))


class Graph:
    """A network under construction: call the layer methods in order, then `tflite()`."""

    def __init__(self, name: str, input_shape: tuple[int, ...], seed: int):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.tensors: list[Tensor] = []
        self.ops: list[Operator] = []
        self.values: dict[int, np.ndarray] = {}
        self.counts: dict[str, int] = {}
        x = self.rng.standard_normal(input_shape)
        self.input = self.last = self._activation("input_1", x)

    # ------------------------------------------------------------ tensors

    def _add(self, tensor: Tensor) -> int:
        self.tensors.append(tensor)
        return len(self.tensors) - 1

    def _activation(self, name: str, y: np.ndarray, quant: Quant | None = None) -> int:
        t = self._add(Tensor(name, (1, *y.shape), tflite.TensorType.INT8, None, quant or activation_quant(y), True))
        self.values[t] = y
        return t

    def _name(self, kind: str) -> str:
        n = self.counts[kind] = self.counts.get(kind, 0) + 1
        return f"{kind}_{n}"

    def _scale(self, t: int) -> float:
        return self.tensors[t].quant.scale[0]

    def _weights(self, name: str, w: np.ndarray, bias: np.ndarray, x: int, dim: int | None) -> tuple[int, int]:
        data, q = weight_quant(w, dim)
        wt = self._add(Tensor(name + "/weights", w.shape, tflite.TensorType.INT8, data, q))
        bdata, bq = bias_quant(bias, self._scale(x), q.scale)
        bt = self._add(Tensor(name + "/bias", bias.shape, tflite.TensorType.INT32, bdata, bq))
        return wt, bt

    def _he(self, shape: tuple[int, ...], fan_in: int) -> np.ndarray:
        return (self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    def _bias(self, n: int) -> np.ndarray:
        return (self.rng.standard_normal(n) * 0.1).astype(np.float32)

    def _op(self, code: int, ins: tuple[int, ...], out: int, options=None) -> int:
        self.ops.append(Operator(code, VERSION[code], ins, (out,), options))
        self.last = out
        return out

    # ------------------------------------------------------------ layers

    def conv(self, out_ch: int, k, stride=1, padding="same", act="RELU", x: int | None = None) -> int:
        """CONV_2D with an OHWI filter of k = (KH, KW) (or an int for KxK)."""
        x = self.last if x is None else x
        k, s = _pair(k), _pair(stride)
        xin = self.values[x]
        w = self._he((out_ch, *k, xin.shape[2]), k[0] * k[1] * xin.shape[2])
        b = self._bias(out_ch)
        y = _activate(np.einsum("hwckl,oklc->hwo", windows(xin, k, s, padding), w) + b, act)
        name = self._name(f"conv{k[0]}x{k[1]}")
        wt, bt = self._weights(name, w, b, x, 0)
        return self._op(OP.CONV_2D, (x, wt, bt), self._activation(name, y), _conv_options(s, padding, act))

    def depthwise(self, k, stride=1, padding="same", act="RELU", x: int | None = None) -> int:
        """DEPTHWISE_CONV_2D, depth multiplier 1, with a 1HWC filter."""
        x = self.last if x is None else x
        k, s = _pair(k), _pair(stride)
        xin = self.values[x]
        c = xin.shape[2]
        w, b = self._he((1, *k, c), k[0] * k[1]), self._bias(c)
        y = _activate(np.einsum("hwckl,klc->hwc", windows(xin, k, s, padding), w[0]) + b, act)
        name = self._name(f"dw{k[0]}x{k[1]}")
        wt, bt = self._weights(name, w, b, x, 3)
        return self._op(OP.DEPTHWISE_CONV_2D, (x, wt, bt), self._activation(name, y), _dw_options(s, padding, act))

    def add(self, a: int, b: int, act="NONE") -> int:
        y = _activate(self.values[a] + self.values[b], act)
        return self._op(OP.ADD, (a, b), self._activation(self._name("add"), y), _add_options(act))

    def pool(self, kind: str, k, stride=None, padding="valid") -> int:
        """AVERAGE_POOL_2D ("avg") or MAX_POOL_2D ("max"); output quantised as its input."""
        x, k = self.last, _pair(k)
        s = _pair(stride or k)
        v = windows(self.values[x], k, s, padding, -np.inf if kind == "max" else 0.0)
        if kind == "avg" and padding == "same":
            raise ValueError("average pools here are VALID (SAME would average padding)")
        y = v.max(axis=(3, 4)) if kind == "max" else v.mean(axis=(3, 4))
        code = OP.MAX_POOL_2D if kind == "max" else OP.AVERAGE_POOL_2D
        out = self._activation(self._name(kind + "pool"), y, self.tensors[x].quant)
        return self._op(code, (x,), out, _pool_options(k, s, padding))

    def flatten(self) -> int:
        """RESHAPE to (1, N), with its constant shape tensor (-1, N) as the converter writes it."""
        x = self.last
        y = self.values[x].reshape(-1)
        shape = self._add(Tensor(self._name("flatten") + "/shape", (2,), tflite.TensorType.INT32,
                                 np.array([-1, y.size], dtype=np.int32).tobytes(), Quant()))  # fmt: skip
        return self._op(OP.RESHAPE, (x, shape), self._activation(self._name("reshape"), y, self.tensors[x].quant))

    def dense(self, units: int, act="NONE") -> int:
        """FULLY_CONNECTED with an (OUT, IN) weight quantised per tensor."""
        x = self.last
        xin = self.values[x].reshape(-1)
        w, b = self._he((units, xin.size), xin.size), self._bias(units)
        y = _activate(w @ xin + b, act)
        name = self._name("dense")
        wt, bt = self._weights(name, w, b, x, None)
        return self._op(OP.FULLY_CONNECTED, (x, wt, bt), self._activation(name, y), _fc_options(act))

    def softmax(self) -> int:
        x = self.last
        z = self.values[x] - self.values[x].max()
        y = np.exp(z) / np.exp(z).sum()
        out = self._activation("Identity", y, Quant((1 / 256,), (-128,)))
        return self._op(OP.SOFTMAX, (x,), out, _softmax_options())

    def tflite(self, description: str) -> bytes:
        return write_model(self.tensors, self.ops, [self.input], [self.last], description)


def _pair(v) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else tuple(v)


# ---------------------------------------------------------------- operator options


def _conv_options(s, padding, act):
    def build(b):
        tflite.Conv2DOptionsStart(b)
        tflite.Conv2DOptionsAddPadding(b, PAD[padding])
        tflite.Conv2DOptionsAddStrideW(b, s[1])
        tflite.Conv2DOptionsAddStrideH(b, s[0])
        tflite.Conv2DOptionsAddFusedActivationFunction(b, ACT[act])
        tflite.Conv2DOptionsAddDilationWFactor(b, 1)
        tflite.Conv2DOptionsAddDilationHFactor(b, 1)
        return tflite.BuiltinOptions.Conv2DOptions, tflite.Conv2DOptionsEnd(b)

    return build


def _dw_options(s, padding, act):
    def build(b):
        tflite.DepthwiseConv2DOptionsStart(b)
        tflite.DepthwiseConv2DOptionsAddPadding(b, PAD[padding])
        tflite.DepthwiseConv2DOptionsAddStrideW(b, s[1])
        tflite.DepthwiseConv2DOptionsAddStrideH(b, s[0])
        tflite.DepthwiseConv2DOptionsAddDepthMultiplier(b, 1)
        tflite.DepthwiseConv2DOptionsAddFusedActivationFunction(b, ACT[act])
        tflite.DepthwiseConv2DOptionsAddDilationWFactor(b, 1)
        tflite.DepthwiseConv2DOptionsAddDilationHFactor(b, 1)
        return tflite.BuiltinOptions.DepthwiseConv2DOptions, tflite.DepthwiseConv2DOptionsEnd(b)

    return build


def _pool_options(k, s, padding):
    def build(b):
        tflite.Pool2DOptionsStart(b)
        tflite.Pool2DOptionsAddPadding(b, PAD[padding])
        tflite.Pool2DOptionsAddStrideW(b, s[1])
        tflite.Pool2DOptionsAddStrideH(b, s[0])
        tflite.Pool2DOptionsAddFilterWidth(b, k[1])
        tflite.Pool2DOptionsAddFilterHeight(b, k[0])
        tflite.Pool2DOptionsAddFusedActivationFunction(b, ACT["NONE"])
        return tflite.BuiltinOptions.Pool2DOptions, tflite.Pool2DOptionsEnd(b)

    return build


def _fc_options(act):
    def build(b):
        tflite.FullyConnectedOptionsStart(b)
        tflite.FullyConnectedOptionsAddFusedActivationFunction(b, ACT[act])
        return tflite.BuiltinOptions.FullyConnectedOptions, tflite.FullyConnectedOptionsEnd(b)

    return build


def _add_options(act):
    def build(b):
        tflite.AddOptionsStart(b)
        tflite.AddOptionsAddFusedActivationFunction(b, ACT[act])
        return tflite.BuiltinOptions.AddOptions, tflite.AddOptionsEnd(b)

    return build


def _softmax_options():
    def build(b):
        tflite.SoftmaxOptionsStart(b)
        tflite.SoftmaxOptionsAddBeta(b, 1.0)
        return tflite.BuiltinOptions.SoftmaxOptions, tflite.SoftmaxOptionsEnd(b)

    return build
