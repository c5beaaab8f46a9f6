"""How the roofline looks: a colour per emitter and memory level, a line style and a marker per
element type; the PNG plots (plot, cliff, compare) and report.html draw with the same."""

from __future__ import annotations

from mcuroof.kernels.emitters import EMITTERS

# by an emitter's style key (kernels.emitters.Emitter.style): every inline assembler draws as "asm"
STYLE_COLORS = {"c": "#1f3b73", "asm": "#d62728", "viper": "#9467bd", "native": "#2ca02c", "bytecode": "#ff7f0e"}
STYLE_MARKERS = {"asm": "s", "viper": "^", "native": "D", "bytecode": "o"}  # matplotlib
STYLE_SYMBOLS = {"asm": "square", "viper": "triangle-up", "native": "diamond", "bytecode": "circle"}  # plotly
TOP = "top"  # a user point that names no roofs (kernels.user.TOP)
EMITTER_COLORS = {e.name: STYLE_COLORS[e.style] for e in EMITTERS} | {None: "#555555"}
EMITTER_MARKERS = {e.name: STYLE_MARKERS[e.style] for e in EMITTERS if e.style in STYLE_MARKERS} | {TOP: "*"}
EMITTER_SYMBOLS = {e.name: STYLE_SYMBOLS[e.style] for e in EMITTERS if e.style in STYLE_SYMBOLS} | {TOP: "star"}
DTYPE_STYLES = {"int8": "-", "int16": (0, (6, 2)), "int32": (0, (3, 1, 1, 1)), "float32": ":"}
DTYPE_MARKERS = {"int8": "s", "int16": "^", "int32": "D", "float32": "o"}
LEVEL_COLORS = ["#08306b", "#2171b5", "#6baed6", "#9ecae1", "#c6dbef"]
REGION_COLORS = {"flash": "#8c564b", "SRAM": "#17becf", "PSRAM": "#e377c2"}
THEORY_COLOR = "#7f7f7f"
TOP_COLOR = "#08306b"
