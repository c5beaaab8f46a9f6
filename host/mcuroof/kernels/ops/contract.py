"""The layer-op contract: `k(X, W, O, P)`, its element types, parameters, tiles and jobs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from mcuroof.kernels import emitters
from mcuroof.kernels.contract import unit_key
from mcuroof.model.network import Layer

DTYPES = {"int8": ("b", 1, 1), "float32": ("f", 4, 0.125)}  # typecode, bytes, value scale
PARAMS = ("H", "V", "C", "OH", "OW", "OC", "KH", "KW", "SH", "SW", "PT", "PL", "M", "S", "LO", "N")
# a tile's P[0..15] by name (tile.params.C); the same fields as the byte offsets an asm routine
# reads them at (P.C == 8: ldr(r4,[r3,P.C]) loads C where r3 holds P), the biases after them
Params = NamedTuple("Params", [(name, int) for name in PARAMS])
P = Params(*(4 * i for i in range(len(PARAMS))))
BIASES = 4 * len(PARAMS)


def shape(params: Params) -> Params:
    """A tile's shape: its params less the requantization and count (M, S, LO, N zeroed)."""
    return params._replace(M=0, S=0, LO=0, N=0)


# the kernel's first line: the tile's shape from P (PARAMS)
HEAD = " H=P[0];V=P[1];C=P[2];OH=P[3];OW=P[4];OC=P[5];KH=P[6];KW=P[7];SH=P[8];SW=P[9];PT=P[10];PL=P[11]\n"
MAC_OPS = emitters.MAC_OPS
OPS = MAC_OPS + ("AVERAGE_POOL_2D", "MAX_POOL_2D", "ADD", "RELU")

# what each emitter has a kernel for (kernels.emitters: viper has no float pointers, Cortex-M0 no
# FPU, the Armv6-M asm_thumb kernels run the MAC layers and average pools; dispatch.source agrees: tested)
EMITTER_DTYPES = {e.name: e.dtypes for e in emitters.EMITTERS if e.layers}
EMITTER_OPS = {e.name: e.ops for e in emitters.EMITTERS if e.layers and e.ops is not None}


def runs(op: str, emitter: str, dtype: str) -> bool:
    """Whether the emitter has a kernel for op at this element type."""
    return op in EMITTER_OPS.get(emitter, OPS) and dtype in EMITTER_DTYPES.get(emitter, ())


ARRAY_OVERHEAD = 32  # bytes of heap per array object beside its data (estimate)


@dataclass(frozen=True)
class Tile:
    rows: int  # output rows (spatial ops), outputs (dense) or elements
    cols: int  # output columns (spatial ops; else 1)
    chans: int  # output channels (1 for dense and elementwise)
    fraction: float  # share of the layer's output this tile computes
    nx: int  # elements of X, W, O and biases the firmware allocates
    nw: int
    no: int
    nb: int
    params: Params  # P[0..15] (PARAMS); a tuple given is named here

    def __post_init__(self):
        object.__setattr__(self, "params", Params(*self.params))

    def data_bytes(self, isz: int) -> int:
        """Bytes of X, W, O and of P (16 parameters and the biases)."""
        return (self.nx + self.nw + self.no) * isz + 4 * (16 + self.nb)

    def heap_bytes(self, isz: int) -> int:
        """Heap the firmware needs: data, and the transient copy while an array is made."""
        return self.data_bytes(isz) + max(self.nx, self.nw, self.no) * isz + 4 * ARRAY_OVERHEAD

    def firmware_list(self) -> list[int]:
        return [self.nx, self.nw, self.no, self.nb, *self.params]


@dataclass(frozen=True)
class Job:
    layer: Layer
    dtype: str
    emitter: str
    tiles: tuple[Tile, ...]  # candidates, largest first, then the companions
    why_tiled: str  # "", "memory" or "time"
    companions: int = 0  # how many of `tiles` (at the end) are companions (half channels or columns)
    isa: frozenset[str] = frozenset()  # the core's instruction sets beyond Armv6-M (board.identity)

    @property
    def candidates(self) -> tuple[Tile, ...]:
        return self.tiles[: len(self.tiles) - self.companions]

    @property
    def key(self) -> str:
        return unit_key("layers", self.emitter, self.dtype, self.layer.index)


@dataclass(frozen=True)
class Grain:
    """How a convolution or dense kernel groups its work (SIMD kernels): `pixels` output pixels
    and `chans` channels a pass, inputs in groups of `inputs` (padded with zeros), and the
    weights widened again for every block of `block` pixels (0: once a call)."""

    pixels: int = 1
    chans: int = 1
    inputs: int = 1
    block: int = 0
    stream: bool = False  # the inputs stream from memory with the weights (MVE, K over 64)
    direct: bool = False  # the inputs are read in place: none gathered
    widen_per_pass: bool = False  # the inputs are widened again for each pass (DSP dense passes)


@dataclass(frozen=True)
class Variant:
    """What a generator declares of its kernel for a job, for the calibration (predict.design):
    the variant that names its family after the generator's name ("": none), how it groups its
    work (None: no grain), and whether windows clipped by padding take paths of their own (the
    cost model's window terms)."""

    name: str = ""
    grain: Grain | None = None
    window_paths: bool = False
