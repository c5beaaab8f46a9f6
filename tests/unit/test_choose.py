"""mcuroof choose: one table a model, every cell a labelled time in ms of that board's chip or a
reason; QEMU's instruction time never shown as a chip's ms; a modelled-cycles calibration of the
same core gives a "modelled" time at the target board's clock."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from mcuroof.cli import main
from mcuroof.commands import choose as choose_command
from mcuroof.model.builtins import builtin_network
from mcuroof.published import mlperf
from mcuroof.report import board_choice as choose
from mcuroof.report import board_choice_table as choose_table

DATA = Path(__file__).resolve().parents[1] / "data"
M3 = DATA / "results-calibration-qemu-m3.json"  # a qemu-m3 calibration (asm_thumb int8 families)
KWS_MACS = mlperf.MACS["kws"][0]


def _modelled_m4(tmp_path, monkeypatch) -> Path:
    """The same calibration as the QEMU cycle model's of a Cortex-M4 at 25 MHz (results' board
    `cycle_model`, as qemu-m4 writes it): its times count modelled cycles."""
    data = json.loads(M3.read_text())
    model = {"emulator": "qemu-m4", "board": "qemu-m4", "core": "Cortex-M4", "timings": "Cortex-M4 TRM"}
    model |= {"clock_hz": 25_000_000, "label": "modelled cycles (Cortex-M4 TRM timings; 0 flash wait states)"}
    data["board"].update(name="qemu-m4", platform="qemu-m4", icount_shift=None, clock_hz=25_000_000, cycle_model=model)
    data["board"]["core"] = {**data["board"]["core"], "name": "Cortex-M4"}
    path = tmp_path / "m4.json"
    path.write_text(json.dumps(data))
    return path


def _json(argv, capsys) -> dict:
    assert main(argv + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _row(doc, board, dtype="int8") -> dict:
    return next(r for r in doc["rows"] if r["board"] == board and r["dtype"] == dtype)


def test_modelled_cycles_of_the_same_core_give_ms_at_the_board_clock(tmp_path, monkeypatch, capsys):
    path = _modelled_m4(tmp_path, monkeypatch)
    cal = choose_command.calibration(path, builtin_network("kws-dscnn"), ["int8"])
    seconds, emitter = cal.seconds["int8"]
    assert cal.basis.model and emitter == "asm_thumb"
    doc = _json(["choose", "kws-dscnn", "--board", "pyboard,nrf52840,pico2", "--roofs", str(path)], capsys)
    for board, clock in (("pyboard", 168e6), ("nrf52840", 64e6)):  # Cortex-M4F: the M4's family
        mp = _row(doc, board)["micropython"]
        assert mp["label"] == "modelled" and mp["ms"] == pytest.approx(seconds * 25e6 / clock * 1e3)
        assert f"{seconds * 25e6:,.0f} modelled cycles" in mp["basis"] and "Cortex-M4 TRM" in mp["basis"]
    assert _row(doc, "pico2")["micropython"]["ms"] is None  # a Cortex-M33: not the M4's calibration
    assert "Cortex-M33" in _row(doc, "pico2")["micropython"]["why"]
    assert [r["board"] for r in doc["rows"]][:2] == ["pyboard", "nrf52840"]  # a chip's ms sort first
    # a board's own modelled run (its wait states) before another board's of the same core
    own = json.loads(path.read_text())
    own["board"]["name"] = "nrf52840"
    own["board"]["cycle_model"] = {**own["board"]["cycle_model"], "board": "nrf52840", "clock_hz": 64e6}
    (tmp_path / "nrf.json").write_text(json.dumps(own))
    doc = _json(
        ["choose", "kws-dscnn", "--board", "nrf52840", "--roofs", str(path), str(tmp_path / "nrf.json")], capsys
    )
    mp = _row(doc, "nrf52840")["micropython"]
    assert mp["ms"] == pytest.approx(seconds * 1e3) and "nrf52840's calibration" in mp["basis"]


def test_instruction_time_is_only_a_bound(tmp_path, capsys):
    """qemu-m3's instructions, at most one a cycle on a Cortex-M3, as a least time of a Cortex-M3 chip."""
    net = builtin_network("kws-dscnn")
    cal = choose_command.calibration(M3, net, ["int8"])
    board = copy.deepcopy(choose.profiles.load_board("stm32h743"))
    board.core_name, board.name = "Cortex-M3", "an-m3"
    mp = choose.micropython(board, "int8", [cal])
    seconds, _ = cal.seconds["int8"]
    assert mp["label"] == "bound" and mp["ms"] == pytest.approx(seconds * 1e9 / 2**6 / 400e6 * 1e3)
    assert "not the chip's" in mp["basis"]
    doc = _json(["choose", "kws-dscnn", "--board", "stm32h743", "--roofs", str(M3)], capsys)
    assert _row(doc, "stm32h743")["micropython"]["ms"] is None  # an M3's calibration is not an M7's


def test_every_cell_a_labelled_time_or_a_reason(capsys):
    doc = _json(["choose", "kws-dscnn", "--board", "pico2,esp32s3,stm32h743,alif-e7-hp,qemu-m7"], capsys)
    assert {r["board"] for r in doc["rows"]} == {"pico2", "esp32s3", "stm32h743", "alif-e7-hp", "qemu-m7"}
    for r in doc["rows"]:
        for key in ("micropython", "c_engine", "npu", "bound"):
            c = r[key]
            assert (c["ms"] is None and c["why"]) or (c["label"] in choose.LABELS and c["basis"]), (r["board"], key)
    # QEMU's instruction time is no chip's: its row holds no time at all
    assert all(_row(doc, "qemu-m7")[k]["ms"] is None for k in ("micropython", "c_engine", "npu", "bound"))
    assert "no emulated core for Xtensa LX7" in _row(doc, "esp32s3")["micropython"]["why"]
    assert "no int8 compute figure" in _row(doc, "esp32s3")["bound"]["why"]
    # the C engine: the best MLPerf Tiny KWS figure of a Cortex-M7 alone, at 400 MHz
    best = next(r["best"] for r in mlperf.best_for("Cortex-M7") if r["bench"] == "kws")
    c = _row(doc, "stm32h743")["c_engine"]
    assert c["ms"] == pytest.approx(KWS_MACS / (best["macs_per_cycle"] * 400e6) * 1e3)
    assert "effective MAC/cycle of a whole system" in c["basis"] and best["system"] in c["basis"]


def test_eighty_columns_every_dash_has_its_note():
    doc = choose.document(
        builtin_network("kws-dscnn"),
        [choose.profiles.load_board(n) for n in ("pico2", "esp32s3", "stm32h743", "alif-e7-he")],
        ["int8"],
        [],
        {"alif-e7-he": choose.NpuEstimate(536e-6, "ethos-u55-128", "RTSS_HE_SRAM_MRAM", 160e6)},
        {},
    )
    out = io.StringIO()
    con = Console(file=out, width=80, color_system=None)
    for item in choose_table.renderables(doc):
        con.print(item)
    text = out.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 80
    body, notes = choose_table.rows(doc)
    for row in body:
        for cell in row[3:]:
            n = int(cell.split()[-1].lstrip("pmeb"))
            assert f"{n}. " in text and 1 <= n <= len(notes.texts)
    he = _row(doc, "alif-e7-he")["npu"]
    assert he["ms"] == pytest.approx(0.536) and "RTSS_HE_SRAM_MRAM (the vendor's system config)" in he["basis"]
    assert "<table" in choose_table.html_section(doc)
