"""The least time a network can take on a board that has no characterisation: every layer at the
board's theoretical roofs (its profile's figures), the slower of its MACs at the compute ceiling
of its element type and its bytes at the fastest memory. A bound, not a prediction: no kernel
reaches the roofs (the measured boards' layers sit 1.2-10x under theirs). Pure computation."""

from __future__ import annotations

from mcuroof.analysis import records
from mcuroof.analysis.points import layer_bytes
from mcuroof.model.network import Network


def roofline_seconds(net: Network, dtype: str, roofs: list) -> float | None:
    """Sum over layers of max(MACs / compute ceiling, bytes / memory roof); None where the roofs
    have no compute ceiling of this type or no memory roof."""
    typed = records.roofs(roofs)
    compute = [r.macs_per_s for r in typed if r.kind == "compute" and r.dtype == dtype]
    memory = [r.bytes_per_s for r in typed if r.kind == "memory" and r.bytes_per_s]
    if not compute or not memory:
        return None
    peak, bandwidth = max(compute), max(memory)
    return sum(max(layer.macc / peak, layer_bytes(layer, dtype) / bandwidth) for layer in net.layers)
