"""The pipeline started in a fresh folder, without the quick run's results: config errors that
stop it before any job, the plans of dry runs, one experiment alone as a job of the full preset,
and the faults of a first start (issue 32). None reads ``quick_run``, so this module is a work
unit of its own and runs beside the quick run's tests on the other worker (tests/conftest.py)."""

import shutil
import subprocess
import sys

import pytest
import yaml

from experiments import get
from lutcore.ppa.synth import FLOWS

from conftest import ROOT, checkout_env, lines_with, snakemake, snakemake_command

CONFIG = yaml.safe_load((ROOT / "workflow" / "config.yaml").read_text())


@pytest.mark.slow
def test_an_experiment_alone_runs_as_an_ordinary_job_with_the_full_presets_figures(tmp_path):
    # lut-memory is in a batch of the full preset; selected alone, its batch of one is a job of
    # the paper's rule, and the full preset's figure_formats add the PDF.
    done = snakemake(tmp_path, "--config", "preset=full", "experiments=[lut-memory]")
    assert done.returncode == 0, done.stderr[-5000:]
    log = done.stdout + done.stderr
    assert "rule lut_tensor_core:" in log and "rule batch_" not in log
    results = tmp_path / "results"
    formats = CONFIG["figure_formats"]["full"]
    assert "pdf" in formats
    for path in ("data/lut-memory.nc", *(f"figures/lut-memory.{f}" for f in formats),
                 "tables/lut-memory.md", "claims/lut-memory.json", "benchmarks/lut-memory.tsv",
                 "REPORT.md"):
        assert (results / path).stat().st_size > 0, path


@pytest.mark.slow
def test_synthesis_is_one_job_for_every_design_the_preset_synthesizes(tmp_path):
    # A dry run, forced: which caches are current does not matter, only the plan
    done = snakemake(tmp_path, "-n", "--forcerun", "synthesis", "--config", "preset=full",
                     "experiments=[lut-synth,mfnn-fig7]")
    assert done.returncode == 0, done.stderr[-5000:]
    log = done.stdout + done.stderr
    assert log.count("rule synthesis:") == 1
    designs = {d for i in ("lut-synth", "mfnn-fig7")
               for d in get(i).synthesis_designs(get(i).config())}
    outputs = {f"synthesis_cache/{d}.{flow}.json" for d in designs for flow in FLOWS}
    planned = next(line for line in log.splitlines() if "synthesis_cache/" in line
                   and line.lstrip().startswith("output:"))
    assert {p.split("experiments/", 1)[1].removesuffix(" (update)")
            for p in planned.split(": ", 1)[1].split(", ")} == outputs


@pytest.mark.slow
def test_command_line_parameters_read_as_the_config_file_reads_them(tmp_path):
    # Snakemake hands nested --config values over as strings ("3"); typed, they pass or fail
    # the experiment's own checks as they would from workflow/config.yaml
    override = "presets={quick: {mfnn-fig9: {trials: 3, lengths: [1, 4], pairs: [fp8->fp16]}}}"
    done = snakemake(tmp_path, "-n", "--config", "preset=quick", override,
                     "experiments=[mfnn-fig9]")
    assert done.returncode == 0, done.stderr[-3000:]
    done = snakemake(tmp_path, "-n", "--config", "preset=quick",
                     "presets={quick: {mfnn-fig9: {trials: 1}}}")
    assert done.returncode != 0
    assert "lutcore config error: presets.quick: mfnn-fig9: trials: need at least 2, got 1" \
        in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("configfile, config, expected", [
    ("presets: {quick: {mfnn-fig9: {trails: 3}}}", "preset=quick",
     "lutcore config error: presets.quick: mfnn-fig9: unknown key(s) trails; allowed keys: "),
    (None, "preset=fast", "lutcore config error: preset: 'fast' is not one of ['quick', 'full']"),
    (None, "experiments=[mfnn-fig99]",
     "lutcore config error: experiments: mfnn-fig99 not in preset"),
    ("schedule: {quick: {batches: {gpu: [lut-fig99]}}}", "preset=quick",
     "lutcore config error: schedule.quick.batches.gpu: lut-fig99 not in preset quick"),
    ("schedule: {full: {batches: {gpu: [lut-fig4, lut-table5]}}}", "preset=full",
     "lutcore config error: schedule.full.batches.gpu: lut-table5 is already in "
     "schedule.full.start_first"),
    ("schedule: {full: {light_compile: [gpu, lut-fig99]}}", "preset=full",
     "lutcore config error: schedule.full.light_compile: lut-fig99 is neither an experiment nor "
     "a batch of preset full; allowed values: gpu, ppa, small, mfnn-fig1"),
    # issue 32, probe 9: the allowed keys were not listed; a repeated key kept the last value
    (None, "presetz=quick", "lutcore config error: config: unknown key(s) presetz; allowed "
     "keys: preset, presets, figure_formats, schedule, experiments"),
    ("presets: {fast: {}}", "preset=quick",
     "lutcore config error: presets: unknown key(s) fast; allowed keys: quick, full"),
    ("preset: quick\npreset: full", "preset=quick",
     "lutcore config error: {configfile}: key 'preset' is repeated (lines 1, 2)"),
    # issue 32, probes 2 and 4: a NaN parameter, a size past the memory bound
    ("presets: {quick: {lut-tablequant: {outlier_scale: .nan}}}", "preset=quick",
     "lutcore config error: presets.quick: lut-tablequant.outlier_scale: expected a finite "
     "number, got nan"),
    ("presets: {full: {mfnn-fig9: {lengths: [1, 20000000]}}}", "preset=full",
     "lutcore config error: presets.full: mfnn-fig9: lengths: 20000000 exceeds 156250 at trials "
     "1000 (memory bound: ~8 GB; this needs ~960 GB"),
], ids=["experiment-key", "preset", "experiment-id", "batch-id", "batch-start-first",
        "light-compile-job",
        "top-level-key", "preset-name", "repeated-key", "nan", "memory"])
def test_bad_config_fails_in_one_line_before_any_job(tmp_path, configfile, config, expected):
    args = ["--config", config]
    if configfile:  # merged over workflow/config.yaml
        (tmp_path / "bad.yaml").write_text(configfile + "\n")
        args += ["--configfile", str(tmp_path / "bad.yaml")]
    done = snakemake(tmp_path, *args)
    assert done.returncode != 0
    errors = [line for line in done.stderr.splitlines() if "error" in line.lower()]
    expected = expected.format(configfile=tmp_path / "bad.yaml")
    assert len(errors) == 1 and errors[0].startswith(expected), done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "results").exists()


@pytest.mark.slow
def test_a_bad_value_is_refused_before_any_experiment_is_imported(tmp_path):
    """A run of this code keeps the experiments' Config specs (results/.cache): another config
    with a bad value then stops in about a second, without importing JAX or an experiment."""
    assert snakemake(tmp_path, "-n", "--config", "preset=quick").returncode == 0
    bad = snakemake_command(tmp_path, "-n", "--config", "preset=quick",
                            "presets={quick: {mfnn-fig9: {trials: -5}}}")
    done = subprocess.run([bad[0], "-X", "importtime", *bad[1:]], capture_output=True,
                          text=True, env=checkout_env())
    assert done.returncode != 0
    timed = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    imported = {line.split("|")[-1].strip() for line in timed}
    assert "snakemake" in imported and not imported & {"jax", "experiments.minifloat_nn"}
    assert [line for line in done.stderr.splitlines()
            if "error" in line.lower() and line not in timed] == [
        "lutcore config error: presets.quick: mfnn-fig9.trials: expected an integer >= 0, "
        "got -5"]


@pytest.mark.slow
def test_an_unwritable_cache_is_gone_without_with_one_warning(tmp_path):
    # Probe 9: an unwritable results/.cache stopped the run with a traceback
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / ".cache").write_text("a file, where the cache folder should be")
    done = snakemake(tmp_path, "--config", "preset=quick", "experiments=[mfnn-memory]")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert len(lines_with(done.stderr, "cannot be written")) == 1
    assert lines_with(done.stderr, "lutcore: warning: results/.cache cannot be written (")
    assert (tmp_path / "results" / "data" / "mfnn-memory.nc").stat().st_size > 0


@pytest.mark.slow
def test_synthesis_results_of_other_code_are_found_before_any_job(tmp_path):
    """The quick preset reads the committed synthesis cache; in a copy of the checkout where one
    module the synthesis imports (the ExSdotp widths) gained a comment, the run stops before any
    job, naming a file and the command that rebuilds them."""
    source, workdir = tmp_path / "source", tmp_path / "run"
    for part in ("lutcore", "experiments", "workflow", "profiles"):
        shutil.copytree(ROOT / part, source / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "Snakefile", source)
    workdir.mkdir()
    env = dict(checkout_env(), PYTHONPATH=str(source))

    def dry_run():  # the copy's Snakefile and packages (cwd: `python -m` looks there first)
        command = [sys.executable, "-m", "snakemake", "--snakefile", str(source / "Snakefile"),
                   "--directory", str(workdir), "--cores", "all", "-n", "--config",
                   "preset=quick", "experiments=[mfnn-fig7]"]
        return subprocess.run(command, capture_output=True, text=True, env=env, cwd=source)
    done = dry_run()
    assert done.returncode == 0, done.stderr[-3000:]
    widths = source / "lutcore" / "numerics" / "_units.py"
    widths.write_text(widths.read_text() + "# an edit\n")
    done = dry_run()
    cache = source / "experiments" / "synthesis_cache"
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert lines_with(done.stderr, "error") == [
        f"lutcore preflight error: synthesis results that other code or tools wrote, read by "
        f"mfnn-fig7, e.g. {cache / 'exsdotp_fp8_fp16.area.json'}; rebuild them with `python "
        "workflow/scripts/synthesize.py exfma_fp8_fp16 exsdotp_fp8_fp16` (needs the synth "
        "extra; Yosys reruns only where the Verilog, library, script, parser or tools changed)"]
    assert not (workdir / "results" / "data").exists()
