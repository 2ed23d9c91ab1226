"""The cell libraries lutcore prices in, by name (``LIBRARIES``; NanGate45 is the default)."""

from __future__ import annotations

from .. import _checks as check
from ._asap7 import ASAP7
from ._cells import NANGATE45, CellLibrary

LIBRARIES = {"nangate45": NANGATE45, "asap7": ASAP7}
LIBRARY_NAMES = tuple(LIBRARIES)


def library(name: str | CellLibrary) -> CellLibrary:
    """The library called ``name`` (or ``name`` itself if it is one)."""
    return check.named(LIBRARIES, name, what="library", record=CellLibrary)
