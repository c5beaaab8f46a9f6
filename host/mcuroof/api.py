"""The notebook API: `r = mcuroof.load("out/results.json")`, then `r.roofs`, `r.points`,
`r.sweeps` (plain typed records), `r.to_csv(dir)`, `r.plot(ax=None)`; `mcuroof.plot_compare`;
`mcuroof.run(board="unix", suites=["compute"])` runs the suites as `mcuroof run` does."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from mcuroof.analysis import compare, records
from mcuroof.analysis.records import Point, Roof
from mcuroof.report import compare as report_compare
from mcuroof.results import document as results
from mcuroof.results import export

__all__ = ["Point", "Roof", "Sweep", "Results", "load", "plot_compare", "run"]


@dataclass
class Sweep:
    emitter: str
    kernel: str
    dtype: str
    working_set_bytes: list[int]
    bytes_per_s: list[float]


class Results:
    """One run's results.json; `data` is the document itself."""

    def __init__(self, data: dict, path: Path | None = None):
        self.data = data
        self.path = path

    @property
    def board(self) -> dict:
        return self.data.get("board", {})

    @property
    def roofs(self) -> list[Roof]:
        return records.roofs(self.data)

    @property
    def points(self) -> list[Point]:
        return records.points(self.data)

    @property
    def sweeps(self) -> list[Sweep]:
        return [
            Sweep(s["emitter"], s["kernel"], s["dtype"], [p[0] for p in s["points"]], [p[1] for p in s["points"]])
            for s in self.data.get("sweeps") or []
        ]

    def tables(self) -> dict[str, list[dict]]:
        """The export tables as lists of rows (pandas: pd.DataFrame(r.tables()["points"]))."""
        return {name: rows for name, (_, rows) in export.tables(self.data).items()}

    def to_csv(self, folder) -> list[Path]:
        return export.write_csv(self.data, Path(folder))

    def to_json(self, path) -> Path:
        return export.write_json(self.data, Path(path))

    def to_html(self, path) -> Path:
        from mcuroof.report import html as html_report

        return html_report.write(self.data, Path(path))

    def plot(self, ax=None, emitters: list[str] | None = None, dtypes: list[str] | None = None):
        """The roofline on a matplotlib Axes (a new figure if none); returns the Axes."""
        from mcuroof.report import plot

        data = plot.select(self.data, emitters, dtypes)
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots(figsize=(10, 6))
        plot.draw_axes(ax, data)
        ax.set_title(plot.board_title(self.board), fontsize=10)
        return ax

    def __repr__(self) -> str:
        return (
            f"<mcuroof.Results {self.board.get('name', '?')}: {len(self.data['roofs'])} roofs, "
            f"{len(self.data.get('points') or [])} points{f' from {self.path}' if self.path else ''}>"
        )


def load(path) -> Results:
    """A results.json written by `mcuroof run` (checked as the commands check it)."""
    return Results(results.load(Path(path)), Path(path))


def plot_compare(runs: list[Results], ax=None, labels: list[str] | None = None):
    """Several runs' measured rooflines on one Axes (a colour per run, points by emitter)."""
    from mcuroof.report import plot

    datas = [r.data for r in runs]
    names = labels or compare.labels(datas, [r.path or Path(f"run{i}") for i, r in enumerate(runs)])
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(11, 6.5))
    report_compare.draw_axes(ax, list(zip(names, datas)))
    plot.place_labels(ax)
    plot.place_point_labels(ax)
    return ax


def run(
    board: str = "unix", suites: list[str] | None = None, model: str | None = None, output=None, **options
) -> Results:
    """Run suites on a board as `mcuroof run` does (the same options by their names: dtype="int8",
    emitter=..., port=..., profile=..., tile_seconds=...; lists for dtype and emitter) and return
    its results; output defaults to a new temporary folder."""
    import dataclasses

    from mcuroof.commands import run as run_command

    known = {f.name for f in dataclasses.fields(run_command.RunRequest)} - {"board", "suite", "model", "output"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(f"mcuroof.run: unknown option {', '.join(unknown)} (choose from {', '.join(sorted(known))})")
    listed = {k: ",".join(v) if isinstance(v, (list, tuple)) else v for k, v in options.items()}
    out = Path(output) if output else Path(tempfile.mkdtemp(prefix="mcuroof-")) / "run"
    req = run_command.RunRequest(
        board=board,
        suite=",".join(suites) if suites else None,
        model=str(model) if model else None,
        output=out,
        **listed,
    )
    run_command.execute(req)
    return load(out / "results.json")
