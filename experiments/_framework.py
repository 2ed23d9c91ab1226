"""The contract every experiment module follows, and the pieces they share.

An experiment module (one per paper figure/table) defines:

``ID``        stable id, used for file names and the report (e.g. ``"mfnn-fig9"``)
``TITLE``     one line: what it reproduces, naming the paper's figure/table
``PAPER``     key of the reference file in ``experiments/reference/`` (e.g. ``"minifloat_nn"``)
``Config``    a frozen dataclass of the experiment's parameters (defaults = the full run)
``run(config) -> xarray.Dataset``      computed from ``lutcore`` models only
``plot(ds) -> matplotlib.figure.Figure``
``table(ds) -> str``                   a Markdown table
``claims(ds) -> list[Claim]``          the paper's statements, checked against ``ds``

Paper values live only in ``experiments/reference/<paper>.yaml``; ``reference(PAPER, ID, key)``
reads one, so a claim can never carry a value typed into the experiment.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pathlib
import pkgutil
import types
import typing
from typing import Any, Mapping

import yaml

REFERENCE_DIR = pathlib.Path(__file__).parent / "reference"


class ConfigError(ValueError):
    """A configuration value or key that an experiment cannot accept."""


@dataclasses.dataclass(frozen=True)
class Reference:
    """One transcribed paper value or statement, with where it comes from."""

    statement: str
    source: str
    value: Any = None


# holds / deviates: our model agrees or not; paper-inconsistent: the paper contradicts itself
# (shown by arithmetic); not-testable-here: needs what we cannot have offline; finding: ours.
VERDICTS = ("holds", "deviates", "paper-inconsistent", "not-testable-here", "finding")


@dataclasses.dataclass(frozen=True)
class Claim:
    """A paper statement checked against our computed data.

    ``paper`` is the paper's statement (and value, if any) with its source; ``ours`` what lutcore
    computed; ``holds`` whether it agrees within ``tolerance``; ``deviation`` the signed difference
    (ours - paper, relative where stated) or a sentence on why it differs; ``verdict`` one of
    ``VERDICTS`` ("" = derived from ``holds``: "holds" or "deviates").
    """

    experiment: str
    claim: str
    paper: str
    ours: str
    holds: bool
    tolerance: str = ""
    deviation: str = ""
    verdict: str = ""

    def __post_init__(self):
        if self.verdict not in ("",) + VERDICTS:
            raise ValueError(f"{self.experiment}.{self.claim}: verdict {self.verdict!r} unknown; "
                             f"allowed values: {', '.join(VERDICTS)}")
        if not self.verdict:
            object.__setattr__(self, "verdict", "holds" if self.holds else "deviates")

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@functools.cache
def _reference_file(paper: str) -> dict:
    path = REFERENCE_DIR / f"{paper}.yaml"
    if not path.exists():
        raise FileNotFoundError(f"no reference file {path}")
    return yaml.safe_load(path.read_text())


def reference(paper: str, experiment: str, key: str) -> Reference:
    """The transcribed paper value ``key`` of ``experiment`` from ``reference/<paper>.yaml``."""
    entries = _reference_file(paper)["experiments"].get(experiment, {})
    if key not in entries:
        raise KeyError(f"reference/{paper}.yaml has no entry {experiment}.{key}; "
                       f"it has: {sorted(entries)}")
    return Reference(**entries[key])


def paper_claim(module, key: str, *, ours: str, holds: bool, tolerance: str = "",
                deviation: str = "", verdict: str = "") -> Claim:
    """A ``Claim`` whose paper side is read from the reference file of ``module``; ``verdict``
    as in ``Claim`` ("" = derived from ``holds``)."""
    ref = reference(module.PAPER, module.ID, key)
    paper = ref.statement if ref.value is None else f"{ref.statement} [{ref.value}]"
    return Claim(experiment=module.ID, claim=key, paper=f"{paper} ({ref.source})", ours=ours,
                 holds=bool(holds), tolerance=tolerance, deviation=deviation, verdict=verdict)


def markdown_table(columns: list[str], rows: list[list], *, right: int = 0) -> str:
    """A Markdown table; the last ``right`` columns (numbers) are right-aligned."""
    align = ["---"] * (len(columns) - right) + ["---:"] * right
    lines = [columns, align, *[[str(x) for x in row] for row in rows]]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines) + "\n"


# --------------------------------------------------------------------------------------------
# Registry and configuration


@functools.cache
def registry() -> dict[str, types.ModuleType]:
    """Every experiment module under ``experiments/<paper>/``, keyed by its ``ID``."""
    import experiments

    found: dict[str, types.ModuleType] = {}
    root = pathlib.Path(experiments.__file__).parent
    for paper in sorted(p.name for p in root.iterdir()
                        if p.is_dir() and (p / "__init__.py").exists()):
        package = importlib.import_module(f"experiments.{paper}")
        for info in pkgutil.iter_modules(package.__path__):
            if info.name.startswith("_"):
                continue
            module = importlib.import_module(f"experiments.{paper}.{info.name}")
            if hasattr(module, "ID"):
                if module.ID in found:
                    raise RuntimeError(f"duplicate experiment id {module.ID}")
                found[module.ID] = module
    return found


def get(experiment_id: str) -> types.ModuleType:
    """The experiment module with this id; a clear error listing the known ids otherwise."""
    known = registry()
    if experiment_id not in known:
        raise ConfigError(f"unknown experiment {experiment_id!r}; known: {sorted(known)}")
    return known[experiment_id]


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
    if annotation is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: expected an integer, got {value!r}")
        return value
    if annotation is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where}: expected a number, got {value!r}")
        return float(value)
    if annotation is str:
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string, got {value!r}")
        return value
    return value


def make_config(module: types.ModuleType, params: Mapping[str, Any] | None = None):
    """Build ``module.Config`` from a plain mapping, naming any bad key and the allowed ones.

    Field annotations drive the checks (``int``, ``float``, ``bool``, ``str``, ``Literal[...]``,
    ``tuple[X, ...]``); ``Config.__post_init__`` may add range checks by raising ``ConfigError``.
    """
    params = dict(params or {})
    fields = {f.name: f for f in dataclasses.fields(module.Config)}
    unknown = sorted(set(params) - set(fields))
    if unknown:
        raise ConfigError(f"{module.ID}: unknown key(s) {', '.join(unknown)}; "
                          f"allowed keys: {', '.join(sorted(fields))}")
    hints = typing.get_type_hints(module.Config)
    checked = {k: _check_value(f"{module.ID}.{k}", v, hints[k]) for k, v in params.items()}
    try:
        return module.Config(**checked)
    except ConfigError as err:
        raise ConfigError(f"{module.ID}: {err}") from None
