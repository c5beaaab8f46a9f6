"""The tool's version, as results and raw logs record it."""

__version__ = "0.1.0"
