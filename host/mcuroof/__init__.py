"""mcuroof: empirical roofline toolkit for microcontrollers running MicroPython."""

from mcuroof.version import __version__

__all__ = ["__version__"]

_API = ("load", "run", "plot_compare", "Results", "Roof", "Point", "Sweep")


def __getattr__(name):  # the notebook API, imported on first use (the CLI does not pay for it)
    if name in _API:
        from mcuroof import api

        return getattr(api, name)
    raise AttributeError(f"module 'mcuroof' has no attribute {name!r}")
