"""The Snakemake pipeline end to end on the quick preset (a sample of experiments and the report),
in a temporary working directory."""

import hashlib
import json
import subprocess

import pytest
import xarray as xr
import yaml

from experiments import VERDICTS, get, registry
from experiments._framework import NUMERIC
from lutcore.ppa.synth import FLOWS

from conftest import (
    PIPELINE_SAMPLE,
    ROOT,
    SAMPLE_CONFIG,
    checkout_env,
    snakemake,
    snakemake_command,
)

CONFIG = yaml.safe_load((ROOT / "workflow" / "config.yaml").read_text())
# The files of one experiment in the quick preset (its figure_formats: no PDF)
OUTPUTS = ("data/{}.nc", *(f"figures/{{}}.{f}" for f in CONFIG["figure_formats"]["quick"]),
           "tables/{}.md", "claims/{}.json")
CLAIM_KEYS = {"experiment", "claim", "paper", "ours", "holds", "tolerance", "deviation",
              "verdict", "reason"}


def digests(results):
    """SHA-256 of every result file (not results/.cache, the reusable, nor job benchmarks)."""
    return {p.relative_to(results): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(results.rglob("*"))
            if p.is_file() and p.relative_to(results).parts[0] not in (".cache", "benchmarks")}


def sample_jobs():
    """Job name -> the sample experiments it runs: the quick preset's batches with two or more
    of them (``batch-<name>``), every other one a job of its own (its id)."""
    jobs, batched = {}, set()
    for name, ids in CONFIG["schedule"]["quick"].get("batches", {}).items():
        members = [i for i in ids if i in PIPELINE_SAMPLE]
        if len(members) > 1:
            jobs[f"batch-{name}"] = members
            batched.update(members)
    return jobs | {i: [i] for i in PIPELINE_SAMPLE if i not in batched}


def test_presets_cover_every_registered_experiment():
    for name, preset in CONFIG["presets"].items():
        assert set(preset) == set(registry()), name


@pytest.mark.slow
def test_every_experiment_has_its_outputs(quick_run):
    results = quick_run / "results"
    for experiment_id in PIPELINE_SAMPLE:
        for pattern in OUTPUTS:
            path = results / pattern.format(experiment_id)
            assert path.stat().st_size > 0, path
    assert not list(results.rglob("*.tmp")), "a temporary file was left behind"


@pytest.mark.slow
def test_data_carries_provenance(quick_run):
    for experiment_id in PIPELINE_SAMPLE:
        with xr.open_dataset(quick_run / "results" / "data" / f"{experiment_id}.nc",
                             engine="h5netcdf") as ds:
            attrs = ds.attrs
        assert attrs["experiment"] == experiment_id
        assert attrs["title"] == get(experiment_id).title
        assert attrs["lutcore_version"] and attrs["git_commit"]
        assert attrs["config_sha256"] == hashlib.sha256(attrs["config"].encode()).hexdigest()


@pytest.mark.slow
def test_claims_json(quick_run):
    claims = json.loads((quick_run / "results" / "claims.json").read_text())
    assert isinstance(claims, list) and claims
    assert {c["experiment"] for c in claims} == set(PIPELINE_SAMPLE)
    assert [c["experiment"] for c in claims] == sorted(c["experiment"] for c in claims)
    for claim in claims:
        # a numeric claim adds its two numbers and tolerance (Claim.NUMERIC)
        assert CLAIM_KEYS <= set(claim) <= CLAIM_KEYS | set(NUMERIC), claim
        assert isinstance(claim["holds"], bool) and claim["verdict"] in VERDICTS


@pytest.mark.slow
def test_report_shows_every_experiment_and_every_deviation(quick_run):
    results = quick_run / "results"
    report = (results / "REPORT.md").read_text()
    claims = json.loads((results / "claims.json").read_text())
    assert "Preset `quick`" in report
    for experiment_id in PIPELINE_SAMPLE:
        assert f"### {experiment_id}: {get(experiment_id).title}" in report
        assert f"(figures/{experiment_id}.png)" in report
    deviations = report.split("## Deviations", 1)[1].split("\n## ", 1)[0]
    failing = [c for c in claims if c["verdict"] == "deviates"]
    rows = [line for line in deviations.splitlines() if line.startswith("| ")][1:]  # no header
    assert len(rows) == len(failing)
    for claim in failing:
        assert f"| {claim['experiment']} | {claim['claim']} |" in deviations


@pytest.mark.slow
def test_snakemake_html_report(quick_run):
    done = snakemake(quick_run, "--config", *SAMPLE_CONFIG, "--report", "report.html")
    assert done.returncode == 0, done.stderr[-5000:]
    html = (quick_run / "report.html").read_text()
    assert all(f"{experiment_id}.png" in html for experiment_id in PIPELINE_SAMPLE)
    # captions render cleanly in batch jobs too (no wildcard, no title: labels carry them)
    assert "(WARNING/" not in done.stdout + done.stderr


# One experiment of the sample is rerun: its whole job reruns (a batch, in the quick preset),
# then the report. CI regenerates every experiment and compares it with the committed results
# (tools/check_results.py).
RERUN = "lut-memory"


@pytest.mark.slow
def test_rerun_gives_identical_files_and_a_batch_reruns_whole(quick_run):
    job, members = next((job, ids) for job, ids in sample_jobs().items() if RERUN in ids)
    assert job.startswith("batch-") and len(members) > 1, "the sample has no batch with RERUN"
    results = quick_run / "results"
    before = digests(results)
    done = snakemake(quick_run, "--config", *SAMPLE_CONFIG, "--forcerun",
                     f"results/claims/{RERUN}.json")
    assert done.returncode == 0, done.stderr[-5000:]
    log = done.stdout + done.stderr
    assert log.count("[lutcore] report:") == 1, "the report was not rebuilt"
    assert {i for i in registry() if f"[lutcore] {i}: config" in log} == set(members)
    assert f"rule {job.replace('-', '_')}:" in log
    after = digests(results)
    assert sorted(str(p) for p in before) == sorted(str(p) for p in after)
    changed = [str(p) for p in before if before[p] != after[p]]
    assert not changed, f"not reproducible byte for byte: {changed}"


@pytest.mark.slow
def test_jobs_write_only_their_outputs_and_the_cache(quick_run):
    results = quick_run / "results"
    declared = {results / pattern.format(i) for i in PIPELINE_SAMPLE for pattern in OUTPUTS}
    declared |= {results / "benchmarks" / f"{job}.tsv" for job in sample_jobs()}
    declared |= {results / "claims.json", results / "REPORT.md", results / "overview.png"}
    written = {p for p in results.rglob("*") if p.is_file()
               and not p.relative_to(results).parts[0] == ".cache"}
    assert written == declared


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
        "light-compile-job", "top-level-key", "preset-name", "repeated-key", "nan", "memory"])
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
