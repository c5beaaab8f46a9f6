"""Where the package's data lives: firmware/ (MicroPython sent to the board) and boards/ (profiles).

A wheel (pip install ., pipx) ships them inside the package as mcuroof/_firmware and
mcuroof/_boards (pyproject.toml maps the repository's folders there); an editable install reads
the repository's folders themselves."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

_REPO = Path(__file__).resolve().parents[2]


def data_dir(name: str) -> Path:
    """The folder `firmware` or `boards`: packaged first, else the repository's."""
    packaged = Path(str(resources.files("mcuroof") / f"_{name}"))
    return packaged if packaged.is_dir() else _REPO / name
