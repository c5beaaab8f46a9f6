"""units.duration: the one time format every command prints (predict, run, report, compare, farm)."""

from __future__ import annotations

import pytest

from mcuroof.report import user_tables
from mcuroof.units import duration


@pytest.mark.parametrize(
    "seconds, text",
    [(850e-6, "850 us"), (0.0123, "12.3 ms"), (28.45, "28.4 s"), (160.7, "2.68 min"), (28450.0, "7.9 h"), (None, "-")],
)
def test_duration_by_hand(seconds, text):
    assert duration(seconds) == text


def test_a_users_kernel_time_is_a_duration_not_a_count_of_microseconds():
    p = {"user": True, "index": 0, "name": "k", "seconds": 28.45e-3, "macc": 10, "bytes": 4, "advice": "a"}
    assert user_tables.kernel_lines({"points": [p]})[0].startswith("U0 k: 28.45 ms per call")
