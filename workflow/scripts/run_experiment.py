"""Run one experiment by id and write its data, figures, table and claims.

Snakemake calls this as the ``script:`` of a paper's rule (outputs and parameters come from the
rule); from a shell it takes the parameters of a preset in workflow/config.yaml:

    python workflow/scripts/run_experiment.py mfnn-fig9 --preset quick --results results

Everything is computed before anything is written, and each file is written under a temporary
name in its folder and then renamed, so a failed or interrupted run leaves no half-written
result. No output carries a timestamp: the same code and config give byte-identical files.
"""

import argparse
import dataclasses
import hashlib
import json
import pathlib
import subprocess
import time

import isa  # same folder; pins the instruction set before numpy and JAX load (isa.py)

isa.pin()
if "snakemake" in globals() and snakemake.params.light_compile:  # noqa: F821  (config schedule)
    isa.light_compile()

import jax  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")  # headless; must come before any experiment imports pyplot

import matplotlib.pyplot as plt  # noqa: E402
import xarray as xr  # noqa: E402
import yaml  # noqa: E402
from atomic_files import atomic  # noqa: E402  same folder: on sys.path, as for Snakemake
from startup import cache_problem  # noqa: E402

import lutcore  # noqa: E402
from experiments import VERDICTS, ConfigError, collect_claims, get, make_config, use_cache_dir  # noqa: E402

# Reductions in numpy's own fixed order, whichever accelerators happen to be installed.
xr.set_options(use_bottleneck=False, use_numbagg=False, use_flox=False, use_opt_einsum=False)

CONFIG_FILE = pathlib.Path(__file__).resolve().parents[1] / "config.yaml"


def output_paths(results: pathlib.Path, experiment_id: str, formats) -> dict[str, pathlib.Path]:
    """The files of one experiment under ``results``, as the workflow rules name them; the PDF
    only where ``formats`` (the preset's figure_formats) has it."""
    paths = {"data": results / "data" / f"{experiment_id}.nc",
             "figure": results / "figures" / f"{experiment_id}.png",
             "pdf": results / "figures" / f"{experiment_id}.pdf",
             "table": results / "tables" / f"{experiment_id}.md",
             "claims": results / "claims" / f"{experiment_id}.json"}
    return {kind: path for kind, path in paths.items() if kind != "pdf" or "pdf" in formats}


def git_commit() -> str:
    """HEAD of the checkout lutcore is imported from (``-dirty`` if its code differs), or
    unknown."""
    root = pathlib.Path(lutcore.__file__).resolve().parents[1]
    try:
        head = _git(root, "rev-parse", "HEAD")
        # Only the code counts: results/ changing under a run must not change the provenance,
        # nor a profile edited for a site (it says where jobs run and with what resources; a
        # profile's `config:` is recorded in the file's own config attribute).
        dirty = _git(root, "status", "--porcelain", "--untracked-files=no", "--",
                     "lutcore", "experiments", "workflow", ":(exclude)workflow/profiles")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")


def _git(root: pathlib.Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          check=True).stdout.strip()


def use_cache(results: pathlib.Path) -> None:
    """``results/.cache`` for what experiments may reuse (the LLM read from its GGUF), and for
    XLA's compiled programs in ``jax/``: the experiments of a run share many (the numerics, the
    PPA blocks), and a rerun compiles nothing it compiled before. None where it cannot be written
    (the workflow said so once when it started)."""
    if cache_problem(results / ".cache") is not None:
        use_cache_dir(None)
        return
    use_cache_dir(results / ".cache")
    jax.config.update("jax_compilation_cache_dir", str(results / ".cache" / "jax"))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.1)


def produce(experiment, config, paths: dict[str, pathlib.Path]) -> None:
    """Run ``experiment`` with ``config`` and write its outputs to ``paths`` (``output_paths``)."""
    use_cache(paths["data"].parents[1])
    matplotlib.rcdefaults()  # whatever an earlier experiment of the same batch set
    canonical = json.dumps(dataclasses.asdict(config), sort_keys=True, separators=(",", ":"))
    print(f"[lutcore] {experiment.id}: {experiment.title}", flush=True)
    print(f"[lutcore] {experiment.id}: config {canonical}", flush=True)

    start = time.perf_counter()
    ds = experiment.run(config)
    print(f"[lutcore] {experiment.id}: run {time.perf_counter() - start:.1f} s", flush=True)
    ds.attrs.update(experiment=experiment.id, title=experiment.title,
                    lutcore_version=lutcore.__version__, git_commit=git_commit(),
                    config=canonical,
                    config_sha256=hashlib.sha256(canonical.encode()).hexdigest())
    figure = experiment.plot(ds)
    table = experiment.table(ds).rstrip("\n") + "\n"
    claims = collect_claims(experiment, ds, full=config == experiment.config())

    with atomic(paths["data"]) as tmp:
        ds.to_netcdf(tmp, engine="h5netcdf")
    # No date or software version in the metadata: figures must be reproducible byte for byte.
    with atomic(paths["figure"]) as tmp:
        figure.savefig(tmp, format="png", dpi=150, metadata={"Software": None})
    if "pdf" in paths:
        with atomic(paths["pdf"]) as tmp:
            figure.savefig(tmp, format="pdf",
                           metadata={"Creator": None, "Producer": None, "CreationDate": None})
    plt.close(figure)
    with atomic(paths["table"]) as tmp:
        tmp.write_text(table, encoding="utf-8")
    with atomic(paths["claims"]) as tmp:
        tmp.write_text(json.dumps([c.as_dict() for c in claims], indent=2, ensure_ascii=False)
                       + "\n", encoding="utf-8")
    verdicts = ", ".join(f"{sum(c.verdict == v for c in claims)} {v}" for v in VERDICTS
                         if any(c.verdict == v for c in claims)) or "no claims"
    print(f"[lutcore] {experiment.id}: {verdicts}; wrote "
          f"{', '.join(str(p) for p in paths.values())} "
          f"({time.perf_counter() - start:.1f} s in all)", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Run one lutcore experiment by id.")
    parser.add_argument("experiment", help="experiment id, e.g. mfnn-fig9")
    parser.add_argument("--preset", choices=("quick", "full"), default="full",
                        help="parameter preset from workflow/config.yaml (default: full)")
    parser.add_argument("--results", type=pathlib.Path, default=pathlib.Path("results"),
                        help="results folder (default: results)")
    args = parser.parse_args(argv)
    config_file = yaml.safe_load(CONFIG_FILE.read_text())
    preset = config_file["presets"][args.preset]
    formats = config_file["figure_formats"][args.preset]
    try:
        experiment = get(args.experiment)
        if args.experiment not in preset:
            raise ConfigError(f"{args.experiment} is not in preset {args.preset} of "
                              f"{CONFIG_FILE}; it has: {', '.join(preset)}")
        config = make_config(experiment, preset[args.experiment])
    except ConfigError as err:
        parser.exit(2, f"lutcore config error: {err}\n")
    if isa.light_job(config_file["schedule"].get(args.preset, {}), experiment.id):
        isa.light_compile()  # as the workflow's job would: before the first computation
    produce(experiment, config, output_paths(args.results, experiment.id, formats))


def run_job(params: dict[str, dict], outputs: list[str], formats) -> None:
    """A Snakemake job: ``params`` maps each experiment id of the job (one, or a batch's) to its
    parameters; the rule's ``outputs`` must be exactly their files (with the preset's figure
    ``formats``), under one results folder."""
    results = pathlib.Path(outputs[0]).parents[1]
    paths = {i: output_paths(results, i, formats) for i in params}
    expected = sorted(str(p) for files in paths.values() for p in files.values())
    if expected != sorted(outputs):
        raise RuntimeError(f"the rule's outputs {sorted(outputs)} are not those of {list(params)}")
    for experiment_id, experiment_params in params.items():
        experiment = get(experiment_id)
        produce(experiment, make_config(experiment, experiment_params), paths[experiment_id])


if "snakemake" in globals():  # run as a Snakemake script: the rule names files and parameters
    run_job(snakemake.params.config, list(snakemake.output), snakemake.params.formats)  # noqa: F821
elif __name__ == "__main__":
    main()
