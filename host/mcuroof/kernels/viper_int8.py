"""How viper code reads and multiplies int8: shared by the layer kernels (kernels.ops.viper) and
the compute suite's viper ceiling (kernels.compute), so that the ceiling runs the layers' loop."""

from __future__ import annotations


def vterm(a: str, b: str) -> str:
    """The product of the int8 at p[a] and q[b] (ptr8 loads are unsigned)."""
    return f"((p[{a}]^128)-128)*((q[{b}]^128)-128)"


# int8 products summed in one expression: a += of each product alone was 0.84x as fast on the
# unix port (the sum kept in a register, not stored to a after each product); the compute
# suite's viper ceiling sums in the same groups (kernels.compute)
GROUP = 8
