"""The calibration design (predict.design): a space-filling sequence over the shapes real layers
take, each family of the board's core filled to twice its cost terms, the same shapes every run."""

from __future__ import annotations

import collections

import pytest

from mcuroof.predict import cost_model, design
from mcuroof.suites import calibration

M3 = {"platform": "qemu-m3", "emitters": ["bytecode", "native", "viper", "asm_thumb"], "free": 105264,
      "float": True, "tick_us": 1, "cpu": [1091551793, 17895696]}  # fmt: skip
# the probe's CPUID, ID_PFR0, ID_ISAR0 and MVFR1 words as qemu-m7 reported them
M7 = {**M3, "platform": "qemu-m7", "free": 297392, "cpu": [1092600434, 17895729, 269550113, 301989905]}


def test_halton_by_hand():
    assert design.halton(1, 2) == (0.5, pytest.approx(1 / 3))
    assert design.halton(2, 3) == (0.25, pytest.approx(2 / 3), pytest.approx(2 / 5))
    assert design.halton(5, 1) == (pytest.approx(0.625),)  # 5 = 101 in base 2 -> .101


def test_the_same_board_gets_the_same_shapes_numbered_apart():
    a, b = calibration.jobs(M3), calibration.jobs(dict(M3))
    assert [calibration.key_of(j) for j in a] == [calibration.key_of(j) for j in b]
    keys = [calibration.key_of(j) for j in a]
    assert len(keys) == len(set(keys))
    assert min(j.layer.index for j in a) >= design.INDEX_BASE


@pytest.mark.parametrize("probe", [M3, M7], ids=["m3", "m7"])
def test_every_family_has_twice_its_terms_and_each_term_three_payers(probe):
    fams = collections.defaultdict(list)
    for job in calibration.jobs(probe):
        fams[design.family(job)].append(design.terms(job, job.tiles[0]))
    assert len(fams) > 40
    for fam, got in fams.items():
        payers = collections.Counter(k for t in got for k, v in t.items() if v)
        if fam in {"asm_thumb/int8/dsp-conv-pixel/conv1x1"}:  # rare on every core: the sequence runs out
            continue
        assert len(got) >= 2 * len(payers), (fam, len(got), len(payers))
        assert min(payers.values()) >= design.MIN_PAYERS, (fam, payers)


def test_the_m7_calibrates_every_path_its_generators_pick():
    fams = {design.family(j) for j in calibration.jobs(M7)}
    for path in ("dsp-conv-blocks", "dsp-conv-pairs", "dsp-conv-pixel", "dsp-depthwise", "m0-rows/dense", "dsp-pool"):
        assert any(f"asm_thumb/int8/{path}" in f for f in fams), path
    # the issue's example: a 1024-input dense layer goes to the M0 rows kernel on the M7
    assert "asm_thumb/int8/m0-rows/dense" in fams


def test_the_shapes_span_the_ranges_real_layers_take():
    jobs = [j for j in calibration.jobs(M7) if j.emitter == "viper"]
    params = [j.tiles[0].params for j in jobs]
    assert max(max(p[2], p[5]) for p in params) >= 256  # channels
    assert max(max(p[0], p[1]) for p in params) >= 64  # spatial size
    dense = [j.layer for j in jobs if j.layer.op == "FULLY_CONNECTED"]
    assert max(l.inputs[0][1] for l in dense) >= 1024 and max(l.output[1] for l in dense) >= 256
    dw = {tuple(j.layer.kernel) for j in jobs if j.layer.op == "DEPTHWISE_CONV_2D"}
    assert {(3, 3), (5, 5)} <= dw or (3, 3) in dw and any(max(k) == 7 for k in dw)
    assert any(k[0] == 1 and k[1] > 1 for k in dw) and any(k[1] == 1 and k[0] > 1 for k in dw)
    conv = [j.layer for j in jobs if j.layer.op == "CONV_2D"]
    assert {l.stride[0] for l in conv} == {1, 2} and {l.padding for l in conv} == {"same", "valid"}
    # working sets from a few bytes to most of the heap
    work = [design.extent(j, j.tiles[0])["work_bytes"] for j in jobs]
    assert min(work) < 1024 and max(work) > 0.5 * M7["free"]


def test_a_shape_stays_within_its_emitters_budget_and_runs_whole():
    for job in calibration.jobs(M3):
        lay = job.layer
        assert (lay.macc or 0) <= design.work_budget(job.emitter, job.dtype)
        assert job.tiles[0].fraction == 1 and len(job.tiles) == 1 and not job.why_tiled


def test_cross_validation_tells_what_an_exact_fit_hides():
    """Four shapes for four terms: NNLS passes through each (in-sample error 0), but a shape left
    out is predicted from three, which cannot hold four costs: the interval says so."""
    truth = {"call": 1e-4, "row": 3e-5, "output": 2e-6, "mac": 5e-7}
    shapes = [
        {"call": 1, "row": r, "output": o, "mac": m} for r, o, m in ((1, 8, 64), (4, 64, 900), (9, 9, 9), (2, 50, 5000))
    ]
    samples = [(t, sum(truth[k] * v for k, v in t.items())) for t in shapes]
    model = cost_model.fit("f", samples)
    assert model.worst_fit < 1e-9
    assert max(abs(e) for e in model.cv_log_errors) > 0.05
    # twice as many shapes as terms: the held-out errors shrink to the fit's own
    more = samples + [(t, sum(truth[k] * v for k, v in t.items())) for t in
                      ({"call": 1, "row": r, "output": o, "mac": m} for r, o, m in ((3, 30, 300), (7, 100, 2000), (1, 1, 1), (5, 20, 9000)))]  # fmt: skip
    assert cost_model.fit("f", more).interval(1.0) is None  # 8 held-out errors: no 90 % rank among them
    good = cost_model.fit("f", more + [({"call": 1, "row": 6, "output": 70, "mac": 700}, 7.7e-4)])
    assert max(abs(e) for e in good.cv_log_errors) < 1e-6
    lo, hi = good.interval(1.0)  # exact held-out shapes: the interval is the floor's, 1 %
    assert lo == pytest.approx(1 / 1.01) and hi == pytest.approx(1.01)


def test_an_interval_and_a_range_from_a_fit():
    samples = [({"call": 1, "mac": m}, 1e-4 + m * 1e-6 * (1 + 0.02 * (-1) ** m)) for m in range(10, 200, 15)]
    extents = [{"macs": float(m), "channels": 4.0, "work_bytes": 100.0 + m} for m in range(10, 200, 15)]
    model = cost_model.fit("f", samples, extents)
    lo, hi = model.interval(2e-4)
    assert lo < 2e-4 < hi and hi / 2e-4 == pytest.approx(2e-4 / lo)
    assert model.outside({"macs": 5000.0, "channels": 4.0, "work_bytes": 150.0}) == ["macs 5,000 > 190"]
    assert model.outside({"macs": 100.0, "channels": 4.0, "work_bytes": 150.0}) == []
    again = cost_model.Model.from_dict(model.as_dict())
    assert again == model
