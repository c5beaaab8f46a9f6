"""Write the held-out zoo: int8 .tflite networks that shaped nothing in mcuroof's calibration.

    .venv/bin/python tools/make_zoo.py [OUT_DIR]      (default models/zoo)

Random weights with a fixed seed per network, quantised as TFLite Micro models are (zoo_graph),
written without TensorFlow (mcuroof.model.tflite_writer). Running it again writes the same bytes.
Every layer kind is one that mcuroof's kernels run (kernels/ops/tiles.unsupported) except the
RESHAPE and SOFTMAX that end a classifier, as they end the MLPerf Tiny networks.
"""

from __future__ import annotations

import sys
import zlib
from collections.abc import Callable
from pathlib import Path

from zoo_graph import Graph

ROOT = Path(__file__).resolve().parents[1]
DESCRIPTION = "mcuroof tools/make_zoo.py: random weights, fixed seed, int8 per-channel quantisation"


def classifier(g: Graph, classes: int) -> None:
    """Flatten, dense, softmax: how the MLPerf Tiny networks end."""
    g.flatten()
    g.dense(classes)
    g.softmax()


def wakeword_temporal(g: Graph) -> None:
    """Streaming keyword spotting: 49 frames x 40 features, temporal (Kx1) depthwise layers."""
    g.conv(64, (3, 1))
    for k, stride, ch in (((3, 1), 1, 64), ((5, 1), 2, 64), ((9, 1), 1, 96), ((15, 1), 1, 96)):
        g.depthwise(k, (stride, 1))
        g.conv(ch, 1)
    g.pool("avg", (25, 1))
    classifier(g, 12)


def dw5x5(g: Graph) -> None:
    """5x5 depthwise separable blocks on 24x24x8, strides 1 and 2, SAME and VALID; max and average pools."""
    g.conv(16, 3)
    g.depthwise(5)
    g.conv(32, 1)
    g.depthwise(5, 2)
    g.conv(64, 1)
    g.depthwise(5, 1, "valid")
    g.pool("max", 2)
    g.pool("avg", 4)
    classifier(g, 10)


def dw7x7(g: Graph) -> None:
    """7x7 depthwise layers on 24x24x8, strides 1 and 2, SAME and VALID."""
    g.depthwise(7)
    g.conv(32, 1)
    g.depthwise(7, 2)
    g.conv(48, 1)
    g.depthwise(7, 2, "valid")
    g.conv(64, 1)
    g.pool("avg", 3)
    classifier(g, 10)


def inverted_residual(g: Graph, out_ch: int, expand: int, stride: int) -> None:
    """MobileNetV2 block: 1x1 expand (ReLU6), 3x3 depthwise (ReLU6), 1x1 project, ADD where shapes match."""
    x = g.last
    in_ch = g.values[x].shape[2]
    g.conv(in_ch * expand, 1, act="RELU6")
    g.depthwise(3, stride, act="RELU6")
    y = g.conv(out_ch, 1, act="NONE")
    if stride == 1 and in_ch == out_ch:
        g.add(x, y)


def mbv2_residual(g: Graph) -> None:
    """Stem, four inverted residual blocks (two with ADD), a 1x1 head, average pool, classifier."""
    g.conv(16, 3, 2, act="RELU6")
    inverted_residual(g, 16, 4, 1)
    inverted_residual(g, 24, 4, 2)
    inverted_residual(g, 24, 4, 1)
    inverted_residual(g, 32, 4, 2)
    g.conv(128, 1, act="RELU6")
    g.pool("avg", 4)
    classifier(g, 10)


def wide_1x1(g: Graph) -> None:
    """8x8x128 -> 256 -> 256 -> 128 pointwise stack (0.5-1 M MACs per layer)."""
    for ch in (256, 256, 128):
        g.conv(ch, 1)
    g.pool("avg", 8)
    classifier(g, 10)


def conv_1xk(g: Graph) -> None:
    """1xK and Kx1 convolutions on 20x20x16, strides 1 and 2, SAME and VALID, then a SAME max pool."""
    g.conv(24, (1, 5))
    g.conv(24, (5, 1), 1, "valid")
    g.conv(32, (1, 3), 2, "valid")
    g.conv(32, (3, 1), 2, "same")
    g.conv(48, (1, 7))
    g.conv(48, (7, 1))
    g.pool("max", 3, 2, "same")
    g.pool("avg", (2, 3))
    classifier(g, 10)


def dense_stack(g: Graph) -> None:
    """Dense layers of 1024-2048 inputs or outputs; the first (64 KB of weights) with its
    transient copy is larger than qemu-m3's 110 KB heap, so it runs there on a tile."""
    g.dense(32, "RELU")
    g.dense(1024, "RELU")
    g.dense(16, "RELU")
    g.dense(8)
    g.softmax()


# name -> (input shape HWC or N, builder)
ZOO: dict[str, tuple[tuple[int, ...], Callable[[Graph], None]]] = {
    "wakeword_temporal": ((49, 1, 40), wakeword_temporal),
    "dw5x5": ((24, 24, 8), dw5x5),
    "dw7x7": ((24, 24, 8), dw7x7),
    "mbv2_residual": ((32, 32, 3), mbv2_residual),
    "wide_1x1": ((8, 8, 128), wide_1x1),
    "conv_1xk": ((20, 20, 16), conv_1xk),
    "dense_stack": ((2048,), dense_stack),
}


def build(name: str) -> bytes:
    """The .tflite bytes of one zoo network (seeded by its name)."""
    shape, body = ZOO[name]
    g = Graph(name, shape, zlib.crc32(name.encode()))
    body(g)
    return g.tflite(DESCRIPTION)


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "models" / "zoo"
    out.mkdir(parents=True, exist_ok=True)
    for name in ZOO:
        data = build(name)
        (out / f"{name}.tflite").write_bytes(data)
        print(f"{out / name}.tflite  {len(data):,} B")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
