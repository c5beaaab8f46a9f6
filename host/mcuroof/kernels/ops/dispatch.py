"""The one dispatcher of layer-op generators: which one emits a job's kernel."""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Callable

from mcuroof.kernels import emitters
from mcuroof.kernels.listing import sent
from mcuroof.kernels.ops import dsp_conv, dsp_depthwise, m0, mve, pool, rv32
from mcuroof.kernels.ops.contract import DTYPES, Job, Variant
from mcuroof.kernels.ops.m0 import ASM_DENSE, ASM_POINTWISE
from mcuroof.kernels.ops.m0_routines import ASM_PRUN, ASM_ROWS
from mcuroof.kernels.ops.tiles import companion_shape


@dataclass(frozen=True)
class Generator:
    """A generator of layer-op kernels: where it applies, what it emits, what it needs."""

    name: str
    needs: frozenset[str]  # instruction sets beyond Armv6-M (board.identity)
    applies: Callable[[Job], bool]
    source: Callable[[Job], str]
    isa: Callable[[Job], str | None] = lambda job: None  # the extension its kernel uses
    # its kernel's variant for a job and how it groups its work (predict.design asks: the calibration family)
    variant: Callable[[Job], Variant] = lambda job: Variant()


def _generic(job: Job) -> str | None:
    return source(job.layer.op, job.emitter, job.dtype)


def _generic_variant(job: Job) -> Variant:
    return generic_module(job.emitter).variant(job)


def _m0_depthwise(job: Job) -> bool:
    return job.emitter in m0.EMITTERS and job.dtype == "int8" and job.layer.op == "DEPTHWISE_CONV_2D"


def _rows_source(job: Job) -> str:
    """ASM_ROWS compiled apart, like ASM_DOT."""
    return ASM_ROWS + "#--\n" + (ASM_DENSE if job.layer.op == "FULLY_CONNECTED" else ASM_PRUN + "#--\n" + ASM_POINTWISE)


# In order: the first that applies to a job, and whose instruction sets the job's core has, emits it.
GENERATORS = (
    Generator("mve-conv", frozenset({"mve"}), mve.applies, mve.source, lambda job: "mve", mve.variant),
    Generator(
        "dsp-conv",
        frozenset({"dsp"}),
        dsp_conv.conv_applies,
        dsp_conv.conv_source,
        lambda job: "dsp",
        dsp_conv.conv_variant,
    ),
    Generator(
        "dsp-depthwise",
        frozenset({"dsp"}),
        dsp_depthwise.depthwise_applies,
        dsp_depthwise.source,
        dsp_depthwise.kernel_isa,
        dsp_depthwise.variant,
    ),
    Generator("dsp-pool", frozenset({"dsp"}), pool.applies, pool.source, pool.isa),
    Generator("m0-rows", frozenset(), m0.rows_apply, _rows_source),
    Generator("m0-conv", frozenset(), m0.smac_apply, m0.asm_smac_source),
    Generator("m0-depthwise", frozenset(), _m0_depthwise, m0.asm_channels_source, variant=m0.dw_variant),
    Generator("rv32-pointwise", frozenset(), rv32.pointwise_applies, rv32.pointwise),
    Generator("rv32-conv", frozenset(), rv32.conv_applies, rv32.conv_job),
    Generator("rv32", frozenset(), rv32.applies, lambda job: rv32.source(job.layer.op, job.dtype)),
    Generator("generic", frozenset(), lambda job: _generic(job) is not None, _generic, variant=_generic_variant),
)


def generator(job: Job) -> Generator | None:
    """The generator that emits this job's kernel (None: no kernel for it)."""
    return next((g for g in GENERATORS if g.needs <= job.isa and g.applies(job)), None)


def kernel_isa(job: Job) -> str | None:
    """The extension this job's kernel uses: "mve", "dsp", or None (Armv6-M code)."""
    g = generator(job)
    return g.isa(job) if g else None


def variant(job: Job) -> Variant | None:
    """What the generator of the job's kernel declares of it for the calibration (None: no kernel)."""
    g = generator(job)
    return g.variant(job) if g else None


@functools.lru_cache(maxsize=None)
def generic_module(em: str) -> ModuleType | None:
    """The kernels.ops module of the emitter's generic layer kernels (kernels.emitters.Emitter.generic):
    each has generic(op, emitter, dtype), limit(layer) and variant(job)."""
    found = emitters.get(em)
    return importlib.import_module(f"{__package__}.{found.generic}") if found and found.generic else None


def source(op: str, em: str, ty: str) -> str | None:
    """The generic kernel `k` of this op for any core, or None where the emitter cannot run it
    (the other generators only make faster kernels of ops this one runs)."""
    mod = generic_module(em)
    return mod.generic(op, em, ty) if mod else None


def limit(layer, em: str) -> str | None:
    """Why the emitter's kernels cannot run this layer of an op they run (None: they can)."""
    mod = generic_module(em)
    return mod.limit(layer) if mod else None


def runs(op: str, em: str, ty: str) -> bool:
    """Whether the emitter has a kernel for op at element type ty."""
    return source(op, em, ty) is not None


def script(job: Job) -> str:
    """What is sent to run a Job's kernel: its listing without the comments."""
    return sent(listing(job))


def listing(job: Job) -> str:
    """The scripts that define a Job's kernel and run it (firmware/layers.py layer()):
    a collection first, then the def, then the call, each compiled on its own (8 KB heap);
    with the reader's comments (kernels.listing)."""
    tc, _, q = DTYPES[job.dtype]
    cands = _tile_list(job.candidates)
    src, g = guarded(generator(job).source(job))
    call = f"layer(k,{job.layer.index},'{job.emitter}','{job.dtype}','{tc}',{q},"
    src = _FREE + (_FREE_DSP if "dsp" in job.isa else "") + _COLLECT + src.replace("#--\n", _COLLECT)
    return src + "#--\n_j=" + call + cands + f",0,{g})\n" + _companion_call(job, call, g)


# A k defined in Python (no emitter's decorator) returns at once when X is None, so that
# firmware/layers.py times its call alone: MicroPython puts a frame of more than 11 words on
# the heap, first fit, and that search costs more the more small holes lie before a large
# enough one (qemu-m3: 119 us a call on a clean heap, 429 us with 200 holes of 16 bytes). That
# is the heap's state, not the layer's: the time of a tile is taken without it (docs/tiles.md).
K_DEF = "def k(X,W,O,P):\n"
GUARD = " if X is None:return\n"


def guarded(src: str) -> tuple[str, int]:
    """The kernel source with GUARD as the first line of its k where k is defined in Python,
    and 1; else the source unchanged and 0."""
    i = src.rfind(K_DEF)
    if i < 0 or src[:i].rstrip("\n").rsplit("\n", 1)[-1].startswith("@"):
        return src, 0
    i += len(K_DEF)
    return src[:i] + GUARD + src[i:], 1


# The previous layer's kernel and routines are let go before this one's are compiled: the
# micro:bit's heap is fragmented enough that compiling a routine beside them failed (MemoryError).
# Deleted, not set to None: new globals grow the globals dict, and a grown dict placed in the
# heap made the next routine's compile fail (MemoryError) on a fresh board.
_FREE = (
    "_g=globals()\nfor _n in ('k','dwpix','dwrun','srun','prun','cols','rq','srow','rows','apool','dot'):\n"
    " if _n in _g:del _g[_n]\n_g=None\n"
)
# and on DSP cores the DSP and MVE kernels' routines (kd, kr, kg; kp0, km0, ... one per tile shape)
_FREE_DSP = (
    "_g=globals()\nfor _n in list(_g):\n"
    " if _n in ('kd','kr','kg') or _n[:2] in ('kp','km') and _n[2:].isdigit():del _g[_n]\n_g=None\n"
)
# A collection in a piece of its own after that, and between two routines' pieces: a routine
# compiled right after another piece failed (MemoryError) where it compiled after a separate
# gc.collect() piece (the previous piece's own buffers are free by then).
_COLLECT = "#--\ngc.collect()\n#--\n"


def _companion_call(job, call: str, g: int = 0) -> str:
    """Run the companion of the candidate that ran (Job.companions), numbered as in job.tiles."""
    n = len(job.candidates)
    if not job.companions:
        return ""
    number, tiles, i = [], [], n
    for t in job.candidates:
        c = job.tiles[i] if i < len(job.tiles) else None
        has = bool(c) and (c.rows, c.cols, c.chans) == companion_shape(job.layer, t)
        number.append(i if has else -1)
        tiles.append(job.tiles[i] if has else None)
        i += has
    lists = "[" + ",".join(_tile_list([t]) if t else "0" for t in tiles) + "]"
    return f"#--\nif _j is not None and {number}[_j]>=0:\n {call}{lists}[_j],{number}[_j],{g})\n"


def _tile_list(tiles) -> str:
    return "[" + ",".join("[" + ",".join(str(v) for v in t.firmware_list()) + "]" for t in tiles) + "]"
