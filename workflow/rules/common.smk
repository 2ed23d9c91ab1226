# Config validation and the helpers rules use for wildcards and params; nothing is computed here.

import pathlib
import re
import sys

from jsonschema import ValidationError
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate


def config_error(message):
    # One line and a non-zero exit while parsing: no job runs, nothing lands in results/.
    print(f"lutcore config error: {message}", file=sys.stderr)
    sys.exit(1)


try:
    import lutcore
    from experiments import ConfigError, _framework, get, make_config
except ImportError as err:
    config_error(f"cannot import lutcore's experiments ({err}); run: python3 -m pip install -e .")

try:
    validate(config, "../schemas/config.schema.yaml")
except WorkflowError as err:
    # snakemake's message spans dozens of lines; the jsonschema error it wraps says it in one.
    if not isinstance(err.__context__, ValidationError):
        raise
    where = ".".join(map(str, err.__context__.absolute_path)) or "config"
    config_error(f"{where}: {err.__context__.message}")

PRESET = config["preset"]
PARAMS = config["presets"][PRESET]  # experiment id -> parameters of its Config
SELECTED = config.get("experiments", list(PARAMS))

outside = [i for i in SELECTED if i not in PARAMS]
if outside:
    config_error(f"experiments: {', '.join(outside)} not in preset {PRESET}; "
                 f"it has: {', '.join(PARAMS)}")
try:
    for experiment_id, params in PARAMS.items():
        make_config(get(experiment_id), params)
except ConfigError as err:
    config_error(f"presets.{PRESET}: {err}")


def paper_ids(paper):
    """Wildcard regex matching the preset's experiment ids of one paper (a rule file each)."""
    return "|".join(re.escape(i) for i in PARAMS if get(i).PAPER == paper)


REFERENCE_FILES = sorted(str(p) for p in _framework.REFERENCE_DIR.glob("*.yaml"))
LUTCORE_SOURCES = sorted(str(p) for p in pathlib.Path(lutcore.__file__).parent.rglob("*.py"))


def synthesis_designs(experiment_id):
    """(designs, synthesize) of an experiment that reads synthesis results: the designs whose
    cache files it reads (its optional ``synthesis_designs(config)``) and whether the preset
    brings them up to date first (its config's ``synthesize``)."""
    experiment = get(experiment_id)
    if not hasattr(experiment, "synthesis_designs"):
        return [], False
    config = make_config(experiment, PARAMS[experiment_id])
    return list(experiment.synthesis_designs(config)), bool(config.synthesize)


from lutcore.ppa import synth as _synth  # noqa: E402

# absolute, like the sources: a run may use another working directory (--directory)
SYNTHESIS_CACHE = str(_framework.REFERENCE_DIR.parent / "synthesis_cache")
SYNTH_FLOWS = list(_synth.FLOWS)
# What a synthesis result depends on: the RTL generators and the flow (synth/), the cell table,
# the clock (_release) and the ExSdotp widths (numerics/_units).
SYNTHESIS_SOURCES = sorted(
    [str(p) for p in pathlib.Path(_synth.__file__).parent.glob("*.py")]
    + [str(pathlib.Path(lutcore.__file__).parent / path)
       for path in ("ppa/_cells.py", "ppa/_release.py", "numerics/_units.py")])
SYNTHESIZED = sorted({d for i in SELECTED for d in synthesis_designs(i)[0]
                      if synthesis_designs(i)[1]})


def experiment_sources(wildcards):
    """What an experiment's results depend on besides its params: editing any of it reruns it.
    Experiments that read synthesis results also depend on those cache files."""
    experiment = get(wildcards.id)
    designs, _ = synthesis_designs(wildcards.id)
    caches = [f"{SYNTHESIS_CACHE}/{d}.{flow}.json" for d in designs for flow in SYNTH_FLOWS]
    return [experiment.__file__, _framework.__file__,
            str(_framework.REFERENCE_DIR / f"{experiment.PAPER}.yaml"), *LUTCORE_SOURCES,
            *caches]


def experiment_params(wildcards):
    return PARAMS[wildcards.id]


def experiment_title(wildcards):
    return get(wildcards.id).TITLE


def experiment_outputs(category):
    """The files one experiment job writes; every paper's rule uses them under its category."""
    return dict(
        data="results/data/{id}.nc",
        figure=report("results/figures/{id}.png", caption="../report/figure.rst",
                      category=category, subcategory="{id}"),
        pdf="results/figures/{id}.pdf",
        table=report("results/tables/{id}.md", caption="../report/table.rst",
                     category=category, subcategory="{id}"),
        claims="results/claims/{id}.json",
    )
