"""Shared fixtures: one quick-preset pipeline run serves every test that needs results."""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def checkout_env() -> dict[str, str]:
    """The environment with this checkout first on the path, installed or not."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return dict(os.environ, PYTHONPATH=path, MPLBACKEND="Agg")


def snakemake(workdir: pathlib.Path, *args: str) -> subprocess.CompletedProcess:
    """Run this checkout's pipeline in ``workdir``: its own .snakemake/ and results/."""
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
         "--directory", str(workdir), "--cores", "all", *args],
        capture_output=True, text=True, env=checkout_env())


@pytest.fixture(scope="session")
def quick_run(tmp_path_factory) -> pathlib.Path:
    """A working directory holding results/ of the whole pipeline on the quick preset."""
    workdir = tmp_path_factory.mktemp("quick")
    done = snakemake(workdir, "--config", "preset=quick")
    assert done.returncode == 0, done.stderr[-5000:]
    return workdir


def pytest_collection_modifyitems(items):
    """One xdist worker per test module, so its module fixtures (experiment runs) are computed
    once; every test of the shared quick run on one worker, so it runs once."""
    for item in items:
        shared = "quick_run" in getattr(item, "fixturenames", ())
        group = "quick_run" if shared else item.nodeid.split("::")[0]
        item.add_marker(pytest.mark.xdist_group(group))
