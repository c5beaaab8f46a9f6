"""Defects a new user saw in the pictures (issue 33): a roofline title cut off at both sides."""

import json
from pathlib import Path

from mcuroof.analysis import records
from mcuroof.report import plot

DATA = Path(__file__).parents[1] / "data"
# rp2040js-pico's timing sentence: the title that ran off both sides of its PNG
PICO_SENTENCE = (
    "time counts the board's clock (ticks_us): per cycle at 125 MHz, as machine.freq() reported "
    "(not counted: a Cortex-M0+ has no cycle counter)"
)


def test_a_long_title_is_broken_at_its_parts_then_between_words():
    text = "Empirical roofline: rp2040js-pico | MicroPython 1.29.0.preview | " + PICO_SENTENCE
    lines = plot.wrap_title(text, 13, 11).split("\n")
    assert lines[0] == "Empirical roofline: rp2040js-pico | MicroPython 1.29.0.preview"
    assert lines[1] == PICO_SENTENCE
    assert plot.wrap_title("short | title", 13, 11) == "short | title"
    narrow = plot.wrap_title(PICO_SENTENCE, 5, 11).split("\n")
    assert len(narrow) > 1 and all(len(x) <= 5 * 72 / 6.6 for x in narrow)
    assert " ".join(narrow) == PICO_SENTENCE  # no word lost or cut


def test_the_drawn_title_lies_inside_the_figure():
    data = json.loads((DATA / "results-kws-microbit.json").read_text())
    title = "Empirical roofline: rp2040js-pico | MicroPython 1.29.0.preview | " + PICO_SENTENCE
    fig = plot.figure(data, title)
    fig.canvas.draw()
    box = fig._suptitle.get_window_extent(fig.canvas.get_renderer())
    width, height = fig.canvas.get_width_height()
    assert box.x0 >= 0 and box.x1 <= width and box.y1 <= height
    plot.plt.close(fig)


def _kws() -> dict:
    return json.loads((DATA / "results-kws-microbit.json").read_text())


def test_a_mac_free_layer_is_drawn_at_the_left_edge_its_gap_its_headroom():
    data = _kws()
    pool = next(p for p in records.points(data) if p.op == "AVERAGE_POOL_2D")
    assert not plot.is_shown(pool) and plot.is_macfree(pool)  # intensity 0: no place on a log axis
    fig = plot.figure(data)
    ax = fig.axes[0]
    (x0, _), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    marks = [c for c in ax.collections if c.get_label().startswith("layers without MACs")]
    assert len(marks) == 1
    (x, y), *_ = marks[0].get_offsets()
    assert x == x0 and y0 < y < y1
    # at the left edge, its gap under its memory ceiling is its headroom (bytes/s against bytes/s)
    ceiling = next(r for r in data["roofs"] if r["name"] == pool.memory_roof)
    assert abs(ceiling["bytes_per_s"] * x0 / y - pool.headroom) < 1e-6 * pool.headroom
    # numbered with its own unit's figure (not the MACC/s axis's), and in the key
    assert any(n[2] == f"{pool.index}: {pool.bytes_per_s / 1e3:.3g} kB/s" for n in ax.mcuroof_numbers)
    plot.plt.close(fig)


def test_a_mac_free_layer_row_names_the_roof_its_headroom_is_against():
    from mcuroof.report import layer_tables, terminal

    data = _kws()
    pool = next(p for p in data["points"] if p["op"] == "AVERAGE_POOL_2D")
    roof = pool["bytes_per_s"] / pool["memory_share"]
    text = terminal.Console(width=400, color_system=None, record=True)
    text.print(layer_tables.layers_table(data))
    row = next(line for line in text.export_text().splitlines() if "AVGPOOL 9" in line)
    assert f"{roof / 1e3:.3g} kB/s" in row and f"{pool['headroom']:.3g}x" in row


def test_the_html_roofline_has_the_mac_free_layer_with_its_byte_rates():
    from mcuroof.report import html_figures

    data = _kws()
    fig = html_figures.roofline_figure(data)
    traces = [t for t in fig.data if "MAC-free" in (t.name or "")]
    pool = next(p for p in records.points(data) if plot.is_macfree(p))
    assert len(traces) == 1 and list(traces[0].text) == [f"9: {pool.bytes_per_s / 1e3:.3g} kB/s"]
    assert "memory roof" in traces[0].hovertext[0] and "MACC/s" not in traces[0].hovertext[0].split("no MACs")[1]


def test_the_cache_cliff_shades_no_level_where_no_cache_is_detected_nor_known():
    from mcuroof.report import cliff

    kws = _kws()  # QEMU micro:bit: one level, no cache
    assert [
        r["name"]
        for r in kws["roofs"]
        if r.get("role") == "roof" and r["kind"] == "memory" and r["source"] == "measured"
    ] == ["memory"]
    assert cliff.levels(kws) == []
    vww = json.loads((DATA / "results-vww-unix.json").read_text())  # the host: L1 then main memory
    assert [lv["name"] for lv in cliff.levels(vww)] == ["memory L1", "memory L2 (main)"]
    one = {**kws, "board": {**kws["board"], "caches": [{"name": "L1d", "bytes": 16384}]}}
    assert [lv["name"] for lv in cliff.levels(one)] == ["memory"]  # a known cache: its level is shown


def test_the_layer_key_keeps_name_and_shape_apart():
    """VWW's "AVGPOOL 27" is ten characters: the key ran it into its shape ("AVGPOOL 271x1x256")."""
    from mcuroof.model import names

    data = json.loads((Path(__file__).parent.parent / "data" / "results-vww-unix.json").read_text())
    fig = plot.figure(data)
    key = next(t.get_text() for t in fig.texts if t.get_text().startswith("layer"))
    for p in data["points"]:
        row = next(r for r in key.splitlines() if r.startswith(names.short(p) + " "))
        assert row.startswith(f"{names.short(p)}  ") and names.shape_text(p["output_shape"]) in row.split()


def test_no_ceiling_label_is_written_over_a_layer_point():
    """VWW on the unix port: the compute labels at the right edge sat on the layer points there;
    they go right of the last ridge where fewer points lie under them."""
    data = json.loads((Path(__file__).parent.parent / "data" / "results-vww-unix.json").read_text())
    fig = plot.figure(data)
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.texts if getattr(t, "mcuroof_roofs", None)]
    boxes = [b for t, b in zip([t for t in ax.texts if getattr(t, "mcuroof_roofs", None)], boxes)
             if t.mcuroof_roofs[0].kind == "compute"]  # fmt: skip
    points = [ax.transData.transform(xy) for c in ax.collections for xy in c.get_offsets()]
    assert boxes and points
    hits = [(b, p) for b in boxes for p in points if b.contains(*p)]
    assert len(hits) <= 1, len(hits)  # at the right edge: 7 points under the labels
    plot.plt.close(fig)


def test_the_c_engine_label_moves_off_a_roof_label_it_would_cover():
    """rp2040js: "C engine on a Cortex-M0+..." was written over "SRAM/flash (theory)" at the left
    edge; the mark's label moves right of the labels it would cover, on its own line."""
    fig, ax = plot.plt.subplots(figsize=(8, 5))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(0.01, 100)
    ax.set_ylim(1e3, 1e8)
    roof = ax.text(0.0112, 1.1e7, "SRAM/flash (theory): 500 MB/s", fontsize=7.5)
    mark = ax.text(0.0112, 1.08e7, "C engine on a Cortex-M0+, MLPerf Tiny kws: 0.0875 MAC/cycle", fontsize=7.5)
    mark.mcuroof_mark = True
    renderer = fig.canvas.get_renderer()
    assert mark.get_window_extent(renderer).overlaps(roof.get_window_extent(renderer))  # as drawn before
    plot.clear_marks(ax)
    assert not mark.get_window_extent(renderer).overlaps(roof.get_window_extent(renderer))
    assert mark.get_position()[1] == 1.08e7  # on its own line still
    plot.plt.close(fig)
