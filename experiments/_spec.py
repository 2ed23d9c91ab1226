"""What ``make_config`` checks of an experiment's ``Config``, as JSON, and the check run from it.

Checking parameters against the ``Config`` itself means importing the experiment (JAX and the
models: seconds). ``config_spec`` writes down the rest of what ``make_config`` checks (each
field's annotation, default and ``Bounds``, and the ``FOOTPRINT``); the workflow keeps it, keyed by
the source, and ``check_params`` runs ``make_config`` on a dataclass rebuilt from it, so a bad
value is refused before any experiment is imported. It refuses only what ``make_config`` would:
it lacks the checks of ``Config.__post_init__``, which run when the experiment is imported.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from typing import Any, NamedTuple

from experiments._framework import Bounds, Footprint, make_config

_SCALARS = {"int": int, "float": float, "bool": bool, "str": str}


def _type_spec(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin is tuple:
        return {"tuple": _type_spec(typing.get_args(annotation)[0])}
    if origin is typing.Literal:
        return {"literal": list(typing.get_args(annotation))}
    return next((name for name, kind in _SCALARS.items() if annotation is kind), "any")


def _annotation(spec: Any) -> Any:
    if isinstance(spec, dict) and "tuple" in spec:
        return tuple[_annotation(spec["tuple"]), ...]
    if isinstance(spec, dict):
        return typing.Literal[tuple(spec["literal"])]
    return _SCALARS.get(spec, Any)


def _tuples(value: Any) -> Any:
    """JSON's lists back to the tuples a frozen ``Config`` holds."""
    return tuple(map(_tuples, value)) if isinstance(value, (list, tuple)) else value


def config_spec(config: type) -> dict:
    """The fields (annotation, default, bounds) and ``FOOTPRINT`` of a ``Config``, as JSON."""
    hints = typing.get_type_hints(config)
    fields = [{"name": f.name, "type": _type_spec(hints[f.name]), "default": f.default,
               "bounds": dataclasses.asdict(f.metadata["bounds"]) if "bounds" in f.metadata
               else None} for f in dataclasses.fields(config)]
    footprint = getattr(config, "FOOTPRINT", None)
    return {"fields": fields,
            "footprint": None if footprint is None else dataclasses.asdict(footprint)}


def spec_config(spec: Mapping) -> type:
    """A frozen dataclass with the fields, bounds and ``FOOTPRINT`` ``spec`` describes."""
    fields = [(f["name"], _annotation(f["type"]), dataclasses.field(
        default=_tuples(f["default"]),
        metadata={"bounds": Bounds(**f["bounds"])} if f["bounds"] else {}))
        for f in spec["fields"]]
    config = dataclasses.make_dataclass("Config", fields, frozen=True)
    if spec["footprint"] is not None:
        config.FOOTPRINT = Footprint(_tuples(spec["footprint"]["terms"]),
                                     spec["footprint"]["source"])
    return config


class _Described(NamedTuple):  # what make_config reads of an Experiment
    id: str
    config: type


def check_params(experiment_id: str, spec: Mapping, params: Mapping[str, Any]) -> None:
    """``make_config``'s checks of ``params`` against ``spec`` (``config_spec``): a
    ``ConfigError`` naming the key and the allowed values, as the experiment's own would."""
    make_config(_Described(experiment_id, spec_config(spec)), params)
