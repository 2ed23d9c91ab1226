"""Table precompute and INTb table quantization (LUT Tensor Core §3.1.1 and §3.1.3)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from lutcore import _checks as check

from ._schemes import TableScheme


@check.entry
def group_activations(a, k: int):
    """[M, Ktot] -> [M, G, k], G = ceil(Ktot/k); padded activations are 0 and add nothing."""
    check.positive_int("k", k)
    a = jnp.asarray(a)
    pad = -a.shape[-1] % k
    a = jnp.pad(a, [(0, 0)] * (a.ndim - 1) + [(0, pad)])
    return a.reshape(*a.shape[:-1], -1, k)


def precompute_tables(a, scheme: TableScheme):
    """The precompute operator: one table per row and group, shared by all N columns.

    a: [M, Ktot] activations (any real dtype; computed in float64). Exact, in any order, for
    FP16, FP8, INT8 and INT16 inputs at k <= 8: an FP16 value is an integer times 2^-24 below
    2^40, so an entry is one below 2^43 < 2^53. BF16 has FP32's exponent range: exact only
    while a group's exponents lie within 42 of each other (float64 rounds 2^100 + 2^-100).
    Returns [M, G, E] float64 tables.
    """
    return _precompute_tables(jnp.asarray(a, jnp.float64), scheme)


# one compiled program per shape and scheme (eagerly, the padding, reshape and product each
# compiled alone)
@functools.partial(jax.jit, static_argnames=("scheme",))
def _precompute_tables(a, scheme: TableScheme):
    groups = group_activations(a, scheme.k)
    return groups @ jnp.asarray(scheme.coefficients).T


@check.entry
def symmetric_quantize(x, bits: int):
    """Symmetric INTb quantization along the last axis, as per-table (or per-token) scaling.

    x: [..., L] -> (codes [..., L] int32 in [-(2^(b-1)-1), 2^(b-1)-1], scale [...] float64),
    scale = max|x| / (2^(b-1)-1) (1 where x is all zero), codes = round-half-even(x / scale).
    Each value is then off by at most scale/2: the bound ``table_quantization_bound`` uses.
    """
    _check_bits(bits)
    return _symmetric_quantize(jnp.asarray(x), bits)


def _check_bits(bits):
    check.positive_int("bits", bits, min=2, max=16)


# one compiled program per shape and width (eagerly, each of its six operations compiled alone)
@functools.partial(jax.jit, static_argnames=("bits",))
def _symmetric_quantize(x, bits: int):
    x = x.astype(jnp.float64)
    qmax = (1 << (bits - 1)) - 1
    peak = jnp.max(jnp.abs(x), axis=-1)
    scale = jnp.where(peak > 0, peak / qmax, 1.0)
    codes = jnp.clip(jnp.round(x / scale[..., None]), -qmax, qmax).astype(jnp.int32)
    return codes, scale


def quantize_tables(tables, bits: int):
    """INTb table quantization (§3.1.3): [M, G, E] -> dequantized tables, codes and scales.

    One scale per table (per row and group of k activations), as the paper quantizes "each
    table that contains 8 precomputed dot products". Returns (tables_q [M, G, E] float64 =
    codes*scale, codes [M, G, E] int32, scale [M, G]).
    """
    _check_bits(bits)
    return _quantize_tables(jnp.asarray(tables), bits)


@functools.partial(jax.jit, static_argnames=("bits",))
def _quantize_tables(tables, bits: int):
    codes, scale = _symmetric_quantize(tables, bits)
    return codes * scale[..., None], codes, scale
