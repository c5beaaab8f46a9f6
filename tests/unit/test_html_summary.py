"""report.html reads alone: a summary at the top (what was measured, the bottleneck and why,
what to do next), each advice said once, and a glossary of the terms it uses (issue 41, item 1)."""

import html as html_lib
from pathlib import Path

import pytest

from mcuroof.model import names
from mcuroof.report import html, html_summary, summary
from mcuroof.results import document

DATA = Path(__file__).parent.parent / "data"
TERMS = (
    "headroom",
    "operational intensity",
    "roofline bound",
    "tile",
    "interval",
    "ridge",
    "memory-bound",
    "compute-bound",
    "vs fastest",
    "layers' time",
    "time / bound",
    "emitter",
    "ceiling",
    "time basis",
)


@pytest.fixture(params=["results-vww-unix.json", "results-kws-microbit.json"])
def data(request):
    return document.load(DATA / request.param)


def test_summary_comes_first_and_names_the_bottleneck(data):
    page = html.section(data, "r0")
    assert page.index("Summary") < page.index("Roofline") < page.index("Glossary")
    best = summary.best_per_layer(data)
    mine = [p for p in best if p.dtype == best[0].dtype]
    top = max(mine, key=lambda p: p.seconds)  # by hand: the layer with the most time, at its best
    neck = html_summary.bottleneck_text(data)
    assert neck.startswith(f"{names.short(top.to_dict())} ({top.op}) takes the most time")
    assert f"{top.seconds / sum(p.seconds for p in mine):.0%} of the" in neck
    assert "What this run measured" in page and "What to do next" in page


def test_glossary_explains_every_term(data):
    page = html.section(data, "r0")
    glossary = html_lib.unescape(page[page.index("Glossary") :])
    for term in TERMS:
        assert f"<dt>{term}" in glossary or f", {term}</dt>" in glossary, term


def test_each_advice_is_said_once(data):
    page = html.section(data, "r0")
    texts = {p["advice"] for p in data["points"] if p.get("advice")}
    layers = page[page.index("<h2>Layers of") : page.index("Advice, each said once")]
    assert not any(t in layers for t in texts)  # the table links to the advice, it does not repeat it
    n = page.count("<li id='r0-advice-")
    assert 0 < n <= len(texts) and page.count("href='#r0-advice-") == len(data["points"])
