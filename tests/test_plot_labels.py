"""Plot readability: every roof is named, and no two roof labels overlap (12+ roofs, 40 points)."""
import itertools
import random

import pytest
from matplotlib.text import Text

from mcuroof import plot, roofs


def many_roofs():
    rs = [{"kind": "memory", "role": "roof", "name": f"memory L{i + 1}", "dtype": "int8", "emitter": "c",
           "source": "measured", "level": i + 1, "ws_range": [1, 2], "bytes_per_s": bw}
          for i, bw in enumerate([5.6e10, 3.4e10, 9.8e9])]
    rs += [{"kind": "memory", "role": "region", "name": f"{rg} read", "region": rg, "dtype": "int32",
            "emitter": "asm_thumb", "source": "measured", "bytes_per_s": bw}
           for rg, bw in [("flash", 2.63e7), ("SRAM", 2.59e7)]]
    rs += [{"kind": "memory", "role": "ceiling", "name": f"{em} copy", "dtype": "int8", "emitter": em,
            "source": "measured", "bytes_per_s": bw} for em, bw in [("bytecode", 1.05e8), ("native", 1.55e8)]]
    for em, base in [("viper", 4.8e8), ("native", 1.4e7), ("bytecode", 1.0e7)]:
        for j, dt in enumerate(["int8", "int16", "int32", "float32"]):
            rs.append({"kind": "compute", "role": "ceiling", "name": f"{dt} {em}", "dtype": dt, "emitter": em,
                       "source": "measured", "macs_per_s": base * (1 - 0.04 * j)})
    rs[7]["role"] = "roof"
    rs.append({"kind": "compute", "role": "ceiling", "name": "Cortex-M4F int8", "dtype": "int8", "emitter": None,
               "source": "theoretical", "macs_per_s": 3.36e8, "basis": "x"})
    random.seed(1)
    points = []
    for i in range(40):
        oi = 10 ** random.uniform(-4, 1.5)
        y = roofs.attainable(oi, rs) * random.uniform(0.05, 0.9)
        points.append({"index": i + 1, "name": f"layer{i + 1}", "op": "conv2d", "dtype": "int8", "emitter": "viper",
                       "oi": oi, "macs_per_s": y, "verified": True, "bound": "memory"})
    return {"schema": 1, "board": {"name": "synthetic"}, "roofs": rs, "points": points}


@pytest.fixture
def drawn(tmp_path, monkeypatch):
    """The figure plot.draw rendered, kept open for inspection."""
    figs = []
    monkeypatch.setattr(plot.plt, "close", figs.append)
    data = many_roofs()
    plot.draw(data, tmp_path / "many.png")
    assert (tmp_path / "many.png").read_bytes()[:4] == b"\x89PNG"
    yield data, figs[0]
    plot.plt.close(figs[0])  # the real close: the patch is undone by now


def test_every_roof_named_and_no_label_overlaps(drawn):
    data, fig = drawn
    ax = fig.axes[0]
    assert len(data["roofs"]) >= 12 and len(data["points"]) >= 40
    renderer = fig.canvas.get_renderer()
    labels = [t for t in ax.texts if ":" in t.get_text() and t.get_text().split(":")[0].strip()
              in {plot._label(r).split(":")[0] for r in data["roofs"]}]
    texts = {t.get_text() for t in labels}
    assert {plot._label(r) for r in data["roofs"]} <= texts  # every roof named on the plot
    boxes = [Text.get_window_extent(t, renderer) for t in labels]  # the text itself, not its leader line
    axes_box = ax.get_window_extent(renderer)
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b) or a.intersection(a, b).height < 0.5
    for b in boxes:
        assert axes_box.y0 - 1 <= b.y0 and b.y1 <= axes_box.y1 + 1


def test_spread_keeps_distance_and_bounds():
    want = [0.0, 0.01, 0.02, 0.5, 0.51, 3.0]
    pos = plot.spread(want, 0.1, -1.0, 3.0)
    assert all(b - a >= 0.1 - 1e-9 for a, b in zip(pos, pos[1:]))
    assert pos[3] == pytest.approx(0.455) and pos[5] == pytest.approx(3.0)
    assert plot.spread([2.95, 2.99], 0.1, 0.0, 3.0) == pytest.approx([2.9, 3.0])


def test_layer_numbers_overlap_no_other_text(drawn):
    data, fig = drawn
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    numbers = [t for t in ax.texts if t.get_text().replace(",", "").isdigit()]
    assert {int(n) for t in numbers for n in t.get_text().split(",")} == {p["index"] for p in data["points"]}
    others = [t for t in ax.texts if t not in numbers and t.get_text() and not t.get_text().startswith("layers\n")]
    boxes = [Text.get_window_extent(t, renderer) for t in numbers]
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b)
    for a in boxes:
        assert not any(a.overlaps(Text.get_window_extent(o, renderer)) for o in others)
