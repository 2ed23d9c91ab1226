"""The contract every experiment module follows, and the pieces they share.

An experiment module (one per paper figure/table) defines:

``ID``        stable id, used for file names and the report (e.g. ``"mfnn-fig9"``)
``TITLE``     one line: what it reproduces, naming the paper's figure/table
``PAPER``     key of the reference file in ``experiments/reference/`` (e.g. ``"minifloat_nn"``)
``CLAIMS``    the reference keys ``claims`` states in the full run (a tuple; ``collect_claims``
              holds every run to it, and a test to the reference file: every entry is claimed,
              fixed as not-testable-here, or pending in a named issue)
``Config``    a frozen dataclass of the experiment's parameters (defaults = the full run)
``run(config) -> xarray.Dataset``      computed from ``lutcore`` models only
``plot(ds) -> matplotlib.figure.Figure``
``table(ds) -> str``                   a Markdown table
``claims(ds) -> list[Claim]``          the paper's statements, checked against ``ds``

and, if it reads open-synthesis results, ``synthesis_designs(config) -> list[str]`` (their cache
files become inputs of its job; the workflow's synthesis rule writes them when the config's
``synthesize`` is true) and reads them with ``lutcore.ppa.synth.read_cached``.

Paper values live only in ``experiments/reference/<paper>.yaml``; ``reference(PAPER, ID, key)``
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
import types
import typing
from collections.abc import Mapping
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


VERDICTS = ("holds", "deviates", "paper-inconsistent", "not-testable-here", "finding")
NEEDS_REASON = ("paper-inconsistent", "not-testable-here")
FIXED_VERDICTS = ("paper-inconsistent", "not-testable-here", "finding")  # a YAML entry may fix
PENDING = re.compile(r"^issue \d+\b")  # "issue 14 — PPA": transcribed, its claim comes later


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
    ``holds`` says whether our hypothesis was confirmed.
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

    def __post_init__(self):
        holds = bool(self.holds)
        verdict = self.verdict or default_verdict(holds)
        where = f"{self.experiment}.{self.claim}"
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
        return dataclasses.asdict(self)


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


def paper_claim(module, key: str, *, ours: str, holds: bool, tolerance: str = "",
                deviation: str = "", verdict: str = "", reason: str = "") -> Claim:
    """A ``Claim`` whose paper side is read from the reference file of ``module``; its verdict
    is ``verdict``, else the one the reference entry fixes, else follows ``holds``."""
    ref = reference(module.PAPER, module.ID, key)
    if ref.pending:
        raise ValueError(f"{module.ID}.{key} is marked pending ({ref.pending}) in reference/"
                         f"{module.PAPER}.yaml: remove the marker now that a claim checks it")
    if verdict and ref.verdict and verdict != ref.verdict:
        raise ValueError(f"{module.ID}.{key}: verdict {verdict!r} differs from the one its "
                         f"reference entry fixes, {ref.verdict!r}")
    paper = ref.statement if ref.value is None else f"{ref.statement} [{ref.value}]"
    return Claim(experiment=module.ID, claim=key, paper=f"{paper} ({ref.source})", ours=ours,
                 holds=bool(holds), tolerance=tolerance, deviation=deviation,
                 verdict=verdict or ref.verdict, reason=reason or ref.reason)


def contradiction_claim(module, key: str, *, ours: str, shown: bool, tolerance: str = "",
                        reason: str = "") -> Claim:
    """A claim that the paper contradicts itself: ``shown`` when our arithmetic shows the
    contradiction (verdict paper-inconsistent, with ``reason``); otherwise it holds."""
    return paper_claim(module, key, ours=ours, holds=not shown, tolerance=tolerance,
                       verdict="paper-inconsistent" if shown else "",
                       reason=reason if shown else "")


def collect_claims(module, ds, *, full: bool = False) -> list[Claim]:
    """``module.claims(ds)``, checked against ``module.CLAIMS`` (every key it states is declared;
    with ``full``, the run of the default config, every declared key is stated), plus a claim
    for every reference entry of the experiment whose verdict is fixed as not-testable-here and
    that ``claims`` did not state itself (nothing to compute; the reason says what it needs)."""
    claims = list(module.claims(ds))
    bad = [c for c in claims if not isinstance(c, Claim)]
    if bad:
        raise TypeError(f"{module.ID}.claims() must return Claim objects, got {bad[0]!r}")
    keys = [c.claim for c in claims]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise ValueError(f"{module.ID}.claims() states {', '.join(twice)} more than once")
    declared = getattr(module, "CLAIMS", None)
    if not isinstance(declared, tuple):
        raise TypeError(f"{module.ID} must declare CLAIMS, the tuple of reference keys its "
                        f"claims() states")
    undeclared = [k for k in keys if k not in declared]
    if undeclared:
        raise ValueError(f"{module.ID}.claims() states {', '.join(undeclared)}, not in its "
                         f"CLAIMS; declare them")
    missing = [k for k in declared if k not in keys] if full else []
    if missing:
        raise ValueError(f"{module.ID} declares {', '.join(missing)} in CLAIMS but its full run "
                         f"states no such claim")
    entries = _reference_file(module.PAPER)["experiments"].get(module.ID, {})
    claims += [paper_claim(module, key, ours="nothing computed (see the reason)", holds=False)
               for key in entries if key not in keys
               and reference(module.PAPER, module.ID, key).verdict == "not-testable-here"]
    return claims


def markdown_table(columns: list[str], rows: list[list], *, right: int = 0) -> str:
    """A Markdown table; the last ``right`` columns (numbers) are right-aligned."""
    align = ["---"] * (len(columns) - right) + ["---:"] * right
    lines = [columns, align, *[[str(x) for x in row] for row in rows]]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines) + "\n"


# --------------------------------------------------------------------------------------------
# Registry and configuration


class Description(NamedTuple):
    """What the report needs of an experiment, read from its source: the literal ``ID``,
    ``PAPER`` and ``TITLE`` it assigns at module level."""

    id: str
    paper: str
    title: str
    module: str  # importable name, e.g. experiments.minifloat_nn.fig9_accuracy


@functools.cache
def _index() -> dict[str, Description]:
    """Experiment id -> its Description, read from the sources.

    Reading is cheap; importing every experiment (JAX, xarray, matplotlib, the LLM and synthesis
    packages) is not, so ``get`` imports only the module it is asked for.
    """
    found: dict[str, Description] = {}
    root = pathlib.Path(__file__).parent
    for package in sorted(p for p in root.iterdir() if (p / "__init__.py").exists()):
        for path in sorted(package.glob("[!_]*.py")):
            literals = _module_literals(path)
            if "ID" not in literals:
                continue
            if literals["ID"] in found:
                raise RuntimeError(f"duplicate experiment id {literals['ID']}")
            found[literals["ID"]] = Description(
                id=literals["ID"], paper=literals.get("PAPER", ""),
                title=literals.get("TITLE", ""), module=f"experiments.{package.name}.{path.stem}")
    return found


def _module_literals(path: pathlib.Path) -> dict[str, str]:
    """The strings a module assigns to ``ID``, ``PAPER`` and ``TITLE`` at its top level."""
    found = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in ("ID", "PAPER", "TITLE")
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            found[node.targets[0].id] = node.value.value
    return found


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


def registry() -> dict[str, types.ModuleType]:
    """Every experiment module under ``experiments/<paper>/``, keyed by its ``ID``."""
    return {experiment_id: get(experiment_id) for experiment_id in _index()}


def get(experiment_id: str) -> types.ModuleType:
    """The experiment module with this id; a clear error listing the known ids otherwise."""
    described = describe(experiment_id)
    module = importlib.import_module(described.module)
    found = tuple(getattr(module, name, None) for name in ("ID", "PAPER", "TITLE"))
    if found != described[:3]:
        raise RuntimeError(f"{module.__name__}: ID, PAPER, TITLE {found} are not the literals "
                           f"{described[:3]} its source assigns")
    return module


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


def make_config(module: types.ModuleType, params: Mapping[str, Any] | None = None):
    """Build ``module.Config`` from a plain mapping, naming any bad key and the allowed ones.

    Field annotations drive the checks (``int``: >= 0; ``float``: finite; ``bool``, ``str``,
    ``Literal[...]``, ``tuple[X, ...]``), then each field's ``Bounds`` (``bounded``);
    ``Config.__post_init__`` may add checks by raising ``ConfigError``; last, the config's
    ``FOOTPRINT`` must stay within ``MEMORY_BOUND_GB``.
    """
    params = dict(params or {})
    fields = {f.name: f for f in dataclasses.fields(module.Config)}
    unknown = sorted(set(params) - set(fields))
    if unknown:
        raise ConfigError(f"{module.ID}: unknown key(s) {', '.join(unknown)}; "
                          f"allowed keys: {', '.join(sorted(fields))}")
    hints = typing.get_type_hints(module.Config)
    checked = {k: _check_value(f"{module.ID}.{k}", v, hints[k]) for k, v in params.items()}
    for key, value in checked.items():
        bounds = fields[key].metadata.get("bounds")
        for item in (value if isinstance(value, tuple) else (value,)) if bounds else ():
            bounds.check(f"{module.ID}.{key}", item)
    try:
        config = module.Config(**checked)
        _check_footprint(config, params)
    except ConfigError as err:
        raise ConfigError(f"{module.ID}: {err}") from None
    return config
