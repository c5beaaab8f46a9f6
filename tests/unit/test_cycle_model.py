"""links/cycle_model.py without QEMU: the regions file it writes and the arguments it refuses."""

import pytest

from mcuroof.errors import UserError
from mcuroof.links import cycle_model
from mcuroof.links.cycle_model import LineBuffer, Region


def test_regions_file_lists_regions_then_line_buffers():
    text = cycle_model.regions_text(
        [Region(0x08000000, 0x08100000, 5, 5, "flash"), Region(0x20000000, 0x20020000, 0, 0, "sram")],
        [LineBuffer("flash", 64, 16, True)],
    )
    assert text.splitlines()[1:] == [
        "0x08000000 0x08100000 5 5 flash",
        "0x20000000 0x20020000 0 0 sram",
        "accel flash 64 16 1",
    ]


@pytest.mark.parametrize(
    "regions,buffers",
    [
        ([Region(0x100, 0x100, 0, 0, "empty")], []),
        ([Region(0, 0x1000, -1, 0, "negative")], []),
        ([Region(0, 0x1000, 0, 0, "two words")], []),
        ([Region(0, 0x1000, 0, 0, "flash")], [LineBuffer("sram", 64, 16, True)]),
    ],
)
def test_bad_regions_are_refused(regions, buffers):
    with pytest.raises(UserError):
        cycle_model.regions_text(regions, buffers)


def test_unknown_core_is_refused_before_building():
    with pytest.raises(UserError, match="no cycle model for core 'cortex-m7'"):
        cycle_model.qemu_args("cortex-m7", 1, 0, 0x20000000, None)
