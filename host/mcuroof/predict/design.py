"""The calibration design: synthetic layers per layer-kernel family, drawn by a space-filling
design over the shapes real TinyML layers take, and the family a job's kernel belongs to. Pure
computation, no I/O.

The design (docs/prediction.md):
- a Halton sequence (a low-discrepancy, space-filling sequence; fixed: no shape depends on a run)
  per op class over its ranges: channels 1-512, spatial size 1-96, kernels 1x1 to 7x7 with 1xK
  and Kx1, strides 1 and 2, SAME and VALID padding, depthwise windows of every size to 7x7 (3x3
  apart, its own class), dense layers of 8-2048 inputs and 2-2048 outputs, pools with 2x2, 3x3
  and global windows, element-wise ADD and RELU; sizes log-uniform, so small and large are
  sampled alike;
- a shape is kept for an emitter where it runs whole in the board's heap (working sets up to
  most of the heap) and its work is within the emitter's budget (WORK: the board time);
- each family (its generator, its path and op class on this board's core) takes shapes in the
  sequence's order until it has twice as many shapes as the cost terms it pays (at least
  MIN_SHAPES: a 90 % conformal interval needs 9 held-out errors), and each term
  is paid by MIN_PAYERS shapes (or the sequence is spent): every DSP/MVE path and M0 kernel a
  generator picks is a family of its own, so each is calibrated where the board reaches it.

No network's layers were used to pick a shape: the ranges are the issue's (issue 30), not a
network's.
"""

from __future__ import annotations

import dataclasses
import functools
import math

from mcuroof.kernels import emitters
from mcuroof.kernels.ops import dispatch, layer_plan
from mcuroof.kernels.ops.contract import DTYPES, Job, Variant
from mcuroof.kernels.ops.tiles import full_tile
from mcuroof.model.builtins import Spec, spec_layer
from mcuroof.model.network import Layer, nelem
from mcuroof.predict import cost_model

CLASSES = ("conv1x1", "conv", "dw3", "dw", "dense", "avgpool", "maxpool", "add", "relu")
POOL = 1500  # points of the sequence drawn per op class
DIMS = 9  # the sequence's dimensions: sizes, channels, window, padding, stride, alignment
SKIP = 20  # the sequence's first points are left out (Halton's start is correlated across dimensions)
CHANNELS, SPATIAL, DENSE_IN, DENSE_OUT = (1, 512), (1, 96), (8, 2048), (2, 2048)
# the work (MACs, or elements for MAC-free ops) a shape may hold per emitter: calls of up to
# about 10-30 ms of board time on a Cortex-M3 under QEMU, so a board's shapes take about a
# minute of board time per emitter (twice these budgets took 335 s on qemu-m3, 884 shapes)
WORK = {
    e.name: e.work for e in emitters.EMITTERS if e.work
}  # asm_thumb, asm_rv32 2^18, viper 2^16, native 2^12, bytecode 2^11
# a host OS (the unix port) runs its kernels ~1000x as fast as a Cortex-M3 under QEMU: its shapes
# may hold this much more work, so their working sets reach its caches' sizes and beyond
HOST_WORK_SCALE = 32
FLOAT_WORK_SHARE = 0.5  # float32 kernels: half (software floats on cores without an FPU)
MIN_PAYERS = 3  # shapes that pay each cost term of a family
MIN_SHAPES = cost_model.min_held_out()  # and shapes a family has at least: 9, for a 90 % conformal rank
# a class's sequence is left once every family seen is full and this many points in a row
# brought no new family
PATIENCE = 300
# a layer index far above any network's: the shapes' records never look like a layer's
INDEX_BASE = 100_000


def _primes(n: int) -> list[int]:
    out, k = [], 2
    while len(out) < n:
        if all(k % p for p in out):
            out.append(k)
        k += 1
    return out


def halton(i: int, dims: int) -> tuple[float, ...]:
    """Point i of the Halton sequence in [0, 1)^dims (the radical inverse of i in the first primes)."""
    out = []
    for base in _primes(dims):
        f, r, n = 1.0, 0.0, i
        while n:
            f /= base
            r += f * (n % base)
            n //= base
        out.append(r)
    return tuple(out)


def _log(u: float, lo: int, hi: int) -> int:
    """u in [0, 1) to an integer in [lo, hi], log-uniform."""
    return min(hi, max(lo, round(math.exp(math.log(lo) + u * (math.log(hi + 0.5) - math.log(lo))))))


def _aligned(n: int, u: float) -> int:
    """Real layers' channel counts are mostly multiples of 8 or 16, and kernels take other paths
    there (in place where K % 16 == 0, or C % 4 == 0): half the points round up to a multiple of
    8, a quarter of them to 16; the rest keep any count."""
    step = 16 if u < 0.25 else 8 if u < 0.5 else 1
    return -(-n // step) * step


def _pick(u: float, options: tuple):
    return options[min(int(u * len(options)), len(options) - 1)]


def _out(size: int, k: int, s: int, pad: str) -> int:
    return -(-size // s) if pad == "same" else -(-(size - k + 1) // s)


def _spatial(op: str, hwc: tuple, oc: int, kernel: tuple, stride, pad: str, act: str = "RELU") -> tuple[Spec, tuple]:
    st = (stride, stride) if isinstance(stride, int) else stride
    out = (_out(hwc[0], kernel[0], st[0], pad), _out(hwc[1], kernel[1], st[1], pad), oc)
    return Spec(op, out, kernel, st, act, pad=pad), (1, *hwc)


def _window(hw: int, k: int, pad: str) -> int:
    """A spatial size a VALID window of k fits in."""
    return max(hw, k) if pad == "valid" else hw


def _channels(u: float, align: float, lo_hi: tuple[int, int] = CHANNELS) -> int:
    return _aligned(_log(u, *lo_hi), align)


def _conv(u: tuple, k: tuple[int, int]) -> tuple[Spec, tuple]:
    pad, s = _pick(u[5], ("same", "valid")), _pick(u[6], (1, 1, 2))
    h, w = _window(_log(u[0], *SPATIAL), k[0], pad), _window(_log(u[1], *SPATIAL), k[1], pad)
    return _spatial("CONV_2D", (h, w, _channels(u[2], u[8])), _channels(u[3], u[8]), k, s, pad)


def _kernel(u1: float, u2: float, avoid: tuple[int, int]) -> tuple[int, int]:
    """A window of 1-7 by 1-7 other than `avoid` (that shape is a class of its own)."""
    k = (1 + min(int(u1 * 7), 6), 1 + min(int(u2 * 7), 6))
    return (k[0], k[1] % 7 + 1) if k == avoid else k


def _depthwise(u: tuple, k: tuple[int, int]) -> tuple[Spec, tuple]:
    pad, s = _pick(u[5], ("same", "valid")), _pick(u[6], (1, 1, 2))
    h, w = _window(_log(u[0], *SPATIAL), k[0], pad), _window(_log(u[1], *SPATIAL), k[1], pad)
    c = _channels(u[2], u[8])
    return _spatial("DEPTHWISE_CONV_2D", (h, w, c), c, k, s, pad)


def _pool(op: str, u: tuple) -> tuple[Spec, tuple]:
    k = _pick(u[4], (2, 3))
    h, w, c = max(k, _log(u[0], *SPATIAL)), max(k, _log(u[1], *SPATIAL)), _channels(u[2], u[8])
    if op == "AVERAGE_POOL_2D" and u[3] < 1 / 3:  # global: the classifier's pool
        return _spatial(op, (h, w, c), c, (h, w), (h, w), "valid", "NONE")
    return _spatial(op, (h, w, c), c, (k, k), _pick(u[5], (k, 2)), "valid", "NONE")


def _elementwise(op: str, u: tuple) -> tuple[Spec, tuple]:
    hwc = (_log(u[0], *SPATIAL), _log(u[1], *SPATIAL), _channels(u[2], u[8]))
    return Spec(op, hwc, act="RELU" if op == "ADD" else "NONE"), (1, *hwc)


def shape(kind: str, u: tuple) -> tuple[Spec, tuple]:
    """The shape of op class `kind` at a point u of [0, 1)^DIMS."""
    if kind == "conv1x1":
        return _conv(u, (1, 1))
    if kind == "conv":
        return _conv(u, _kernel(u[4], u[7], (1, 1)))
    if kind == "dw3":
        return _depthwise(u, (3, 3))
    if kind == "dw":
        return _depthwise(u, _kernel(u[3], u[4], (3, 3)))
    if kind == "dense":
        outputs, inputs = _channels(u[1], u[8], DENSE_OUT), _channels(u[0], u[8], DENSE_IN)
        return Spec("FULLY_CONNECTED", (outputs,), act="RELU"), (1, inputs)
    if kind in ("avgpool", "maxpool"):
        return _pool("AVERAGE_POOL_2D" if kind == "avgpool" else "MAX_POOL_2D", u)
    return _elementwise(kind.upper(), u)


@functools.lru_cache(maxsize=None)
def layer(kind: str, i: int) -> Layer:
    """Point i of op class `kind`'s sequence as a layer; its index names it in the records."""
    spec, shape_in = shape(kind, halton(SKIP + i, DIMS))
    index = INDEX_BASE + CLASSES.index(kind) * POOL + i
    out = spec_layer(index, spec, shape_in, f"calibration shape {kind} {i}")
    return dataclasses.replace(out, inputs=(shape_in, shape_in)) if out.op == "ADD" else out


def work_budget(emitter: str, dtype: str, host: bool = False) -> float:
    share = FLOAT_WORK_SHARE if dtype == "float32" else 1
    return WORK.get(emitter, 0) * share * (HOST_WORK_SCALE if host else 1)


def whole_job(lay: Layer, dtype: str, emitter: str, heap: int, isa: frozenset, host: bool = False) -> Job | None:
    """The shape's job where it runs whole on the board and within the emitter's budget (None: it does not)."""
    if not dispatch.source(lay.op, emitter, dtype) or dispatch.limit(lay, emitter):
        return None
    work = lay.macc or 2 * nelem(lay.output)
    if work > work_budget(emitter, dtype, host) or full_tile(lay, dtype).heap_bytes(DTYPES[dtype][1]) > heap:
        return None
    job = layer_plan.whole(lay, dtype, emitter, heap)
    return None if job is None else dataclasses.replace(job, isa=isa)


@dataclasses.dataclass
class _Quota:
    """A family's shapes so far, and the cost terms they pay."""

    jobs: list = dataclasses.field(default_factory=list)
    payers: dict = dataclasses.field(default_factory=dict)  # term -> shapes that pay it

    def full(self) -> bool:
        n = len(self.payers)
        return len(self.jobs) >= max(MIN_SHAPES, 2 * n) and all(v >= MIN_PAYERS for v in self.payers.values())

    def add(self, job: Job) -> None:
        self.jobs.append(job)
        for k, v in terms(job, job.tiles[0]).items():
            if v:
                self.payers[k] = self.payers.get(k, 0) + 1


@functools.lru_cache(maxsize=64)
def select(emitter: str, dtype: str, heap: int, isa: frozenset, host: bool = False) -> tuple[Job, ...]:
    """The design's shapes for one emitter and type on a board of this heap and core (`host`: a
    host OS), by op class in the sequence's order: each family's until it is full (_Quota.full)."""
    out = []
    for kind in CLASSES:
        quotas: dict[str, _Quota] = {}
        since_new = 0
        for i in range(POOL):
            if since_new > PATIENCE and all(q.full() for q in quotas.values()):
                break
            since_new += 1
            job = whole_job(layer(kind, i), dtype, emitter, heap, isa, host)
            if job is None:
                continue
            fam = family(job)
            if fam not in quotas:
                quotas[fam], since_new = _Quota(), 0
            if not quotas[fam].full():
                quotas[fam].add(job)
                out.append(job)
    return tuple(out)


def op_class(layer: Layer) -> str:
    """conv1x1, conv, dw3, dw, dense, avgpool, maxpool, add, relu."""
    op, k = layer.op, tuple(layer.kernel or ())
    if op == "CONV_2D":
        return "conv1x1" if k == (1, 1) else "conv"
    if op == "DEPTHWISE_CONV_2D":
        return "dw3" if k == (3, 3) else "dw"
    return {"FULLY_CONNECTED": "dense", "AVERAGE_POOL_2D": "avgpool", "MAX_POOL_2D": "maxpool"}.get(op, op.lower())


def variant(job: Job) -> Variant | None:
    """What the generator of the job's kernel declares of it (kernels.ops.dispatch.Generator.variant):
    the variant that names its family, its grain, its window paths; None: no kernel."""
    return dispatch.variant(job)


def grain(job: Job) -> cost_model.Grain | None:
    v = variant(job)
    return v.grain if v else None


def terms(job: Job, tile, caches: tuple[int, ...] = ()) -> dict[str, float]:
    """The cost terms of one call of the job's kernel on `tile`; with the board's data cache
    sizes (smallest first), the terms of a working set past them (cost_model.level_terms)."""
    v = variant(job)
    t = cost_model.terms(job.layer.op, tile.params, v and v.grain, window_paths_=bool(v and v.window_paths))
    if caches:
        e = extent(job, tile)
        t.update(cost_model.level_terms(e["macs"], e["work_bytes"], caches))
    return t


def cache_sizes(board: dict) -> tuple[int, ...]:
    """The data cache sizes of results.json's board (board.caches), smallest first."""
    return tuple(sorted(c["bytes"] for c in board.get("caches") or [] if c.get("bytes")))


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
    if g is None:
        return None
    name = g.variant(job).name
    return f"{job.emitter}/{job.dtype}/{g.name}{'-' + name if name else ''}/{op_class(job.layer)}"
