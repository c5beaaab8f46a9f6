"""The options several commands share (predict, choose, run, compare), read one way: comma-separated
lists (boards, Vela configurations), --emitter and --dtype against what exists, --roofs as a
calibrated run, --json and --html. Each refusal is one line naming the option (a UserError)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mcuroof.errors import UserError
from mcuroof.suites import layers

if TYPE_CHECKING:
    from mcuroof.predict import predictor


def add_roofs(p, text: str) -> None:
    p.add_argument("--roofs", type=Path, nargs="+", metavar="RESULTS", help=text)


def add_dtype(p, text: str) -> None:
    p.add_argument("--dtype", help=text)


def add_json(p, text: str) -> None:
    p.add_argument("--json", action="store_true", help=text)


def add_html(p, text: str) -> None:
    p.add_argument("--html", type=Path, metavar="FILE", help=text)


def names(text: str | None) -> list[str]:
    """The names of a comma-separated option ('pico, qemu-m3,' -> ['pico', 'qemu-m3'])."""
    return [n.strip() for n in (text or "").split(",") if n.strip()]


def emitters(text: str | None) -> list[str] | None:
    """--emitter: emitters with layer kernels, or None (every one the board has)."""
    return layers.parse_list(text, layers.EMITTERS, "--emitter")


def dtypes(text: str | None, allowed=None) -> list[str] | None:
    """--dtype: element types among `allowed` (default: what a prediction takes), or None (the
    model's own)."""
    if allowed is None:
        from mcuroof.predict.predictor import DTYPES as allowed
    return layers.parse_list(text, tuple(allowed), "--dtype")


def model_dtypes(chosen: list[str] | None, net) -> list[str]:
    """The element types chosen, else the model's own."""
    return chosen or [layers.model_dtype(net)]


def calibrated_run(path: Path) -> tuple[dict, predictor.Board]:
    """A --roofs results.json and its calibration (predict.predictor's board)."""
    from mcuroof.predict import predictor
    from mcuroof.results import document as results

    data = results.load(path)
    bd = predictor.board(data)
    if bd is None:
        raise UserError(f"--roofs {path}: no calibration in it (run mcuroof run with the calibration suite)")
    return data, bd
