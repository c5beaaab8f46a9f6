"""A network by name: a built-in or a .tflite file."""

from __future__ import annotations

from pathlib import Path

from mcuroof.errors import UserError
from mcuroof.model.builtins import BUILTINS, builtin_network
from mcuroof.model.network import Network
from mcuroof.model.tflite import read_tflite


def load_network(spec: str) -> Network:
    """A built-in network by name (see BUILTINS), or a .tflite file by path."""
    if spec in BUILTINS:
        return builtin_network(spec)
    path = Path(spec)
    if not path.exists() and not spec.lower().endswith(".tflite") and "/" not in spec:
        raise UserError(f"{spec}: no such file, and not a built-in network (built-ins: {', '.join(BUILTINS)})")
    return read_tflite(path)
