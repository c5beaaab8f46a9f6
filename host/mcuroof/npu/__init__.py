"""An Arm Ethos-U micro-NPU's roofs and per-operator points, read from what Arm's Vela estimates.

vela: the one place that runs Vela (optional dependency: pip install 'mcuroof[npu]');
vela_output: its files parsed (pure); roofline: roofs, points and the whole-model estimate (pure);
synth: int8 .tflite files made from the built-in layer shapes, for Vela to compile.
"""
