"""The vendor Vela system configs (npu/vela.py VENDOR_SYSTEMS): Alif's RTSS configurations of the
Ensemble E7, written into an ini for Vela, at the core's own clock; and the KWS estimate through them."""

from __future__ import annotations

import configparser
import importlib.metadata

import pytest

from conftest import SHARED_MODELS
from mcuroof.board import profiles
from mcuroof.npu import vela

KWS = SHARED_MODELS / "kws_ref_model.tflite"


def _vela_installed() -> bool:
    try:
        return importlib.metadata.version("ethos-u-vela") == vela.VERSION
    except importlib.metadata.PackageNotFoundError:
        return False


def test_alif_profiles_name_the_vendor_systems_at_their_core_clock(tmp_path):
    for name in ("alif-e7-hp", "alif-e7-he"):
        board = profiles.load_board(name)
        system = board.npu["system"]
        assert system in vela.VENDOR_SYSTEMS
        cmd = vela.command(tmp_path / "m.tflite", board.npu["config"], system, board.npu.get("memory_mode"), tmp_path)
        ini = cmd[cmd.index("--config") + 1]
        parsed = configparser.ConfigParser()
        parsed.read(ini)
        assert float(parsed[f"System_Config.{system}"]["core_clock"]) == board.clock_hz
        assert parsed["Memory_Mode.Shared_Sram"]["arena_mem_area"] == "Axi0"
        assert cmd[cmd.index("--memory-mode") + 1] == "Shared_Sram"


def test_arm_systems_keep_vela_own_ini(tmp_path):
    cmd = vela.command(tmp_path / "m.tflite", "ethos-u55-128", "Ethos_U55_High_End_Embedded", None, tmp_path)
    assert "--config" not in cmd and not list(tmp_path.glob("*.ini"))


@pytest.mark.skipif(not _vela_installed() or not KWS.is_file(), reason="Vela 5.2 or the KWS model is missing")
def test_kws_through_the_alif_systems(tmp_path):
    """Vela 5.2's own figures for the MLPerf Tiny KWS: 53,958 cycles at 400 MHz (HP), 85,783 at 160 MHz (HE)."""
    for name, cycles, clock in (("alif-e7-hp", 53_958, 400e6), ("alif-e7-he", 85_783, 160e6)):
        npu = profiles.load_board(name).npu
        est = vela.compile_model(KWS, npu["config"], npu["system"], npu["memory_mode"], tmp_path / name)
        assert (est.summary.cycles, est.summary.clock_hz) == (cycles, clock)
