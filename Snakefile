"""lutcore pipeline: run every experiment of the chosen preset into results/, then the report.

    snakemake --cores all                         # full preset (workflow/config.yaml)
    snakemake --cores all --config preset=quick   # minutes, for checks

The config is validated here, at parse time, so a typo stops the run before any job starts.
Rules only name files, params and a script; experiments/ computes, lutcore/ models.
"""

import sys

from snakemake.utils import min_version

min_version("9.0")

sys.path.insert(0, os.path.join(workflow.basedir, "workflow", "scripts"))
import startup  # noqa: E402  workflow/scripts/startup.py
from report_sources import VALIDATION  # noqa: E402  workflow/scripts/report_sources.py

# Snakemake reads YAML without line numbers and keeps the last of a repeated key: check first
startup.check_config_files([os.path.join(workflow.basedir, "workflow", "config.yaml"),
                            *workflow.config_settings.configfiles])


configfile: os.path.join(workflow.basedir, "workflow", "config.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/synthesis.smk"
include: "workflow/rules/minifloat_nn.smk"
include: "workflow/rules/lut_tensor_core.smk"
include: "workflow/rules/batches.smk"
include: "workflow/rules/slurm.smk"


localrules: all, summary


rule all:
    input:
        expand("results/data/{id}.nc", id=SELECTED),
        expand("results/figures/{id}.{format}", id=SELECTED, format=FIGURE_FORMATS),
        "results/claims.json",
        "results/REPORT.md",


rule summary:
    input:
        claims=expand("results/claims/{id}.json", id=SELECTED),
        figures=expand("results/figures/{id}.png", id=SELECTED),
        tables=expand("results/tables/{id}.md", id=SELECTED),
        references=REFERENCE_FILES,  # the coverage tables list every transcribed statement
        # the GPU model's validated error, beside the claims that rest on it (build_report.py)
        validation=[f"results/data/{VALIDATION}.nc"] if VALIDATION in SELECTED else [],
    output:
        claims="results/claims.json",
        report=report("results/REPORT.md", caption="workflow/report/summary.rst", category="Summary"),
        overview=report("results/overview.png", caption="workflow/report/overview.rst",
                        category="Summary"),
    params:
        preset=PRESET,
    script:
        "workflow/scripts/build_report.py"
