"""The shipped MLPerf Tiny table: MACs recounted by mcuroof's analyzer, MAC/cycle by hand, the
figures above their core's bound flagged with the reason found in the submission."""

from __future__ import annotations

import pytest

from conftest import shared_model
from mcuroof.model.load import load_network
from mcuroof.published import mlperf
from mcuroof.report import c_engines


@pytest.mark.parametrize("bench", ["vww", "ic"])
def test_macs_of_the_built_in_shapes_are_the_analyzers(bench):
    net = load_network(mlperf.BENCH_MODEL[bench])
    assert sum(l.macc for l in net.layers) == mlperf.MACS[bench][0]


@pytest.mark.parametrize("bench,file", [("kws", "kws_ref_model.tflite"), ("ad", "ad01_int8.tflite")])
def test_macs_of_the_reference_files_are_the_analyzers(bench, file):
    net = load_network(str(shared_model(file)))
    assert sum(l.macc for l in net.layers) == mlperf.MACS[bench][0]


def test_core_and_clock_parsing():
    assert mlperf.core_of("32-bit Arm® Cortex®-M4 (DSP + FPU)") == "Cortex-M4"
    assert mlperf.core_of("32-bit Arm® Cortex®-M0+") == "Cortex-M0+"
    assert mlperf.core_of("Arm Cortex-M33 32-bit RISC core") == "Cortex-M33"
    assert mlperf.core_of("HiFi3 + M0") is None and mlperf.core_of("ARM Cortex A9 Based") is None
    assert mlperf.clock_of("96 MHz") == 96e6 and mlperf.clock_of("1Ghz") == 1e9 and mlperf.clock_of("") is None


def test_every_row_has_its_source_and_mac_per_cycle_by_hand():
    rows = mlperf.results()
    assert len(rows) > 300 and all(r.path and r.commit and r.results_repo for r in rows)
    ref = next(r for r in rows if r.system == "Nucleo-L4R5ZI" and r.bench == "kws" and r.round == "0.5")
    # the v0.5 reference: KWS in 181.9 ms on a Cortex-M4 at 120 MHz
    assert ref.core == "Cortex-M4" and ref.clock_hz == 120e6
    assert ref.macs_per_cycle == pytest.approx(2_656_768 / (ref.latency_s * 120e6))
    assert 0.1 < ref.macs_per_cycle < 0.13


def test_the_stm32u3_above_the_m33_bound_is_flagged_with_its_accelerator():
    u3 = next(r for r in mlperf.results() if r.system == "NUCLEO_U3C5ZIT6_Q" and r.bench == "ic")
    assert u3.core == "Cortex-M33" and u3.clock_hz == 96e6
    assert u3.macs_per_cycle == pytest.approx(12_501_632 / (u3.latency_s * 96e6)) and u3.macs_per_cycle > 2
    assert mlperf.bound("Cortex-M33")[0] == 2
    why = mlperf.flag(u3)
    assert "accelerator" in why and "DSP Co-processor" in why
    row = next(r for r in mlperf.per_core() if r["core"] == "Cortex-M33" and r["bench"] == "ic")
    assert [f["system"] for f in row["flagged"]] == ["NUCLEO_U3C5ZIT6_Q"]
    assert row["best"]["macs_per_cycle"] <= 2 and row["best"]["accelerator"] is None


def test_no_best_figure_is_above_its_bound_or_accelerated():
    for row in mlperf.per_core():
        b = row["best"]
        bound = mlperf.bound(row["core"])
        if b and bound:
            assert b["macs_per_cycle"] <= bound[0], row
        assert b is None or b["accelerator"] is None


def test_best_for_a_run_core():
    assert {r["bench"] for r in mlperf.best_for("Cortex-M4F")} == {"ad", "ic", "kws", "vww"}
    assert mlperf.best_for("Cortex-M55") == []
    assert c_engines.run_core({"board": {"name": "pico"}}) == "Cortex-M0+"


def test_a_qemu_run_is_shown_per_instruction_and_said_so():
    result = {
        "board": {"name": "qemu-m7", "icount_shift": 6, "core": {"name": "Cortex-M7"}},
        "model": {
            "name": "kws-dscnn",
            "whole_model": [{"emitter": "asm_thumb", "dtype": "int8", "macc": 2_656_768, "measured_seconds": 0.1}],
        },
    }
    # 2,656,768 MACs in 0.1 s of 64 ns instructions (15.625 M instr/s): 1.70 MAC/instr
    lines = c_engines.run_lines(result)
    assert lines == [
        "this run, the MLPerf Tiny kws model, asm_thumb int8: 1.7 MAC/instr (instructions (QEMU shift=6: 15.6 M instr/s))"
    ]
    texts = [getattr(r, "plain", "") for r in c_engines.renderables(result)]
    assert any("count instructions" in t or "counts instructions" in t for t in texts)
    result["model"]["name"] = "my_kws"  # a user's model: named after its MACs, not called the reference
    assert c_engines.run_lines(result)[0].startswith(
        "this run, my_kws (the same 2,656,768 MACs as MLPerf Tiny's kws reference, so its figures compare), "
    )


def test_a_riscv_core_is_shown_the_rv32_results_there_are_and_why_they_pass_rv32im():
    """KWS on the Andes D25F (RV32IMACP, 60 MHz): 2,656,768 MACs in 79.853 ms = 0.555 MAC/cycle,
    above the 0.5 RV32IM allows (MUL then ADD): its P extension's SIMD, said beside the figure."""
    from mcuroof.published import mlperf

    d25 = next(r for r in mlperf.riscv_results("kws") if "D25F" in r.processor)
    assert abs(d25.macs_per_cycle - 2_656_768 / (79.853e-3 * 60e6)) < 1e-9 and f"{d25.macs_per_cycle:.3g}" == "0.555"
    text = mlperf.no_result_text("RISC-V RV32IMAC")
    assert "no published result on a RISC-V RV32IMAC" in text and "D25F (RV32IMACP, 60MHz) 0.555 MAC/cycle" in text
    assert "above the 0.5 MAC/cycle that RV32IM allows" in text and "P extension" in text
    assert (
        mlperf.no_result_text("Cortex-M55")
        == "C-engine reference (MLPerf Tiny closed, int8): no published result on a Cortex-M55"
    )
