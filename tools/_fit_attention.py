"""TensorRT-LLM's attention costs per architecture, fitted on aiconfigurator's attention
tables (calibration); ``calibrate_gpu`` prints them (``attention_constants``)."""

from __future__ import annotations

import dataclasses

import numpy as np
from _fit import _bisect, _load, relative_fit

# TensorRT-LLM's attention tables per architecture (its sm80 and sm90 kernels are other builds)
ATTENTION_SETS = {"ampere": "aiconfigurator_attention_a100_sxm.yaml",
                  "hopper": "aiconfigurator_attention_h100_sxm.yaml"}
ATTENTION_BOUND_TOKENS = 4096  # context rows this long are compute-bound (rate only)
ATTENTION_ROUNDS = 3  # rate, then the fixed costs, in turn: the values settle within 3 rounds


def attention_rows(framework, name: str) -> tuple:
    """(batch, tokens, measured s, modeled s) of every row of the attention set ``name`` with
    TensorRT-LLM's attention costs as in ``framework`` (on every architecture), each set's
    deployment otherwise (its KV pool)."""
    from experiments.lut_tensor_core import _measured

    data = _load(name)
    framework = dataclasses.replace(framework, by_architecture=())
    out = []
    for entry in data["sets"]:
        deployment = dataclasses.replace(_measured._deployment(entry), framework=framework)
        _, _, measured, modeled = _measured.attention_points(data, entry, deployment=deployment)
        rows = np.array(entry["points"], float)
        out.append((rows[:, 0], rows[:, 1], measured, modeled))
    return tuple(np.concatenate(c) for c in zip(*out))


def _attention_model(architecture: str, **fields) -> tuple:
    """``attention_rows`` of ``architecture``'s set with TensorRT-LLM's record there, ``fields``
    replaced."""
    import lutcore.gpu as gpu

    record = gpu.FRAMEWORKS["tensorrt_llm"].on(architecture)
    return attention_rows(dataclasses.replace(record, **fields), ATTENTION_SETS[architecture])


def attention_rate_bias(architecture: str, **fields) -> float:
    """Mean relative error of the compute-bound context rows (tokens >=
    ``ATTENTION_BOUND_TOKENS``) of ``architecture``'s set (``_attention_model``)."""
    _, tokens, measured, modeled = _attention_model(architecture, **fields)
    keep = tokens >= ATTENTION_BOUND_TOKENS
    return float(np.mean(modeled[keep] / measured[keep] - 1))


def attention_fixed_costs(architecture: str, **fields) -> dict:
    """The per-call time and the time per round of FMHA CTAs (context rows), the decode
    kernel's per-call time, per-sequence time (MHA) and time per wave of its XQA grid (grouped
    query), by relative least squares on what each row has beyond the modeled kernels (the
    rounds, sequences and waves columns: the model's response to a second of each), the other
    costs as in ``fields``."""
    zero = {**fields, "attention_call": 0.0, "attention_sequence": 0.0, "attention_tile": 0.0,
            "decode_call": 0.0, "decode_sequence": 0.0, "decode_wave": 0.0}
    batch, tokens, measured, bare = _attention_model(architecture, **zero)
    rounds, sequences, waves = (_attention_model(architecture, **{**zero, name: 1.0})[3] - bare
                                for name in ("attention_tile", "decode_sequence", "decode_wave"))
    fitted = {"attention_sequence": 0.0}
    for names, columns, keep in ((("attention_call", "attention_tile"), (rounds,), tokens > 1),
                                 (("decode_call", "decode_sequence", "decode_wave"),
                                  (sequences, waves), tokens == 1)):
        fitted |= dict(zip(names, relative_fit((1.0, *(c[keep] for c in columns)),
                                               measured[keep] - bare[keep], measured[keep])))
    return fitted


def attention_constants(architecture: str) -> dict:
    """TensorRT-LLM's attention costs on ``architecture`` (lutcore.gpu._frameworks.TENSORRT_LLM
    and its ``by_architecture`` records), from its ``ATTENTION_SETS`` set: the FMHA rate leaving
    the compute-bound context rows unbiased (``attention_rate_bias``), then the fixed costs
    (``attention_fixed_costs``), in turn, ``ATTENTION_ROUNDS`` times from no fixed costs."""
    fitted = {"attention_call": 0.0, "attention_sequence": 0.0, "attention_tile": 0.0,
              "decode_call": 0.0, "decode_sequence": 0.0, "decode_wave": 0.0}
    for _ in range(ATTENTION_ROUNDS):
        fitted["attention_rate"] = _bisect(
            lambda rate, costs=dict(fitted): attention_rate_bias(
                architecture, **{**costs, "attention_rate": rate}), 0.2, 1.0)
        fitted |= attention_fixed_costs(architecture, **fitted)
    return fitted
