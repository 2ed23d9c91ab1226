"""Every notebook in notebooks/ runs top to bottom against the quick-preset results.

A notebook is executed from a ``notebooks/`` folder next to those results, so it reads them as
``../results/...``, the same path as when opened from the repository.
"""

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import ROOT, checkout_env

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, quick_run, monkeypatch):
    for key, value in checkout_env().items():
        monkeypatch.setenv(key, value)  # the kernel inherits it: imports this checkout
    workdir = quick_run / "notebooks"
    workdir.mkdir(exist_ok=True)
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(workdir)}}).execute()
