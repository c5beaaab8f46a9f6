"""mcuroof: empirical roofline toolkit for microcontrollers running MicroPython."""

__version__ = "0.1.0"
