"""The record every experiment module declares, and the pieces they share.

An experiment module (one per paper figure/table) ends with its record,
``EXPERIMENT = Experiment(...)`` (``Experiment``: id, title, paper, claim_keys with literal
values, and its Config, run, plot, table, claims and, if it reads open-synthesis results,
synthesis_designs). ``run(config) -> xarray.Dataset`` is computed from ``lutcore`` models only;
``plot(ds)`` gives a matplotlib figure, ``table(ds)`` a Markdown table, ``claims(ds)`` the
paper's statements checked against ``ds``. ``synthesis_designs(config) -> list[str]``: the cache
files it reads (inputs of its job; the workflow's synthesis rule writes them when the config's
``synthesize`` is true), read with ``lutcore.ppa.synth.read_cached``.

``external_inputs(config) -> list[lutcore._packages.PackageData]``: the files of installed
packages it reads (the workflow checks them before any job).

Paper values live only in ``experiments/reference/<paper>.yaml``; ``reference(paper, id, key)``
reads one, so a claim can never carry a value typed into the experiment.

Every claim has a verdict (``VERDICTS``): ``holds``; ``deviates`` (our model disagrees beyond the
tolerance); ``paper-inconsistent`` (the paper contradicts itself, shown by arithmetic);
``not-testable-here`` (it needs what we cannot have offline, named in the reason); ``finding``
(a result of our own, not a statement of the paper). By default the verdict follows ``holds``;
a reference entry may fix it (``verdict:`` and ``reason:`` in the YAML), and so may the
experiment (``paper_claim(..., verdict=..., reason=...)``).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import math
import pathlib
import re
import sys
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import yaml

REFERENCE_DIR = pathlib.Path(__file__).parent / "reference"


_CACHE = {"dir": None}  # set by use_cache_dir: the run's results/.cache


def use_cache_dir(path: pathlib.Path | None) -> None:
    """Let experiments keep what a later run may reuse in ``path`` (a run's ``results/.cache``,
    the one place besides its outputs a pipeline job writes); None: keep nothing."""
    _CACHE["dir"] = None if path is None else pathlib.Path(path)


def cache_dir() -> pathlib.Path | None:
    """The folder ``use_cache_dir`` set, or None."""
    return _CACHE["dir"]


class ConfigError(ValueError):
    """A configuration value or key that an experiment cannot accept."""


@dataclasses.dataclass(frozen=True)
class Experiment:
    """One experiment, declared by its module as ``EXPERIMENT``.

    id: stable id, used for file names and the report (e.g. ``"mfnn-fig9"``); title: one line,
    what it reproduces, naming the paper's figure/table; paper: key of the reference file in
    ``experiments/reference/``; claim_keys: the reference keys ``claims`` states in the full run
    (``collect_claims`` holds every run to it, and a test the reference file: every entry is
    claimed, fixed as not-testable-here, or pending in a named issue); config: a frozen dataclass
    of its parameters (defaults = the full run); run, plot, table, claims, synthesis_designs,
    external_inputs: as the module docstring says. ``id``, ``title`` and ``paper`` are string
    literals in the module's source (in the record or in constants it names): the index reads
    them without importing the module."""

    id: str
    title: str
    paper: str
    claim_keys: tuple[str, ...]
    config: type
    run: Callable[[Any], Any]
    plot: Callable[[Any], Any]
    table: Callable[[Any], str]
    claims: Callable[[Any], list]
    synthesis_designs: Callable[[Any], list[str]] | None = None
    external_inputs: Callable[[Any], list] | None = None

    def __post_init__(self):
        if not all(isinstance(x, str) and x for x in (self.id, self.title, self.paper)):
            raise ValueError(f"Experiment {self.id!r}: id, title and paper must be non-empty "
                             "strings")
        keys = self.claim_keys
        if not isinstance(keys, tuple) or len(set(keys)) != len(keys):
            raise TypeError(f"{self.id}: claim_keys must be a tuple of distinct reference keys")
        if not (dataclasses.is_dataclass(self.config)
                and self.config.__dataclass_params__.frozen):
            raise TypeError(f"{self.id}: config must be a frozen dataclass")
        for name in ("run", "plot", "table", "claims"):
            if not callable(getattr(self, name)):
                raise TypeError(f"{self.id}: {name} must be callable")

    @property
    def module(self) -> types.ModuleType:
        """The module that declares the record (its helpers, for tests and notebooks)."""
        return sys.modules[self.run.__module__]


VERDICTS = ("holds", "deviates", "paper-inconsistent", "not-testable-here", "finding")
NEEDS_REASON = ("paper-inconsistent", "not-testable-here")
FIXED_VERDICTS = ("paper-inconsistent", "not-testable-here", "finding")  # a YAML entry may fix
PENDING = re.compile(r"^issue \d+\b")  # "issue 14 — PPA": transcribed, its claim comes later
NUMERIC = ("paper_value", "ours_value", "band")  # a numeric claim's numbers (Claim)
OPTIONAL = (*NUMERIC, "rests_on")  # the Claim fields written only where set


def default_verdict(holds: bool) -> str:
    """The verdict of a claim that states none: ``holds`` or ``deviates``."""
    return "holds" if holds else "deviates"


@dataclasses.dataclass(frozen=True)
class Reference:
    """One transcribed paper value or statement, with where it comes from.

    ``verdict``/``reason``: a verdict the statement itself fixes (``FIXED_VERDICTS``), e.g. a
    table body our text of the paper lacks; ``pending``: "issue N — ...", the issue whose claim
    will check it (no claim yet)."""

    statement: str
    source: str
    value: Any = None
    verdict: str = ""
    reason: str = ""
    pending: str = ""


@dataclasses.dataclass(frozen=True)
class Claim:
    """A paper statement checked against our computed data.

    ``paper`` is the paper's statement (and value, if any) with its source; ``ours`` what lutcore
    computed; ``holds`` whether it agrees within ``tolerance``; ``deviation`` the signed difference
    (ours - paper, relative where stated) or a sentence on why it differs; ``verdict`` one of
    ``VERDICTS`` (default: from ``holds``), with its ``reason`` where ``NEEDS_REASON``. A finding's
    ``holds`` says whether our hypothesis was confirmed. A numeric claim also carries the two
    numbers it compares, ``paper_value`` and ``ours_value``, and ``band``, the relative
    tolerance of a "within x %" claim (the report's overview picture draws them).
    ``rests_on``: where ours is a modeled time on a real GPU, or a ratio over one, the GPU
    model's validation groups it rests on, each "<gpu> <category>" of ``lut-fig16`` (e.g.
    "a100 e2e"): the report sets the verdict beside their validated error.
    """

    experiment: str
    claim: str
    paper: str
    ours: str
    holds: bool
    tolerance: str = ""
    deviation: str = ""
    verdict: str = ""
    reason: str = ""
    paper_value: float | None = None
    ours_value: float | None = None
    band: float | None = None
    rests_on: tuple[str, ...] = ()

    def __post_init__(self):
        holds = bool(self.holds)
        verdict = self.verdict or default_verdict(holds)
        where = f"{self.experiment}.{self.claim}"
        groups = (self.rests_on,) if isinstance(self.rests_on, str) else tuple(self.rests_on)
        bad = [g for g in groups if not isinstance(g, str) or len(g.split()) != 2]
        if bad:
            raise ValueError(f"{where}: rests_on {bad} invalid; allowed values: validation "
                             "groups '<gpu> <category>', e.g. 'a100 e2e'")
        object.__setattr__(self, "rests_on", groups)
        if verdict not in VERDICTS:
            raise ValueError(f"{where}: verdict {verdict!r} unknown; allowed values: "
                             f"{', '.join(VERDICTS)}")
        if verdict in NEEDS_REASON and not self.reason:
            raise ValueError(f"{where}: a {verdict} claim must give its reason")
        if holds != (verdict == "holds") and verdict != "finding":
            raise ValueError(f"{where}: holds={holds} contradicts the verdict {verdict!r}")
        object.__setattr__(self, "holds", holds)
        object.__setattr__(self, "verdict", verdict)

    def as_dict(self) -> dict[str, Any]:
        """The fields, the ``OPTIONAL`` ones only where set."""
        return {k: list(v) if k == "rests_on" else v for k, v in dataclasses.asdict(self).items()
                if k not in OPTIONAL or v not in (None, ())}


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that refuses a key repeated in one mapping (plain YAML keeps the last one
    silently, so a second section of an experiment would hide the first)."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise ValueError(f"{node.start_mark.name}, line {key_node.start_mark.line + 1}: "
                                 f"key {key!r} repeated")
            seen.add(key)
        return super().construct_mapping(node, deep)


@functools.cache
def _reference_file(paper: str) -> dict:
    path = REFERENCE_DIR / f"{paper}.yaml"
    if not path.exists():
        raise FileNotFoundError(f"no reference file {path}")
    with path.open() as stream:
        return yaml.load(stream, Loader=_UniqueKeyLoader)


def reference(paper: str, experiment: str, key: str) -> Reference:
    """The transcribed paper value ``key`` of ``experiment`` from ``reference/<paper>.yaml``."""
    entries = _reference_file(paper)["experiments"].get(experiment, {})
    if key not in entries:
        raise KeyError(f"reference/{paper}.yaml has no entry {experiment}.{key}; "
                       f"it has: {sorted(entries)}")
    try:
        ref = Reference(**entries[key])
    except TypeError as err:
        raise ValueError(f"reference/{paper}.yaml {experiment}.{key}: {err}; allowed fields: "
                         f"{', '.join(f.name for f in dataclasses.fields(Reference))}") from None
    if ref.verdict and ref.verdict not in FIXED_VERDICTS:
        raise ValueError(f"reference/{paper}.yaml {experiment}.{key}: verdict {ref.verdict!r} "
                         f"cannot be fixed in the reference; allowed values: "
                         f"{', '.join(FIXED_VERDICTS)}")
    if ref.pending and not PENDING.match(ref.pending):
        raise ValueError(f"reference/{paper}.yaml {experiment}.{key}: pending must name the "
                         f"issue ('issue N — what'), got {ref.pending!r}")
    return ref


def reference_entries(paper: str) -> list[tuple[str, str, Reference]]:
    """Every entry of ``reference/<paper>.yaml`` as (experiment, key, Reference), in file order."""
    return [(experiment, key, reference(paper, experiment, key))
            for experiment, entries in _reference_file(paper)["experiments"].items()
            for key in entries]


def paper_title(paper: str) -> str:
    """The paper's name as its reference file gives it."""
    return _reference_file(paper)["paper"]


def paper_claim(experiment: Experiment, key: str, *, ours: str, holds: bool,
                tolerance: str = "", deviation: str = "", verdict: str = "", reason: str = "",
                ours_value: float | None = None, band: float | None = None,
                paper_value: float | None = None, rests_on: tuple[str, ...] = ()) -> Claim:
    """A ``Claim`` whose paper side is read from the reference file of ``experiment``; its
    verdict is ``verdict``, else the one the reference entry fixes, else follows ``holds``. A
    numeric claim passes ``ours_value`` (and ``band``, its relative tolerance); its
    ``paper_value`` is the entry's value when that is one number, else must be given.
    ``rests_on``: the GPU model's validation groups behind ours (``Claim``)."""
    ref = reference(experiment.paper, experiment.id, key)
    if ref.pending:
        raise ValueError(f"{experiment.id}.{key} is marked pending ({ref.pending}) in reference/"
                         f"{experiment.paper}.yaml: remove the marker now that a claim checks it")
    if verdict and ref.verdict and verdict != ref.verdict:
        raise ValueError(f"{experiment.id}.{key}: verdict {verdict!r} differs from the one its "
                         f"reference entry fixes, {ref.verdict!r}")
    paper = ref.statement if ref.value is None else f"{ref.statement} [{ref.value}]"
    scalar = isinstance(ref.value, (int, float)) and not isinstance(ref.value, bool)
    if ours_value is not None and paper_value is None:
        if not scalar:
            raise ValueError(f"{experiment.id}.{key}: ours_value needs a paper_value (its "
                             f"reference value {ref.value!r} is not one number)")
        paper_value = ref.value
    return Claim(experiment=experiment.id, claim=key, paper=f"{paper} ({ref.source})",
                 ours=ours, holds=bool(holds), tolerance=tolerance, deviation=deviation,
                 verdict=verdict or ref.verdict, reason=reason or ref.reason,
                 paper_value=None if ours_value is None else float(paper_value),
                 ours_value=None if ours_value is None else float(ours_value),
                 band=None if band is None else float(band), rests_on=rests_on)


def contradiction_claim(experiment: Experiment, key: str, *, ours: str, shown: bool,
                        tolerance: str = "", reason: str = "") -> Claim:
    """A claim that the paper contradicts itself: ``shown`` when our arithmetic shows the
    contradiction (verdict paper-inconsistent, with ``reason``); otherwise it holds."""
    return paper_claim(experiment, key, ours=ours, holds=not shown, tolerance=tolerance,
                       verdict="paper-inconsistent" if shown else "",
                       reason=reason if shown else "")


def collect_claims(experiment: Experiment, ds, *, full: bool = False) -> list[Claim]:
    """``experiment.claims(ds)``, checked against ``experiment.claim_keys`` (every key it states
    is declared; with ``full``, the run of the default config, every declared key is stated),
    plus a claim for every reference entry of the experiment whose verdict is fixed as
    not-testable-here and that ``claims`` did not state itself (nothing to compute; the reason
    says what it needs)."""
    claims = list(experiment.claims(ds))
    bad = [c for c in claims if not isinstance(c, Claim)]
    if bad:
        raise TypeError(f"{experiment.id}.claims() must return Claim objects, got {bad[0]!r}")
    keys = [c.claim for c in claims]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise ValueError(f"{experiment.id}.claims() states {', '.join(twice)} more than once")
    declared = experiment.claim_keys
    undeclared = [k for k in keys if k not in declared]
    if undeclared:
        raise ValueError(f"{experiment.id}.claims() states {', '.join(undeclared)}, not in its "
                         f"claim_keys; declare them")
    missing = [k for k in declared if k not in keys] if full else []
    if missing:
        raise ValueError(f"{experiment.id} declares {', '.join(missing)} in claim_keys but its "
                         f"full run states no such claim")
    entries = _reference_file(experiment.paper)["experiments"].get(experiment.id, {})
    claims += [paper_claim(experiment, key, ours="nothing computed (see the reason)",
                           holds=False)
               for key in entries if key not in keys
               and reference(experiment.paper, experiment.id, key).verdict == "not-testable-here"]
    return claims


def markdown_table(columns: list[str], rows: list[list], *, right: int = 0) -> str:
    """A Markdown table; the last ``right`` columns (numbers) are right-aligned."""
    align = ["---"] * (len(columns) - right) + ["---:"] * right
    lines = [columns, align, *[[str(x) for x in row] for row in rows]]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines) + "\n"


# --------------------------------------------------------------------------------------------
# Registry and configuration


class Description(NamedTuple):
    """What the report needs of an experiment before importing it: the ``id``, ``paper`` and
    ``title`` of the ``Experiment`` record its module declares (``record_literals``)."""

    id: str
    paper: str
    title: str
    module: str  # importable name, e.g. experiments.minifloat_nn.fig9_accuracy


RECORD = "EXPERIMENT"  # the module-level name of an experiment module's record


@functools.cache
def _index() -> dict[str, Description]:
    """Experiment id -> its Description, read from the records in the sources.

    Reading is cheap; importing every experiment (JAX, xarray, matplotlib, the LLM and synthesis
    packages) is not, so ``get`` imports only the module it is asked for.
    """
    found: dict[str, Description] = {}
    root = pathlib.Path(__file__).parent
    for package in sorted(p for p in root.iterdir() if (p / "__init__.py").exists()):
        for path in sorted(package.glob("[!_]*.py")):
            fields = record_literals(path)
            if not fields:
                continue
            if fields["id"] in found:
                raise RuntimeError(f"duplicate experiment id {fields['id']}")
            found[fields["id"]] = Description(
                id=fields["id"], paper=fields["paper"], title=fields["title"],
                module=f"experiments.{package.name}.{path.stem}")
    return found


def record_literals(path: pathlib.Path) -> dict[str, str]:
    """The ``id``, ``paper`` and ``title`` of the ``Experiment`` record a module assigns to
    ``EXPERIMENT`` at its top level, as string literals there or in the module-level constants
    it names ({} for a module without a record)."""
    constants, record = {}, None
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            continue
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            constants[node.targets[0].id] = node.value.value
        elif node.targets[0].id == RECORD and isinstance(node.value, ast.Call):
            record = node.value
    if record is None:
        return {}
    given = {k.arg: k.value for k in record.keywords}
    fields = {key: (given[key].value if isinstance(given.get(key), ast.Constant)
                    else constants.get(getattr(given.get(key), "id", None)))
              for key in ("id", "paper", "title")}
    missing = [k for k, v in fields.items() if not isinstance(v, str)]
    if missing:
        raise RuntimeError(f"{path}: {RECORD} must give {', '.join(missing)} as string literals "
                           "or module constants holding them")
    return fields


def ids() -> list[str]:
    """Every experiment id, sorted, without importing any experiment."""
    return sorted(_index())


def describe(experiment_id: str) -> Description:
    """Id, paper and title of an experiment without importing it (a clear error listing the
    known ids for an unknown one)."""
    known = _index()
    if experiment_id not in known:
        raise ConfigError(f"unknown experiment {experiment_id!r}; known: {sorted(known)}")
    return known[experiment_id]


def registry() -> dict[str, Experiment]:
    """Every experiment under ``experiments/<paper>/``, keyed by its id."""
    return {experiment_id: get(experiment_id) for experiment_id in _index()}


def get(experiment_id: str) -> Experiment:
    """The record of the experiment with this id; a clear error listing the known ids
    otherwise."""
    described = describe(experiment_id)
    record = getattr(importlib.import_module(described.module), RECORD)
    if not isinstance(record, Experiment) or (record.id, record.paper,
                                              record.title) != described[:3]:
        raise RuntimeError(f"{described.module}: {RECORD} is not the Experiment record "
                           f"{described[:3]} its source declares")
    return record


# What one job may hold: the full preset's largest job peaks at 3.3 GB (README, lut-table5) and
# a 2-core machine runs two jobs side by side; on the 24 GiB development machine that leaves room.
MEMORY_BOUND_GB = 8.0


@dataclasses.dataclass(frozen=True)
class Bounds:
    """The range of a numeric ``Config`` field (each element of a tuple field), kept by
    ``make_config``: ``min`` <= value <= ``max``, value > ``above``."""

    min: float | None = None
    max: float | None = None
    above: float | None = None

    def check(self, where: str, value) -> None:
        low = (self.min is None or value >= self.min) and (self.above is None
                                                            or value > self.above)
        if not low or (self.max is not None and value > self.max):
            parts = [f">= {self.min}" if self.min is not None else "",
                     f"> {self.above}" if self.above is not None else "",
                     f"<= {self.max}" if self.max is not None else ""]
            raise ConfigError(f"{where}: {value!r} is out of range; allowed values: "
                              f"{' and '.join(p for p in parts if p)}")


def bounded(default, **bounds):
    """A ``Config`` field with ``Bounds`` (min=, max=, above=) that ``make_config`` keeps."""
    return dataclasses.field(default=default, metadata={"bounds": Bounds(**bounds)})


@dataclasses.dataclass(frozen=True)
class Footprint:
    """The peak memory of an experiment's ``run``, declared by its ``Config`` as ``FOOTPRINT``:
    a sum of terms (bytes, fields), each bytes times the product of the fields' values (a tuple
    field counts by its largest value); ``source`` says how the bytes were measured.
    ``make_config`` refuses a config that needs more than ``MEMORY_BOUND_GB``."""

    terms: tuple[tuple[float, tuple[str, ...]], ...]
    source: str

    def bytes(self, values: Mapping[str, Any]) -> float:
        return sum(size * math.prod(values[f] for f in fields) for size, fields in self.terms)

    def largest(self, values: Mapping[str, Any], field: str) -> int:
        """The largest value of ``field`` within the bound, the others as in ``values``."""
        fixed = self.bytes({**values, field: 0})
        return int((MEMORY_BOUND_GB * 1e9 - fixed) // (self.bytes({**values, field: 1}) - fixed))


def _check_footprint(config, params: Mapping[str, Any]) -> None:
    footprint = getattr(type(config), "FOOTPRINT", None)
    if footprint is None:
        return
    names = {f for _, fields in footprint.terms for f in fields}
    values = {f: max(v) if isinstance(v, tuple) else v
              for f in names for v in (getattr(config, f),)}
    need = footprint.bytes(values) / 1e9
    if need <= MEMORY_BOUND_GB:
        return
    given = [f for f in sorted(names) if f in params] or sorted(names)
    field = max(given, key=lambda f: values[f])
    others = ", ".join(f"{f} {values[f]}" for f in sorted(names - {field}))
    raise ConfigError(f"{field}: {values[field]} exceeds {footprint.largest(values, field)}"
                      f"{' at ' + others if others else ''} (memory bound: ~{MEMORY_BOUND_GB:g} "
                      f"GB; this needs ~{need:.3g} GB: {footprint.source})")


def check_choice(key: str, values, allowed) -> None:
    """ConfigError naming ``key``, what is not allowed and the allowed values, unless every
    value (one, or a tuple of them) is in ``allowed`` (a config field among a registry's
    names, formats, sizes)."""
    many = isinstance(values, tuple)
    bad = [v for v in (values if many else (values,)) if v not in allowed]
    if bad:
        raise ConfigError(f"{key}: {bad if many else repr(values)} not allowed; allowed values: "
                          f"{', '.join(map(str, allowed))}")


def _check_value(where: str, value: Any, annotation: Any) -> Any:
    """Check ``value`` against a field annotation; lists become tuples (hashable, frozen)."""
    origin = typing.get_origin(annotation)
    if origin is tuple:
        args = typing.get_args(annotation)
        if not isinstance(value, (list, tuple)) or len(value) == 0:
            raise ConfigError(f"{where}: expected a non-empty list, got {value!r}")
        item = args[0]
        return tuple(_check_value(f"{where}[{i}]", v, item) for i, v in enumerate(value))
    if origin is typing.Literal:
        allowed = typing.get_args(annotation)
        if value not in allowed:
            raise ConfigError(f"{where}: {value!r} is not allowed; allowed values: "
                              f"{', '.join(map(repr, allowed))}")
        return value
    if annotation is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true/false, got {value!r}")
        return value
    if annotation is int:  # no size, count, width or seed is negative
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"{where}: expected an integer >= 0, got {value!r}")
        return value
    if annotation is float:
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not math.isfinite(value)):
            raise ConfigError(f"{where}: expected a finite number, got {value!r}")
        return float(value)
    if annotation is str:
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string, got {value!r}")
        return value
    return value


def make_config(experiment: Experiment, params: Mapping[str, Any] | None = None):
    """Build ``experiment.config`` from a plain mapping, naming any bad key and the allowed ones.

    Field annotations drive the checks (``int``: >= 0; ``float``: finite; ``bool``, ``str``,
    ``Literal[...]``, ``tuple[X, ...]``), then each field's ``Bounds`` (``bounded``);
    ``Config.__post_init__`` may add checks by raising ``ConfigError``; last, the config's
    ``FOOTPRINT`` must stay within ``MEMORY_BOUND_GB``.
    """
    params = dict(params or {})
    fields = {f.name: f for f in dataclasses.fields(experiment.config)}
    unknown = sorted(set(params) - set(fields))
    if unknown:
        raise ConfigError(f"{experiment.id}: unknown key(s) {', '.join(unknown)}; "
                          f"allowed keys: {', '.join(sorted(fields))}")
    hints = typing.get_type_hints(experiment.config)
    checked = {k: _check_value(f"{experiment.id}.{k}", v, hints[k]) for k, v in params.items()}
    for key, value in checked.items():
        bounds = fields[key].metadata.get("bounds")
        for item in (value if isinstance(value, tuple) else (value,)) if bounds else ():
            bounds.check(f"{experiment.id}.{key}", item)
    try:
        config = experiment.config(**checked)
        _check_footprint(config, params)
    except ConfigError as err:
        raise ConfigError(f"{experiment.id}: {err}") from None
    return config
