"""Results people share: the CSV/JSON exports, the notebook API and the example notebook."""

import shutil
from pathlib import Path

import pytest

import mcuroof

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_api_run_on_the_unix_port(tmp_path):
    r = mcuroof.run(board="unix", suites=["compute"], output=tmp_path / "out")
    assert any(roof.kind == "compute" and roof.source == "measured" for roof in r.roofs)
    assert (tmp_path / "out" / "report.html").exists()


@pytest.mark.slow
def test_example_notebook_runs(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    for f in [EXAMPLES / "roofline.ipynb", *EXAMPLES.glob("*.json")]:
        shutil.copy(f, tmp_path / f.name)
    nb = nbformat.read(tmp_path / "roofline.ipynb", as_version=4)
    nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    assert (tmp_path / "my-roofline.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "kws-csv" / "points.csv").exists()
