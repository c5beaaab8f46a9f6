"""The emulated Pico's host side without the emulator: its profile's limits reach results.json,
the terminal and report.html; its firmware and the QEMU boards' are cached apart; the runner's
package is pinned by its lock file."""

import json
import shutil

from rich.console import Console

from mcuroof.analysis import timing_basis
from mcuroof.board import profiles
from mcuroof.links import firmware_build, rp2040js
from mcuroof.report import html_tables as html
from mcuroof.report import tables
from mcuroof.results import document


def test_the_profile_counts_cycles_and_names_what_the_emulator_leaves_out():
    board = profiles.load_board("rp2040js-pico")
    assert board.connect == "rp2040js" and board.clock_hz == 125_000_000 and "icount_shift" not in board.run
    assert [c.macs_per_cycle for c in board.compute if c.macs_per_cycle] == [0.5, 0.5, 0.5]
    text = " ".join(board.limits)
    assert all(word in text for word in ("XIP cache", "wait states", "core 0", "DMA", "bootrom", "USB"))
    basis = timing_basis.of({"name": "rp2040js-pico", "platform": "rp2040js-pico", "clock_hz": 125e6})
    assert (basis.kind, basis.rate_hz) == (timing_basis.CYCLES, 125e6)


def test_the_limits_reach_the_results_the_terminal_and_the_report():
    limits = document._limits("rp2040js-pico")
    assert limits == list(profiles.load_board("rp2040js-pico").limits) and document._limits("qemu-m3") == []
    result = {"board": {"name": "rp2040js-pico", "firmware": "x", "clock_hz": 125e6, "limits": limits}, "roofs": []}
    console = Console(width=200, record=True, color_system=None)
    console.print(tables.roofs_table(result))
    shown = " ".join(console.export_text().split())
    assert all(f"the emulator does not model: {limit}" in shown for limit in limits)
    rows = html._clock_facts(result["board"])
    assert rows[0] == (
        "time counts",
        "time counts the board's clock (ticks_us): per cycle at 125 MHz, as machine.freq() reported "
        "(not counted: no cycle counter read)",
    )
    assert [v for k, v in rows if k == "the emulator does not model"] == limits


def test_the_firmware_of_one_board_is_cached_apart_from_the_others(tmp_path, monkeypatch):
    port = tmp_path / "port"
    shutil.copytree(firmware_build.PORT_DIR, port, ignore=shutil.ignore_patterns("build*"))
    monkeypatch.setattr(firmware_build, "PORT_DIR", port)
    m3, pico = firmware_build.port_digest("qemu-m3"), firmware_build.port_digest("rp2040js-pico")
    hal = port / "boards" / "rp2040js-pico" / "hal_rp2040.c"
    hal.write_text(hal.read_text() + "\n")
    assert firmware_build.port_digest("qemu-m3") == m3 and firmware_build.port_digest("rp2040js-pico") != pico


def test_the_runner_package_is_pinned():
    lock = json.loads((rp2040js.RUNNER_DIR / "package-lock.json").read_text())
    entry = lock["packages"]["node_modules/rp2040js"]
    assert entry["version"] == "1.4.1" and entry["integrity"].startswith("sha512-")
    assert json.loads((rp2040js.RUNNER_DIR / "package.json").read_text())["dependencies"] == {"rp2040js": "1.4.1"}
    assert rp2040js.node_dir().name.startswith("rp2040js-")
