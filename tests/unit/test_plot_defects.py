"""Defects a new user saw in the pictures (issue 33): a roofline title cut off at both sides."""

import json
from pathlib import Path

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
