"""Plot readability: every roof is named, and no two roof labels overlap (12+ roofs, 40 points)."""

import itertools
import json
import random
from pathlib import Path

import pytest
from matplotlib.text import Text

from mcuroof.analysis import records, roofs
from mcuroof.report import labels, plot


def many_roofs():
    rs = [
        {
            "kind": "memory",
            "role": "roof",
            "name": f"memory L{i + 1}",
            "dtype": "int8",
            "emitter": "c",
            "source": "measured",
            "level": i + 1,
            "ws_range": [1, 2],
            "bytes_per_s": bw,
        }
        for i, bw in enumerate([5.6e10, 3.4e10, 9.8e9])
    ]
    rs += [
        {
            "kind": "memory",
            "role": "region",
            "name": f"{rg} read",
            "region": rg,
            "dtype": "int32",
            "emitter": "asm_thumb",
            "source": "measured",
            "bytes_per_s": bw,
        }
        for rg, bw in [("flash", 2.63e7), ("SRAM", 2.59e7)]
    ]
    rs += [
        {
            "kind": "memory",
            "role": "ceiling",
            "name": f"{em} copy",
            "dtype": "int8",
            "emitter": em,
            "source": "measured",
            "bytes_per_s": bw,
        }
        for em, bw in [("bytecode", 1.05e8), ("native", 1.55e8)]
    ]
    for em, base in [("viper", 4.8e8), ("native", 1.4e7), ("bytecode", 1.0e7)]:
        for j, dt in enumerate(["int8", "int16", "int32", "float32"]):
            rs.append(
                {
                    "kind": "compute",
                    "role": "ceiling",
                    "name": f"{dt} {em}",
                    "dtype": dt,
                    "emitter": em,
                    "source": "measured",
                    "macs_per_s": base * (1 - 0.04 * j),
                }
            )
    rs[7]["role"] = "roof"
    rs.append(
        {
            "kind": "compute",
            "role": "ceiling",
            "name": "Cortex-M4F int8",
            "dtype": "int8",
            "emitter": None,
            "source": "theoretical",
            "macs_per_s": 3.36e8,
            "basis": "x",
        }
    )
    random.seed(1)
    points = []
    for i in range(40):
        oi = 10 ** random.uniform(-4, 1.5)
        y = roofs.attainable(oi, rs) * random.uniform(0.05, 0.9)
        points.append(
            {
                "index": i + 1,
                "name": f"layer{i + 1}",
                "op": "conv2d",
                "dtype": "int8",
                "emitter": "viper",
                "oi": oi,
                "macs_per_s": y,
                "verified": True,
                "bound": "memory",
            }
        )
    return {"schema": 1, "board": {"name": "synthetic"}, "roofs": rs, "points": points}


DATA = Path(__file__).parents[1] / "data"
REAL = ["results-kws-microbit.json", "results-vww-unix.json"]  # real runs (mcuroof run --model ...)


def _render(data, tmp_path, monkeypatch, **kw):
    figs = []
    monkeypatch.setattr(plot.plt, "close", figs.append)
    plot.draw(data, tmp_path / "p.png", **kw)
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"
    return figs[0]


@pytest.fixture(params=["synthetic"] + REAL)
def drawn(request, tmp_path, monkeypatch):
    """The figure plot.draw rendered, kept open for inspection: a crowded synthetic case and real runs."""
    data = many_roofs() if request.param == "synthetic" else json.loads((DATA / request.param).read_text())
    fig = _render(data, tmp_path, monkeypatch)
    yield data, fig
    plot.plt.close(fig)  # the real close: the patch is undone by now


def roof_labels(ax):
    return [t for t in ax.texts if getattr(t, "mcuroof_roofs", None)]


def test_every_roof_named_once_and_no_label_overlaps(drawn):
    data, fig = drawn
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    labels = roof_labels(ax)
    named = [json.dumps(r.to_dict(), sort_keys=True) for t in labels for r in t.mcuroof_roofs]
    assert sorted(named) == sorted(json.dumps(r, sort_keys=True) for r in data["roofs"])  # each named, once
    for t in labels:
        for r in t.mcuroof_roofs:
            assert r.name.split()[-1] in t.get_text()
    assert ax.get_legend() is None or all(h.get_label().startswith("layer") for h in ax.get_legend().legend_handles)
    boxes = [Text.get_window_extent(t, renderer) for t in labels]  # the text itself, not its leader line
    axes_box = ax.get_window_extent(renderer)
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b) or a.intersection(a, b).height < 0.5
    for b in boxes:
        assert axes_box.y0 - 1 <= b.y0 and b.y1 <= axes_box.y1 + 1


def test_group_label_shares_the_common_words():
    rs = [
        {"kind": "compute", "name": f"{dt} viper", "source": "measured", "macs_per_s": v}
        for dt, v in [("int8", 4.8e8), ("int16", 4.7e8)]
    ]
    assert labels.group_label(records.roofs(rs)) == "int8/int16 viper: 480/470 MMACC/s"
    rs[1]["macs_per_s"] = 4.8e8
    assert labels.group_label(records.roofs(rs)) == "int8/int16 viper: 480 MMACC/s"


def test_group_label_of_several_kernels_at_one_height_names_the_value_once():
    rs = [
        {"kind": "compute", "name": name, "source": "measured", "macs_per_s": 1.47e7}
        for name in ("int8 asm_thumb mla", "int16 asm_thumb mla", "float32 asm_thumb vfma")
    ]
    assert labels.group_label(records.roofs(rs)) == "int8/int16 asm_thumb mla, float32 asm_thumb vfma: 14.7 MMACC/s"
    rs[2]["macs_per_s"] = 1.5e7
    assert (
        labels.group_label(records.roofs(rs))
        == "int8/int16 asm_thumb mla: 14.7 MMACC/s; float32 asm_thumb vfma: 15 MMACC/s"
    )


def test_axes_fit_the_data():
    data = many_roofs()
    (x0, x1), (y0, y1) = plot.limits(data["roofs"], data["points"])
    ois = [p["oi"] for p in data["points"]]
    assert x0 < min(ois) and x0 > min(ois) / 10 and x1 > max(ois)
    assert y1 < max(r["macs_per_s"] for r in data["roofs"] if r["kind"] == "compute") * 10


def test_each_emitter_bends_at_its_own_ridge():
    lines = plot.roof_lines(many_roofs()["roofs"])
    bytecode = [ln for ln in lines if ln.roofs[0].emitter == "bytecode"]
    mem = next(ln for ln in bytecode if ln.kind == "memory")
    for ln in bytecode:
        if ln.kind == "compute":
            assert ln.bend == pytest.approx(ln.value / mem.value)  # starts where its own memory ceiling meets it
    assert mem.bend == pytest.approx(1.0e7 / 1.05e8)  # rises only to its own highest ceiling


def test_an_emitters_slower_memory_ceilings_rise_only_to_its_own_compute_ceiling():
    """The micro:bit's bytecode 'add int8' (39.6 kB/s) once climbed to asm_thumb's 3.4 MMACC/s."""
    rs = [
        {"kind": "compute", "role": "roof", "name": "asm int32", "emitter": "asm_thumb", "dtype": "int32",
         "macs_per_s": 3.4e6, "source": "measured"},
        {"kind": "compute", "role": "ceiling", "name": "bc int8", "emitter": "bytecode", "dtype": "int8",
         "macs_per_s": 1.64e4, "source": "measured"},
        {"kind": "memory", "role": "ceiling", "name": "bc add", "emitter": "bytecode", "bytes_per_s": 1.56e5,
         "source": "measured"},
        {"kind": "memory", "role": "ceiling", "name": "bc add int8", "emitter": "bytecode", "bytes_per_s": 3.96e4,
         "source": "measured"},
        {"kind": "memory", "role": "ceiling", "name": "c copy", "emitter": "c", "bytes_per_s": 4e7,
         "source": "measured"},
    ]  # fmt: skip
    bends = {ln.roofs[0].name: ln.bend for ln in plot.roof_lines(rs) if ln.kind == "memory"}
    assert bends["bc add int8"] == pytest.approx(1.64e4 / 3.96e4)
    assert bends["bc add"] == pytest.approx(1.64e4 / 1.56e5)
    assert bends["c copy"] == pytest.approx(3.4e6 / 4e7)  # no compute ceiling of its own: the top roof


def test_svg_keeps_text_as_text(tmp_path):
    svg = plot.draw(many_roofs(), tmp_path / "p.svg").read_text()
    assert "<text" in svg and "memory L1" in svg


def test_select_and_panels(tmp_path, monkeypatch):
    data = many_roofs()
    part = plot.select(data, ["viper"], ["int8"])
    assert {
        (r["emitter"], r["dtype"]) for r in part["roofs"] if r["kind"] == "compute" and r["source"] == "measured"
    } == {("viper", "int8")}
    with pytest.raises(plot.UserError, match="no emitter xtensa"):
        plot.select(data, ["xtensa"])
    fig = _render(data, tmp_path, monkeypatch, panels=True)
    assert [ax.get_title() for ax in fig.axes] == ["viper", "native", "bytecode"]
    plot.plt.close(fig)


def test_spread_keeps_distance_and_bounds():
    want = [0.0, 0.01, 0.02, 0.5, 0.51, 3.0]
    pos = labels.spread(want, 0.1, -1.0, 3.0)
    assert all(b - a >= 0.1 - 1e-9 for a, b in zip(pos, pos[1:]))
    assert pos[3] == pytest.approx(0.455) and pos[5] == pytest.approx(3.0)
    assert labels.spread([2.95, 2.99], 0.1, 0.0, 3.0) == pytest.approx([2.9, 3.0])


def test_layer_numbers_overlap_no_other_text(drawn):
    data, fig = drawn
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    numbers = [t for t in ax.texts if t.get_text().split(":")[0].replace(",", "").isdigit()]
    assert {int(n) for t in numbers for n in t.get_text().split(":")[0].split(",")} == {
        p.index for p in records.points(data) if plot.is_shown(p) or plot.is_macfree(p)
    }  # a MAC-free layer is numbered at the left edge
    others = [t for t in ax.texts if t not in numbers and t.get_text()]
    boxes = [Text.get_window_extent(t, renderer) for t in numbers]
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b)
    for a in boxes:
        assert not any(a.overlaps(Text.get_window_extent(o, renderer)) for o in others)
