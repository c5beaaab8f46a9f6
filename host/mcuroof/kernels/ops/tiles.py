"""Tiles of a layer: the parameters P of a tile, its work, and its companions."""

from __future__ import annotations

import math

from mcuroof.kernels.ops import contract
from mcuroof.kernels.ops.contract import Tile
from mcuroof.model.network import Layer, nelem

SPATIAL = ("CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D")
ELEMENTWISE = ("ADD", "RELU")
REQUANT_M = 5


def unsupported(layer: Layer) -> str | None:
    """Why this layer has no kernel on the board, or None."""
    if layer.op not in contract.OPS:
        return f"no {layer.op} kernel"
    if layer.op == "DEPTHWISE_CONV_2D" and (layer.depth_multiplier or 1) != 1:
        return "depth multiplier other than 1"
    if layer.op == "ADD" and (len(layer.inputs) != 2 or layer.inputs[0] != layer.inputs[1]):
        return "broadcasting ADD"
    if layer.op in SPATIAL and (len(layer.inputs[0]) != 4 or len(layer.output) != 4 or not layer.kernel):
        return "input or output is not NHWC"
    return None


def _pad(size: int, out: int, k: int, s: int, padding: str | None) -> int:
    return max((out - 1) * s + k - size, 0) // 2 if padding == "same" else 0


def requant_shift(taps: int) -> int:
    """S in (acc * M) >> S: about three standard deviations of the accumulator map to 127."""
    spread = 3 * 16 * math.sqrt(max(taps, 1)) * REQUANT_M  # |x*w| ~ 16 for values in -7..7
    return max(0, math.ceil(math.log2(spread / 127)))


def _relu(layer: Layer) -> bool:
    return (layer.activation or "NONE") in ("RELU", "RELU6", "RELU_N1_TO_1") or layer.op == "RELU"


def tile(layer: Layer, dtype: str, rows: int, cols: int, chans: int) -> Tile:
    """The tile computing the first `rows` output rows, `cols` columns and `chans` channels."""
    integer = dtype == "int8"
    lo = (0 if _relu(layer) else -128) if integer else int(_relu(layer))
    op = layer.op
    if op in ELEMENTWISE:
        n = nelem(layer.output)
        nw = rows if op == "ADD" else 0
        return Tile(rows, 1, 1, rows / n, rows, nw, rows, 0, (0,) * 12 + (0, 0, lo, rows))
    if op == "FULLY_CONNECTED":
        cin, cout = nelem(layer.inputs[0]), nelem(layer.output)
        p = (1, 1, cin, 1, 1, chans, 1, 1, 1, 1, 0, 0, REQUANT_M, requant_shift(cin), lo, 0)
        return Tile(1, 1, chans, chans / cout, cin, chans * cin, chans, chans, p)
    _, h, w, c = layer.inputs[0]
    _, oh, ow, oc = layer.output
    (kh, kw), (sh, sw) = layer.kernel, layer.stride or (1, 1)
    pt, pl = _pad(h, oh, kh, sh, layer.padding), _pad(w, ow, kw, sw, layer.padding)
    hin = max(1, min(h, (rows - 1) * sh - pt + kh))
    win = max(1, min(w, (cols - 1) * sw - pl + kw))
    conv = op == "CONV_2D"
    cin = c if conv else chans
    taps = kh * kw * (c if conv else 1)
    p = (hin, win, cin, rows, cols, chans, kh, kw, sh, sw, pt, pl, REQUANT_M, requant_shift(taps), lo, 0)
    nw = {"CONV_2D": chans * kh * kw * c, "DEPTHWISE_CONV_2D": kh * kw * chans}.get(op, 0)
    nb = chans if op in contract.MAC_OPS else 0
    return Tile(
        rows, cols, chans, rows * cols * chans / (oh * ow * oc), hin * win * cin, nw, rows * cols * chans, nb, p
    )


def extent(layer: Layer) -> tuple[int, int, int]:
    """(rows, columns, channels) of the whole layer's output, in the tile's terms."""
    if layer.op in ELEMENTWISE:
        return nelem(layer.output), 1, 1
    if layer.op == "FULLY_CONNECTED":
        return 1, 1, nelem(layer.output)
    return layer.output[1], layer.output[2], layer.output[3]


def _valid(n_out: int, stride: int, pad: int, k: int, size: int) -> int:
    """Taps along one axis that fall inside the input, summed over the output positions."""
    return sum(max(0, min(k, size - (o * stride - pad)) - max(0, pad - o * stride)) for o in range(n_out))


def executed_work(layer: Layer, t: Tile) -> int:
    """What the kernels execute on tile t: MACs without the padded taps they skip (spatial ops;
    pools: window values read), MACs of a dense tile, elements of an elementwise one."""
    op = layer.op
    if op in ELEMENTWISE:
        return t.rows
    H, V, C, OH, OW, OC, KH, KW, SH, SW, PT, PL = t.params[:12]
    if op == "FULLY_CONNECTED":
        return C * OC
    taps = _valid(OH, SH, PT, KH, H) * _valid(OW, SW, PL, KW, V)
    return taps * OC * (C if op == "CONV_2D" else 1)


def full_tile(layer: Layer, dtype: str) -> Tile:
    return tile(layer, dtype, *extent(layer))


def companion_shape(layer: Layer, t: Tile) -> tuple[int, int, int] | None:
    """(rows, cols, chans) of t's companion: half its output channels (rounded up) where they
    were cut; else, for a spatial MAC layer cut in its columns, half its columns, or half its
    channels where it has one column (its per-call cost is then told from its channels only);
    for one cut in its rows only, half its rows (the first rows hold the padding, so scaling by
    executed MACs alone counted their per-pixel costs too often: docs/tiles.md); else None."""
    rows, cols, chans = extent(layer)
    if 1 < t.chans < chans:
        return t.rows, t.cols, -(-t.chans // 2)
    if layer.op in ("CONV_2D", "DEPTHWISE_CONV_2D") and t.chans == chans and t.cols < cols:
        if t.cols > 1:
            return t.rows, -(-t.cols // 2), t.chans
        if t.chans > 1:
            return t.rows, 1, -(-t.chans // 2)
    if layer.op in ("CONV_2D", "DEPTHWISE_CONV_2D") and t.chans == chans and 1 < t.rows < rows:
        return -(-t.rows // 2), t.cols, t.chans
    return None
