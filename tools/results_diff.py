"""Compare two results/ folders byte for byte: the files that are committed, and the data.

Used by ``tools/check_results.py`` (regenerated vs committed results, CI) and
``tools/check_determinism.py`` (the same experiments under settings of other machines):

    python3 tools/results_diff.py results /tmp/other/results

Committed files (what a reader sees on the forge): ``figures/*.png|pdf``, ``tables/*.md``,
``claims/*.json``, ``claims.json``, ``REPORT.md``. The netCDF data (not committed) carry the git
commit in their attributes, so they are compared variable by variable instead: a difference there
that reaches no committed file is latent, reported apart.
"""

from __future__ import annotations

import difflib
import hashlib
import pathlib
import sys

COMMITTED = ("figures/*.png", "figures/*.pdf", "tables/*.md", "claims/*.json", "claims.json",
             "REPORT.md", "overview.png")
TEXT = (".md", ".json")


def committed_files(results: pathlib.Path, ids: list[str] | None = None) -> list[str]:
    """Relative paths of the committed kinds of file under ``results`` (of ``ids`` if given)."""
    found = sorted(str(p.relative_to(results)) for pattern in COMMITTED
                   for p in results.glob(pattern))
    if ids is not None:
        found = [f for f in found if pathlib.Path(f).stem in ids]
    return found


def _digest(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def compare_files(expected: pathlib.Path, actual: pathlib.Path,
                  names: list[str]) -> dict[str, str]:
    """{relative path: why it differs} for ``names`` between two results folders."""
    problems = {}
    for name in names:
        a, b = expected / name, actual / name
        if not a.exists() or not b.exists():
            problems[name] = "missing in " + (str(expected) if not a.exists() else str(actual))
        elif _digest(a) != _digest(b):
            problems[name] = text_diff(a, b) if a.suffix in TEXT else "bytes differ"
    return problems


def text_diff(a: pathlib.Path, b: pathlib.Path, lines: int = 12) -> str:
    """The first changed lines of a unified diff, long lines cut."""
    diff = difflib.unified_diff(a.read_text(encoding="utf-8").splitlines(),
                                b.read_text(encoding="utf-8").splitlines(), str(a), str(b),
                                lineterm="", n=0)
    shown = [line[:200] for line in diff][2:2 + lines]
    return "\n".join(shown)


def compare_data(expected: pathlib.Path, actual: pathlib.Path, ids: list[str]) -> dict[str, str]:
    """{data/<id>.nc: names of the variables whose values differ} (attributes ignored)."""
    import numpy as np
    import xarray as xr

    problems = {}
    for i in ids:
        name = f"data/{i}.nc"
        if not (expected / name).exists() or not (actual / name).exists():
            problems[name] = "missing"
            continue
        with (xr.open_dataset(expected / name, engine="h5netcdf") as a,
              xr.open_dataset(actual / name, engine="h5netcdf") as b):
            changed = []
            for var in sorted(set(a.variables) | set(b.variables)):
                if var not in a.variables or var not in b.variables:
                    changed.append(f"{var} (only in one)")
                    continue
                x, y = np.asarray(a[var].values), np.asarray(b[var].values)
                if x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes():
                    changed.append(var + _magnitude(x, y))
            if changed:
                problems[name] = ", ".join(changed)
    return problems


def _magnitude(x, y) -> str:
    """' (max relative difference 1.2e-16)' for float arrays of one shape, else ''."""
    import numpy as np

    if x.shape != y.shape or x.dtype.kind != "f":
        return ""
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.abs(x - y) / np.maximum(np.abs(x), np.abs(y))
    rel = rel[np.isfinite(rel)]
    return f" (max relative difference {rel.max():.1e})" if rel.size else ""


def describe(problems: dict[str, str]) -> list[str]:
    """One line per file (indented), then the lines of its diff (indented more)."""
    lines = []
    for name, why in problems.items():
        first, *rest = why.splitlines() or [""]
        lines += [f"  {name}: {first}", *(f"      {line}" for line in rest)]
    return lines


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("expected", type=pathlib.Path)
    parser.add_argument("actual", type=pathlib.Path)
    args = parser.parse_args(argv)
    names = sorted(set(committed_files(args.expected)) | set(committed_files(args.actual)))
    problems = compare_files(args.expected, args.actual, names)
    print(f"{len(names)} files compared, {len(problems)} differ")
    print("\n".join(describe(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
