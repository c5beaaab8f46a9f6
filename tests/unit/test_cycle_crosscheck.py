"""tools/cycle_crosscheck.py's arithmetic on results it did not measure: cycles per MAC at the
common 125 MHz, layer times, and the table's ratio and 2 % flag."""

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import cycle_crosscheck as xc  # noqa: E402


def _roof(name, macs_per_s, source="measured"):
    return {"kind": "compute", "name": name, "source": source, "macs_per_s": macs_per_s}


def test_cycles_per_mac_are_the_clock_over_the_measured_rate():
    data = {"roofs": [_roof("int8 asm_thumb muls", 62.5e6), _roof("Cortex-M0+ int8", 62.5e6, "theoretical")]}
    assert xc.cycles_per_mac(data) == {"int8 asm_thumb muls": 2.0}  # 125 MHz / 62.5 MMAC/s


def test_layer_times_and_rows_pair_the_same_names(capsys):
    ref = {"points": [{"name": "conv_2d_0", "emitter": "asm_thumb", "seconds": 0.004}]}
    model = {
        "points": [{"name": "conv_2d_0", "emitter": "asm_thumb", "seconds": 0.0041}, {"name": "x", "emitter": "e"}]
    }
    rows = xc.rows(xc.layer_us(ref), xc.layer_us(model))
    assert [(k, round(a), round(b), round(r, 3)) for k, a, b, r in rows] == [("conv_2d_0 asm_thumb", 4000, 4100, 1.025)]
    xc.table("t", "us", rows, 1)
    assert "| conv_2d_0 asm_thumb | 4,000.0 | 4,100.0 | 1.0250 (outside 2 %) |" in capsys.readouterr().out
