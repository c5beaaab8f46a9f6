"""The host's C memcpy reference and its comparison with the measured memory roof."""

import shutil

import pytest

from mcuroof.measure import host_memcpy
from mcuroof.results import document as results


def test_memcpy_reference_copies_and_reports_each_size():
    pts = host_memcpy.memcpy_bandwidth([4096, 1 << 20], min_seconds=0.001, trials=2)
    assert [p["bytes"] for p in pts] == [4096, 1 << 20]  # working set: bytes read + written
    assert all(p["bytes_per_s"] > 0 for p in pts)
    if shutil.which("cc") or shutil.which("gcc"):
        assert all(p["method"] == host_memcpy.KIND_C for p in pts)


def test_summary_ratios_by_hand():
    roofs = [
        {
            "kind": "memory",
            "role": "roof",
            "source": "measured",
            "name": "memory L1",
            "ws_range": [1024, 4096],
            "bytes_per_s": 90.0,
        }
    ]
    sweep = [(1024, 40.0), (2048, 90.0), (4096, 80.0), (8192, 10.0)]
    ref = [
        {"bytes": 1024, "bytes_per_s": 100.0},
        {"bytes": 2048, "bytes_per_s": 100.0},
        {"bytes": 4096, "bytes_per_s": 100.0},
        {"bytes": 8192, "bytes_per_s": 100.0, "method": "x"},
    ]
    lv = results.reference_summary(ref, roofs, sweep)["levels"][0]
    assert lv["sizes_compared"] == 3 and lv["ratio"] == pytest.approx(0.8)  # median of .4 .9 .8
    assert lv["roof_ws"] == 2048 and lv["ratio_at_roof"] == pytest.approx(0.9)
    assert lv["reference_bytes_per_s"] == 100.0
