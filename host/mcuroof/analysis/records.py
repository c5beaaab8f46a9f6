"""The typed records inside mcuroof: a roof of results.json (`Roof`), read from its JSON object
and written back as the same object (from_dict / to_dict: the keys it had, in their order, and
fields a newer mcuroof added kept in `extra`). results.json's layout is docs/results.md's; the
document stays JSON at its boundary (results/document.py loads and saves it), and the code that
reads it takes typed records with `roofs(...)`. Pure: no I/O."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Roof:
    """A memory roof (bytes/s) or a compute roof (MAC/s), measured or from a profile's theory.

    role: "roof" (the run's top), "ceiling" (an emitter's, a type's or a loop's) or "region" (a
    memory region's read); name: how tables and plots label it."""

    kind: str  # "memory" or "compute"
    source: str  # "measured" or "theoretical"
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
