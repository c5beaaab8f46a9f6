"""mcuroof npu: Vela's files parsed, the NPU roofs and points by hand, the roof check, CPU-fallback
operators, the whole-model sum, the missing-Vela message; and one real Vela compile end to end."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

import pytest

from conftest import SHARED_MODELS
from mcuroof.cli import main
from mcuroof.errors import UserError
from mcuroof.model.builtins import builtin_network
from mcuroof.model.tflite import parse_tflite
from mcuroof.npu import document, roofline, synth, vela, vela_output

KWS = SHARED_MODELS / "kws_ref_model.tflite"
needs_vela = pytest.mark.skipif(
    importlib.util.find_spec("ethosu") is None, reason="needs Arm's Vela: pip install 'mcuroof[npu]'"
)

# Vela 5.2's summary CSV of KWS on ethos-u55-128 (columns cut to the ones read; values as written)
SUMMARY = (
    "experiment,network,accelerator_configuration,system_config,memory_mode,core_clock,sram_bandwidth,"
    "dram_bandwidth,on_chip_flash_bandwidth,off_chip_flash_bandwidth,weights_storage_area,"
    "feature_map_storage_area,inference_time,nn_macs,cycles_total\n"
    "default,kws_ref_model,Ethos_U55_128,Ethos_U55_High_End_Embedded,Shared_Sram,500000000.0,"
    "3.725290298461914,3.725290298461914,3.725290298461914,0.46566128730773926,Off-chip Flash,SRAM,"
    "0.0001798,2664792,89900\n"
)
HEADER = (
    "Original Operator,NNG Operator,Target,Staging Usage,Peak% (Staging),Op Cycles,Network% (cycles),NPU,"
    "SRAM AC,DRAM AC,OnFlash AC,OffFlash AC,MAC Count,Network% (MAC),Util% (MAC),Name\n"
)
PER_LAYER = HEADER + (
    "Conv2D,Conv2D,NPU,20752,93.5,5944,6.6,5944,4702,0,0,1920,512000,19.2,67.3,conv_1\n"
    "Conv2D,Relu,NPU,0,0.0,0,0.0,0,0,0,0,0,0,0.0,100,conv_1\n"
    "FullyConnected,FullyConnected,NPU,80,0.4,1040,1.2,238,11,0,0,1040,768,0.0,0.6,dense\n"
    "Softmax,Passthrough,CPU,0,0.0,0,0.0,0,0,0,0,0,0,0.0,100,probs\n"
)


def estimate(per_layer: str = PER_LAYER) -> vela.Estimate:
    s = vela_output.summary(SUMMARY)
    return vela.Estimate("m.tflite", "ethos-u55-128", s, vela_output.operations(per_layer), Path("."), "")


def test_summary_reads_the_clock_the_macs_per_cycle_and_gib_as_bytes():
    s = vela_output.summary(SUMMARY)
    assert s.clock_hz == 500e6 and s.macs_per_cycle == 128 and s.cycles == 89900
    # Vela prints GiB/s as "GB/s": 3.7253 GiB/s is 8 B/cycle x 500 MHz = 4e9 B/s
    assert s.bandwidths["SRAM"] == pytest.approx(4e9) and s.bandwidths["Off-chip Flash"] == pytest.approx(0.5e9)
    assert s.placed == ("SRAM", "Off-chip Flash")


def test_roofs_by_hand():
    roofs = {r["name"]: r for r in roofline.roofs(vela_output.summary(SUMMARY))}
    assert roofs["Ethos-U55-128 int8"]["macs_per_s"] == 128 * 500e6
    assert roofs["Ethos-U55-128 SRAM"]["bytes_per_s"] == pytest.approx(4e9)
    assert roofs["Ethos-U55-128 Off-chip Flash"]["bytes_per_s"] == pytest.approx(0.5e9)
    assert {r["source"] for r in roofs.values()} == {"theory"}


def test_points_by_hand_and_fused_and_cpu_operations():
    est = estimate()
    pts = roofline.npu_points(est)
    conv = pts[0]
    # 5944 cycles at 500 MHz; bytes: SRAM 4702 cycles x 8 B + flash 1920 cycles x 1 B = 39,536
    assert conv["seconds"] == pytest.approx(5944 / 500e6)
    assert conv["bytes"] == 4702 * 8 + 1920
    assert conv["intensity"] == pytest.approx(512000 / 39536)
    assert conv["macs_per_s"] == pytest.approx(512000 / (5944 / 500e6))
    assert conv["source"] == "vela" and "not measured" in conv["note"]
    assert [p["name"] for p in pts] == ["conv_1", "dense"]  # the Relu (0 cycles) is fused
    assert roofline.fused(est) == ["Relu"]
    assert roofline.cpu_operators(est, {"probs": 0}) == [{"name": "probs", "tflite_op": "Softmax", "macs": 0}]


def test_no_vela_point_is_above_the_npu_roof_and_one_that_is_is_caught():
    doc = document.document([document.Compiled(estimate(), {})], None, None)
    assert doc["checks"]["points_above_roof"] == 0
    # an operation whose cycles do not cover its SRAM traffic (100 cycles for 4702 cycles of it)
    bad = PER_LAYER.replace(",5944,6.6,5944,", ",100,6.6,100,")
    doc = document.document([document.Compiled(estimate(bad), {})], None, None)
    assert doc["checks"]["above_roof"] == ["conv_1"]


def test_whole_model_adds_the_measured_cpu_operator():
    est = estimate()
    cpu_ops = roofline.cpu_operators(est, {})
    assert roofline.whole_model(est, cpu_ops, None)["seconds"] is None  # not measured: no total
    measured = {"probs": {"seconds": 2e-5}}
    w = roofline.whole_model(est, cpu_ops, measured)
    assert w["npu_seconds"] == 0.0001798 and w["cpu_seconds"] == 2e-5
    assert w["seconds"] == pytest.approx(0.0001798 + 2e-5)


def test_synthetic_tflite_has_the_built_in_shapes():
    for name, macs in (("vww-mobilenet", 7_489_664), ("ic-resnet8", 12_501_632)):
        net = builtin_network(name)
        back = parse_tflite(synth.tflite_bytes(net), name, "synth")
        assert [l.op for l in back.layers] == [l.op for l in net.layers]
        assert [l.output for l in back.layers] == [l.output for l in net.layers]
        assert sum(l.macc for l in back.layers) == macs


def test_missing_vela_names_the_install(monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    with pytest.raises(UserError, match=r"pip install 'mcuroof\[npu\]'"):
        vela.require()


def test_cli_bad_config_is_one_line(capsys, tmp_path):
    assert main(["npu", "kws-dscnn", "--config", "ethos-u99", "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "ethos-u99" in err


def test_cli_needs_a_config_or_an_npu_board(capsys, tmp_path):
    assert main(["npu", "kws-dscnn", "--board", "pico", "-o", str(tmp_path)]) == 2
    assert "no [npu] section" in capsys.readouterr().err


@needs_vela
@pytest.mark.slow
def test_vela_end_to_end_on_the_board_defaults(tmp_path, capsys):
    models = [str(KWS)] if KWS.is_file() else ["kws-dscnn"]
    assert main(["npu", *models, "ic-resnet8", "--board", "corstone300", "-o", str(tmp_path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == json.loads((tmp_path / "npu.json").read_text())
    assert (tmp_path / "npu.png").stat().st_size > 10_000
    assert doc["checks"]["points_above_roof"] == 0
    for p in doc["points"]:
        assert p["macs_per_s"] <= p["roof_macs_per_s"] * (1 + 1e-9)
    for w, run in zip(doc["whole_model"], doc["runs"]):
        assert run["config"] == "ethos-u55-128" and run["clock_hz"] == 500e6
        assert w["npu_seconds"] == pytest.approx(w["npu_cycles"] / 500e6, rel=1e-3)
    # every NPU MAC Vela counts is on a point (the MACs of the model's convolutions and more)
    kws = [p for p in doc["points"] if Path(p["model"]).stem in ("kws_ref_model", "kws-dscnn")]
    assert sum(p["macs"] for p in kws) >= 2_656_768


def test_board_npu_section(tmp_path):
    from mcuroof.board import profiles

    npu = profiles.load_board("corstone300").npu
    assert npu["config"] == "ethos-u55-128" and npu["system"] == "Ethos_U55_High_End_Embedded"
    assert npu["config_source"] and npu["system_source"]
    text = (profiles.PROFILE_DIR / "corstone300.toml").read_text().replace("corstone300", "tb")
    path = tmp_path / "tb.toml"
    path.write_text(text.replace('memory_mode = "Shared_Sram"', 'memory_mode = "Shared_Sram"\nclock = 1'))
    with pytest.raises(UserError, match=r"unknown field \[npu\]\.clock"):
        profiles.load_board(path)


def test_tables_and_plot_say_estimated_and_list_the_cpu_operator(tmp_path):
    import io

    from rich.console import Console

    from mcuroof.report import npu_plot, npu_tables

    doc = document.document([document.Compiled(estimate(), {"probs": 0})], None, "Cortex-M4")
    con = Console(file=io.StringIO(), width=250, color_system=None)
    for item in npu_tables.renderables(doc):
        con.print(item)
    text = con.file.getvalue()
    assert "estimated by Vela 5.2, not measured" in text
    assert "Operators Vela leaves on the CPU" in text and "probs" in text
    assert "C engines on a Cortex-M4" in text and "NPU points above the NPU roof: 0" in text
    png = npu_plot.save(doc, tmp_path / "npu.png")
    assert png.read_bytes()[:4] == b"\x89PNG"
    fig = npu_plot.figure(doc)
    assert "not measured" in fig.axes[0].get_title()
    npu_plot.plt.close(fig)


# Vela 5.2's summary of KWS on ethos-u65-256, Ethos_U65_High_End (Dedicated_Sram_384KB): weights and
# feature maps in DRAM, the SRAM an arena cache that still moves bytes (columns cut to the ones read)
SUMMARY_U65 = (
    "experiment,network,accelerator_configuration,system_config,memory_mode,core_clock,sram_bandwidth,"
    "dram_bandwidth,on_chip_flash_bandwidth,off_chip_flash_bandwidth,weights_storage_area,"
    "feature_map_storage_area,inference_time,nn_macs,cycles_total,sram_total_bytes,dram_total_bytes,"
    "on_chip_flash_total_bytes,off_chip_flash_total_bytes\n"
    "default,kws,Ethos_U65_256,Ethos_U65_High_End,Dedicated_Sram_384KB,1000000000.0,14.901161193847656,"
    "3.4924596548080444,14.901161193847656,14.901161193847656,DRAM,DRAM,5.6883e-05,2664792,56883,"
    "275120,73760,0,0\n"
)
# its first convolution: 16,828 cycles, 1,223 SRAM and 12,974 DRAM access cycles
PER_LAYER_U65 = HEADER + "Conv2D,Conv2D,NPU,12496,56.6,16828,29.6,16828,1223,12974,0,0,320000,12.0,7.4,conv_2d_0\n"


def test_u65_dedicated_sram_is_a_roof_so_its_points_stay_under_it():
    s = vela_output.summary(SUMMARY_U65)
    assert s.placed == ("DRAM", "SRAM")  # the SRAM holds no tensor but moves 275,120 bytes
    est = vela.Estimate("m.tflite", "ethos-u65-256", s, vela_output.operations(PER_LAYER_U65), Path("."), "")
    (conv,) = roofline.npu_points(est)
    # bytes: 1,223 cycles x 16 B (SRAM) + 12,974 cycles x 3.75 B (DRAM) = 19,568 + 48,652
    assert conv["bytes"] == 19_568 + 48_652  # 48,652.5 rounded to even
    bound = (16e9 + 3.75e9) * 320000 / conv["bytes"]
    assert conv["roof_macs_per_s"] == pytest.approx(min(256e9, bound))
    assert conv["macs_per_s"] == pytest.approx(320000 / 16828e-9) and conv["macs_per_s"] < conv["roof_macs_per_s"]


def test_default_system_follows_the_npu_family():
    assert vela.default_system("ethos-u55-128") == "Ethos_U55_High_End_Embedded"
    assert vela.default_system("ethos-u65-256") == "Ethos_U65_High_End"


@needs_vela
def test_u65_works_with_its_own_system_and_a_u55_system_is_one_line(tmp_path, capsys):
    assert main(["npu", "kws-dscnn", "--config", "ethos-u65-256", "-o", str(tmp_path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["runs"][0]["system"] == "Ethos_U65_High_End" and doc["checks"]["points_above_roof"] == 0
    args = ["npu", "kws-dscnn", "--config", "ethos-u65-256", "--system", "Ethos_U55_High_End_Embedded"]
    assert main(args + ["-o", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--system Ethos_U65_High_End" in err


def test_alif_e7_profiles_pair_each_core_with_its_npu():
    from mcuroof.board import profiles

    hp, he = profiles.load_board("alif-e7-hp"), profiles.load_board("alif-e7-he")
    assert (hp.core_name, hp.clock_hz, hp.npu["config"]) == ("Cortex-M55", 400_000_000, "ethos-u55-256")
    assert (he.core_name, he.clock_hz, he.npu["config"]) == ("Cortex-M55", 160_000_000, "ethos-u55-128")
    assert {m.name: m.size_bytes for m in hp.memories}["DTCM"] == 1024 * 1024
    assert {m.name: m.size_bytes for m in he.memories}["DTCM"] == 256 * 1024
    for b in (hp, he):
        assert b.npu["config"] in vela.CONFIGS and b.npu["config_source"] and b.npu["system_source"]
