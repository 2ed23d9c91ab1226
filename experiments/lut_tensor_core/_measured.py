"""Public GPU measurements (experiments/reference/measured/) and lutcore.gpu's predictions of
them: the calibration/validation protocol of ``lut-fig16``.

Every file is one source (a repository at a commit, or a paper table) with its measurement
protocol and a ``role``: ``calibration`` sets may set a constant of ``lutcore.gpu`` (and the
constant names them); ``validation`` sets never set anything. The split is by source, never by
row. Each set has a ``kind`` and each kind a predictor (``PREDICTORS``):

- ``gemm``: one kernel per row (m, n, k; ``kernel``, ``act``, ``weight_bits`` of the set);
- ``layer_operators``: operators of one decoder layer, timed one by one, and their sum (the
  layer); rows are token counts (columns = operators) or operators of one fixed workload;
- ``layer``: one decoder layer timed as a whole (one jitted function), one workload per row;
- ``e2e``: one forward pass per row (prefill of ``tokens`` or one decode step against
  ``context``), of a model named in the file's ``models``;
- ``all_reduce``: NCCL all-reduces of ``bytes`` over ``gpus`` GPUs.

Host-timed sets add the host cost their authors measured (``host_overhead_s``) to the modeled
device time of every call; e2e rows are priced with the host and framework of their
deployment. Categories: ``gemm`` (dense), ``mpgemm`` (mixed precision), ``operator``, ``layer``,
``e2e``, ``collective``.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import yaml

import lutcore.gpu as gpu
from experiments import REFERENCE_DIR

MEASURED_DIR = REFERENCE_DIR / "measured"
ROLES = ("calibration", "validation")
CATEGORIES = ("gemm", "mpgemm", "operator", "layer", "e2e", "collective")
# the projections among a layer's operators (dense GEMMs); the rest are memory-bound operators
PROJECTIONS = ("qkv_projection", "q_projection", "kv_projection", "output_projection",
               "ffn_up", "ffn_down", "attention_qk", "attention_pv")
UNITS = {"seconds": 1.0, "ms": 1e-3, "us": 1e-6}


@dataclasses.dataclass(frozen=True)
class Point:
    """One measured value and its prediction (seconds)."""

    source: str  # the file name
    role: str
    device: str
    set: str
    category: str
    label: str
    measured: float
    modeled: float


REQUIRED = ("source", "citation", "role", "protocol", "sets")
PROTOCOL = ("timing", "method", "dtype", "library", "clocks")


def check(data: dict, name: str, *, known_device: bool = True) -> dict:
    """``data`` if it follows the schema (README.md of measured/): its fields, role, protocol,
    and every set's kind, columns and device (a ``lutcore.gpu`` GPU unless not
    ``known_device``); else ValueError naming the file, the key and the allowed values."""
    missing = [key for key in REQUIRED if key not in data]
    missing += [f"protocol.{key}" for key in PROTOCOL if key not in data.get("protocol", {})]
    if missing:
        raise ValueError(f"{name}: missing {', '.join(missing)}")
    if data["role"] not in ROLES:
        raise ValueError(f"{name}: role {data['role']!r} unknown; allowed values: "
                         f"{', '.join(ROLES)}")
    if data["protocol"]["timing"] not in ("device", "host"):
        raise ValueError(f"{name}: protocol.timing {data['protocol']['timing']!r} unknown; "
                         "allowed values: device, host")
    for entry in data["sets"]:
        if entry["kind"] not in PREDICTORS:
            raise ValueError(f"{name}: set {entry['name']!r}: kind {entry['kind']!r} unknown; "
                             f"allowed values: {', '.join(PREDICTORS)}")
        if any(len(point) != len(entry["columns"]) for point in entry["points"]):
            raise ValueError(f"{name}: set {entry['name']!r}: points do not match the columns "
                             f"{entry['columns']}")
        if "best_of" in entry and (entry["kind"] != "gemm" or entry["columns"] != ["tflops"]):
            raise ValueError(f"{name}: set {entry['name']!r}: best_of needs kind gemm and "
                             f"columns [tflops], got {entry['kind']} {entry['columns']}")
        groups = [key for key in ("group_size", "zero_points") if key in entry]
        if groups and (entry["kind"] != "gemm" or entry.get("kernel") not in gpu.DEQUANT_KERNELS):
            raise ValueError(f"{name}: set {entry['name']!r}: {', '.join(groups)} need kind "
                             f"gemm and a kernel of {', '.join(gpu.DEQUANT_KERNELS)}, got "
                             f"{entry['kind']} {entry.get('kernel', 'cublas')}")
        if "accumulate" in entry:
            _check_accumulate(name, entry)
        if known_device:
            gpu.gpu_spec(_device(data, entry))  # raises for an unknown GPU
    return data


def _check_accumulate(name: str, entry: dict) -> None:
    """ValueError unless a set's ``accumulate`` is one of ``gpu.ACCUMULATE`` on a tensor-core
    ``gemm`` set whose act it fits (``gemm_latency``'s rule, checked before any work)."""
    kernel, act = entry.get("kernel", "cublas"), entry.get("act", "fp16")
    if entry["kind"] != "gemm":
        raise ValueError(f"{name}: set {entry['name']!r}: accumulate needs kind gemm, got "
                         f"{entry['kind']}")
    try:
        gpu.check_kernel_accumulate(kernel, act, entry["accumulate"])
    except ValueError as error:
        raise ValueError(f"{name}: set {entry['name']!r}: {error}") from None


@functools.cache
def load(name: str) -> dict:
    """The measured file ``name``, checked (``check``)."""
    return check(yaml.safe_load((MEASURED_DIR / name).read_text()), name)


def files() -> list[str]:
    """Names of every measured file, sorted."""
    return sorted(p.name for p in MEASURED_DIR.glob("*.yaml"))


def _device(data: dict, entry: dict) -> str:
    return entry.get("device", data.get("device"))


def _seconds(columns: list, rows: np.ndarray) -> np.ndarray:
    """The measured column of ``rows`` (the last one) in seconds."""
    unit = columns[-1]
    values = rows[:, -1].astype(float)
    if unit in UNITS:
        return values * UNITS[unit]
    raise ValueError(f"measured column {unit!r} unknown; allowed values: {', '.join(UNITS)}, "
                     "tflops (gemm), tokens_per_s (e2e)")


def gemm_rows(entry: dict) -> tuple[list[dict], tuple, np.ndarray]:
    """(rows as dicts, (m, n, k) arrays, measured seconds) of a ``gemm`` set timed per shape
    (its last column seconds-like or ``tflops``)."""
    columns = entry["columns"]
    rows = [dict(zip(columns, point)) for point in entry["points"]]
    m, n, k = (np.array([row[c] for row in rows], dtype=float) for c in "mnk")
    value = np.array([row[columns[-1]] for row in rows], dtype=float)
    if columns[-1] == "tflops":
        return rows, (m, n, k), 2 * m * n * k / (value * 1e12)
    return rows, (m, n, k), _seconds(columns, value[:, None])


def _shape(name: str, spec: dict, layers: int = 1) -> gpu.LLMShape:
    fields = {"layers": layers, "vocab": 32000, "gated": True, "rotary": True,
              "parallel": False, **spec}
    return gpu.LLMShape(name, **{f: fields[f] for f in ("hidden", "ffn", "heads", "kv_heads",
                                                         "layers", "vocab", "gated", "rotary",
                                                         "parallel")})


def gemm_points(data: dict, entry: dict, spec: gpu.GPUSpec | None = None, *,
                tie: tuple = (None, 1)):
    """(labels, categories, measured, modeled) of a ``gemm`` set on its GPU (or ``spec``):
    columns m, n, k, optionally ``inputs`` (the operands' data, ``gpu.INPUT_DATA``; default the
    set's, else random), and the measurement; the set's ``persistent`` (default true) and
    ``serial_epilogue`` (default false), ``accumulate`` (default fp32), ``timing`` (default
    events), ``output`` (default fp16) and ``reads_c`` (default false) as ``gemm_latency``'s,
    and a ``gpu.DEQUANT_KERNELS`` set's
    ``group_size`` (0: one scale per output channel) and ``zero_points`` (default
    ``gemm_latency``'s). A set with ``best_of`` (shapes
    [m, n, k]) has one measured rate, the best of those shapes' (columns [tflops]); it is
    compared with the model's best of the same shapes, both as seconds of the modeled best
    shape. ``tie``: (tie_margin, tie_side) of ``gemm_latency``'s near-ties what-if ((None, 1):
    without it)."""
    spec = spec or gpu.gpu_spec(_device(data, entry))
    columns = entry["columns"]
    kernel, act = entry.get("kernel", "cublas"), entry.get("act", "fp16")
    bits = entry.get("weight_bits", 8 * gpu.ACT_BYTES[act])
    overhead = data.get("host_overhead_s", {}).get(entry.get("host_overhead"), 0.0)
    category = "gemm" if kernel in gpu.DENSE_KERNELS else "mpgemm"
    groups = {key: entry[key] for key in ("group_size", "zero_points") if key in entry}

    def model(m, n, k, inputs):
        return np.asarray(gpu.gemm_latency(
            spec, kernel, m, n, k, act=act, weight_bits=bits, inputs=inputs,
            persistent=entry.get("persistent", True),
            serial_epilogue=entry.get("serial_epilogue", False),
            accumulate=entry.get("accumulate", "fp32"), timing=entry.get("timing", "events"),
            output=entry.get("output", "fp16"), reads_c=entry.get("reads_c", False),
            tie_margin=tie[0], tie_side=tie[1], **groups).seconds) + overhead

    if "best_of" in entry:
        m, n, k = (np.array(c, dtype=float) for c in zip(*entry["best_of"]))
        seconds = model(m, n, k, entry.get("inputs", "random"))
        best = int(np.argmax(2 * m * n * k / seconds))
        flop = 2 * m[best] * n[best] * k[best]
        measured = np.array([flop / (float(point[-1]) * 1e12) for point in entry["points"]])
        label = (f"{entry['name']}: best of {len(m)} shapes (modeled best "
                 f"{int(m[best])}x{int(n[best])}x{int(k[best])})")
        return ([label] * len(measured), [category] * len(measured), measured,
                np.full_like(measured, seconds[best]))
    rows, (m, n, k), measured = gemm_rows(entry)
    inputs = [row.get("inputs", entry.get("inputs", "random")) for row in rows]
    modeled = np.zeros_like(measured)
    for kind in sorted(set(inputs)):
        pick = np.array([i == kind for i in inputs])
        modeled[pick] = model(m[pick], n[pick], k[pick], kind)
    labels = [f"{entry['name']}: {int(a)}x{int(b)}x{int(c)}"
              + (f" {i}" if "inputs" in columns else "") for a, b, c, i in zip(m, n, k, inputs)]
    return labels, [category] * len(labels), measured, modeled


def layer_points(data: dict, entry: dict, *, tie: tuple = (None, 1)):
    """(labels, categories, measured, modeled) of a ``layer_operators`` set: every operator and
    every layer total (the sum of the operators timed)."""
    spec = gpu.gpu_spec(_device(data, entry))
    model = entry["model"]
    deployment = _tied(_deployment(entry, fusion=False, fused_qkv=True,
                                   tensor_parallel=model.get("tensor_parallel", 1)), tie)
    shape = _shape(entry["name"], model)
    overheads = data.get("host_overhead_s", {})
    if "operators" in entry:  # rows: (operator, seconds) of one workload
        work = gpu.workload(**entry["workload"])
        device = gpu.layer_breakdown(spec, shape, deployment, work, launch=0.0)
        groups = [(entry["name"], [(op, value) for op, value in entry["points"]])]
        mapping = {name: (ops, calls * overheads.get(kind, 0.0))
                   for name, (ops, calls, kind) in entry["operators"].items()}
        predict = [{name: sum(float(device[o]) for o in ops) + host
                    for name, (ops, host) in mapping.items()}]
    else:  # rows: tokens, then one column per operator (device times)
        rows = np.array(entry["points"], dtype=float)
        tokens, names = rows[:, 0], entry["columns"][1:]
        device = gpu.layer_breakdown(spec, shape, deployment, gpu.workload(1, tokens),
                                     launch=0.0)
        groups = [(f"{entry['name']} T={int(t)}", list(zip(names, row[1:])))
                  for t, row in zip(tokens, rows)]
        predict = [{name: float(np.asarray(device[name])[i]) for name in names}
                   for i in range(len(tokens))]
    labels, categories, measured, modeled = [], [], [], []
    for (title, ops), model_ops in zip(groups, predict):
        for name, value in ops:
            labels.append(f"{title}: {name}")
            categories.append("gemm" if name in PROJECTIONS else "operator")
            measured.append(float(value))
            modeled.append(model_ops[name])
        labels.append(f"{title}: layer")
        categories.append("layer")
        measured.append(sum(float(v) for _, v in ops))
        modeled.append(sum(model_ops[name] for name, _ in ops))
    return labels, categories, np.array(measured), np.array(modeled)


def _e2e_rows(data: dict, entry: dict, tie: tuple):
    """(label, measured seconds, GPU, shape, deployment, workload) of every row of an ``e2e``
    set, its deployment with the near-ties what-if ``tie`` (``points``)."""
    spec = gpu.gpu_spec(_device(data, entry))
    columns, unit = entry["columns"], entry["columns"][-1]
    for row in (dict(zip(columns, point)) for point in entry["points"]):
        model = data["models"][row["model"]]
        deployment = _tied(row_deployment(data, entry, row), tie)
        label = (f"{entry['name']}: {row['model']} TP{row['tensor_parallel']} "
                 f"B{row['batch']} T{row['tokens']}"
                 + (f" C{row['context']}" if "context" in row else ""))
        measured = (row["batch"] / row[unit] if unit == "tokens_per_s"
                    else row[unit] * UNITS[unit])
        yield (label, measured, spec, _shape(row["model"], model, model["layers"]), deployment,
               gpu.workload(row["batch"], row["tokens"], row.get("context")))


def e2e_points(data: dict, entry: dict, *, tie: tuple = (None, 1)):
    """(labels, categories, measured, modeled) of an ``e2e`` set: one forward pass per row."""
    rows = list(_e2e_rows(data, entry, tie))
    modeled = [float(gpu.model_latency(*row[2:])) for row in rows]
    return ([row[0] for row in rows], ["e2e"] * len(rows), np.array([row[1] for row in rows]),
            np.array(modeled))


def tied_operators(name: str, margin: float) -> dict:
    """{label: the operators of an ``e2e`` row of the file ``name`` that its near-ties (within
    ``margin``, either side) move by more than ``margin`` of their own time, as "operator ms
    -> ms", its time in the forward pass on the model's choice and on the near-tie's}."""
    data, out = load(name), {}
    for entry in (e for e in data["sets"] if e["kind"] == "e2e"):
        fast, slow = (_e2e_rows(data, entry, (margin, side)) for side in (-1, 1))
        for (label, _, spec, shape, plain, work), *tied in zip(
                _e2e_rows(data, entry, (0.0, 1)), fast, slow):
            chosen = gpu.blocks.model_breakdown(spec, shape, plain, work)
            moved = []
            for other in (gpu.blocks.model_breakdown(spec, shape, t[4], work) for t in tied):
                moved += [f"{op} {1e3 * float(chosen[op]):.3g} -> {1e3 * float(other[op]):.3g} ms"
                          for op in chosen if abs(float(other[op]) - float(chosen[op]))
                          > margin * abs(float(chosen[op]))]
            out[label] = "; ".join(moved)
    return out


def row_deployment(data: dict, entry: dict, row: dict) -> gpu.Deployment:
    """The ``Deployment`` of one row of an ``e2e`` set: the set's, on the row's tensor
    parallelism, with its model's engine build (``engine_tuned_rows``)."""
    deployment = _deployment(entry)
    return dataclasses.replace(deployment, tensor_parallel=row["tensor_parallel"],
                               gemm_tuned_rows=engine_tuned_rows(data, row["model"],
                                                                 deployment.activation))


ENGINE_BUILD = ("gemm_plugin", "remove_input_padding", "max_batch_size", "max_input_len")
# The engines a set file lists are TensorRT-LLM 0.8's, whose FP8 linears pass gemm_plugin=False
# to their matmul whatever the build's --gemm_plugin (NVIDIA/TensorRT-LLM@2340c77,
# tensorrt_llm/quantization/layers.py, FP8Linear / FP8RowLinear.forward: "TODO: allow gemm
# plugin"; "Added FP8 support to the GEMM plugin" is 0.11.0's, docs/source/release-notes.md
# @b47198a): TensorRT's builder picks their tactics as in an engine without the plugin (T13)
PLUGIN_BYPASSED_BY = ("fp8",)


def engine_tuned_rows(data: dict, model: str, activation: str = "fp16") -> int:
    """``Deployment.gemm_tuned_rows`` of ``model``'s engine in a set file's ``engines`` (its
    build options, ``ENGINE_BUILD``) for projections of ``activation``: the context profile's
    optimum rows where TensorRT picks their tactics (no GEMM plugin, or an activation whose
    linears bypass it: ``PLUGIN_BYPASSED_BY``), 0 where the plugin runs them (it profiles each
    M) or where the file names no engine build."""
    build = data.get("engines", {}).get(model)
    if build is None or (build.get("gemm_plugin") and activation not in PLUGIN_BYPASSED_BY):
        return 0
    if sorted(build) != sorted(ENGINE_BUILD):
        raise ValueError(f"engines.{model}: keys {sorted(build)}; where TensorRT picks the "
                         f"GEMM tactics (no GEMM plugin, or {activation} linears) allowed (all "
                         f"of): {', '.join(ENGINE_BUILD)}")
    return gpu.engine_profile_rows(**{k: build[k] for k in ENGINE_BUILD[1:]})


def _tied(deployment: gpu.Deployment, tie: tuple) -> gpu.Deployment:
    """``deployment`` with the near-ties what-if ``tie`` = (tie_margin, tie_side)."""
    return dataclasses.replace(deployment, tie_margin=tie[0], tie_side=tie[1])


def _deployment(entry: dict, **defaults) -> gpu.Deployment:
    """The set's ``deployment``: ``Deployment`` keywords over ``defaults``, or over the preset
    its ``preset`` names (``gpu.DEPLOYMENTS``)."""
    fields = dict(entry.get("deployment", {}))
    preset = fields.pop("preset", None)
    if preset is None:
        return gpu.Deployment(**{**defaults, **fields})
    if preset not in gpu.DEPLOYMENTS:
        raise ValueError(f"set {entry['name']!r}: deployment preset {preset!r} unknown; allowed "
                         f"values: {', '.join(gpu.DEPLOYMENTS)}")
    return dataclasses.replace(gpu.DEPLOYMENTS[preset], **fields)


def whole_layer_points(data: dict, entry: dict, *, tie: tuple = (None, 1)):
    """(labels, categories, measured, modeled) of a ``layer`` set: the simulator's device time
    of the layer plus one host dispatch per call."""
    spec = gpu.gpu_spec(_device(data, entry))
    rows = np.array(entry["points"], dtype=float)
    batch, tokens, context = rows[:, 0], rows[:, 1], rows[:, 2]
    deployment = _tied(_deployment(entry), tie)
    parts = gpu.layer_breakdown(spec, _shape(entry["name"], entry["model"]), deployment,
                                gpu.workload(batch, tokens, context), launch=0.0)
    overhead = data.get("host_overhead_s", {}).get(entry.get("host_overhead"), 0.0)
    modeled = np.asarray(sum(parts.values())) + overhead
    labels = [f"{entry['name']}: B{int(b)} T{int(t)} C{int(c)}"
              for b, t, c in zip(batch, tokens, context)]
    return labels, ["layer"] * len(labels), _seconds(entry["columns"], rows), modeled


def attention_points(data: dict, entry: dict, deployment: gpu.Deployment | None = None, *,
                     tie: tuple = (None, 1)):
    """(labels, categories, measured, modeled) of an ``attention`` set: one layer's attention
    operator (``heads``, ``kv_heads``, ``head_dim`` of the set; rows batch, new tokens per
    sequence, attended context) under ``deployment``, by default the set's (``Deployment``
    keywords or a ``gpu.DEPLOYMENTS`` preset name), device time."""
    spec = gpu.gpu_spec(_device(data, entry))
    rows = np.array(entry["points"], dtype=float)
    heads, kv_heads = entry["heads"], entry["kv_heads"]
    shape = _shape(entry["name"], {"hidden": heads * entry["head_dim"], "ffn": 4 * heads,
                                   "heads": heads, "kv_heads": kv_heads})
    deployment = _deployment(entry) if deployment is None else deployment
    deployment = _tied(deployment, tie)
    parts = gpu.layer_breakdown(spec, shape, deployment,
                                gpu.workload(rows[:, 0], rows[:, 1], rows[:, 2]), launch=0.0)
    labels = [f"{entry['name']}: B{int(b)} T{int(t)} C{int(c)}" for b, t, c in rows[:, :3]]
    return labels, ["operator"] * len(labels), _seconds(entry["columns"], rows), \
        np.asarray(parts["attention"])


def all_reduce_points(data: dict, entry: dict, *, tie: tuple = (None, 1)):
    """(labels, categories, measured, modeled) of an ``all_reduce`` set (no tactic to choose:
    ``tie`` changes nothing)."""
    spec = gpu.gpu_spec(_device(data, entry))
    rows = np.array(entry["points"], dtype=float)
    modeled = np.asarray(gpu.all_reduce_seconds(spec, rows[:, 0], rows[:, 1]))
    labels = [f"{entry['name']}: {int(p)} GPUs {int(b)} B" for p, b, _ in rows]
    return labels, ["collective"] * len(labels), rows[:, 2], modeled


PREDICTORS = {"gemm": gemm_points, "layer_operators": layer_points,
              "attention": attention_points,
              "layer": whole_layer_points, "e2e": e2e_points, "all_reduce": all_reduce_points}


def points(name: str, data: dict | None = None, *, tie: tuple = (None, 1)) -> list[Point]:
    """Every measured value of the file ``name`` (or of ``data``, read elsewhere) with its
    prediction; ``tie``: (tie_margin, tie_side), the near-ties what-if of ``gpu.gemm_latency``
    for every GEMM whose tactic is timed ((None, 1): without it; (0, 1): the model's choice
    too, compiled with the what-if, as ``lut-fig16`` runs it)."""
    data = load(name) if data is None else data
    out = []
    for entry in data["sets"]:
        labels, categories, measured, modeled = PREDICTORS[entry["kind"]](
            data, entry, tie=tie)
        out += [Point(name, data["role"], _device(data, entry), entry["name"], c, label,
                      float(m), float(p))
                for label, c, m, p in zip(labels, categories, measured, modeled)]
    return out
