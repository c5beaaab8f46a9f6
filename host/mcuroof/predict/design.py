"""The calibration suite's synthetic layers: small shapes per layer-kernel family, chosen so that
the cost terms of predict.cost_model vary apart (rows apart from columns, channels apart from
pixels, run lengths on and off a group of 8, windows clipped by padding or not), and the
family a job's kernel belongs to. Pure computation, no I/O.

Shapes are small (a few ms a call at most with asm_thumb on a Cortex-M3) so the suite takes a
few seconds of board time per emitter; the MLPerf Tiny networks were not used to pick them
beyond their kinds of layer (1x1 and KxK convolutions, 3x3 depthwise, dense, global and 2x2
pools, add).
"""

from __future__ import annotations

import dataclasses

from mcuroof.kernels.ops import dispatch, dsp_common, dsp_conv, dsp_dense
from mcuroof.kernels.ops.contract import DTYPES, Job
from mcuroof.kernels.ops.dsp_common import FRAME_HEAD
from mcuroof.model.builtins import Spec, spec_layer
from mcuroof.model.network import Layer
from mcuroof.predict import cost_model

# (input H, W, C), output C, kernel, stride, padding
_CONV1 = [
    ((1, 1, 8), 4),
    ((2, 4, 16), 8),
    ((4, 2, 16), 8),
    ((3, 3, 8), 16),
    ((2, 2, 32), 4),
    ((1, 6, 12), 8),
    ((4, 4, 4), 4),
    ((2, 3, 24), 12),
    ((2, 2, 64), 6),
    ((1, 2, 288), 4),
    ((2, 1, 400), 2),
    ((6, 10, 48), 24),  # several pixel blocks of a SIMD kernel, long runs
    ((12, 4, 32), 40),
]
_CONV = [
    ((5, 5, 1), 8, (3, 3), 1, "same"),
    ((6, 4, 3), 4, (3, 3), 2, "same"),
    ((4, 4, 8), 8, (3, 3), 1, "same"),
    ((3, 6, 4), 6, (3, 3), 1, "valid"),
    ((7, 4, 1), 4, (5, 3), 2, "same"),
    ((4, 4, 16), 4, (3, 3), 1, "same"),
    ((8, 3, 2), 8, (4, 2), 1, "same"),
    ((6, 6, 3), 8, (3, 3), 2, "same"),
    ((2, 4, 12), 5, (3, 3), 1, "same"),
    ((3, 3, 32), 4, (3, 3), 1, "same"),
    ((4, 2, 40), 2, (3, 3), 1, "same"),
    ((2, 3, 64), 3, (3, 3), 1, "same"),
    ((8, 6, 16), 16, (3, 3), 1, "same"),  # several pixel blocks of a SIMD kernel
    ((11, 7, 8), 12, (3, 3), 2, "same"),
]
_DEPTHWISE = [
    ((5, 5, 8), 1, "same"),
    ((4, 6, 16), 1, "same"),
    ((6, 6, 8), 2, "same"),
    ((3, 3, 4), 1, "same"),
    ((5, 4, 12), 1, "valid"),
    ((8, 2, 8), 1, "same"),
    ((2, 7, 5), 1, "same"),
    ((4, 4, 32), 2, "same"),
    ((1, 3, 24), 1, "same"),
    ((10, 6, 40), 1, "same"),
]
_DENSE = [(8, 4), (64, 12), (20, 8), (128, 16), (33, 5), (256, 2), (16, 16), (300, 6), (512, 3), (640, 2), (400, 5)]
_AVG = [((5, 5, 8), (5, 5)), ((4, 3, 16), (4, 3)), ((6, 6, 4), (2, 2)), ((3, 3, 32), (3, 3)), ((8, 8, 4), (8, 8)),
        ((4, 8, 8), (2, 2)), ((6, 6, 16), (6, 6)), ((9, 4, 4), (9, 4))]  # fmt: skip
_MAX = [((4, 4, 8), (2, 2)), ((6, 6, 4), (3, 3)), ((8, 4, 8), (2, 2)), ((2, 6, 16), (2, 2)), ((6, 2, 3), (2, 2))]
_ELEMENTWISE = [(4, 4, 1), (4, 4, 8), (8, 8, 8), (2, 3, 5), (16, 8, 4)]
# added after the first shapes (numbered after them, so earlier raw logs keep their numbers):
# global pools over tall windows and many channels (a pool's loop per window row and channel
# group was not apart from its per-tap cost in the small windows above)
_TALL_POOLS = [((12, 3, 48), (12, 3)), ((16, 2, 32), (16, 2)), ((20, 1, 24), (20, 1))]
# and convolutions with over 167 inputs an output, which the DSP block kernel cannot hold
_LONG_CONV = [((4, 4, 24), 6, (3, 3)), ((3, 5, 48), 4, (3, 3)), ((5, 3, 20), 8, (3, 3)), ((2, 6, 80), 3, (3, 3)),
              ((3, 4, 36), 5, (3, 3))]  # fmt: skip
_LONG_CONV1 = [((3, 3, 192), 4), ((2, 5, 256), 3), ((4, 2, 176), 6)]
# and depthwise planes wide and tall enough for the MVE kernel's columns of 4 pixels
_WIDE_DEPTHWISE = [
    ((14, 12, 8), 1, "same"),
    ((9, 16, 16), 1, "same"),
    ((12, 10, 24), 2, "same"),
    ((8, 8, 48), 1, "same"),
]


def _out(size: int, k: int, s: int, pad: str) -> int:
    return -(-size // s) if pad == "same" else -(-(size - k + 1) // s)


def _spatial(op: str, hwc: tuple, oc: int, kernel: tuple, stride, pad: str, act: str = "RELU") -> tuple[Spec, tuple]:
    st = (stride, stride) if isinstance(stride, int) else stride
    out = (_out(hwc[0], kernel[0], st[0], pad), _out(hwc[1], kernel[1], st[1], pad), oc)
    return Spec(op, out, kernel, st, act, pad=pad), (1, *hwc)


def specs() -> list[tuple[Spec, tuple]]:
    """Every calibration shape: (its description, its input shape)."""
    out = [_spatial("CONV_2D", hwc, oc, (1, 1), 1, "valid") for hwc, oc in _CONV1]
    out += [_spatial("CONV_2D", hwc, oc, (1, 1), 2, "valid") for hwc, oc in (((4, 4, 8), 8), ((6, 6, 16), 8))]
    out += [_spatial("CONV_2D", hwc, oc, k, s, pad) for hwc, oc, k, s, pad in _CONV]
    out += [_spatial("DEPTHWISE_CONV_2D", hwc, hwc[2], (3, 3), s, pad) for hwc, s, pad in _DEPTHWISE]
    out += [(Spec("FULLY_CONNECTED", (oc,), act="RELU"), (1, c)) for c, oc in _DENSE]
    out += [_spatial("AVERAGE_POOL_2D", hwc, hwc[2], k, k, "valid", "NONE") for hwc, k in _AVG]
    out += [_spatial("MAX_POOL_2D", hwc, hwc[2], k, 2, "valid", "NONE") for hwc, k in _MAX]
    out += [(Spec("ADD", hwc, act="RELU"), (1, *hwc)) for hwc in _ELEMENTWISE]
    out += [_spatial("AVERAGE_POOL_2D", hwc, hwc[2], k, k, "valid", "NONE") for hwc, k in _TALL_POOLS]
    out += [_spatial("CONV_2D", hwc, oc, k, 1, "same") for hwc, oc, k in _LONG_CONV]
    out += [_spatial("CONV_2D", hwc, oc, (1, 1), 1, "valid") for hwc, oc in _LONG_CONV1]
    out += [_spatial("DEPTHWISE_CONV_2D", hwc, hwc[2], (3, 3), s, pad) for hwc, s, pad in _WIDE_DEPTHWISE]
    return out


def layers() -> list[Layer]:
    """The calibration shapes as layers, numbered from 0 (the index is the record's `k`)."""
    out = []
    for i, (spec, shape) in enumerate(specs()):
        layer = spec_layer(i, spec, shape, f"calibration shape {i}")
        if layer.op == "ADD":  # two inputs of the same shape
            layer = dataclasses.replace(layer, inputs=(shape, shape))
        out.append(layer)
    return out


def op_class(layer: Layer) -> str:
    """conv1x1, conv, dw3, dw, dense, avgpool, maxpool, add, relu."""
    op, k = layer.op, tuple(layer.kernel or ())
    if op == "CONV_2D":
        return "conv1x1" if k == (1, 1) else "conv"
    if op == "DEPTHWISE_CONV_2D":
        return "dw3" if k == (3, 3) else "dw"
    return {"FULLY_CONNECTED": "dense", "AVERAGE_POOL_2D": "avgpool", "MAX_POOL_2D": "maxpool"}.get(op, op.lower())


def kernel_variant(job: Job) -> tuple[str, cost_model.Grain | None] | None:
    """The variant of the job's SIMD kernel and how it groups its work (kernels.ops.dsp_conv,
    dsp_dense, mve); None for the other generators."""
    g = dispatch.generator(job)
    name = g.name if g else None
    if name == "dsp-depthwise" and "mve" in job.isa:  # the MVE kernel takes tiles of 4 rows or more
        return dispatch.kernel_isa(job), None
    if name not in ("mve-conv", "dsp-conv"):
        return None
    p = job.tiles[0].params
    k = p[2] * p[6] * p[7] if job.layer.op == "CONV_2D" else p[2]
    if name == "mve-conv":  # kernels.ops.mve.source: inputs in place where 1x1 and K % 16 == 0
        return "", cost_model.Grain(1, 1, 16, stream=k > 64, direct=p[6] == p[7] == 1 and k % 16 == 0)
    groups = -(-k // 4)
    if all(t.params[3] * t.params[4] == 1 for t in job.tiles):  # one pixel: dense passes
        direct = p[6] == p[7] == 1 and p[2] % 4 == 0
        if not direct:
            return "pixel", cost_model.Grain(1, 1, 4)
        reach = (4095 - 4 * dsp_common.unroll(-(-k // 4), dsp_dense.DENSE_UNROLL)) // k + 1
        n = max(1, min(len(dsp_dense.DENSE_ACCS), reach, p[5]))
        return "pixel", cost_model.Grain(1, n, 4, direct=True, widen_per_pass=True)
    if 16 + 24 * groups > 1020:  # beyond the block kernel's reach: pixel pairs (dsp_conv.conv_source)
        return "pairs", cost_model.Grain(2, 2, 4)
    direct = p[6] == p[7] == 1 and p[2] % 4 == 0
    gather = 0 if direct else -(-(groups * 4) // 8) * 8
    triples = max(1, (dsp_conv.BLOCK_FRAME - (FRAME_HEAD + 16 * groups) - gather) // (16 + 24 * groups))
    return "blocks", cost_model.Grain(3, 2, 4, 3 * triples)


def grain(job: Job) -> cost_model.Grain | None:
    v = kernel_variant(job)
    return v[1] if v else None  # (a depthwise variant has none)


def terms(job: Job, tile) -> dict[str, float]:
    """The cost terms of one call of the job's kernel on `tile`."""
    return cost_model.terms(job.layer.op, tile.params, grain(job))


def extent(job: Job, tile) -> dict[str, float]:
    """What a tile spans, for a family's calibrated range (cost_model.EXTENTS): its MACs (its
    elements for a MAC-free op), its widest channel count and the heap its buffers take."""
    p = tile.params
    work = job.layer.macc * tile.fraction if job.layer.macc else tile.nx + tile.nw
    return {
        "macs": float(work),
        "channels": float(max(p[2], p[5], 1)),
        "work_bytes": float(tile.heap_bytes(DTYPES[job.dtype][1])),
    }


def family(job: Job) -> str | None:
    """The layer-kernel family of a job: emitter/dtype/generator/op class (None: no kernel)."""
    g = dispatch.generator(job)
    v = kernel_variant(job)
    variant = f"-{v[0]}" if v and v[0] else ""
    return f"{job.emitter}/{job.dtype}/{g.name}{variant}/{op_class(job.layer)}" if g else None
