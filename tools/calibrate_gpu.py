"""Fit the lutcore.gpu constants that calibration sets determine, and print them.

Reads only measured sets whose ``role`` is ``calibration`` (experiments/reference/measured/).
Per GPU, by least squares on relative errors (each row weighs the same):

- ``kernel_latency`` (vidur_*.yaml): the median time of Vidur's residual adds under 1 MB (a
  PyTorch element-wise kernel with next to no work: its time is the fixed cost of a kernel);
- ``gemm_prologue`` and ``gemv_dram_efficiency`` (vidur_*.yaml): the M = 1 projection GEMMs
  (cuBLAS GEMV-class kernels, DRAM-bound), seconds = kernel_latency + t1 + bytes / (eta x DRAM),
  bytes = the weights, the input row and the output row;
- ``allreduce_latency`` and ``allreduce_efficiency`` (vidur_allreduce.yaml): single-node
  all-reduces of p GPUs, seconds = t0 + 2 (p - 1) / p x bytes / (eta x NVLink per direction);
- ``tensor_efficiency`` (vidur_*.yaml): the 16-bit fraction for which the tile model, with
  every other constant as in lutcore.gpu, is unbiased (mean relative error 0) on the
  compute-bound projection GEMMs (M >= 1024), by bisection;
- 8-bit fractions (mamf_stas00.yaml, the only 8-bit measurements): the fraction for which the
  tile model reproduces each FP8 MAMF row; and the ratio of the H100's FP8 to its BF16
  fraction, both reproducing their MAMF rows (like for like: best shapes of the same search),
  which sets 8-bit fractions where no 8-bit measurement exists (A100 INT8).

The values are copied into lutcore/gpu/_specs.py, where each names this tool and its set; a
test recomputes them. Usage: PYTHONPATH=. python tools/calibrate_gpu.py
"""

from __future__ import annotations

import dataclasses
import pathlib

import numpy as np
import yaml

MEASURED = pathlib.Path(__file__).resolve().parents[1] / "experiments/reference/measured"
DATASHEET = {"a100": {"dram": 2039e9, "nvlink": 300e9},
             "h100": {"dram": 3.35e12, "nvlink": 450e9}}  # _specs S1, S2, S4, S5


def _load(name: str) -> dict:
    data = yaml.safe_load((MEASURED / name).read_text())
    if data["role"] != "calibration":
        raise ValueError(f"{name} is not a calibration set (role {data['role']!r})")
    return data


def relative_line(x, y):
    """Intercept a and slope b of y = a + b x minimizing sum(((a + b x - y) / y)^2)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    design = np.stack([np.ones_like(x), x], axis=1) / y[:, None]
    (a, b), *_ = np.linalg.lstsq(design, np.ones_like(y), rcond=None)
    return float(a), float(b)


def _projections(model: dict) -> dict:
    tp, head = model["tensor_parallel"], model["hidden"] // model["heads"]
    return {"qkv_projection": ((model["heads"] + 2 * model["kv_heads"]) * head // tp,
                               model["hidden"]),
            "output_projection": (model["hidden"], model["heads"] * head // tp),
            "ffn_up": ((1 + model["gated"]) * model["ffn"] // tp, model["hidden"]),
            "ffn_down": (model["hidden"], model["ffn"] // tp)}


def vidur_rows(gpu: str):
    """(add bytes, add seconds), (GEMV bytes, GEMV seconds) of Vidur's profiles of ``gpu``."""
    adds, gemvs = [], []
    for entry in _load(f"vidur_{gpu}.yaml")["sets"]:
        model = entry["model"]
        for point in entry["points"]:
            row = dict(zip(entry["columns"], point))
            adds.append((3 * 2.0 * row["tokens"] * model["hidden"], row["ffn_residual"]))
            if row["tokens"] == 1:
                gemvs += [(2.0 * (n * k + n + k), row[name])
                          for name, (n, k) in _projections(model).items()]
    return np.array(adds).T, np.array(gemvs).T


def memory_constants(gpu: str) -> dict:
    (add_bytes, add_s), (gemv_bytes, gemv_s) = vidur_rows(gpu)
    t0 = float(np.median(add_s[add_bytes < 2 ** 20]))
    t1, gemv_per_byte = relative_line(gemv_bytes, gemv_s)
    return {"kernel_latency": t0, "gemm_prologue": t1 - t0,
            "gemv_dram_efficiency": 1 / (gemv_per_byte * DATASHEET[gpu]["dram"])}


def allreduce_constants(gpu: str) -> dict:
    entry = next(e for e in _load("vidur_allreduce.yaml")["sets"] if e["device"] == gpu)
    workers, size, seconds = (np.array(c, float) for c in zip(*entry["points"]))
    t0, per_byte = relative_line(2 * (workers - 1) / workers * size, seconds)
    return {"allreduce_latency": t0,
            "allreduce_efficiency": 1 / (per_byte * DATASHEET[gpu]["nvlink"])}


def _bisect(error_at) -> float:
    """The fraction in [0.3, 1] at which ``error_at(fraction)`` (relative error vs the
    measurement, falling as the fraction rises) crosses 0."""
    low, high = 0.3, 1.0
    for _ in range(30):
        mid = (low + high) / 2
        low, high = (mid, high) if error_at(mid) > 0 else (low, mid)
    return (low + high) / 2


def mamf_error(entry: dict, fraction: float) -> float:
    """Relative error of the tile model on a MAMF row with the row's format at ``fraction``."""
    import lutcore.gpu as gpu  # the model with every other constant in place

    (m, n, k, tflops), = entry["points"]
    spec, act = gpu.gpu_spec(entry["device"]), entry["act"]
    seconds = float(gpu.gemm_latency(_with_efficiency(spec, act, fraction), "cublas", m, n, k,
                                     act=act, weight_bits=8 * gpu.ACT_BYTES[act]).seconds)
    return seconds / (2.0 * m * n * k / (tflops * 1e12)) - 1


def mamf_efficiencies() -> dict:
    """{(gpu, dtype): fraction} with which the tile model reproduces each MAMF row."""
    return {(entry["device"], entry["act"]): _bisect(lambda f, e=entry: mamf_error(e, f))
            for entry in _load("mamf_stas00.yaml")["sets"]}


def vidur_bias(name: str, fraction: float) -> float:
    """Mean relative error of the tile model on the compute-bound Vidur GEMMs (M >= 1024)
    of ``name`` with 16-bit tensor cores at ``fraction``."""
    import lutcore.gpu as gpu

    rows = []
    for entry in _load(f"vidur_{name}.yaml")["sets"]:
        for point in entry["points"]:
            row = dict(zip(entry["columns"], point))
            if row["tokens"] >= 1024:
                rows += [(row["tokens"], n, k, row[op])
                         for op, (n, k) in _projections(entry["model"]).items()]
    m, n, k, measured = (np.array(c, float) for c in zip(*rows))
    spec = _with_efficiency(gpu.gpu_spec(name), "fp16", fraction)
    seconds = np.asarray(gpu.gemm_latency(spec, "cublas", m, n, k).seconds)
    return float(np.mean(seconds / measured - 1))


def vidur_efficiency(name: str) -> float:
    """The 16-bit fraction leaving the compute-bound Vidur GEMMs (M >= 1024) unbiased."""
    return _bisect(lambda f: vidur_bias(name, f))


def tensor_efficiencies() -> dict:
    """{(gpu, dtype): fraction}: 16-bit from Vidur, 8-bit from the MAMF rows, and
    ("h100", "8-bit ratio") (module doc)."""
    mamf = mamf_efficiencies()
    out = {(g, "fp16"): vidur_efficiency(g) for g in DATASHEET}
    out.update({key: f for key, f in mamf.items() if key[1] == "fp8"})
    out[("h100", "8-bit ratio")] = mamf[("h100", "fp8")] / mamf[("h100", "bf16")]
    return out


def _with_efficiency(spec, act: str, fraction: float):
    if act in ("fp16", "bf16"):
        return dataclasses.replace(spec, tensor_efficiency=fraction)
    others = tuple((d, f) for d, f in spec.dtype_efficiency if d != act)
    return dataclasses.replace(spec, dtype_efficiency=others + ((act, fraction),))


def constants() -> dict:
    return {gpu: {**memory_constants(gpu), **allreduce_constants(gpu)} for gpu in DATASHEET}


if __name__ == "__main__":
    for gpu, values in constants().items():
        print(gpu, ", ".join(f"{k}={v:.4g}" for k, v in values.items()))
    for (gpu, dtype), fraction in tensor_efficiencies().items():
        print(gpu, dtype, f"efficiency={fraction:.4f}")
