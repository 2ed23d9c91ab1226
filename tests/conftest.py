"""Shared fixtures: one quick-preset pipeline run serves every test that needs results."""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

# The tests run each compiled program a few times, so XLA's compilation was a third of their CPU
# time; without LLVM's backend optimizations, and with XLA:CPU's loop emitters instead of its MLIR
# fusion emitters, it is far shorter (README "Tests"; the quick preset's bytes are the same). Set
# before any backend starts, and inherited by the pipeline runs and notebook kernels the tests
# start. The results' bytes are checked as the workflow compiles: CI's regeneration
# (tools/check_results.py).
# The emitters' flag is the pinned jaxlib's (constraints.txt): XLA stops at start-up on a flag it
# does not know, so with another jaxlib the tests keep its default emitters (slower, same checks).


def _pinned_jaxlib() -> bool:
    import importlib.metadata
    import re

    pin = re.search(r"^jaxlib==(\S+)", (ROOT / "constraints.txt").read_text(), re.MULTILINE)
    return bool(pin) and importlib.metadata.version("jaxlib") == pin.group(1)


LIGHT_TEST_COMPILE = ("--xla_backend_optimization_level=0",
                      *(["--xla_cpu_use_fusion_emitters=false"] if _pinned_jaxlib() else []))
os.environ["XLA_FLAGS"] = " ".join(filter(None, [os.environ.get("XLA_FLAGS"), *LIGHT_TEST_COMPILE]))

# The pipeline's instruction-set pin (workflow/scripts/isa.py), before numpy or JAX is imported:
# the tests compute on the CPU features the results are made with, and the scripts they import
# (run_experiment.py, build_report.py) find their process pinned.
sys.path.insert(0, str(ROOT / "workflow" / "scripts"))
import isa  # noqa: E402

os.environ.update(isa.pinned(os.environ))


def checkout_env() -> dict[str, str]:
    """The environment with this checkout first on the path, installed or not."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return dict(os.environ, PYTHONPATH=path, MPLBACKEND="Agg")


def snakemake_command(workdir: pathlib.Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
            "--directory", str(workdir), "--cores", "all", *args]


def snakemake(workdir: pathlib.Path, *args: str, env=None) -> subprocess.CompletedProcess:
    """Run this checkout's pipeline in ``workdir``: its own .snakemake/ and results/."""
    return subprocess.run(snakemake_command(workdir, *args), capture_output=True, text=True,
                          env=env or checkout_env())


def lines_with(text: str, needle: str) -> list[str]:
    """The lines of a run's output that contain ``needle``."""
    return [line for line in text.splitlines() if needle in line]


# The experiments the pipeline tests run through Snakemake: those the notebooks read, one of each
# kind (numerics, Snitch kernels, LUT tables, PPA, GPU), in the quick preset's two batches
# (workflow/config.yaml schedule.quick). CI's regeneration check (tools/check_results.py) runs
# every experiment through the pipeline, in the full preset's jobs; their own tests run each on
# its own, in process.
PIPELINE_SAMPLE = ("mfnn-fig9", "mfnn-table2", "lut-tablequant", "lut-fig14", "lut-fig17",
                   "lut-memory", "mfnn-memory")
SAMPLE_CONFIG = ("preset=quick", f"experiments=[{','.join(PIPELINE_SAMPLE)}]")


@pytest.fixture(scope="session")
def quick_run(tmp_path_factory) -> pathlib.Path:
    """A working directory holding results/ of the pipeline on the quick preset, for the
    experiments of PIPELINE_SAMPLE and the report."""
    workdir = tmp_path_factory.mktemp("quick")
    done = snakemake(workdir, "--config", *SAMPLE_CONFIG)
    assert done.returncode == 0, done.stderr[-5000:]
    return workdir


# Modules whose tests share ``quick_run``: they run on one xdist worker, so the pipeline runs once.
QUICK_RUN_MODULES = ("tests/test_notebooks.py", "tests/test_pipeline.py",
                     "tests/test_pipeline_faults.py")


# The work units handed out before the rest, in this order: the quick pipeline's, then a module
# of few tests that each run the pipeline in a subprocess (70 CPU-s on 2026-12-05, the suite's
# longest module), which xdist's order by number of tests would hand out last: the unit handed
# out last sets how long one worker waits for the other.
HANDED_OUT_FIRST = ("quick_run", "tests/test_pipeline_fresh.py")


def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` as this suite means it: one work unit per test module (its module
    fixtures, experiment runs, are computed once), and one for all of QUICK_RUN_MODULES;
    HANDED_OUT_FIRST before the others: a long unit would set the wall time if it started
    late, and xdist otherwise hands units out by their number of tests.

    xdist's own loadgroup marks groups by rewriting node ids, which pytest >= 9.2 ignores, so
    every module was spread over both workers and the quick pipeline ran twice
    (pytest-dev/pytest-xdist#1386); this scheduler groups by the node id's module instead.
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModuleScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return "quick_run" if module in QUICK_RUN_MODULES else module

        def _assign_work_unit(self, node) -> None:
            for unit in reversed(HANDED_OUT_FIRST):
                if unit in self.workqueue:
                    self.workqueue.move_to_end(unit, last=False)
            super()._assign_work_unit(node)

    return ModuleScheduling(config, log)


def pytest_collection_modifyitems(items):
    """A test that uses ``quick_run`` outside QUICK_RUN_MODULES would run the pipeline again."""
    stray = [item.nodeid for item in items if "quick_run" in getattr(item, "fixturenames", ())
             and item.nodeid.split("::", 1)[0] not in QUICK_RUN_MODULES]
    if stray:
        raise pytest.UsageError(f"tests use quick_run outside QUICK_RUN_MODULES {QUICK_RUN_MODULES}"
                                f" (tests/conftest.py): {', '.join(stray)}")
