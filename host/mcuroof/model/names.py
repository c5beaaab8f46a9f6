"""Short readable names of a model's layers ("DW 3", "CONV 0", "FC 11") for plots and tables;
the model's tensor name (often long fused TF names) stays in the hover text and the exports."""

from __future__ import annotations

OP_SHORT = {
    "CONV_2D": "CONV",
    "DEPTHWISE_CONV_2D": "DW",
    "FULLY_CONNECTED": "FC",
    "AVERAGE_POOL_2D": "AVGPOOL",
    "MAX_POOL_2D": "MAXPOOL",
    "RESHAPE": "RESHAPE",
    "SOFTMAX": "SOFTMAX",
    "ADD": "ADD",
    "RELU": "RELU",
    "TRANSPOSE_CONV": "TCONV",
    "CONCATENATION": "CONCAT",
    "QUANTIZE": "QUANT",
    "DEQUANTIZE": "DEQUANT",
}


def op_short(op: str | None) -> str:
    op = op or "?"
    return OP_SHORT.get(op, op.replace("_2D", "")[:10])


def short(layer: dict) -> str:
    """op and index of a point or layer record: "DW 3"."""
    return f"{op_short(layer.get('op'))} {layer.get('index', '?')}"


def shape_text(shape) -> str:
    """A tensor shape without its batch dimension of 1: 25x5x64; "-" when unknown."""
    if not shape:
        return "-"
    dims = list(shape)
    if len(dims) > 1 and dims[0] == 1:
        dims = dims[1:]
    return "x".join(str(d) for d in dims)
