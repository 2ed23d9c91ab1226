"""The Snakemake pipeline end to end on the quick preset (a sample of experiments and the report),
in a temporary working directory."""

import hashlib
import json

import pytest
import xarray as xr
import yaml

from experiments import VERDICTS, get, registry
from experiments._framework import OPTIONAL

from conftest import (
    PIPELINE_SAMPLE,
    ROOT,
    SAMPLE_CONFIG,
    snakemake,
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
        # a numeric claim adds its two numbers and tolerance, one resting on the GPU model its
        # validation groups (Claim.OPTIONAL)
        assert CLAIM_KEYS <= set(claim) <= CLAIM_KEYS | set(OPTIONAL), claim
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
