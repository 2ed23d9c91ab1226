"""The synthesis cache: one JSON file per design and flow, holding the hash of its inputs.

``<cache_dir>/<design>.<flow>.json`` records the sha256 of the design's Verilog, the liberty, the
genlib and the Yosys script, and the result. The file name is fixed (so a workflow can name it
as a rule's output); a hash that no longer matches makes the file stale.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from pathlib import Path

from ._designs import design, verilog
from ._flow import SynthResult, flow, synthesize, yosys_script
from ._liberty import genlib_text, liberty_text


def design_hash(name: str, flow_name: str = "area") -> str:
    """sha256 over the design's Verilog, the liberty, the genlib and the Yosys script."""
    digest = hashlib.sha256()
    for part in (verilog(name), liberty_text(), genlib_text(), yosys_script(name, flow_name)):
        encoded = part.encode()
        digest.update(len(encoded).to_bytes(8, "little"))  # length-prefixed: no ambiguity
        digest.update(encoded)
    return digest.hexdigest()


def cache_file(name: str, flow_name: str, cache_dir: Path | str) -> Path:
    """Where the result of design ``name`` under flow ``flow_name`` is cached."""
    return Path(cache_dir) / f"{name}.{flow_name}.json"


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` under a temporary name in ``path``'s folder, then rename it to ``path``."""
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(descriptor, "w") as stream:
            stream.write(text)
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would hide the file from other users
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _stale_message(name: str, flow_name: str, path: Path, found: str, cache_dir) -> str:
    return (f"synthesis cache for design {name!r}, flow {flow_name!r} is {found}: {path}. "
            f"Bring it up to date with `snakemake --cores all {path}` (the synthesis rule) or "
            f"lutcore.ppa.synth.synthesize_cached({name!r}, {str(Path(cache_dir))!r}, "
            f"flow_name={flow_name!r})")


def read_cached(name: str, cache_dir: Path | str, flow_name: str = "area") -> SynthResult:
    """The cached result of design ``name`` under ``flow_name``, without recomputing its hash
    (the workflow's synthesis rule keeps the files current; a test checks the committed ones).
    The file must name this design, flow and parameters, else ``FileNotFoundError``."""
    flow(flow_name)
    path = cache_file(name, flow_name, cache_dir)
    if not path.exists():
        raise FileNotFoundError(_stale_message(name, flow_name, path, "missing", cache_dir))
    data = _read(path)
    if data is None:
        raise FileNotFoundError(_stale_message(name, flow_name, path, "unreadable", cache_dir))
    if (data.get("design"), data.get("flow"), data.get("parameters")) != \
            (name, flow_name, dataclasses.asdict(design(name))):
        raise FileNotFoundError(_stale_message(name, flow_name, path,
                                               "for other parameters", cache_dir))
    return SynthResult.from_json(data)


def _read(path: Path) -> dict | None:
    """The record in ``path``, or None when it is not one (garbage, truncated)."""
    try:
        data = json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def _cached(path: Path, digest: str) -> SynthResult | None:
    if not path.exists():
        return None
    data = _read(path)  # an unreadable record is synthesized again, like a stale one
    return SynthResult.from_json(data) if data and data.get("hash") == digest else None


def synthesize_cached(name: str, cache_dir: Path | str, *, flow_name: str = "area",
                      allow_run: bool = True) -> SynthResult:
    """The result of design ``name`` under flow ``flow_name``, from ``cache_dir`` when the hash
    in its file matches; otherwise synthesizes it and writes the file atomically (sorted keys:
    the same result gives the same bytes).

    With ``allow_run=False`` a missing or stale file raises ``FileNotFoundError`` naming the
    workflow target that brings it up to date. A current file is rewritten with the same bytes
    (its modification time then tells Snakemake it is up to date).
    """
    flow(flow_name)  # a bad name fails before any work
    path = cache_file(name, flow_name, cache_dir)
    digest = design_hash(name, flow_name)
    result = _cached(path, digest)
    if result is None and not allow_run:
        found = "stale (another hash)" if path.exists() else "missing"
        raise FileNotFoundError(_stale_message(name, flow_name, path, found, cache_dir))
    if result is None:
        result = synthesize(verilog(name), name, flow_name)
    if allow_run:
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {"design": name, "flow": flow_name, "hash": digest,
                  "parameters": dataclasses.asdict(design(name)), **result.to_json()}
        write_atomically(path, json.dumps(record, sort_keys=True, indent=1) + "\n")
    return result
