"""Static layer analysis: MACC, bytes, liveness, built-in networks, bad files, `mcuroof analyze`.

The small .tflite files are built here with the flatbuffers builder functions of the `tflite`
package; expected figures are worked out by hand in the comments.
"""

from __future__ import annotations

import json
import random

import pytest

from conftest import shared_model
from factories import OP, SMALL_OPS, SMALL_TENSORS, T, _fc_opts, build_tflite
from mcuroof import cli
from mcuroof.errors import UserError
from mcuroof.model import network
from mcuroof.model.builtins import BUILTINS, builtin_network
from mcuroof.model.load import load_network
from mcuroof.model.network import Layer, Network, live_bytes, peak_memory, totals
from mcuroof.model.tflite import read_tflite

# ------------------------------------------------------------------ building .tflite files


# ------------------------------------------------------------------ MACC, bytes, params


def test_small_model_layers(small):
    net = load_network(str(small))
    assert [l.op for l in net.layers] == ["CONV_2D", "DEPTHWISE_CONV_2D", "ADD", "FULLY_CONNECTED"]
    conv, dw, add, fc = net.layers
    assert conv.macc == 8 * 8 * 4 * 3 * 3 * 2 == 4608
    assert dw.macc == 8 * 8 * 4 * 3 * 3 == 2304
    assert add.macc == 0
    assert fc.macc == 1 * 10 * 256 == 2560
    assert [l.weight_bytes for l in net.layers] == [72 + 16, 36 + 16, 0, 2560 + 40]
    assert [l.act_bytes for l in net.layers] == [200 + 256, 256 + 256, 256 * 3, 256 + 10]
    assert conv.intensity == pytest.approx(4608 / (88 + 456))
    assert conv.inputs == ((1, 10, 10, 2),) and conv.output == (1, 8, 8, 4)
    assert conv.weights == ((4, 3, 3, 2), (4,)) and conv.weight_dtypes == ("int8", "int32")
    assert add.inputs == ((1, 8, 8, 4), (1, 8, 8, 4)) and add.weights == ()
    assert conv.dtype == "int8"


def test_small_model_params(small):
    conv, dw, add, fc = load_network(str(small)).layers
    assert (conv.kernel, conv.stride, conv.padding, conv.activation) == ((3, 3), (1, 1), "valid", "RELU")
    assert (dw.kernel, dw.padding, dw.depth_multiplier, dw.activation) == ((3, 3), "same", 1, "RELU6")
    assert (fc.kernel, fc.stride, fc.padding, fc.activation) == (None, None, None, "NONE")


def test_small_model_totals_and_peak(small):
    net = load_network(str(small))
    assert totals(net)["macc"] == 4608 + 2304 + 2560
    assert net.weight_bytes == 88 + 52 + 2600
    # live sets: L0 in+conv; L1 conv+dw; L2 conv (skip) + dw + add; L3 add + out
    assert live_bytes(net) == [200 + 256, 256 + 256, 3 * 256, 256 + 10]
    peak = peak_memory(net)
    assert (peak.layer, peak.activations, peak.scratch) == (2, 768, 0)
    assert peak.bytes == 2740 + 768


def test_float_dense_with_batch(tmp_path):
    # dense on a batch of 2: MACC = batch*OUT*IN = 2*4*3; float32 is 4 bytes an element
    tensors = [((2, 3), T.FLOAT32, False), ((4, 3), T.FLOAT32, True), ((2, 4), T.FLOAT32, False)]
    path = tmp_path / "fc.tflite"
    path.write_bytes(build_tflite(tensors, [(OP.FULLY_CONNECTED, [0, 1, -1], [2], _fc_opts)], [0], [2]))
    (fc,) = load_network(str(path)).layers
    assert (fc.macc, fc.weight_bytes, fc.act_bytes, fc.dtype) == (24, 48, (6 + 8) * 4, "float32")


def test_shared_constant_counted_once(tmp_path):
    tensors = [((1, 8), T.INT8, False), ((8, 8), T.INT8, True), ((1, 8), T.INT8, False), ((1, 8), T.INT8, False)]
    ops = [(OP.FULLY_CONNECTED, [0, 1], [2], None), (OP.FULLY_CONNECTED, [2, 1], [3], None)]
    path = tmp_path / "shared.tflite"
    path.write_bytes(build_tflite(tensors, ops, [0], [3]))
    net = load_network(str(path))
    assert [l.weight_bytes for l in net.layers] == [64, 64]
    assert net.weight_bytes == 64 and totals(net)["macc"] == 128


def test_unknown_and_custom_ops_are_listed(tmp_path):
    tensors = [((1, 16), T.INT8, False), ((1, 16), T.INT16, False), ((1, 16), T.INT8, False)]
    ops = [("MyCustomOp", [0], [1], None), (250, [1], [2], None)]
    path = tmp_path / "odd.tflite"
    path.write_bytes(build_tflite(tensors, ops, [0], [2]))
    custom, unknown = load_network(str(path)).layers
    assert (custom.op, custom.macc, custom.act_bytes) == ("MyCustomOp", 0, 16 + 32)
    assert (unknown.op, unknown.macc, unknown.act_bytes, unknown.dtype) == ("unknown", 0, 32 + 16, "int16")


# ------------------------------------------------------------------ built-in networks


@pytest.mark.parametrize(
    "name, macc",
    [("kws-dscnn", 2_656_768), ("ad-autoencoder", 264_192), ("vww-mobilenet", 7_489_664), ("ic-resnet8", 12_501_632)],
)
def test_builtin_totals(name, macc):
    net = load_network(name)
    assert totals(net)["macc"] == macc
    assert all(isinstance(l, Layer) and l.dtype == "int8" for l in net.layers)


def test_builtin_shapes():
    kws = builtin_network("kws-dscnn")
    assert kws.layers[0].inputs == ((1, 49, 10, 1),) and kws.layers[0].output == (1, 25, 5, 64)
    assert (kws.layers[0].kernel, kws.layers[0].stride, kws.layers[0].padding) == ((10, 4), (2, 2), "same")
    assert [l.op for l in kws.layers[1:9]] == ["DEPTHWISE_CONV_2D", "CONV_2D"] * 4
    vww = builtin_network("vww-mobilenet")
    assert vww.layers[0].inputs == ((1, 96, 96, 3),) and vww.layers[-2].output == (1, 2)
    resnet = builtin_network("ic-resnet8")
    adds = [l for l in resnet.layers if l.op == "ADD"]
    assert len(adds) == 3 and all(len(l.inputs) == 2 for l in adds)


def test_builtin_peaks_at_least_published():
    assert peak_memory(builtin_network("kws-dscnn")).activations == 16_000
    assert peak_memory(builtin_network("ad-autoencoder")).activations == 768
    # ResNet-8: the skip keeps the 32x32x16 block input alive beside both convs of stack 1
    assert peak_memory(builtin_network("ic-resnet8")).activations == 3 * 32 * 32 * 16
    # MobileNet: first pointwise conv reads 48x48x8 and writes 48x48x16
    assert peak_memory(builtin_network("vww-mobilenet")).activations == 48 * 48 * 8 + 48 * 48 * 16


def test_unknown_builtin_name():
    with pytest.raises(UserError, match="unknown built-in network 'lenet'"):
        builtin_network("lenet")
    with pytest.raises(UserError, match=r"^nosuch: no such file, and not a built-in network"):
        load_network("nosuch")


# ------------------------------------------------------------------ the reference models


@pytest.mark.parametrize(
    "name, macc",
    [("kws_ref_model.tflite", 2_656_768), ("kws_ref_model_float32.tflite", 2_656_768), ("ad01_int8.tflite", 264_192)],
)
def test_reference_totals(name, macc):
    net = load_network(str(shared_model(name)))
    assert totals(net)["macc"] == macc


# weights by hand: KWS conv 64x10x4 + 4 x (depthwise 3x3x64 + pointwise 64x64) + dense 12x64 (int8),
# int32 biases 64 + 4 x (64 + 64) + 12, and the RESHAPE's 2 x int32 shape; AD 640-128-128-128-128-8-
# 128-128-128-128-640 dense, int8 weights and int32 biases. Activations: the largest live pair.
@pytest.mark.parametrize(
    "name, weights, acts, layer",
    [
        ("kws_ref_model.tflite", 2560 + 4 * (576 + 4096) + 768 + 4 * (64 + 4 * 128 + 12) + 8, 25 * 5 * 64 * 2, 1),
        ("ad01_int8.tflite", 640 * 128 * 2 + 128 * 128 * 6 + 128 * 8 * 2 + 4 * (128 * 8 + 8 + 640), 640 + 128, 0),
    ],
)
def test_reference_peak_memory_by_hand(name, weights, acts, layer):
    peak = peak_memory(load_network(str(shared_model(name))))
    assert (peak.weights, peak.activations, peak.layer, peak.scratch) == (weights, acts, layer, 0)
    assert peak.bytes == weights + acts


def test_reference_kws_matches_builtin():
    parsed = load_network(str(shared_model("kws_ref_model.tflite")))
    built = builtin_network("kws-dscnn")
    fields = ("op", "inputs", "output", "weights", "kernel", "stride", "padding", "activation", "macc", "act_bytes")
    for a, b in zip(parsed.layers, built.layers, strict=True):
        if a.op != "RESHAPE":  # the file's RESHAPE reads an 8-byte shape constant
            assert [getattr(a, f) for f in fields] == [getattr(b, f) for f in fields]


# ------------------------------------------------------------------ bad files


def _bad(tmp_path, data: bytes) -> str:
    path = tmp_path / "model.tflite"
    path.write_bytes(data)
    with pytest.raises(UserError) as err:
        read_tflite(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}: ") and "\n" not in msg
    return msg


def test_missing_file(tmp_path):
    with pytest.raises(UserError, match="no such file"):
        load_network(str(tmp_path / "gone.tflite"))


def test_empty_file(tmp_path):
    assert "empty file" in _bad(tmp_path, b"")


def test_not_a_model(tmp_path):
    assert "not a TFLite flatbuffer (bad identifier)" in _bad(tmp_path, b"\x89PNG\r\n\x1a\n" + bytes(64))
    assert "bad identifier" in _bad(tmp_path, b"hello, this is text\n")
    assert "bad identifier" in _bad(tmp_path, b"TFL")


def test_truncated(tmp_path):
    data = build_tflite(SMALL_TENSORS, SMALL_OPS, [0], [10])
    for cut in (12, len(data) // 2, len(data) - 40):
        assert "truncated or corrupt flatbuffer" in _bad(tmp_path, data[:cut])


def test_bit_flips(tmp_path):
    data = bytearray(build_tflite(SMALL_TENSORS, SMALL_OPS, [0], [10]))
    ident = bytearray(data)
    ident[5] ^= 0x01  # identifier "TFL3" -> "TGL3"
    assert "bad identifier" in _bad(tmp_path, bytes(ident))
    root = bytearray(data)
    root[3] ^= 0x40  # root table offset far past the end
    assert "truncated or corrupt flatbuffer" in _bad(tmp_path, bytes(root))


def test_random_damage_never_escapes(tmp_path):
    """Any damage gives a Network or a one-line UserError, never another exception."""
    data = build_tflite(SMALL_TENSORS, SMALL_OPS, [0], [10])
    rnd = random.Random(7)
    path = tmp_path / "damaged.tflite"
    for _ in range(400):
        damaged = bytearray(data)
        for _ in range(rnd.choice((1, 4))):
            damaged[rnd.randrange(8, len(damaged))] ^= 1 << rnd.randrange(8)
        path.write_bytes(bytes(damaged))
        try:
            assert isinstance(read_tflite(path), Network)
        except UserError as e:
            assert "\n" not in str(e) and str(path) in str(e)


# ------------------------------------------------------------------ the command


@pytest.fixture
def run_cli(monkeypatch):
    """cli.main restricted to `analyze`, so these tests do not depend on the other subcommands."""
    monkeypatch.setattr(cli, "COMMANDS", {"analyze": cli.COMMANDS["analyze"]})
    return cli.main


def test_cli_json(run_cli, small, capsys):
    assert run_cli(["analyze", str(small), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == 1 and doc["model"] == "small"
    assert [l["macc"] for l in doc["layers"]] == [4608, 2304, 0, 2560]
    assert doc["layers"][0]["output"] == [1, 8, 8, 4]
    assert doc["totals"]["macc"] == 9472
    covers = doc["peak_memory"].pop("scratch_covers")
    assert doc["peak_memory"] == {"bytes": 3508, "layer": 2, "weights": 2740, "activations": 768, "scratch": 0}
    assert covers.startswith("0 B of heap") and "stack frame of up to 6,144 B" in covers


def test_cli_csv(run_cli, small, capsys):
    assert run_cli(["analyze", str(small), "--csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("index,name,op,dtype,inputs,output")
    assert len(lines) == 5 and ",CONV_2D,int8,1x10x10x2,1x8x8x4,4x3x3x2;4,3x3,1x1,valid," in lines[1]


def test_cli_table(run_cli, capsys):
    assert run_cli(["analyze", "--model", "kws-dscnn"]) == 0
    out = capsys.readouterr().out
    assert "DEPTHWISE_CONV_2D" in out and "2,656,768" in out
    assert "peak memory 40,368 B at layer 1" in out


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["--model", "lenet"], "--model lenet: unknown built-in network"),
        (["missing.tflite"], "missing.tflite: no such file"),
        ([], "give a MODEL.tflite file or --model NAME"),
    ],
)
def test_cli_errors(run_cli, capsys, argv, fragment):
    assert run_cli(["analyze", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mcuroof: ") and fragment in err and err.count("\n") == 1


def test_cli_corrupt_file(run_cli, tmp_path, capsys):
    path = tmp_path / "bad.tflite"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    assert run_cli(["analyze", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"mcuroof: {path}: not a TFLite flatbuffer (bad identifier)\n"


def test_builtin_names_listed():
    assert set(BUILTINS) == {"kws-dscnn", "vww-mobilenet", "ic-resnet8", "ad-autoencoder"}


def _chain() -> network.Network:
    """in(0, 100 B) -> L0 -> t1 (200 B) -> L1 -> t2 (50 B) -> L2(t2, t1, t9) -> out(3, 10 B); input t8
    is never read, t9 is read by L2 and produced by no layer (a variable tensor)."""

    def layer(i, ins, outs, macc, act):
        return network.Layer(
            i, f"l{i}", "ADD", "int8", (), (1,), macc=macc, act_bytes=act, input_ids=ins, output_ids=outs
        )

    layers = (layer(0, (0,), (1,), 1000, 300), layer(1, (1,), (2,), 2000, 250), layer(2, (2, 1, 9), (3,), 0, 270))
    sizes = {0: 100, 1: 200, 2: 50, 3: 10, 8: 7, 9: 4}
    return network.Network("chain", layers, sizes, input_ids=(0, 8), output_ids=(3,), weight_bytes=430)


def test_totals_by_hand():
    t = network.totals(_chain())
    assert (t["layers"], t["macc"], t["act_bytes"], t["weight_bytes"]) == (3, 3000, 820, 430)
    assert t["intensity"] == pytest.approx(3000 / (430 + 820))


def test_live_ranges_and_peak_by_hand():
    net = _chain()
    ranges = network.live_ranges(net)
    # t1 is read again by the last layer; the variable t9 is held from the start; t8 only at the first
    assert ranges == {0: (0, 0), 1: (0, 2), 2: (1, 2), 3: (2, 2), 8: (0, 0), 9: (0, 2)}
    # layer 0: t0 t1 t8 t9 = 311; layer 1: t1 t2 t9 = 254; layer 2: t1 t2 t3 t9 = 264
    assert network.live_bytes(net) == [311, 254, 264]
    assert network.peak_memory(net) == network.Peak(430 + 311, 0, 430, 311, 0)


def test_a_single_layer_holds_its_output_at_that_layer_only():
    one = network.Layer(0, "l0", "ADD", "int8", (), (1,), input_ids=(0,), output_ids=(1,))
    net = network.Network("one", (one,), {0: 5, 1: 6}, input_ids=(0,), output_ids=(1,), weight_bytes=0)
    assert network.live_ranges(net) == {0: (0, 0), 1: (0, 0)}
    assert network.peak_memory(net).bytes == 11
