"""What a board can run, and requests it cannot: refused before anything runs.
Pure computation: nothing here talks to a board or prints.

A board's emitters come from its profile ([run].emitters); which element types an emitter runs,
per op, from the registry (kernels.emitters: viper and asm_thumb are int8 only) and the layer
kernels (kernels.ops.dispatch.source).
"""

from __future__ import annotations

from mcuroof.errors import UserError
from mcuroof.kernels.ops import dispatch, tiles
from mcuroof.kernels.ops.contract import DTYPES, EMITTER_DTYPES


class Refused(UserError):
    """A request the board cannot run, found once its probe is in: the run leaves nothing behind."""


def dtypes_by_op(emitter: str, ops: list[str]) -> dict[str, list[str]]:
    """Per op: the element types this emitter has a kernel for."""
    return {op: [dt for dt in DTYPES if dispatch.source(op, emitter, dt)] for op in ops}


def describe(emitter: str, ops: list[str]) -> str:
    """'asm_thumb: int8 (CONV_2D, FULLY_CONNECTED)' or 'bytecode: int8, float32 (all ops)'."""
    by_op = dtypes_by_op(emitter, ops)
    groups: dict[tuple[str, ...], list[str]] = {}
    for op, dts in by_op.items():
        groups.setdefault(tuple(dts), []).append(op)
    parts = []
    for dts, group in groups.items():
        if dts:
            parts.append(f"{', '.join(dts)} ({'all ops' if len(group) == len(ops) else ', '.join(group)})")
    return f"{emitter}: {'; '.join(parts) or 'none of these ops'}"


def check(
    emitters: list[str] | None,
    dtypes: list[str] | None,
    net,
    board_name: str | None,
    board_emitters: list[str] | None,
    source: str = "its profile's [run].emitters",
    error: type[UserError] = UserError,
) -> None:
    """Refuse an emitter the board lacks, an asked-for emitter that runs none of the asked-for
    element types on this model's layers, or an asked-for type no emitter runs here. One line
    naming what the board has. `board_emitters` None: the board is not known up front."""
    ops = list(dict.fromkeys(l.op for l in net.layers if not tiles.unsupported(l)))
    where = f"{board_name} has" if board_name else "the board has"
    shown = board_emitters or emitters or []
    what = "; ".join(describe(em, ops) for em in shown) if ops else ", ".join(shown)
    if board_emitters is not None and emitters:
        missing = [e for e in emitters if e not in board_emitters]
        if missing:
            raise error(f"--emitter {','.join(missing)}: {where} {what} ({source})")
    usable = emitters or board_emitters
    if not usable or not ops or not dtypes:
        return
    runs = {em: {dt for dts in dtypes_by_op(em, ops).values() for dt in dts} for em in usable}
    for em in emitters or []:
        if not runs[em] & set(dtypes):
            raise error(
                f"--dtype {','.join(dtypes)} --emitter {em}: no {em} kernel for {net.name}'s layers "
                f"at that type; {where} {what}"
            )
    for dt in dtypes:
        if not any(dt in r for r in runs.values()):
            raise error(f"--dtype {dt}: no emitter asked for runs {net.name}'s layers at {dt}; {where} {what}")


def check_probe(request, probe: dict, board_name: str | None) -> None:
    """The same refusals once the board's probe (the run's first record) says what it has: for a
    board whose profile was not known up front (--port without --profile)."""
    found = [e for e in probe.get("emitters", []) if e in EMITTER_DTYPES]  # the layer kernels' emitters
    check(request.emitters, request.dtypes, request.network, board_name, found, "its probe", Refused)
    if "float32" in (request.dtypes or []) and not probe.get("float"):
        raise Refused(f"--dtype float32: {board_name or 'the board'} has no floats (its probe); it runs int8")
