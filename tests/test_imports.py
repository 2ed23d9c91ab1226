"""No import cycle among lutcore's and the experiments' modules (issue 29: ppa/_arrays.py and
_paper.py imported each other). The graph is read from the module-level imports, as Python runs
them at import time; ``from . import x`` is an edge to ``x`` only."""

import ast
import graphlib
import pathlib

import pytest

from conftest import ROOT


def import_graph(root: pathlib.Path, packages) -> dict[str, set[str]]:
    """{module: the modules of ``packages`` its module-level imports load}."""
    modules = {}
    for package in packages:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            is_package = parts[-1] == "__init__"
            modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    graph = {}
    for name, (path, is_package) in modules.items():
        here = name if is_package else name.rpartition(".")[0]
        edges = set()
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Import):
                edges |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = here.rsplit(".", node.level - 1)[0] if node.level > 1 else here
                target = (f"{base}.{node.module}" if node.module else base) if node.level else (
                    node.module)
                edges |= {f"{target}.{a.name}" for a in node.names}
                if node.module:
                    edges.add(target)
        graph[name] = edges & modules.keys()
    return graph


def test_lutcore_and_the_experiments_import_in_one_direction():
    graph = import_graph(ROOT, ("lutcore", "experiments"))
    assert len(graph) > 100 and graph["lutcore.ppa._arrays"]  # the tree was read
    graphlib.TopologicalSorter(graph).prepare()  # CycleError names the cycle


def test_the_check_finds_a_cycle(tmp_path):
    package = tmp_path / "toy"
    package.mkdir()
    (package / "__init__.py").write_text("from . import a\n")
    (package / "a.py").write_text("from .b import f\n")
    (package / "b.py").write_text("import os\n\nfrom toy import a\n")
    graph = import_graph(tmp_path, ("toy",))
    assert graph == {"toy": {"toy.a"}, "toy.a": {"toy.b"}, "toy.b": {"toy", "toy.a"}}
    with pytest.raises(graphlib.CycleError):
        graphlib.TopologicalSorter(graph).prepare()
