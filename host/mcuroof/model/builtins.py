"""Built-in layer shapes of well-known networks (MLPerf Tiny), as facts."""

from __future__ import annotations

from typing import NamedTuple

from mcuroof.errors import UserError
from mcuroof.model.network import FUSED_OPS, Layer, Network, Shape, layer_macc, nbytes, nelem

# ---------------------------------------------------------------- built-in networks


class Spec(NamedTuple):
    """One layer of a built-in description. out is HWC (or C for dense); src names inputs."""

    op: str
    out: Shape
    kernel: tuple[int, int] | None = None
    stride: int | tuple[int, int] = 1
    act: str = "NONE"
    name: str | None = None
    src: tuple[str, ...] | None = None  # default: the previous layer
    pad: str = "same"


def _mobilenet_block(hw: int, cin: int, cout: int, stride: int) -> list[Spec]:
    return [
        Spec("DEPTHWISE_CONV_2D", (hw, hw, cin), (3, 3), stride, "RELU"),
        Spec("CONV_2D", (hw, hw, cout), (1, 1), 1, "RELU"),
    ]


KWS_DSCNN = [  # MLPerf Tiny KWS DS-CNN: input 49x10x1 (MFCC), 12 classes
    Spec("CONV_2D", (25, 5, 64), (10, 4), 2, "RELU"),
    *[
        s
        for _ in range(4)
        for s in (
            Spec("DEPTHWISE_CONV_2D", (25, 5, 64), (3, 3), 1, "RELU"),
            Spec("CONV_2D", (25, 5, 64), (1, 1), 1, "RELU"),
        )
    ],
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
    main = [
        Spec("CONV_2D", (hw, hw, ch), (3, 3), stride, "RELU", f"s{n}_conv1", (block_in,)),
        Spec("CONV_2D", (hw, hw, ch), (3, 3), 1, "NONE", f"s{n}_conv2"),
    ]
    if stride == 1:
        return main + [Spec("ADD", (hw, hw, ch), act="RELU", name=f"s{n}_add", src=(block_in, f"s{n}_conv2"))]
    return main + [
        Spec("CONV_2D", (hw, hw, ch), (1, 1), stride, "NONE", f"s{n}_shortcut", (block_in,)),
        Spec("ADD", (hw, hw, ch), act="RELU", name=f"s{n}_add", src=(f"s{n}_shortcut", f"s{n}_conv2")),
    ]


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


def pair(v: int | tuple[int, int]) -> tuple[int, int]:
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
    want = tuple(_conv_out(src[i + 1], spec.kernel[i], pair(spec.stride)[i], spec.pad) for i in (0, 1))
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
        index=i,
        name=spec.name or f"{spec.op.lower()}_{i}",
        op=spec.op,
        dtype="int8",
        inputs=tuple(shapes),
        output=out,
        weights=weights,
        weight_dtypes=wdt,
        kernel=spec.kernel,
        stride=pair(spec.stride) if conv else None,
        padding=spec.pad if conv else None,
        depth_multiplier=1 if spec.op == "DEPTHWISE_CONV_2D" else None,
        activation=spec.act if spec.op in FUSED_OPS else None,
        macc=layer_macc(spec.op, [shapes[0], *weights], out),
        weight_bytes=sum(nbytes(w, d) for w, d in zip(weights, wdt)),
        act_bytes=sum(nelem(s) for s in shapes) + nelem(out),
        input_ids=tuple(ids),
        output_ids=(i + 1,),
    )


def spec_layer(index: int, spec: Spec, input_shape: Shape, where: str = "layer") -> Layer:
    """The Layer a description makes on an input of this shape (NHWC, or N and C for dense)."""
    return _spec_layer(index, spec, [(0, input_shape)], where)


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
    return Network(
        name, tuple(layers), sizes, (0,), (len(layers),), sum(l.weight_bytes for l in layers), "builtin", (note,)
    )
