"""The held-out zoo (models/zoo, written by tools/make_zoo.py): the files load through mcuroof's
own loader, their MACs agree with a hand count, they carry TFLite Micro's int8 quantisation, and
the script writes them again byte for byte."""

import sys

import pytest
import tflite

from conftest import ROOT
from mcuroof.kernels.ops.tiles import unsupported
from mcuroof.model.load import load_network

sys.path.insert(0, str(ROOT / "tools"))
import make_zoo  # noqa: E402

ZOO = ROOT / "models" / "zoo"
NAMES = sorted(make_zoo.ZOO)


def _path(name):
    return ZOO / f"{name}.tflite"


@pytest.mark.parametrize("name", NAMES)
def test_the_script_writes_the_committed_file_again(name):
    assert make_zoo.build(name) == _path(name).read_bytes()


@pytest.mark.parametrize("name", NAMES)
def test_every_layer_has_a_kernel_but_the_classifier_tail(name):
    net = load_network(str(_path(name)))
    left = {l.op for l in net.layers if unsupported(l)}
    assert left <= {"RESHAPE", "SOFTMAX"}
    assert net.layers[-1].op == "SOFTMAX"


def test_macs_of_two_layers_by_hand():
    wake = load_network(str(_path("wakeword_temporal"))).layers
    # 9x1 depthwise on 25x1x64, stride 1, SAME: 25 rows x 1 column x 64 channels x 9 taps
    assert (wake[5].op, wake[5].kernel, wake[5].output) == ("DEPTHWISE_CONV_2D", (9, 1), (1, 25, 1, 64))
    assert wake[5].macc == 25 * 1 * 64 * 9 == 14_400
    # 1x3 convolution, stride 2, VALID, on 16x20x24 -> 8x9x32: (16-1)//2+1 = 8 rows, (20-3)//2+1 = 9 columns
    k1 = load_network(str(_path("conv_1xk"))).layers[2]
    assert (k1.kernel, k1.stride, k1.padding, k1.output) == ((1, 3), (2, 2), "valid", (1, 8, 9, 32))
    assert k1.macc == 8 * 9 * 32 * (1 * 3 * 24) == 165_888
    # 1x1 convolution 8x8x256 -> 256
    assert load_network(str(_path("wide_1x1"))).layers[1].macc == 8 * 8 * 256 * 256 == 4_194_304


def _quant(model, graph, op_index, input_index):
    t = graph.Tensors(int(graph.Operators(op_index).Inputs(input_index)))
    q = t.Quantization()
    return t, q.ScaleLength(), q.QuantizedDimension()


def test_quantisation_as_tflite_micro_models_carry_it():
    """Conv filters per output channel (OHWI, dimension 0), depthwise per channel (1HWC,
    dimension 3), dense weights per tensor, int32 biases per channel; int8 activations."""
    model = tflite.Model.GetRootAsModel(_path("mbv2_residual").read_bytes(), 0)
    graph = model.Subgraphs(0)
    conv_w, n, dim = _quant(model, graph, 1, 1)  # 1x1 expand 16 -> 64
    assert (conv_w.ShapeAsNumpy().tolist(), conv_w.Type(), n, dim) == ([64, 1, 1, 16], tflite.TensorType.INT8, 64, 0)
    dw_w, n, dim = _quant(model, graph, 2, 1)
    assert (dw_w.ShapeAsNumpy().tolist(), n, dim) == ([1, 3, 3, 64], 64, 3)
    bias, n, _ = _quant(model, graph, 2, 2)
    assert (bias.Type(), n) == (tflite.TensorType.INT32, 64)
    fc_w, n, _ = _quant(model, graph, 18, 1)
    assert (fc_w.ShapeAsNumpy().tolist(), n) == ([10, 128], 1)
    act = graph.Tensors(int(graph.Inputs(0)))
    assert (act.Type(), act.Quantization().ScaleLength(), act.ShapeSignatureAsNumpy().tolist()) == (
        tflite.TensorType.INT8,
        1,
        [-1, 32, 32, 3],
    )


@pytest.mark.parametrize("name", NAMES)
def test_the_tflite_interpreter_runs_each_file(name):
    """TFLite's own interpreter (ai-edge-litert, not a dependency: skipped without it) loads the
    file, runs it on an int8 input, and the int8 softmax at the end sums to about 1."""
    litert = pytest.importorskip("ai_edge_litert.interpreter")
    import numpy as np

    it = litert.Interpreter(model_path=str(_path(name)))
    it.allocate_tensors()
    inp, out = it.get_input_details()[0], it.get_output_details()[0]
    it.set_tensor(inp["index"], np.random.default_rng(0).integers(-128, 128, inp["shape"], dtype=np.int8))
    it.invoke()
    scale, zero = out["quantization"]
    assert abs(((it.get_tensor(out["index"]).astype(np.float64) - zero) * scale).sum() - 1) < 0.05
