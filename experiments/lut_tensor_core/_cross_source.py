"""Cross-source evidence for ``lut-fig16``: every GEMM that two measured sources time on the same
GPU, shape and formats, with the two measured times and how far apart they are (issue 30: the
issue may end "blocked" only on such a disagreement, larger than its category's bound).

Matching rule (fixed before any pair was read): the same ``device`` of the files (the GPU model;
a file's form factor note says which module or card), the same m, n and k exactly, the same
weights (dense in the activation format, or ``weight_bits`` with the same ``group_size`` and zero
points) and the same activation format, FP16 and BF16 counting as one ("16-bit": the tensor cores
of every GPU here run them at one rate, A100 / H100 whitepapers' peak tables). Rows come from the
``gemm`` sets (one kernel per row; not ``best_of`` rates) and from the ``layer_operators`` sets
with a token column, whose single-GEMM projections (``count`` 1; the k/v pair and an unfused
gate/up are two GEMMs in one time, left out) have the shapes ``lutcore.gpu``'s layer gives them
(m = tokens). Only rows of different files pair; each row keeps its set, kernel, operand data
and timing (device or host), which the table shows beside the two times.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

import lutcore.gpu as gpu
from experiments.lut_tensor_core import _measured

SIXTEEN = ("fp16", "bf16")  # one tensor-core rate on every GPU here (module doc)


class Timing(NamedTuple):
    """One measured GEMM: where it comes from and what it ran."""

    source: str
    role: str
    device: str
    set: str
    kernel: str
    inputs: str
    timing: str
    epilogue: str  # the output format it writes, "+ C read" where beta != 0 (gpu.Setup)
    category: str
    key: tuple  # (device, m, n, k, activation format, weights): the matching rule
    seconds: float


def _format(act: str) -> str:
    return "16-bit" if act in SIXTEEN else act


def _epilogue(entry: dict) -> str:
    """What a set's kernel writes (``output``, default fp16) and whether it reads C first."""
    return entry.get("output", "fp16") + (" + C read" if entry.get("reads_c") else "")


def _gemm_timings(name: str, data: dict, entry: dict):
    columns = entry["columns"]
    if "best_of" in entry or not {"m", "n", "k"} <= set(columns):
        return []
    kernel, act = entry.get("kernel", "cublas"), entry.get("act", "fp16")
    dense = kernel in gpu.DENSE_KERNELS
    weights = "dense" if dense else (f"W{entry['weight_bits']} group "
                                     f"{entry.get('group_size', 'default')}"
                                     + (" zero points" if entry.get("zero_points") else ""))
    rows, _, seconds = _measured.gemm_rows(entry)
    device = _measured._device(data, entry)
    return [Timing(name, data["role"], device, entry["name"], kernel,
                   row.get("inputs", entry.get("inputs", "random")), data["protocol"]["timing"],
                   _epilogue(entry), "gemm" if dense else "mpgemm",
                   (device, int(row["m"]), int(row["n"]), int(row["k"]), _format(act), weights),
                   float(s)) for row, s in zip(rows, seconds)]


def _layer_timings(name: str, data: dict, entry: dict):
    if "operators" in entry:  # one fixed workload of several operators per value
        return []
    device = _measured._device(data, entry)
    model = entry["model"]
    deployment = _measured._deployment(entry, fusion=False, fused_qkv=True,
                                       tensor_parallel=model.get("tensor_parallel", 1))
    shape = _measured._shape(entry["name"], model)
    rows = np.array(entry["points"], dtype=float)
    tokens = rows[:, 0]
    ops = gpu.blocks.layer_operators(shape, deployment, gpu.workload(1, tokens), is_lut=False)
    act = _format(entry.get("act", "fp16"))
    out = []
    for op in ops:
        if op.kind != "gemm" or op.name not in entry["columns"] or float(op.count) != 1.0:
            continue
        column = entry["columns"].index(op.name)
        m = np.broadcast_to(np.asarray(op.m, float), tokens.shape)
        out += [Timing(name, data["role"], device, f"{entry['name']}: {op.name}", "layer op",
                       entry.get("inputs", "random"), data["protocol"]["timing"],
                       _epilogue(entry), "gemm",
                       (device, int(mm), int(op.n), int(op.k), act, "dense"),
                       float(row[column]))  # seconds, as layer_points reads them
                for mm, row in zip(m, rows)]
    return out


EXTRACTORS = {"gemm": _gemm_timings, "layer_operators": _layer_timings}


def timings(names, load=_measured.load) -> list[Timing]:
    """Every GEMM time the measured files ``names`` hold (read by ``load``), with its matching
    key."""
    out = []
    for name in names:
        data = load(name)
        for entry in data["sets"]:
            extract = EXTRACTORS.get(entry["kind"])
            if extract:
                out += extract(name, data, entry)
    return out


class Pair(NamedTuple):
    """Two sources' times of one GEMM: ``a`` the faster. ``apart``: slower / faster - 1."""

    a: Timing
    b: Timing
    apart: float


def pairs(names, load=_measured.load) -> list[Pair]:
    """Every pair of rows of different files with one matching key (module doc), sorted by key
    and sources."""
    groups: dict = {}
    for t in timings(names, load):
        groups.setdefault(t.key, []).append(t)
    out = []
    for key in sorted(groups):
        for x, y in itertools.combinations(sorted(groups[key]), 2):
            if x.source != y.source:
                a, b = sorted((x, y), key=lambda t: t.seconds)
                out.append(Pair(a, b, b.seconds / a.seconds - 1.0))
    return out


def like_for_like(pair: Pair) -> bool:
    """Both times device-timed on random operands (as each file states them) with the same
    epilogue, so neither the host, the data's effect on a power-limited clock
    (``gpu.INPUT_DATA``) nor the output's bytes stand between them."""
    return (pair.a.timing == pair.b.timing == "device"
            and pair.a.inputs == pair.b.inputs == "random" and pair.a.epilogue == pair.b.epilogue)
