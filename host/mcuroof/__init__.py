"""mcuroof: empirical roofline toolkit for microcontrollers running MicroPython."""

__all__ = ["__version__"]

_API = ("load", "run", "plot_compare", "Results", "Roof", "Point", "Sweep")


def __getattr__(name):  # the notebook API and the version, on first use (the CLI does not pay for them)
    if name == "__version__":
        from mcuroof import version

        return version.__version__
    if name in _API:
        from mcuroof import api

        return getattr(api, name)
    raise AttributeError(f"module 'mcuroof' has no attribute {name!r}")
