"""The LLaMA decoder's forward pass, with every linear layer on a pluggable GEMM path.

Paths (``GEMM_PATHS``); the dense ones compute in float32 (FP32 accumulation of FP16/BF16
products, as a tensor core accumulates; twice float64's speed on a CPU), the LUT ones in float64
(exact tables):
- ``dense-fp16`` / ``dense-bf16``: activations rounded to FP16 / BF16, times the dequantized
  weights — the dequantization-based mpGEMM (paper Fig. 2b);
- ``lut-exact``: FP16 activations through ``lutcore.lut`` (symmetric bit-serial tables of
  k = 4 activations, weights prepared once; lookups summed exactly per weight group) — equal to
  ``dense-fp16`` up to the rounding of float32 accumulation (exactly, with ``dtype=float64``);
- ``lut-int8``: the same with every table quantized to INT8 (§3.1.3, the paper's A_LUT_INT8);
- ``dense-act-int8``: FP16 activations quantized to INT8 per token (one scale per row), times
  the dequantized weights — the usual W-A8 alternative, for contrast.
The embedding and the tied output head are not part of the study: they stay dense, unrounded.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Literal, NamedTuple

import jax
import jax.numpy as jnp

import lutcore.lut as lut
import lutcore.numerics as nm
from lutcore import _checks as check

from ._checkpoint import Checkpoint
from ._config import LlamaConfig
from ._weights import AffineWeights, concat_columns

LUT_K = 4  # activations per table: the paper's group size (§3.1.3, Fig. 9)


@dataclasses.dataclass(frozen=True)
class GemmPath:
    """How a linear layer computes x @ W.T: activation rounding, then dense or LUT product."""

    name: str
    activations: Literal["fp16", "bf16", "int8_token"]
    lut: bool = False
    table_bits: int | None = None


GEMM_PATHS = {p.name: p for p in (
    GemmPath("dense-fp16", "fp16"),
    GemmPath("dense-bf16", "bf16"),
    GemmPath("dense-act-int8", "int8_token"),
    GemmPath("lut-exact", "fp16", lut=True),
    GemmPath("lut-int8", "fp16", lut=True, table_bits=8),
)}


def gemm_path(name: str) -> GemmPath:
    return GEMM_PATHS[check.one_of("GEMM path", name, GEMM_PATHS)]


class Model(NamedTuple):
    """A checkpoint prepared for one GEMM path: ``params`` (a pytree of arrays of the compute
    dtype) and the static description the jitted forward pass needs."""

    params: dict
    config: LlamaConfig
    path: GemmPath
    scheme: lut.TableScheme | None
    sources: tuple = ()  # the checkpoint's arrays behind the SHARED params (``prepare(like=)``)


# The fused linear layers: inputs that share an activation share one rounding and one set of
# tables, as a kernel would fuse them.
FUSED = {"qkv": ("attn_q", "attn_k", "attn_v"), "attn_output": ("attn_output",),
         "gate_up": ("ffn_gate", "ffn_up"), "ffn_down": ("ffn_down",)}


@functools.partial(jax.jit, static_argnames=("dtype",))
def _dequantized_columns(codes, scale, zero, dtype):
    # AffineWeights.dequantize's float64 arithmetic, transposed and cast in the same pass: one
    # [L, K, N] array written, not three (the page faults of fresh memory cost more than the
    # arithmetic)
    groups = codes.reshape(*scale.shape, -1).astype(jnp.float64)
    weights = ((groups - zero[..., None]) * scale[..., None]).reshape(codes.shape)
    return weights.swapaxes(-1, -2).astype(dtype)


def _layer_matrices(weights: AffineWeights, path: GemmPath, scheme, dtype):
    """Stacked [L, N, K] weights as [L, K, N] dequantized weights of ``dtype`` (dense paths) or
    the arrays of ``lut.prepare_layers`` (LUT paths, float64)."""
    if not path.lut:
        return _dequantized_columns(weights.codes, weights.scale, weights.zero, dtype)
    prepared = lut.prepare_layers(weights.codes, scheme, scale=weights.scale, zero=weights.zero)
    return prepared._replace(scheme=None, ktot=None)


# The parameters outside the linear layers: no GEMM path or weight setting changes them.
SHARED = ("embedding", "head", "output_norm", "attn_norm", "ffn_norm")


def _shared_params(checkpoint: Checkpoint, dtype, like: Model | None):
    """The SHARED params in ``dtype`` and the arrays they come from: ``like``'s own where it was
    prepared in ``dtype`` from these very arrays (a ``with_linears`` variant shares them), so
    that a model's variants do not convert and copy them again (0.9 GB in float64)."""
    sources = (checkpoint.embedding, checkpoint.head, checkpoint.output_norm,
               checkpoint.attn_norm, checkpoint.ffn_norm)
    if (like is not None and like.params["embedding"].dtype == dtype
            and len(like.sources) == len(sources)
            and all(a is b for a, b in zip(like.sources, sources))):
        return {name: like.params[name] for name in SHARED}, sources
    arrays = dict(zip(SHARED, sources)) | {"head": checkpoint.head.T}  # [D, V]: no transpose
    return {name: jnp.asarray(arrays[name], dtype) for name in SHARED}, sources


def prepare(checkpoint: Checkpoint, path: GemmPath | str, *, dtype=None,
            like: Model | None = None) -> Model:
    """Prepare every linear layer once for ``path`` (the LUT paths keep the selection tensor of
    the static weights, so only the activation tables are computed per input). ``dtype``: the
    compute precision, float32 for dense paths and float64 for LUT paths by default (LUT paths
    need float64: their tables are exact). ``like``: a model prepared earlier from this
    checkpoint or a ``with_linears`` variant of it, whose embedding, head and norms are reused
    where they are the same arrays in the same dtype (converted anew otherwise)."""
    path = gemm_path(path) if isinstance(path, str) else path
    dtype = jnp.dtype(dtype or (jnp.float64 if path.lut else jnp.float32))
    if path.lut and dtype != jnp.float64:
        raise ValueError(f"{path.name} computes exact tables in float64; got dtype {dtype}")
    scheme = lut.make_scheme("symmetric", LUT_K, checkpoint.w_bits) if path.lut else None
    params, sources = _shared_params(checkpoint, dtype, like)
    for fused, names in FUSED.items():
        weights = concat_columns([checkpoint.linears[n] for n in names])
        params[fused] = _layer_matrices(weights, path, scheme, dtype)
    return Model(params, checkpoint.config, path, scheme, sources)


def with_path(model: Model, path: GemmPath | str) -> Model:
    """``model`` on another path that uses the same prepared matrices (dense paths among
    themselves; LUT paths among themselves) — preparing once serves several paths."""
    path = gemm_path(path) if isinstance(path, str) else path
    if path.lut != model.path.lut:
        raise ValueError(f"{model.path.name} and {path.name} need differently prepared weights; "
                         "call prepare()")
    return model._replace(path=path)


def round_16_bit(x, fmt: str):
    """x rounded to nearest even in ``fmt`` ("fp16" or "bf16"), in x's dtype (float32 or
    float64). BF16's subnormals are float32's, which ``nm.round_float`` cannot reach from
    float32: XLA's one-step float32 -> bfloat16 conversion rounds them (to nearest even, as
    lutcore.numerics: tests/test_llm.py)."""
    if fmt == "bf16" and x.dtype == jnp.float32:
        return x.astype(jnp.bfloat16).astype(x.dtype)
    return nm.round_float(x, fmt)


def _round_activations(x, path: GemmPath):
    """x [M, K] -> the values the GEMM sees, in x's dtype (FP16/BF16 round to nearest even)."""
    if path.activations == "bf16":
        return round_16_bit(x, "bf16")
    rounded = round_16_bit(x, "fp16")
    if path.activations == "int8_token":  # per-token scales in float64, whatever x's dtype
        codes, scale = lut.symmetric_quantize(rounded.astype(jnp.float64), 8)
        rounded = codes * scale[:, None]
    return rounded.astype(x.dtype)


def _linear(x, matrix, path: GemmPath, scheme):
    """[M, K] activations times one prepared layer matrix -> [M, N]."""
    a = _round_activations(x, path)
    if not path.lut:
        return a @ matrix
    prepared = matrix._replace(scheme=scheme, ktot=x.shape[-1])
    return lut.apply_weights(a, prepared, table_bits=path.table_bits)


def rms_norm(x, weight, eps: float):
    """x [..., D] / rms(x) * weight [D]."""
    return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def rotary(x, positions, theta: float, layout: str = "adjacent"):
    """Rotary position embedding of x [T, H, d] at positions [T].

    Coordinate pair i (frequency theta^(-2i/d)) is (2i, 2i+1) for ``layout="adjacent"`` (GGUF,
    llama.cpp's NORM rope) and (i, i + d/2) for ``"half"`` (HF's rotate_half).
    """
    d = x.shape[-1]
    freq = theta ** (-jnp.arange(0, d, 2, dtype=jnp.float64) / d)  # [d/2]
    angle = positions[:, None, None].astype(jnp.float64) * freq  # [T, 1, d/2]
    cos, sin = jnp.cos(angle).astype(x.dtype), jnp.sin(angle).astype(x.dtype)
    if layout == "adjacent":
        even, odd = x[..., 0::2], x[..., 1::2]
        return jnp.stack([even * cos - odd * sin, even * sin + odd * cos], -1).reshape(x.shape)
    first, second = x[..., : d // 2], x[..., d // 2:]
    return jnp.concatenate([first * cos - second * sin, first * sin + second * cos], -1)


def attention(q, k, v):
    """Causal grouped-query attention: q [T, H, d], k, v [T, Hkv, d] -> [T, H * d].

    Query head h reads key/value head h // (H / Hkv), as llama.cpp broadcasts them.
    """
    t, heads, d = q.shape
    group = heads // k.shape[1]
    k, v = jnp.repeat(k, group, axis=1), jnp.repeat(v, group, axis=1)
    scores = jnp.einsum("qhd,khd->hqk", q, k) / jnp.sqrt(d)
    causal = jnp.tril(jnp.ones((t, t), bool))
    weights = jax.nn.softmax(jnp.where(causal, scores, -jnp.inf), axis=-1)
    return jnp.einsum("hqk,khd->qhd", weights, v).reshape(t, heads * d)


@functools.partial(jax.jit, static_argnames=("config", "path", "scheme"))
def _forward(params, tokens, config: LlamaConfig, path: GemmPath, scheme):
    positions = jnp.arange(tokens.shape[0])
    hd, q_dim = config.head_dim, config.dim

    def block(x, layer):
        h = rms_norm(x, layer["attn_norm"], config.norm_eps)
        qkv = _linear(h, layer["qkv"], path, scheme)
        q = qkv[:, :q_dim].reshape(-1, config.n_heads, hd)
        k = qkv[:, q_dim:q_dim + config.kv_dim].reshape(-1, config.n_kv_heads, hd)
        v = qkv[:, q_dim + config.kv_dim:].reshape(-1, config.n_kv_heads, hd)
        q = rotary(q, positions, config.rope_theta, config.rope_layout)
        k = rotary(k, positions, config.rope_theta, config.rope_layout)
        x = x + _linear(attention(q, k, v), layer["attn_output"], path, scheme)
        h = rms_norm(x, layer["ffn_norm"], config.norm_eps)
        gate, up = jnp.split(_linear(h, layer["gate_up"], path, scheme), 2, axis=-1)
        return x + _linear(jax.nn.silu(gate) * up, layer["ffn_down"], path, scheme), None

    layers = {name: params[name] for name in ("attn_norm", "ffn_norm", *FUSED)}
    x, _ = jax.lax.scan(block, params["embedding"][tokens], layers)
    out = rms_norm(x, params["output_norm"], config.norm_eps) @ params["head"]
    return out.astype(jnp.float64)  # scoring (log-softmax over 49k entries) in float64


def logits(model: Model, tokens) -> jax.Array:
    """[T, V] float64 next-token logits of one sequence of token ids [T] (positions 0..T-1)."""
    tokens = jnp.asarray(tokens)
    if tokens.ndim != 1:
        raise ValueError(f"tokens must be one sequence [T], got shape {tokens.shape}")
    return _forward(model.params, tokens, model.config, model.path, model.scheme)
