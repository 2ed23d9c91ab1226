"""What the workflow checks and tidies when it starts, before any job: its config files (line
numbers, repeated keys), the working directory an interrupted run left behind (Snakemake's lock,
temporary files, truncated outputs) and whether ``results/.cache`` can be written.

Stdlib and PyYAML only: it runs on every Snakemake start, the no-op rerun included.
"""

import contextlib
import fcntl
import importlib
import json
import os
import pathlib
import shutil
import sys
import types

import yaml


def config_error(message, kind="config"):
    """One line and a non-zero exit while parsing: no job runs, nothing lands in results/."""
    print(f"lutcore {kind} error: {message}", file=sys.stderr)
    sys.exit(1)


def note(message):
    print(f"lutcore: {message}", file=sys.stderr)


# ---- config files ---------------------------------------------------------------------------

class _StrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """YAML's safe loader that refuses a mapping key given twice (PyYAML keeps the last)."""

    def construct_mapping(self, node, deep=False):
        lines = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            lines.setdefault(key, []).append(key_node.start_mark.line + 1)
        repeated = {key: at for key, at in lines.items() if len(at) > 1}
        if repeated:
            raise yaml.YAMLError("; ".join(
                f"key {key!r} is repeated (lines {', '.join(map(str, at))})"
                for key, at in repeated.items()))
        return super().construct_mapping(node, deep)


def check_config_files(paths):
    """Stop with one line naming the file and line when a config file is not valid YAML or
    repeats a key (YAML would keep the last value without a word)."""
    for path in map(pathlib.Path, paths):
        try:
            yaml.load(path.read_text(encoding="utf-8"), Loader=_StrictLoader)
        except OSError as err:
            config_error(f"{path}: {err.strerror}")
        except yaml.MarkedYAMLError as err:
            mark = err.problem_mark or err.context_mark
            config_error(f"{path}, line {mark.line + 1}, column {mark.column + 1}: "
                         f"{err.problem or err.context}")
        except yaml.YAMLError as err:
            config_error(f"{path}: {err}")


# ---- importing the experiments to check their parameters ----

# What the experiment modules import for run, plot and table only: checking a config needs an
# experiment's Config, not these (about a second of imports, with pandas)
FOR_RUNNING_ONLY = ("matplotlib.pyplot", "xarray")


class _Deferred(types.ModuleType):
    """Stands in for a module not imported yet; the first use of an attribute imports it.
    (``importlib.util.LazyLoader`` does not defer: in Python 3.11 a second ``import`` of the
    module reads its ``__spec__``, which runs it.)"""

    def __getattr__(self, attr):
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), attr)


@contextlib.contextmanager
def deferred_imports(names=FOR_RUNNING_ONLY):
    """While inside, importing one of ``names`` (not imported yet) binds a ``_Deferred``: the
    module is imported only if something uses it, so nothing changes but when its cost is paid.
    On leaving, later imports get the module itself."""
    stubs = {name: _Deferred(name) for name in names if name not in sys.modules}
    sys.modules.update(stubs)
    try:
        yield
    finally:
        for name, stub in stubs.items():
            if sys.modules.get(name) is stub:
                del sys.modules[name]


# ---- the working directory ------------------------------------------------------------------

def claim_directory(snakemake_dir=".snakemake"):
    """An open file holding an exclusive lock on ``snakemake_dir/lutcore.lock`` while this
    process lives (the kernel drops it when the process dies, killed or not), or None when
    another run of this workflow in the same directory holds it."""
    path = pathlib.Path(snakemake_dir)
    try:
        path.mkdir(exist_ok=True)
        handle = open(path / "lutcore.lock", "w")  # held until the process ends
    except OSError:
        return None  # a folder we cannot write to: Snakemake will say so
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle


def remove_stale_locks(snakemake_dir=".snakemake"):
    """Snakemake's lock files, which a killed run leaves behind. Call only while holding
    ``claim_directory``: then no other run of this workflow uses this directory."""
    locks = pathlib.Path(snakemake_dir) / "locks"
    if locks.is_dir() and any(locks.iterdir()):
        shutil.rmtree(locks)
        note("removed the lock a killed run left in .snakemake/locks (no run holds it)")


def remove_temporaries(results):
    """The hidden ``.*.tmp`` files an interrupted write left in ``results`` (atomic_files)."""
    stale = [p for p in pathlib.Path(results).rglob(".*.tmp") if p.is_file()]
    if stale:
        size = sum(p.stat().st_size for p in stale)
        for path in stale:
            path.unlink(missing_ok=True)
        note(f"removed {len(stale)} temporary file(s) an interrupted run left in {results}/ "
             f"({size / 1e6:.1f} MB)")


HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
# Byte offset of the end-of-file address per superblock version (HDF5 File Format
# Specification 3.0, II.A: versions 0 and 1 differ by 4 bytes of indexed-storage K)
HDF5_EOF_OFFSET = {0: 40, 1: 44, 2: 28, 3: 28}
HDF5_OFFSET_SIZE_AT = {0: 13, 1: 13, 2: 9, 3: 9}


def _hdf5(path, size):
    with open(path, "rb") as f:
        head = f.read(64)
    if not head.startswith(HDF5_SIGNATURE):
        return "not an HDF5/netCDF4 file"
    version = head[8]
    at = HDF5_EOF_OFFSET.get(version)
    if at is None or len(head) < at + 8 or head[HDF5_OFFSET_SIZE_AT[version]] != 8:
        return None  # a layout we do not write: leave it to the reader
    end = int.from_bytes(head[at:at + 8], "little")
    return f"truncated: {size} of {end} bytes" if size < end else None


def _ends_with(first, last, window):
    def check(path, size):
        with open(path, "rb") as f:
            head = f.read(len(first))
            f.seek(max(0, size - window))
            tail = f.read()
        if not head.startswith(first):
            return f"does not start with {first!r}"
        return None if last in tail else f"truncated (no {last!r} at its end)"
    return check


def _json(path, size):
    try:
        json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        return f"not JSON ({err})"
    return None


def _text(path, size):
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        return f"not UTF-8 ({err})"
    return None if text.endswith("\n") else "truncated (no final newline)"


# How each kind of output is checked: its header and its last bytes, or a parse of the small
# text files; reads at most 64 kB per binary file, so a no-op rerun stays fast.
OUTPUT_CHECKS = {
    ".nc": _hdf5,
    ".png": _ends_with(b"\x89PNG\r\n\x1a\n", b"IEND\xaeB`\x82", 12),
    ".pdf": _ends_with(b"%PDF-", b"%%EOF", 1024),
    ".json": _json,
    ".md": _text,
}


def remove_broken_outputs(results):
    """Remove each output in ``results`` that is truncated or unreadable, saying so in one line,
    so that Snakemake reruns the job that writes it."""
    results = pathlib.Path(results)
    paths = [results / "claims.json", results / "REPORT.md",
             *(p for folder in ("data", "figures", "tables", "claims")
               for p in sorted((results / folder).glob("[!.]*")))]
    for path in paths:
        check = OUTPUT_CHECKS.get(path.suffix)
        if check is None or not path.is_file():
            continue
        try:
            problem = check(path, path.stat().st_size)
        except OSError as err:
            problem = f"unreadable ({err.strerror})"
        if problem:
            path.unlink()
            note(f"{path} is {problem}; removed, so the job that writes it runs again")


def cache_problem(cache):
    """None when ``cache`` (``results/.cache``) is a folder this process can write to, else
    what stops it (the cache is optional: a run then goes without it)."""
    probe = pathlib.Path(cache) / f".probe.{os.getpid()}.tmp"
    try:
        probe.parent.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        return f"{err.strerror}: {err.filename}"
    return None
