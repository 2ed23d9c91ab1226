"""Files written whole or not at all: the pipeline's scripts write every result through
``atomic``, so an interrupted run leaves no half-written file in results/. Imports nothing
heavy (the report's job needs no JAX)."""

import contextlib
import os
import pathlib


@contextlib.contextmanager
def atomic(path: pathlib.Path):
    """Yield a temporary path next to ``path``; it replaces ``path`` only once fully written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
