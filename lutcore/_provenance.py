"""What produced a cached file, as a digest: the source of the lutcore modules that made it and the
versions of the libraries it ran.

Standard library only, so the workflow can load it from its file without importing lutcore (and
JAX). Imports are read from the source (``ast``), not executed: ``from package import name`` counts
the submodule when ``name`` is one, else the package's ``__init__`` (which defines or re-exports
it); a package's ``__init__`` run only as the parent of an imported submodule does not count.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import importlib.util
from collections.abc import Iterable, Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent  # lutcore/
NOT_INSTALLED = "not installed"


def _module_path(module: str) -> Path | None:
    """The file of lutcore module ``module`` (a package's ``__init__.py``); None outside lutcore."""
    first, *rest = module.split(".")
    if first != PACKAGE.name:
        return None
    base = PACKAGE.joinpath(*rest)
    return next((p for p in (base / "__init__.py", base.with_suffix(".py")) if p.is_file()), None)


def _imported(path: Path) -> Iterator[str]:
    """The modules the source file ``path`` (in lutcore) imports."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = ".".join(parts[:-1])  # a package's __init__ is in its own package
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                yield submodule if _module_path(submodule) else base


def closure(roots: Iterable[Path]) -> tuple[Path, ...]:
    """The source files ``roots`` and every lutcore module they import, directly or not; sorted."""
    seen: set[Path] = set()
    pending = [Path(root).resolve() for root in roots]
    while pending:
        path = pending.pop()
        if path not in seen:
            seen.add(path)
            pending += filter(None, map(_module_path, _imported(path)))
    return tuple(sorted(seen))


def versions(libraries: Iterable[str]) -> dict[str, str]:
    """The installed version of each library (``NOT_INSTALLED`` when it is not)."""
    found = {}
    for library in libraries:
        try:
            found[library] = importlib.metadata.version(library)
        except importlib.metadata.PackageNotFoundError:
            found[library] = NOT_INSTALLED
    return found


def digest(paths: Iterable[Path], libraries: Iterable[str] = ()) -> str:
    """SHA-256 over each file's path in lutcore and content, then each library's version."""
    sha = hashlib.sha256()
    for path in paths:
        for part in (Path(path).resolve().relative_to(PACKAGE).as_posix().encode(),
                     Path(path).read_bytes()):
            sha.update(len(part).to_bytes(8, "little") + part)  # length-prefixed: unambiguous
    for library, version in versions(libraries).items():
        sha.update(f"\0{library}=={version}".encode())
    return sha.hexdigest()
