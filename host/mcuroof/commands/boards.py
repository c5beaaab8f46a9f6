"""`mcuroof boards`: list the board profiles, or show one with its theoretical roofs and sources."""

from __future__ import annotations

import argparse

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from mcuroof.analysis import records
from mcuroof.analysis.records import Roof
from mcuroof.board import profiles as boards
from mcuroof.board.profiles import Board


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--show", metavar="NAME", help="show one profile (a name from the list, or a .toml path)")


def run(args: argparse.Namespace, console: Console | None = None) -> int:
    console = console or Console()
    if getattr(args, "show", None):
        console.print(board_detail(boards.load_board(args.show)))
    else:
        console.print(boards_table(boards.list_boards()))
    return 0


# ---------------------------------------------------------------- formatting (no printing below)


def fmt_size(n: int | None) -> str:
    if not n:
        return "-"
    if n % (1 << 20) == 0:
        return f"{n >> 20} MB"
    return f"{n / 1024:g} KB"


def fmt_hz(hz: float | None) -> str:
    return f"{hz / 1e6:g} MHz" if hz else "-"


def fmt_rate(roof: Roof) -> str:
    if roof.kind == "memory":
        return f"{roof.bytes_per_s / 1e6:,.1f} MB/s"
    return f"{roof.macs_per_s / 1e6:,.1f} MMAC/s"


def boards_table(items: list[Board]) -> Table:
    table = Table(title="Board profiles (boards/*.toml)")
    for col in ("name", "title", "core", "clock", "RAM", "roofs"):
        table.add_column(col, justify="right" if col in ("clock", "RAM", "roofs") else "left")
    for b in items:
        core = f"{b.cores}x {b.core_name}" if b.cores and b.cores > 1 else b.core_name
        table.add_row(
            b.name, b.title, core, fmt_hz(b.clock_hz), fmt_size(b.ram_bytes), str(len(boards.theoretical_roofs(b)))
        )
    table.caption = (
        "roofs = theoretical roofs derivable from published figures; `mcuroof boards --show NAME` for sources"
    )
    return table


def _header(b: Board) -> Text:
    cores = f"{b.cores} x " if b.cores else ""
    lines = [
        f"{b.title}  [{b.name}]",
        f"port {b.port}, connect {b.connect}, file {boards.profile_label(b.source_path)}",
        f"core: {cores}{b.core_name}" + (_clock(b) if b.clock_hz else ""),
    ]
    if b.core_note:
        lines.append(f"core note: {b.core_note}")
    if b.features is not None:
        lines.append(
            f"features: {', '.join(b.features) or 'none of ' + ', '.join(boards.FEATURES)} ({b.features_source})"
        )
    if b.note:
        lines.append(f"note: {b.note}")
    lines += [f"emulator does not model: {limit}" for limit in b.limits]
    if b.connect == "qemu":
        hz = boards.roof_clock_hz(b)
        lines.append(
            f"QEMU -icount shift={b.run['icount_shift']}: time counts instructions; roofs per instruction x "
            f"{hz / 1e6:.6g} M instructions/s"
        )
    return Text("\n".join(lines))


def _clock(b: Board) -> str:
    """The profile's clock; under QEMU that of the emulated timer (SysTick, machine.freq()), not a CPU clock."""
    if b.connect == "qemu":
        return f", timer clock {fmt_hz(b.clock_hz)} (not the time base: QEMU counts instructions; {b.clock_source})"
    return f" at {fmt_hz(b.clock_hz)} ({b.clock_source})"


def _step(b: Board) -> str:
    return "instr" if b.connect == "qemu" else "cycle"


def _memory_table(b: Board) -> Table:
    t = Table(title="Memory")
    for col in ("name", "kind", "size", f"B/{_step(b)}", "source / note"):
        t.add_column(col)
    for m in b.memories:
        bus = (
            f"{m.bus_bytes_per_cycle:g}" + (f" (/{m.bus_clock_divider} clock)" if m.bus_clock_divider > 1 else "")
            if m.bus_bytes_per_cycle
            else "-"
        )
        text = "; ".join(x for x in (m.source, m.note) if x)  # bus_source is in the roofs table
        t.add_row(m.name, m.kind, fmt_size(m.size_bytes), bus, text)
    return t


def _compute_table(b: Board) -> Table:
    t = Table(title="Compute (per core)")
    for col in ("unit", "dtype", f"MAC/{_step(b)}", "source / note"):
        t.add_column(col)
    for c in b.compute + b.accelerators:
        rate = f"{c.macs_per_cycle:g}" if c.macs_per_cycle else "-"
        t.add_row(c.unit, c.dtype, rate, "; ".join(x for x in (c.source, c.note) if x))
    return t


def _published_table(b: Board) -> Table:
    t = Table(title="Published figures (context, not roofs)")
    for col in ("name", "value", "at", "source"):
        t.add_column(col)
    for p in b.published:
        t.add_row(p.name, f"{p.value:g} {p.unit}", fmt_hz(p.clock_hz), p.source + (f" ({p.note})" if p.note else ""))
    return t


def _roofs_table(b: Board) -> Table | Text:
    roofs = records.roofs(boards.theoretical_roofs(b))
    if not roofs:
        return Text("Theoretical roofs: none (no published per-cycle figures for this board)")
    t = Table(title="Theoretical roofs")
    for col in ("kind", "name", "peak", "basis"):
        t.add_column(col)
    for r in roofs:
        t.add_row(r.kind, r.name, fmt_rate(r), r.basis)
    return t


def board_detail(b: Board) -> Group:
    parts = [_header(b), _roofs_table(b)]
    parts += [
        f(b)
        for f, items in (
            (_memory_table, b.memories),
            (_compute_table, b.compute + b.accelerators),
            (_published_table, b.published),
        )
        if items
    ]
    if b.run:
        parts.append(Text("run: " + "; ".join(f"{k}={_value(v)}" for k, v in b.run.items())))
    return Group(*parts)


def _value(v) -> str:
    """A profile value as its TOML reads: a list as its items, comma-separated; true or false."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return ", ".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v)
