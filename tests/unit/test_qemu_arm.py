"""The QEMU Arm boards (qemu-m3, qemu-m7, qemu-m55): the firmware build, the ISA peak kernels
checked on the cores that have them, and the modern serial link (raw-paste, soft reboot, Ctrl-C).
The firmware is built once per machine and cached (~/.cache/mcuroof/firmware)."""

import shutil

import pytest

from mcuroof.errors import UserError
from mcuroof.links import firmware_build


def test_missing_toolchain_names_the_apt_command(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(UserError) as e:
        firmware_build.check_toolchain()
    assert "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi" in str(e.value)
    assert "\n" not in str(e.value)


def test_a_changed_sdist_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    bad = tmp_path / "mcuroof" / "sdist" / firmware_build.SDIST_FILE
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"not the sdist")
    with pytest.raises(UserError, match="is not the pinned"):
        firmware_build.fetch_sdist()
