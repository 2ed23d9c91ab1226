"""What lutcore reads from installed packages besides its own code: a package or a data file it
ships, found without importing the package. Standard library only: the workflow checks these
before any job without importing lutcore (JAX takes most of a second)."""

from __future__ import annotations

import importlib.util
import pathlib
from typing import NamedTuple


class PackageData(NamedTuple):
    """``file`` inside the installed ``package`` (the package itself when empty), described as
    ``what`` and installed by the command ``install``."""

    what: str
    package: str
    install: str
    file: str = ""

    def locate(self) -> pathlib.Path:
        """The file (or the package's folder); ``FileNotFoundError`` naming what is missing and
        the command that installs it."""
        spec = importlib.util.find_spec(self.package)
        if spec is None or not spec.submodule_search_locations:
            raise FileNotFoundError(f"{self.what}: package {self.package} is not installed; "
                                    f"run: {self.install}")
        path = pathlib.Path(next(iter(spec.submodule_search_locations))) / self.file
        if not path.exists():
            raise FileNotFoundError(f"{self.what}: {path} is missing from the installed "
                                    f"{self.package}; run: {self.install}")
        return path
