"""How a package shows its face: ``__all__`` is what its ``__init__`` imports (each name written
once), and the names it exported before its face was curated stay reachable through the
sub-namespace that now holds them."""

from __future__ import annotations

import types


def public(namespace: dict) -> list[str]:
    """The public names of a module's namespace (its imports, less modules from outside its
    package), sorted: its ``__all__``."""
    package = namespace["__name__"]
    return sorted(name for name, value in namespace.items() if not name.startswith("_")
                  and not (isinstance(value, types.ModuleType)
                           and not value.__name__.startswith(package)))


def forward(package: str, *homes: types.ModuleType):
    """A module ``__getattr__`` for ``package`` that finds a name it no longer shows in the
    ``__all__`` of one of ``homes`` (its sub-namespaces), for the callers that use the old path."""

    def __getattr__(name: str):
        for home in homes:
            if name in home.__all__:
                return getattr(home, name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
