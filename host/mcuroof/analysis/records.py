"""The typed records inside mcuroof: a roof of results.json (`Roof`), read from its JSON object
and written back as the same object (from_dict / to_dict: the keys it had, in their order, and
fields a newer mcuroof added kept in `extra`); a layer-kernel family's name (`Family`,
"em/dtype/gen/cls" in the calibration) and one layer's prediction (`LayerPrediction`, a row of
`mcuroof predict --json`'s layers). results.json's layout is docs/results.md's; the
document stays JSON at its boundary (results/document.py loads and saves it), and the code that
reads it takes typed records with `roofs(...)`. Pure: no I/O."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from mcuroof.model import names as layer_names


@dataclass(frozen=True)
class Roof:
    """A memory roof (bytes/s) or a compute roof (MAC/s), measured or from a profile's theory.

    role: "roof" (the run's top), "ceiling" (an emitter's, a type's or a loop's) or "region" (a
    memory region's read); name: how tables and plots label it."""

    kind: str  # "memory" or "compute"
    source: str | None = None  # "measured" or "theoretical" (results.json always says which)
    name: str = ""
    role: str | None = None  # "roof", "ceiling" or "region"
    dtype: str | None = None
    emitter: str | None = None
    kernel: str | None = None
    bytes_per_s: float | None = None  # memory roofs
    macs_per_s: float | None = None  # compute roofs
    unroll: int | None = None  # a dot-product ceiling's MACs per loop iteration
    level: int | None = None  # a memory roof's level (1: the fastest)
    ws_range: list | None = None  # the working sets (bytes) of a memory level
    region: str | None = None  # a region roof's region
    basis: str | None = None  # a theoretical roof's figures
    extra: Mapping = field(default_factory=dict)  # fields this mcuroof does not know
    keys: tuple = field(default=(), compare=False, repr=False)  # the JSON object's keys, in order

    @classmethod
    def from_dict(cls, d: Mapping) -> Roof:
        known = {k: v for k, v in d.items() if k in _ROOF_FIELDS}
        extra = {k: v for k, v in d.items() if k not in _ROOF_FIELDS}
        return cls(**known, extra=extra, keys=tuple(d))

    def to_dict(self) -> dict:
        """The JSON object: the keys it was read with (a roof made here: its fields set)."""
        keys = self.keys or [f for f in _ROOF_FIELDS if getattr(self, f) is not None] + list(self.extra)
        return {k: getattr(self, k) if k in _ROOF_FIELDS else self.extra[k] for k in keys}

    @property
    def measured(self) -> bool:
        return self.source == "measured"

    @property
    def rate(self) -> float | None:
        """bytes/s of a memory roof, MAC/s of a compute roof."""
        return self.bytes_per_s if self.kind == "memory" else self.macs_per_s


_ROOF_FIELDS = tuple(f.name for f in dataclasses.fields(Roof) if f.name not in ("extra", "keys"))


def roofs(items: Iterable[Roof | Mapping] | Mapping | None) -> list[Roof]:
    """Typed roofs of a results document (its "roofs"), of a list of JSON objects (a profile's
    theoretical roofs, results.json's as suites/ pass them) or of roofs already typed."""
    if isinstance(items, Mapping):
        items = items.get("roofs")
    return [r if isinstance(r, Roof) else Roof.from_dict(r) for r in items or ()]


@dataclass(frozen=True)
class Point:
    """One layer run of results.json's points (analysis.points places it): the layer (index,
    name, op, shapes), its kernel (emitter, dtype), what it did (macc, bytes, seconds, oi and
    their rates), where it sits under its roofs (memory_roof, compute_roof, roof_macs_per_s,
    headroom, bound; op_* under the ceiling its op can use), its tile and its advice. Fields the
    schema knows are attributes (None where the point has none); others stay in `extra`."""

    index: int | None = None
    name: str | None = None
    op: str | None = None
    dtype: str | None = None
    emitter: str | None = None
    macc: float | None = None
    macc_executed: float | None = None
    bytes: float | None = None
    oi: float | None = None
    seconds: float | None = None
    macs_per_s: float | None = None
    bytes_per_s: float | None = None
    verified: bool | None = None
    bound: str | None = None
    tile_fraction: float | None = None
    advice: str | None = None
    advice_kind: str | None = None
    memory_share: float | None = None
    roof_macs_per_s: float | None = None
    headroom: float | None = None
    above_roof: bool | None = None
    memory_roof: str | None = None
    compute_roof: str | None = None
    op_roof: str | None = None
    op_bound: str | None = None
    op_roof_macs_per_s: float | None = None
    op_headroom: float | None = None
    input_shapes: list | None = None
    output_shape: list | None = None
    projection: str | None = None
    user: bool | None = None
    kernel_isa: str | None = None  # "dsp" or "mve": the generator's (None: the generic kernel)
    call_share: float | None = None  # the share of a fitted layer's time spent per call
    file: str | None = None  # a user kernel's file (`mcuroof kernel FILE.py`)
    # the layer's time predicted from the run's calibration alone (predict.predictor.layer_time)
    calibrated_seconds: float | None = None
    calibrated_error: float | None = None
    calibrated_dominant: str | None = None
    calibrated_status: str | None = None
    calibrated_why: str | None = None
    calibrated_family: str | None = None
    calibrated_interval: list | None = None
    calibrated_outside: list | None = None
    extra: Mapping = field(default_factory=dict)
    keys: tuple = field(default=(), compare=False, repr=False)

    @classmethod
    def from_dict(cls, d: Mapping) -> Point:
        known = {k: v for k, v in d.items() if k in _POINT_FIELDS}
        return cls(**known, extra={k: v for k, v in d.items() if k not in _POINT_FIELDS}, keys=tuple(d))

    def to_dict(self) -> dict:
        """The JSON object: the keys it was read with (a point made here: its fields set)."""
        keys = self.keys or [f for f in _POINT_FIELDS if getattr(self, f) is not None] + list(self.extra)
        return {k: getattr(self, k) if k in _POINT_FIELDS else self.extra[k] for k in keys}

    def has(self, key: str) -> bool:
        """Whether the point's JSON object holds `key` (results written before a field existed do not)."""
        return key in self.keys if self.keys else getattr(self, key, None) is not None

    @property
    def short_name(self) -> str:
        """op and index: "DW 3" (model.names.short)."""
        return f"{layer_names.op_short(self.op)} {self.index if self.index is not None else '?'}"

    @property
    def executed_macc(self) -> float | None:
        """The MACs the kernel executed (taps in the padding skipped), else the layer's."""
        return self.macc_executed if self.macc_executed is not None else self.macc


_POINT_FIELDS = tuple(f.name for f in dataclasses.fields(Point) if f.name not in ("extra", "keys"))


def points(items: Iterable[Point | Mapping] | Mapping | None) -> list[Point]:
    """Typed points of a results document (its "points") or of a list of JSON objects."""
    if isinstance(items, Mapping):
        items = items.get("points")
    return [p if isinstance(p, Point) else Point.from_dict(p) for p in items or ()]


@dataclass(frozen=True)
class Family:
    """A layer-kernel family: one emitter, element type, generator (with its variant: "dsp-rows")
    and op class ("dw", "conv1x1", ...); its cost model is fitted on the family's shapes."""

    emitter: str
    dtype: str
    generator: str
    op_class: str

    @classmethod
    def parse(cls, text: str) -> Family:
        """From its name, "asm_thumb/int8/dsp-rows/dw"."""
        return cls(*text.split("/"))

    def __str__(self) -> str:
        return f"{self.emitter}/{self.dtype}/{self.generator}/{self.op_class}"

    def with_op_class(self, op_class: str) -> Family:
        return dataclasses.replace(self, op_class=op_class)

    def with_generator(self, generator: str) -> Family:
        return dataclasses.replace(self, generator=generator)

    @property
    def generator_base(self) -> str:
        """The generator without its variant's second part: "dsp-rows-k3" -> "dsp-rows"."""
        parts = self.generator.split("-")
        return f"{parts[0]}-{parts[1]}" if len(parts) >= 3 else self.generator


@dataclass(frozen=True)
class LayerPrediction:
    """One layer's prediction (predict.predictor.layer_time): `status` "own" (its family's fit),
    "other" (another family's fit: `why`) or "none" (`why`); with a time, its interval
    (cross-validated; None where the family has too few shapes: `interval_why`), `outside` (what
    lies beyond the family's shapes), `ratio` (how far past them), `held_out` (the n of the
    family's conformal quantile), the projection and the cost term that dominates. In a network's
    rows (predictor.network) also the layer (index, name, op, macc), its kernel (emitter, dtype)
    and its roofline time (`bound_seconds`)."""

    status: str
    why: str = ""
    family: str | None = None
    seconds: float | None = None
    interval: list | None = None
    interval_why: str | None = None
    held_out: int | None = None
    pool: str | None = None  # the pool of scale-free held-out errors its interval takes (intervals.pool)
    pool_held_out: int | None = None
    ratio: float | None = None
    outside: list | None = None
    own_family: str | None = None
    projection: str | None = None
    dominant: str | None = None
    index: int | None = None
    name: str | None = None
    op: str | None = None
    macc: int | None = None
    emitter: str | None = None
    dtype: str | None = None
    bound_seconds: float | None = None

    @property
    def timed(self) -> bool:
        return self.seconds is not None

    @property
    def short_name(self) -> str:
        """op and index: "DW 3" (model.names.short)."""
        return f"{layer_names.op_short(self.op)} {self.index if self.index is not None else '?'}"

    @property
    def kernel(self) -> tuple[str | None, str | None]:
        return self.emitter, self.dtype

    def to_dict(self) -> dict:
        """layer_time's JSON object (suites/layers.py copies it into points): the status and why,
        the family where there is one, and with a time every field of it."""
        out = {"status": self.status, "why": self.why}
        if self.family is not None and not self.timed:
            out["family"] = self.family
        if self.timed:
            out |= {f: getattr(self, f) for f in _TIMED}
        return out


_TIMED = ("seconds", "interval", "interval_why", "held_out", "pool", "pool_held_out", "ratio", "outside")
_TIMED += ("family", "own_family")
_TIMED += ("projection", "dominant")
