"""Fit verdicts: weights against flash, live activations (or a whole layer's measured heap)
against the heap, from the profile or the probe; `mcuroof analyze --board`; the report's labels."""

from __future__ import annotations

from mcuroof import cli
from mcuroof.analysis import fit
from mcuroof.board.profiles import Board, Memory
from mcuroof.model import load, network
from mcuroof.report import layer_tables as layer_report

KWS = load.load_network("kws-dscnn")
AD = load.load_network("ad-autoencoder")


def board(memories=(), run=None) -> Board:
    return Board("tb", "test", "rp2", "auto", "Cortex-M0+", 1, None, memories=list(memories), run=run or {})


FLASH = Memory("Flash", "flash", 256 * 1024, source="test")
SRAM = Memory("SRAM", "sram", 16 * 1024, source="test")


def test_kws_numbers_by_hand():
    # DS-CNN: live activations at its worst layer are the 25x5x64 input and output (8,000 B each)
    peak = network.peak_memory(KWS)
    assert (peak.activations, peak.scratch) == (16000, 0)
    v = fit.verdict(KWS, fit.budget(board([FLASH]), free_heap=9424))
    assert [(n.what, n.needs, n.has) for n in v.needs] == [("flash", KWS.weight_bytes, 262144), ("RAM", 16000, 9424)]
    assert v.fits is False
    assert v.text() == (
        "does not fit: needs 15.6 KiB of RAM (live activations at layer 1), board has 9,424 B (free heap at the probe)"
        "; " + fit.WEIGHTS[True]
    )


def test_weights_beyond_flash_do_not_fit():
    v = fit.verdict(AD, fit.budget(board([FLASH], {"heap_bytes": 1 << 20})))
    assert AD.weight_bytes > 262144 and v.fits is False
    assert "needs 264.5 KiB of flash (weights), board has 256.0 KiB" in v.text()


def test_no_flash_puts_weights_in_the_heap():
    v = fit.verdict(KWS, fit.budget(board(run={"heap_bytes": 64 << 20})))
    assert [(n.what, n.needs) for n in v.needs] == [("RAM", KWS.weight_bytes + 16000)]
    assert v.fits is True and v.text().startswith("fits: 39.4 KiB of 64 MiB RAM")


def test_probe_heap_wins_over_profile():
    b = board([FLASH], {"heap_bytes": 1 << 20})
    assert fit.budget(b, free_heap=5000).heap_bytes == 5000
    assert fit.budget(b).heap_bytes == 1 << 20


def test_on_chip_ram_is_an_upper_bound():
    b = fit.budget(board([FLASH, SRAM]))
    assert b.heap_is_bound
    assert fit.verdict(KWS, b).fits is None  # 16,000 B within 16 KiB, over half of it
    assert fit.verdict(KWS, b).text().startswith("may fit:")
    assert fit.verdict(AD, fit.budget(board([Memory("Flash", "flash", 1 << 20, source="t"), SRAM]))).fits is True
    big = load.load_network("vww-mobilenet")
    assert fit.verdict(big, b).fits is False


def test_unknown_budget_is_said():
    v = fit.verdict(KWS, fit.budget(None))
    assert v.fits is None and v.text().startswith("fit unknown:")


def test_measured_whole_layer_heap_raises_the_need():
    pts = [
        {"verified": True, "tile_fraction": 1, "heap_bytes": 20000},
        {"verified": True, "tile_fraction": 0.5, "heap_bytes": 90000},
        {"verified": False, "tile_fraction": 1, "heap_bytes": 80000},
    ]
    assert fit.whole_layer_heap(pts) == 20000
    v = fit.verdict(KWS, fit.budget(board([FLASH]), free_heap=18000), fit.whole_layer_heap(pts))
    assert v.needs[-1].needs == 20000 and v.fits is False and "whole layer" in v.text()


def test_analyze_unknown_board(capsys):
    assert cli.main(["analyze", "kws-dscnn", "--board", "nosuch"]) == 2
    assert "unknown board 'nosuch'" in capsys.readouterr().err


def test_report_labels_a_speed_that_does_not_fit():
    verdict = fit.verdict(KWS, fit.budget(board([FLASH]), free_heap=3000)).as_dict()
    row = {
        "dtype": "int8",
        "emitter": "bytecode",
        "layers": 1,
        "macc": 1,
        "predicted_seconds": 1.0,
        "measured_seconds": 2.0,
        "inferences_per_s": None,
        "estimated_inferences_per_s": 0.5,
        "measured_over_predicted": 2.0,
    }
    result = {
        "model": {
            "name": "kws",
            "macc": 1,
            "whole_model": [row],
            "fit": verdict,
            "peak_memory_bytes": 1,
            "peak_memory_layer": 1,
            "measured_peak_heap_bytes": 1,
        }
    }
    from rich.console import Console

    console = Console(width=200, record=True)
    console.print(layer_report.model_table(result))
    for line in layer_report.model_lines(result):
        console.print(line)
    text = " ".join(console.export_text().split())
    assert "inferences/s (estimate from tiles)" in text and "~0.5/s" in text
    assert "does not fit: needs 15.6 KiB of RAM" in text and "not inferences/s this board can do" in text


def test_html_report_labels_a_speed_that_does_not_fit():
    from mcuroof.report import html_tables as html_report

    verdict = fit.verdict(KWS, fit.budget(board([FLASH]), free_heap=3000)).as_dict()
    row = {
        "dtype": "int8",
        "emitter": "bytecode",
        "layers": 1,
        "macc": 1,
        "predicted_seconds": 1.0,
        "measured_seconds": 2.0,
        "inferences_per_s": None,
        "estimated_inferences_per_s": 0.5,
        "measured_over_predicted": 2.0,
    }
    page = html_report.model_table({"model": {"name": "kws", "macc": 1, "whole_model": [row], "fit": verdict}})
    assert "inferences/s (estimate from tiles)" in page and "~0.5/s" in page and "does not fit: needs" in page


def test_export_carries_the_verdict_and_the_estimate():
    from mcuroof.results import export

    verdict = fit.verdict(KWS, fit.budget(board([FLASH]), free_heap=3000)).as_dict()
    row = {
        "dtype": "int8",
        "emitter": "bytecode",
        "layers": 1,
        "macc": 1,
        "predicted_seconds": 1.0,
        "measured_seconds": 2.0,
        "inferences_per_s": None,
        "estimated_inferences_per_s": 0.5,
        "measured_over_predicted": 2.0,
    }
    columns, rows = export.tables({"roofs": [], "model": {"name": "kws", "whole_model": [row], "fit": verdict}})[
        "model"
    ]
    assert rows[0]["inferences_per_s"] is None and rows[0]["estimated_inferences_per_s"] == 0.5
    assert rows[0]["fits"] is False and rows[0]["fit"].startswith("does not fit: needs 15.6 KiB of RAM")
    assert {"fits", "fit", "estimated_inferences_per_s"} <= set(columns)


def test_the_verdict_says_where_the_weights_live_and_why():
    heap = fit.verdict(AD, fit.budget(board(run={"heap_bytes": 110720})))
    assert heap.text().startswith("does not fit: needs 265.3 KiB of RAM (weights in the heap + live activations")
    assert heap.text().endswith("; " + fit.WEIGHTS[False]) and heap.as_dict()["weights"] == fit.WEIGHTS[False]
    assert "bytes or array objects loaded from a file" in heap.text() and "memoryview of a ROM region" in heap.text()
    flash = fit.verdict(AD, fit.budget(board([FLASH], {"heap_bytes": 1 << 20})))
    assert flash.text().endswith("; weights in flash: " + fit.WEIGHTS[True].split(": ", 1)[1])


def test_analyze_says_what_its_scratch_covers(capsys):
    from mcuroof.cli import main

    assert main(["analyze", "--model", "kws-dscnn"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "scratch 0 B of heap" in out and "im2col-free" not in out
    assert "stack frame of up to 6,144 B" in out
