"""The regions suite: read roofs from memory regions a sweep cannot find (flash, SRAM, PSRAM)."""

import pytest

from mcuroof.analysis import roofs
from mcuroof.suites import registry

MICROBIT_PROBE = {"platform": "microbit", "emitters": ["bytecode", "asm_thumb"], "free": 9000, "tick_us": 24}


def reg(rg="flash", ws=1024, us=20000, ovh=500, r=10, chk=7, ref=7, pat=False):
    p = max(1, 65536 // ws)  # as the firmware does: every call reads 64 KB
    return {
        "t": "reg",
        "rg": rg,
        "em": "asm_thumb",
        "ws": ws,
        "p": p,
        "bytes": ws * p,
        "r": r,
        "us": us,
        "med": us,
        "ovh": ovh,
        "chk": chk,
        "ref": ref,
        "pat": pat,
    }


def test_pattern_sum_and_checks_by_hand():
    # bytes 1 2 3 4 | 5 6 7 1 as little-endian words: 0x04030201 + 0x01070605
    assert roofs.pattern_word_sum(8) == 0x04030201 + 0x01070605
    assert roofs.region_ok(reg(pat=True, ws=8, ref=None, chk=0x04030201 + 0x01070605))
    assert not roofs.region_ok(reg(pat=True, ws=8, ref=None, chk=1))
    # flash: the board's two readers must agree (asm returns a signed word, mem32 an unsigned one)
    assert roofs.region_ok(reg(chk=-1, ref=0xFFFFFFFF))
    assert not roofs.region_ok(reg(chk=5, ref=6))
    assert not roofs.region_ok(reg(ref=None))  # nothing to check against: left out


def test_region_roof_is_the_plateau_at_the_largest_sizes():
    # a cache in front of the region: fast small sizes, then the region's own speed
    recs = [reg(ws=ws, us=us) for ws, us in [(1024, 2100), (2048, 2100), (4096, 8100), (8192, 8100), (16384, 8000)]]
    ok, bad = roofs.region_split(recs + [reg(chk=1, ref=2)])
    assert len(ok) == 5 and len(bad) == 1
    (roof,) = roofs.region_roofs(ok)
    assert roof["role"] == "region" and roof["name"] == "flash read" and roof["ws_range"] == [4096, 16384]
    # 64 KB per call, 10 calls, in 8000 - 500 us
    assert roof["bytes_per_s"] == pytest.approx(65536 * 10 / 7500e-6)


def test_plan_per_port():
    cfg = registry.suite_config("regions", MICROBIT_PROBE)
    assert cfg["emitter"] == "asm_thumb" and [r["name"] for r in cfg["regions"]] == ["flash", "SRAM"]
    assert cfg["regions"][0]["wa"] == 0
    unix = registry.suite_config("regions", {"platform": "linux", "emitters": ["bytecode", "viper"], "free": 1 << 30})
    assert unix["regions"] == [] and unix["skip"] == "unix"
    esp = registry.suite_config(
        "regions", {"platform": "esp32", "emitters": ["bytecode", "native", "viper"], "free": 4 << 20, "tick_us": 1}
    )
    assert [r["name"] for r in esp["regions"]] == ["SRAM", "PSRAM"] and esp["emitter"] == "viper"
    # every piece of the suite stays under the micro:bit's 1 KB limit
    assert all(len(c) < 1024 for c in registry.chunks("regions", cfg))
