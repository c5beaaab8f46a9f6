"""Loaded results are checked, not trusted: rates derived again from work and time, a point above
its roof marked whoever wrote the file (issue 25)."""

import json
from pathlib import Path

import pytest

from mcuroof.cli import main
from mcuroof.results import document as results

KWS = Path(__file__).parents[1] / "data" / "results-kws-microbit.json"


def edited(tmp_path: Path, change) -> Path:
    data = json.loads(KWS.read_text())
    change(data["points"][3])
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("field", ["macs_per_s", "bytes_per_s", "oi"])
def test_a_rate_its_work_and_time_disagree_with_is_one_line(tmp_path, capsys, field):
    path = edited(tmp_path, lambda p: p.update({field: 1e12}))
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"mcuroof: {path}: points[3].{field} is 1e+12 but its own ")


def test_a_point_made_faster_than_its_roof_is_marked(tmp_path, capsys, monkeypatch):
    """Time, rates and flag edited together, 30,000x faster, the flag left false: the roof the
    point names puts it above, and every output says so."""
    data = json.loads(KWS.read_text())
    p = data["points"][3]
    assert not p["above_roof"] and p["roof_macs_per_s"]

    def faster(p):
        p["seconds"] /= 3e4
        p["macs_per_s"] = p["macc"] / p["seconds"]
        p["bytes_per_s"] = p["bytes"] / p["seconds"]

    loaded = results.load(edited(tmp_path, faster))
    q = loaded["points"][3]
    assert q["above_roof"] and q["headroom"] == pytest.approx(p["headroom"] / 3e4)
    assert q["advice_kind"] == "above" and "ABOVE ITS ROOF" in q["advice"]
    assert not any(r["above_roof"] for i, r in enumerate(loaded["points"]) if i != 3)  # the others untouched
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["report", str(tmp_path / "results.json")]) == 0
    assert "1 point(s) ABOVE their roof" in capsys.readouterr().out


def test_files_mcuroof_wrote_load_unchanged():
    for name in ("results-kws-microbit.json", "results-vww-unix.json"):
        path = KWS.with_name(name)
        raw = json.loads(path.read_text())
        loaded = results.load(path)
        assert [(p["above_roof"], p["headroom"]) for p in loaded["points"]] == [
            (r["above_roof"], pytest.approx(r["headroom"])) for r in raw["points"]
        ]
