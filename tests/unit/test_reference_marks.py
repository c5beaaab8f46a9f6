"""The C-engine reference (MLPerf Tiny) as a mark on a run's roofline: drawn at MAC/cycle x the
clock where the run counts cycles, not drawn (and said so) where QEMU counts instructions, and a
figure above the core's bound drawn in red with its reason; in the PNG and in report.html."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from mcuroof.published import mlperf
from mcuroof.report import html_figures, html_tables, plot, reference_marks

EXAMPLE = json.loads((Path(__file__).resolve().parents[2] / "examples" / "kws-microbit.json").read_text())
KWS_MACS = 2_656_768


def run_on(board: dict, macs: int = KWS_MACS, seconds: float = 0.2) -> dict:
    """The example run (KWS on qemu-microbit) as if made on another board."""
    result = copy.deepcopy(EXAMPLE)
    result["board"] = board
    result["model"]["macc"] = macs
    for w in result["model"]["whole_model"]:
        w["macc"], w["measured_seconds"] = macs, seconds
    return result


PICO = {"name": "rp2040js-pico", "clock_hz": 125_000_000, "core": {"name": "Cortex-M0+"}}
QEMU_M7 = {"name": "qemu-m7", "icount_shift": 6, "clock_hz": 25_000_000, "core": {"name": "Cortex-M7"}}
PICO2 = {"name": "pico2", "clock_hz": 150_000_000, "core": {"name": "Cortex-M33"}}


def kws_best(core: str) -> dict:
    return next(r["best"] for r in mlperf.best_for(core) if r["bench"] == "kws")


def test_a_cycle_counted_run_gets_the_core_s_best_on_its_benchmark_at_its_clock():
    (mark,) = reference_marks.marks(run_on(PICO))
    best = kws_best("Cortex-M0+")
    # MAC/cycle = 2,656,768 / (latency x clock) by hand, then x 125 MHz on the run's axis
    assert mark.macs_per_cycle == pytest.approx(KWS_MACS / (best["latency_s"] * best["clock_hz"]))
    assert mark.macs_per_s == pytest.approx(mark.macs_per_cycle * 125e6)
    assert "kws" in mark.label and best["system"] in mark.label and mark.flag is None
    assert reference_marks.note(run_on(PICO)) is None


def test_a_qemu_run_is_not_drawn_and_says_why():
    (mark,) = reference_marks.marks(run_on(QEMU_M7))
    assert mark.macs_per_s is None and mark.macs_per_cycle == pytest.approx(kws_best("Cortex-M7")["macs_per_cycle"])
    note = reference_marks.note(run_on(QEMU_M7))
    assert "not drawn" in note and "instructions" in note and "Cortex-M7" in note


def test_a_figure_above_the_bound_is_drawn_apart_with_its_reason():
    ic = run_on(PICO2, macs=12_501_632)
    marks = reference_marks.marks(ic)
    best, flagged = marks[0], [m for m in marks if m.flag]
    assert best.flag is None and best.macs_per_cycle <= 2
    assert [round(m.macs_per_cycle, 2) for m in flagged] == [2.6]
    assert "DSP Co-processor" in flagged[0].flag and flagged[0].macs_per_s == pytest.approx(2.6e0 * 150e6, rel=1e-3)


def test_a_core_without_published_results_is_said_so():
    m55 = run_on({"name": "qemu-m55", "icount_shift": 6, "core": {"name": "Cortex-M55"}})
    assert reference_marks.marks(m55) == []
    assert "no published result on a Cortex-M55" in reference_marks.note(m55)


def test_the_png_draws_the_mark_and_the_flag_and_notes_what_it_does_not_draw():
    fig = plot.figure(run_on(PICO))
    y = reference_marks.marks(run_on(PICO))[0].macs_per_s
    ax = fig.axes[0]
    assert any(list(line.get_ydata()) == [y, y] for line in ax.get_lines())
    assert ax.get_ylim()[0] < y < ax.get_ylim()[1]
    plot.plt.close(fig)
    fig = plot.figure(run_on(PICO2, macs=12_501_632))
    assert any("ABOVE THE CORE'S BOUND" in t.get_text().replace("\n", " ") for t in fig.axes[0].texts)
    plot.plt.close(fig)
    fig = plot.figure(run_on(QEMU_M7))
    assert any("not drawn" in t.get_text() for t in fig.texts)
    assert not any("C engine" in t.get_text() for t in fig.axes[0].texts)
    plot.plt.close(fig)


def test_report_html_has_the_table_and_the_mark():
    fig = html_figures.roofline_figure(run_on(PICO))
    (trace,) = [t for t in fig.data if (t.name or "").startswith("C engine")]
    assert list(trace.y) == [reference_marks.marks(run_on(PICO))[0].macs_per_s] * 2
    table = html_tables.reference_table(run_on(PICO))
    # the run's own: 2,656,768 MACs in 0.2 s at 125 MHz = 0.106 MAC/cycle
    assert "C engines on a Cortex-M0+" in table and "0.106 MAC/cycle" in table
    qemu = html_figures.roofline_figure(run_on(QEMU_M7))
    assert not [t for t in qemu.data if (t.name or "").startswith("C engine")]
    assert any("not drawn" in a.text for a in qemu.layout.annotations)
