"""Layer profiling: counts by hand, the numpy reference against hand-written loops, tiling, and
every layer kernel run on the real MicroPython unix port and checked against the reference."""

import dataclasses

import pytest

from conftest import needs_qemu
from factories import SMALL_OPS, SMALL_TENSORS, build_tflite
from mcuroof.kernels.ops import contract, dispatch, layer_plan, reference
from mcuroof.links.unix import UnixLink
from mcuroof.measure.collect import Collector
from mcuroof.measure.rawlog import RawLog
from mcuroof.model import builtins
from mcuroof.model.network import Layer
from mcuroof.suites import registry
from unit.test_layers import conv_layer


def synthetic_network():
    kws = builtins.builtin_network("kws-dscnn")
    resnet = builtins.builtin_network("ic-resnet8")
    extra = (
        conv_layer(index=90),
        conv_layer(index=91, name="maxpool", op="MAX_POOL_2D", output=(1, 5, 4, 3), weights=(), macc=0),
        Layer(index=92, name="relu", op="RELU", dtype="int8", inputs=((1, 50),), output=(1, 50)),
        dataclasses.replace([l for l in resnet.layers if l.op == "ADD"][0], index=93),
    )
    return dataclasses.replace(kws, layers=kws.layers + extra)


@pytest.mark.slow
def test_every_layer_kernel_on_the_unix_port_matches_the_reference(tmp_path, micropython):
    net = synthetic_network()
    ems = ["bytecode", "native", "viper"]
    jobs, _ = layer_plan.plan(
        net, ["int8", "float32"], ems, heap=1 << 26, max_work={(e, d): 3e4 for e in ems for d in ("int8", "float32")}
    )
    log = RawLog(tmp_path / "raw.jsonl")
    recs = Collector(UnixLink(micropython), log).run_suite("layers", {"win_us": 1000, "trials": 3, "jobs": jobs})
    log.close()
    by_key = {j.key: j for j in jobs}
    runs = [r for r in recs if r["t"] == "layer"]
    assert len([r for r in runs if r["cand"] < len(by_key[registry.record_key(r)].candidates)]) == len(jobs)
    failed = [registry.record_key(r) for r in runs if not reference.verify(by_key[registry.record_key(r)], r)]
    assert failed == []
    ops = {(by_key[registry.record_key(r)].layer.op, r["em"], r["ty"]) for r in runs}
    for op in contract.OPS:
        assert (op, "bytecode", "int8") in ops and (op, "native", "float32") in ops and (op, "viper", "int8") in ops


def test_a_small_tflite_of_our_own_profiled_on_the_unix_port(tmp_path):

    from mcuroof.cli import main
    from mcuroof.results import document as results

    path = tmp_path / "small.tflite"
    path.write_bytes(build_tflite(SMALL_TENSORS, SMALL_OPS, [0], [10]))
    out = tmp_path / "out"
    assert (
        main(
            [
                "run",
                "--board",
                "unix",
                "--suite",
                "layers",
                "--model",
                str(path),
                "--emitter",
                "bytecode,viper",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    data = results.load(out / "results.json")
    pts = data["points"]
    assert all(p["verified"] for p in pts) and len(pts) == 2 * 4
    # MACC by hand: conv 8x8x4 x 3x3x2, depthwise 8x8x4 x 3x3, ADD none, dense 10 x 256
    assert sorted({(p["op"], p["macc"]) for p in pts}) == [
        ("ADD", 0),
        ("CONV_2D", 4608),
        ("DEPTHWISE_CONV_2D", 2304),
        ("FULLY_CONNECTED", 2560),
    ]
    assert {p["bytes"] for p in pts if p["op"] == "CONV_2D"} == {200 + 256 + 72 + 16}


def test_a_layer_whose_script_keeps_failing_is_left_out_not_the_run(tmp_path, micropython):
    from mcuroof.suites import layers as layer_suite

    good = layer_plan.plan_layer(conv_layer(), "int8", "bytecode", 1 << 20, None)
    bad_tile = dataclasses.replace(good.tiles[0], nx=1)  # the kernel reads past its input: IndexError
    bad = dataclasses.replace(good, layer=conv_layer(index=5, name="broken"), tiles=(bad_tile,), companions=0)
    log = RawLog(tmp_path / "raw.jsonl")
    recs = Collector(UnixLink(micropython), log).run_suite("layers", {"win_us": 1000, "trials": 3, "jobs": [bad, good]})
    log.close()
    assert [r["t"] for r in recs] == ["skip", "layer"] and recs[0]["unit"] == bad.key
    assert reference.verify(good, recs[1])
    request = layer_suite.Request(
        dataclasses.replace(builtins.builtin_network("kws-dscnn"), layers=(bad.layer, good.layer)), jobs=[bad, good]
    )
    result = layer_suite.results_parts(request, recs, [], {"name": "unix"})
    assert [p["name"] for p in result["points"]] == ["conv"]
    assert "kept failing" in result["model"]["not_profiled"][0]["why"]


def microbit_asm_network():
    """Layers that take the asm_thumb kernels' less common paths: average pools (a 'same' window
    clipped at the borders, so its count varies, and a global one), a first convolution with
    more inputs per kernel row than output channels (VWW's), plain and strided depthwise, a 1x1
    convolution with few channels."""
    pool = dict(op="AVERAGE_POOL_2D", weights=(), macc=0)
    dw = dict(op="DEPTHWISE_CONV_2D", inputs=((1, 9, 7, 8),), weights=((1, 3, 3, 8), (8,)), kernel=(3, 3))
    return dataclasses.replace(
        builtins.builtin_network("kws-dscnn"),
        layers=(
            conv_layer(index=0),
            conv_layer(index=1, name="avgpool", output=(1, 9, 7, 3), stride=(1, 1), **pool),
            conv_layer(
                index=2,
                name="globalpool",
                inputs=((1, 5, 3, 8),),
                output=(1, 1, 1, 8),
                kernel=(5, 3),
                stride=(5, 3),
                padding="valid",
                **pool,
            ),
            conv_layer(index=3, name="dw", output=(1, 9, 7, 8), stride=(1, 1), macc=9 * 7 * 8 * 9, **dw),
            conv_layer(index=4, name="dw2", output=(1, 5, 4, 8), stride=(2, 2), macc=5 * 4 * 8 * 9, **dw),
            conv_layer(
                index=5,
                name="pw",
                inputs=((1, 6, 5, 8),),
                output=(1, 6, 5, 16),
                weights=((16, 1, 1, 8), (16,)),
                kernel=(1, 1),
                stride=(1, 1),
                macc=6 * 5 * 16 * 8,
            ),
        ),
    )


def _unshifted(t):
    """t with S = 0 in (acc * M) >> S: most outputs clamp at 127 or LO."""
    p = list(t.params)
    p[13] = 0
    return dataclasses.replace(t, params=tuple(p))


def _run_on_the_microbit(tmp_path, jobs):
    """Run the jobs on the QEMU micro:bit: every job runs and every run verifies."""
    from mcuroof.links.qemu import QemuLink

    log = RawLog(tmp_path / "raw.jsonl")
    link = QemuLink()
    try:
        recs = Collector(link, log).run_suite("layers", {"win_us": 1000, "trials": 2, "jobs": jobs})
    finally:
        link.close()
        log.close()
    by_key = {j.key: j for j in jobs}
    runs = [r for r in recs if r["t"] == "layer"]
    assert {registry.record_key(r) for r in runs} == set(by_key)
    assert [registry.record_key(r) for r in runs if not reference.verify(by_key[registry.record_key(r)], r)] == []


@needs_qemu
def test_microbit_depthwise_clamps_like_the_reference(tmp_path):
    """The default requantization keeps outputs under 127: here both clamps of dw_pixel work."""
    jobs, _ = layer_plan.plan(microbit_asm_network(), ["int8"], ["asm_thumb"], heap=3000)
    jobs = [
        dataclasses.replace(j, tiles=tuple(map(_unshifted, j.tiles))) for j in jobs if j.layer.op == "DEPTHWISE_CONV_2D"
    ]
    for j in jobs:
        out, lo = reference.reference_output(j.layer.op, "int8", j.tiles[0]), j.tiles[0].params[14]
        assert (out == 127).sum() > out.size // 4 and (out == lo).sum() > out.size // 4
        assert "data(2," in dispatch.script(j)
    _run_on_the_microbit(tmp_path, jobs)


@needs_qemu
def test_asm_thumb_kernels_on_the_microbit_match_the_reference(tmp_path):
    net = microbit_asm_network()
    jobs, skipped = layer_plan.plan(net, ["int8"], ["asm_thumb"], heap=3000)
    assert skipped == [] and len(jobs) == len(net.layers)
    assert ["def srun(" in dispatch.script(j) for j in jobs] == [True, False, False, False, False, False]
    assert ["def apool(" in dispatch.script(j) for j in jobs] == [False, True, True, False, False, False]
    assert ["def prun(" in dispatch.script(j) for j in jobs] == [False] * 5 + [True]
    _run_on_the_microbit(tmp_path, jobs)
