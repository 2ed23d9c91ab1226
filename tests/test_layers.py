"""The architecture's rules, read from the source: layers import downwards only, files stay short.

lutcore/ (models) -> experiments/ (one module per figure) -> workflow/ (Snakemake wiring): a
model never imports an experiment, the pipeline or its data and plotting libraries; an experiment
never imports the workflow and uses the public ``experiments`` package, not its framework module.
"""

import ast
import pathlib

import pytest

from conftest import ROOT

MAX_LINES = 600
# Being split by issue 14; the lead removes this exemption when that branch is merged.
TOO_LONG_EXEMPT = {"lutcore/ppa/synth.py"}
# What lutcore may not import: the upper layers, and the pipeline's libraries (extra "pipeline").
LUTCORE_FORBIDDEN = {"experiments", "workflow", "xarray", "matplotlib", "snakemake", "yaml"}


def sources(*folders: str) -> list[pathlib.Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def imports(path: pathlib.Path, root: pathlib.Path = ROOT) -> set[str]:
    """Every module ``path`` imports (absolute names; relative imports resolved)."""
    package = path.relative_to(root).with_suffix("").parts[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1]) if node.level else ""
            module = ".".join(filter(None, [base, node.module]))
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def rel(path: pathlib.Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("path", sources("lutcore"), ids=rel)
def test_lutcore_imports_no_upper_layer(path):
    bad = sorted(m for m in imports(path) if m.split(".")[0] in LUTCORE_FORBIDDEN)
    assert not bad, f"{rel(path)} imports {bad}"


@pytest.mark.parametrize("path", sources("experiments"), ids=rel)
def test_experiments_import_no_workflow(path):
    bad = sorted(m for m in imports(path) if m.split(".")[0] == "workflow")
    assert not bad, f"{rel(path)} imports {bad}"


@pytest.mark.parametrize("path", [p for p in sources("experiments")
                                  if p.parent != ROOT / "experiments"], ids=rel)
def test_experiments_use_the_public_package(path):
    bad = sorted(m for m in imports(path) if m.startswith("experiments._framework"))
    assert not bad, f"{rel(path)} imports {bad}; import from experiments instead"


def test_import_finder_sees_relative_and_aliased_imports(tmp_path):
    package = tmp_path / "lutcore" / "sub"
    package.mkdir(parents=True)
    (package / "mod.py").write_text("from .. import experiments as e\nimport matplotlib.pyplot"
                                    " as plt\nfrom ._x import y\n")
    assert imports(package / "mod.py", tmp_path) == {
        "lutcore", "lutcore.experiments", "matplotlib.pyplot", "lutcore.sub._x", "lutcore.sub._x.y"}


def test_no_source_file_is_too_long():
    files = [p for p in ROOT.rglob("*") if p.suffix in (".py", ".smk") or p.name == "Snakefile"]
    too_long = {rel(p): n for p in files
                if not any(part.startswith(".") for part in p.relative_to(ROOT).parts)
                and (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert set(too_long) <= TOO_LONG_EXEMPT, f"over {MAX_LINES} lines: {too_long}"
