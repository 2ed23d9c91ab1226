# Config validation and the helpers rules use for wildcards and params; nothing is computed here.

import hashlib
import importlib
import importlib.util
import json
import os
import pathlib
import re
import sys

import yaml
from jsonschema import ValidationError
from snakemake.exceptions import WorkflowError
from snakemake.utils import update_config, validate

import isa  # workflow/scripts/isa.py, on sys.path (Snakefile)
import startup  # workflow/scripts/startup.py, on sys.path (Snakefile)
from startup import config_error

# Every job inherits one instruction set (workflow/scripts/isa.py), whatever the CPU.
os.environ.update(isa.pinned(os.environ))


def package_dir(name):
    """Where a package's sources are, without importing it (its import costs seconds)."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        config_error(f"cannot find the package {name}; run: python3 -m pip install -e '.[all]'")
    return pathlib.Path(spec.origin).parent


LUTCORE_DIR, EXPERIMENTS_DIR = package_dir("lutcore"), package_dir("experiments")
LUTCORE_SOURCES = sorted(str(p) for p in LUTCORE_DIR.rglob("*.py"))
FRAMEWORK = str(EXPERIMENTS_DIR / "_framework.py")
REFERENCE_DIR = EXPERIMENTS_DIR / "reference"
REFERENCE_FILES = sorted(str(p) for p in REFERENCE_DIR.glob("*.yaml"))

# Synthesis results (lutcore.ppa.synth), committed; absolute, like the sources, since a run may
# use another working directory (--directory).
SYNTHESIS_CACHE = str(EXPERIMENTS_DIR / "synthesis_cache")


def yaml_typed(value):
    """``value`` with its strings that YAML reads as a number or boolean read so: Snakemake
    parses a nested ``--config`` value with YAML's BaseLoader, every scalar a string ("5")."""
    if isinstance(value, dict):
        return {key: yaml_typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [yaml_typed(item) for item in value]
    if isinstance(value, str):
        try:
            typed = yaml.safe_load(value)
        except yaml.YAMLError:
            return value
        return typed if isinstance(typed, (bool, int, float)) else value
    return value


# `--config "presets={quick: {mfnn-fig9: {trials: 5}}}"` means what config.yaml would
update_config(config, yaml_typed(workflow.config_settings.overwrite_config))

try:
    validate(config, "../schemas/config.schema.yaml")
except WorkflowError as err:
    # snakemake's message spans dozens of lines; the jsonschema error it wraps says it in one.
    if not isinstance(err.__context__, ValidationError):
        raise
    error = err.__context__
    where = ".".join(map(str, error.absolute_path)) or "config"
    allowed = error.schema.get("properties", {}) if error.validator == "additionalProperties" \
        else {}
    if allowed and isinstance(error.instance, dict):  # name the allowed keys, not only the bad
        unknown = [str(key) for key in error.instance if key not in allowed]
        config_error(f"{where}: unknown key(s) {', '.join(unknown)}; "
                     f"allowed keys: {', '.join(allowed)}")
    config_error(f"{where}: {error.message}")

PRESET = config["preset"]
PARAMS = config["presets"][PRESET]  # experiment id -> parameters of its Config
SELECTED = config.get("experiments", list(PARAMS))
SCHEDULE = config.get("schedule", {}).get(PRESET, {})  # start_first and batches of the preset
FIGURE_FORMATS = config["figure_formats"][PRESET]  # png, and pdf where the preset has it
START_FIRST = SCHEDULE.get("start_first", [])

for key, ids in [("experiments", config.get("experiments", [])),
                 (f"schedule.{PRESET}.start_first", START_FIRST),
                 *((f"schedule.{PRESET}.batches.{name}", ids)
                   for name, ids in SCHEDULE.get("batches", {}).items())]:
    outside = [i for i in ids if i not in PARAMS]
    if outside:
        config_error(f"{key}: {', '.join(outside)} not in preset {PRESET}; "
                     f"it has: {', '.join(PARAMS)}")


def selected_batches():
    """Batch name -> the selected experiments of it, for the preset's batches with two or more
    (a batch of one is an ordinary job). An experiment is in at most one batch, and a long job
    started first (start_first) in none."""
    where = f"schedule.{PRESET}"
    seen = {}
    for name, ids in SCHEDULE.get("batches", {}).items():
        for i in ids:
            if i in seen or i in START_FIRST:
                config_error(f"{where}.batches.{name}: {i} is already in {where}."
                             f"{'batches.' + seen[i] if i in seen else 'start_first'}")
            seen[i] = name
    batches = {name: [i for i in ids if i in SELECTED]
               for name, ids in SCHEDULE.get("batches", {}).items()}
    return {name: ids for name, ids in batches.items() if len(ids) > 1}


BATCHES = selected_batches()
BATCHED = {i for ids in BATCHES.values() for i in ids}
LIGHT_COMPILE = SCHEDULE.get("light_compile", [])
for name in LIGHT_COMPILE:
    if name not in PARAMS and name not in SCHEDULE.get("batches", {}):
        config_error(f"schedule.{PRESET}.light_compile: {name} is neither an experiment nor a "
                     f"batch of preset {PRESET}; allowed values: "
                     f"{', '.join([*SCHEDULE.get('batches', {}), *PARAMS])}")


def experiment_facts(experiment, config):
    """The designs whose synthesis cache files an experiment reads (its optional
    ``synthesis_designs(config)``), whether the preset brings them up to date first (its
    config's ``synthesize``), what writes those files (the sources and tools they are keyed
    by), and what it needs installed (its optional ``external_inputs(config)``, and Yosys to
    synthesize)."""
    needs = [need._asdict() for need in (experiment.external_inputs or (lambda config: []))(config)]
    if experiment.synthesis_designs is None:
        return {"synthesis": [], "synthesize": False, "flows": [], "producer": None,
                "needs": needs}
    from lutcore.ppa.synth import FLOWS, PRODUCER, TOOLS, YOSYS

    synthesize = bool(config.synthesize)
    return {"synthesis": list(experiment.synthesis_designs(config)), "synthesize": synthesize,
            "flows": list(FLOWS), "producer": {"files": list(map(str, PRODUCER)),
                                               "tools": list(TOOLS)},
            "needs": needs + [YOSYS._asdict()] * synthesize}


CACHE = pathlib.Path("results", ".cache")  # what a later run may reuse; safe to delete
COMMON_SMK = pathlib.Path(workflow.basedir, "workflow", "rules", "common.smk")


def code_key():
    """SHA-256 of what checks and produces the experiments' facts, the parameters aside: the
    environment and the source of lutcore, experiments, their reference files and this file."""
    digest = hashlib.sha256(json.dumps([sys.prefix, sys.version]).encode())
    for path in sorted([*LUTCORE_DIR.rglob("*.py"), *EXPERIMENTS_DIR.rglob("*.py"),
                        *REFERENCE_DIR.glob("*.yaml"), COMMON_SMK]):
        digest.update(f"{path}\0".encode() + path.read_bytes())
    return digest.hexdigest()


CODE_KEY = code_key()


def content_digest(facts):
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()


def cached_record(path, key, sound):
    """What ``write_record`` kept in ``path`` under ``key`` (by experiment id) when ``sound(it)``,
    or None: missing, written for other code or parameters, or (said in one line) unreadable or
    altered."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        record = err
    if isinstance(record, dict) and record.get("sha256") != key:
        return None
    kept = record.get("experiments") if isinstance(record, dict) else None
    if isinstance(kept, dict) and sound(kept) \
            and record.get("content_sha256") == content_digest(kept):
        return kept
    problem = f"unreadable ({record})" if isinstance(record, Exception) else "altered"
    startup.note(f"{path} is {problem}; rebuilding it ({CACHE} is safe to delete)")
    return None


def write_record(path, key, kept):
    """Keep ``kept`` (by experiment id) in ``path`` under ``key``, atomically; silent when it
    cannot (the cache is optional: the one warning about it comes below)."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        CACHE.mkdir(parents=True, exist_ok=True)
        partial.write_text(json.dumps({"sha256": key, "content_sha256": content_digest(kept),
                                       "experiments": kept}, indent=1, sort_keys=True))
        partial.replace(path)
    except OSError:
        pass  # a partial file is removed at the next start (startup.remove_temporaries)


def refuse_early(specs):
    """Check the parameters of each experiment that ``specs`` (experiments/_spec.py, kept by an
    earlier run of this code) describes, before any experiment is imported: a bad value stops
    the run in about a second. What they do not cover is checked on import."""
    from experiments import ConfigError
    from experiments._spec import check_params

    for experiment_id, params in PARAMS.items():
        if experiment_id in specs:
            try:
                check_params(experiment_id, specs[experiment_id], params)
            except ConfigError as err:
                config_error(f"presets.{PRESET}: {err}")


def check_experiments():
    """Check each experiment's parameters against its Config; the facts the rules need.

    This imports every experiment (JAX and the models: seconds), so the answer is kept in
    results/.cache, keyed by the parameters and every source file they are checked by; a rerun
    with the same config and code (a no-op run, above all) reads it instead. Another config is
    first checked against the Config specs kept for this code (``refuse_early``).
    """
    key = hashlib.sha256(f"{CODE_KEY}\0{json.dumps(PARAMS, sort_keys=True)}".encode()).hexdigest()
    cached, specs_file = CACHE / f"config-{PRESET}.json", CACHE / "config-specs.json"
    facts = cached_record(cached, key, lambda kept: set(kept) == set(PARAMS))
    if facts is not None:
        return facts
    try:
        from experiments import ConfigError, describe, get, make_config
        from experiments._spec import config_spec
    except ImportError as err:
        config_error(f"cannot import lutcore's experiments ({err}); "
                     "run: python3 -m pip install -e '.[all]'")
    specs = cached_record(specs_file, CODE_KEY, lambda kept: True) or {}
    refuse_early(specs)
    try:
        with startup.deferred_imports():  # their plotting and xarray are not needed here
            for experiment_id, params in PARAMS.items():
                make_config(get(experiment_id), params)
    except ConfigError as err:
        config_error(f"presets.{PRESET}: {err}")
    facts = json.loads(json.dumps(
        {i: {"paper": get(i).paper, "title": get(i).title,
             "file": importlib.import_module(describe(i).module).__file__,
             **experiment_facts(get(i), make_config(get(i), PARAMS[i]))} for i in PARAMS}))
    write_record(cached, key, facts)
    new_specs = json.loads(json.dumps({i: config_spec(get(i).config) for i in PARAMS}))
    if any(specs.get(i) != spec for i, spec in new_specs.items()):
        write_record(specs_file, CODE_KEY, {**specs, **new_specs})
    return facts


EXPERIMENTS = check_experiments()  # id -> paper, title, module file, synthesis facts, needs


def stdlib_module(name):
    """lutcore's module ``name`` (one of the stdlib-only ones), loaded from its file without
    importing lutcore and JAX."""
    spec = importlib.util.spec_from_file_location(f"lutcore_{name}", LUTCORE_DIR / f"{name}.py")
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def preflight():
    """Stop before any job, in one line, when a selected experiment needs a package or a data
    file that is not installed (lutcore/_packages.py), or reads synthesis results that the
    installed code did not write (``stale_synthesis``)."""
    packages = stdlib_module("_packages")
    for i in SELECTED:
        for need in EXPERIMENTS[i]["needs"]:
            try:
                packages.PackageData(**need).locate()
            except FileNotFoundError as err:
                config_error(f"{i} needs {err}", kind="preflight")
    stale = stale_synthesis()
    if stale:
        designs = sorted({p.name.split(".")[0] for paths in stale.values() for p in paths})
        config_error(f"synthesis results that other code or tools wrote, read by "
                     f"{', '.join(stale)}, e.g. {next(iter(stale.values()))[0]}; rebuild them "
                     f"with `python workflow/scripts/synthesize.py {' '.join(designs)}` (needs "
                     "the synth extra; Yosys reruns only where the Verilog, library, script, "
                     "parser or tools changed)", kind="preflight")


def stale_synthesis():
    """Experiment id -> the synthesis cache files it reads without synthesizing them whose
    ``producer`` is not the installed code and tools (lutcore.ppa.synth.read_cached would stop
    its job on them); the sources digested in milliseconds (lutcore/_provenance.py)."""
    provenance, installed, stale = stdlib_module("_provenance"), {}, {}
    for i in SELECTED:
        facts = EXPERIMENTS[i]
        if facts["synthesize"] or not facts["synthesis"]:
            continue
        files, tools = tuple(facts["producer"]["files"]), tuple(facts["producer"]["tools"])
        if (files, tools) not in installed:
            installed[files, tools] = {"sources": provenance.digest(map(pathlib.Path, files)),
                                       "tools": provenance.versions(tools)}
        for design in facts["synthesis"]:
            for flow in facts["flows"]:
                path = pathlib.Path(SYNTHESIS_CACHE, f"{design}.{flow}.json")
                try:
                    written = json.loads(path.read_text(encoding="utf-8")).get("producer")
                except (OSError, ValueError, AttributeError):
                    written = None
                if written != installed[files, tools]:
                    stale.setdefault(i, []).append(path)
    return stale


if workflow.is_main_process:  # not in a job's own Snakemake (a cluster job)
    preflight()
    RUN_CLAIM = startup.claim_directory()  # held while this run lives
    if RUN_CLAIM is not None:  # no other run here: what an interrupted one left is garbage
        startup.remove_stale_locks()
        startup.remove_temporaries("results")
        startup.remove_broken_outputs("results")
    if (problem := startup.cache_problem(CACHE)) is not None:
        startup.note(f"warning: {CACHE} cannot be written ({problem}); running without it "
                     "(nothing is reused from one run to the next)")


def paper_ids(paper):
    """Wildcard regex matching the preset's experiment ids of one paper (a rule file each) that
    run as jobs of their own (not in a batch)."""
    return "|".join(re.escape(i) for i in PARAMS
                    if EXPERIMENTS[i]["paper"] == paper and i not in BATCHED)


SYNTH_FLOWS = sorted({f for i in SELECTED for f in EXPERIMENTS[i]["flows"]})
SYNTHESIZED = sorted({d for i in SELECTED if EXPERIMENTS[i]["synthesize"]
                      for d in EXPERIMENTS[i]["synthesis"]})
# What a synthesis result depends on: the synth package and every lutcore module it imports
# (lutcore.ppa.synth.PRODUCER, which its cache files are keyed by)
SYNTHESIS_SOURCES = sorted({f for i in SELECTED if EXPERIMENTS[i]["synthesize"]
                            for f in EXPERIMENTS[i]["producer"]["files"]})


def sources_of(experiment_id):
    """What an experiment's results depend on besides its params: editing any of it reruns it.
    Experiments that read synthesis results also depend on those cache files."""
    experiment = EXPERIMENTS[experiment_id]
    caches = [f"{SYNTHESIS_CACHE}/{d}.{flow}.json" for d in experiment["synthesis"]
              for flow in experiment["flows"]]
    return [experiment["file"], FRAMEWORK, str(REFERENCE_DIR / f"{experiment['paper']}.yaml"),
            *LUTCORE_SOURCES, *caches]


def experiment_sources(wildcards):
    return sources_of(wildcards.id)


def experiment_priority(wildcards):
    """Long jobs first (the preset's start_first): a run ends when its last job does."""
    if wildcards.id not in START_FIRST:
        return 0
    return len(START_FIRST) - START_FIRST.index(wildcards.id)


def experiment_params(wildcards):
    return {wildcards.id: PARAMS[wildcards.id]}


def experiment_light_compile(wildcards):
    return isa.light_job(SCHEDULE, wildcards.id)


# The cores a job uses, declared by every rule: about one (the main job's nine jobs spent
# 541 CPU-seconds, Snakemake's own included, in 505 s of their wall time). A SLURM job asks for as
# many CPUs (the executor's cpus-per-task); locally, --cores N runs up to N jobs side by side.
JOB_THREADS = 1


# Seconds, CPU seconds and peak memory of each experiment job (tools/profile_run.py sums them up)
BENCHMARK = "results/benchmarks/{id}.tsv"


# The category of a paper's figures and tables in Snakemake's HTML report
PAPER_CATEGORIES = {"lut_tensor_core": "LUT Tensor Core (ISCA'25)",
                    "minifloat_nn": "MiniFloat-NN (ARITH'22)"}


def report_labels(experiment_id):
    """The HTML report's labels of an experiment's figure and table: id and title. Snakemake
    applies wildcards to label text, so a title's braces (lut-fig7's "{0,1}") become brackets."""
    title = EXPERIMENTS[experiment_id]["title"].translate(str.maketrans("{}", "[]"))
    return {"experiment": experiment_id, "title": title}


def experiment_outputs(paper, experiment_id="{id}"):
    """The files one experiment writes (data first; the PDF where the preset's figure_formats
    has it), under its paper's category; the paper rules name them by the wildcard, the batch
    rules by the id. The report's captions are the same for every experiment (a batch job has
    neither the wildcard nor one title): its id and title are the files' labels."""
    category = PAPER_CATEGORIES[paper]
    pdf = {"pdf": f"results/figures/{experiment_id}.pdf"} if "pdf" in FIGURE_FORMATS else {}
    labels = ((lambda wildcards: report_labels(wildcards.id)) if experiment_id == "{id}"
              else report_labels(experiment_id))
    return dict(
        data=f"results/data/{experiment_id}.nc",
        figure=report(f"results/figures/{experiment_id}.png", caption="../report/figure.rst",
                      category=category, subcategory=experiment_id, labels=labels),
        **pdf,
        table=report(f"results/tables/{experiment_id}.md", caption="../report/table.rst",
                     category=category, subcategory=experiment_id, labels=labels),
        claims=f"results/claims/{experiment_id}.json",
    )
