"""Table schemes: what a lookup table holds and how weights index it (LUT Tensor Core §3.1).

A scheme is a tiny bundle of pure functions and constants (optax style), written for one group
of ``k`` activations and one weight column; ``_gemm`` vmaps it over groups and columns:

- ``coefficients`` [E, k]: each table entry as a combination of the group's activations, so the
  precompute of one table is ``coefficients @ a_group`` (the precompute operator of §3.1.1).
- ``encode(q [k]) -> stored [P]``: what the weight memory holds for one column's group (P lookups,
  one per bit plane for the bit-serial schemes).
- ``resolve(stored [P]) -> (entry [P], sign [P])``: the lookup-time circuit (mux select and the
  sign of the looked-up value). With offline negation (Eq. 6) it is wiring only; without it, a
  bit-wise NOT of the index (Eq. 5).
- ``plane_weights`` [P]: the shift of each plane (2^b).
- ``affine(scale, zero) -> (s_eff, z_eff)``: the dot product of weights ``s*(q - z)`` with the
  group is ``s_eff * (sum_p sign_p * plane_weight_p * T[entry_p] - z_eff * sum(a))``.
- ``sum_entry = (e, sign)``: ``sum(a) == sign * T[e]``, so the zero-point term is one more lookup.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lutcore import _checks as check

SCHEMES = ("naive", "bitserial", "symmetric", "ternary")
MAX_W_BITS = 8
MAX_ENTRIES = 1 << 16  # a naive table beyond 2^16 entries is not built (memory), only counted


class TableScheme(NamedTuple):
    name: str
    k: int
    w_bits: int
    planes: int
    entries: int
    index_bits: int  # bits the weight memory holds per lookup
    coefficients: tuple  # [E][k], a tuple so a scheme can be a static (hashable) jit argument
    encode: Callable
    resolve: Callable
    plane_weights: tuple  # [P]
    affine: Callable
    sum_entry: tuple[int, int]
    lookup_negation: bool = False  # resolve needs a NOT of the index at every lookup (Eq. 5)


def _bits(n: int, width: int) -> np.ndarray:
    """[2^width, width] 0/1 matrix: row e holds the bits of e, LSB first."""
    return (np.arange(n)[:, None] >> np.arange(width)[None, :]) & 1


def _frozen(array) -> tuple:
    return tuple(map(tuple, array)) if np.ndim(array) == 2 else tuple(array)


def check_scheme_args(name: str, k: int, w_bits: int) -> None:
    """Raise ValueError naming the offending argument and its allowed values."""
    check.one_of("scheme", name, SCHEMES)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k (activations per table group) must be an integer >= 1, got {k!r}")
    if name == "ternary":
        if k != 3:
            raise ValueError(f"ternary packs 3 weights per 5-bit index: k must be 3, got {k}")
        return
    if (isinstance(w_bits, bool) or not isinstance(w_bits, (int, np.integer))
            or not 1 <= w_bits <= MAX_W_BITS):
        raise ValueError(f"w_bits must be an integer in 1..{MAX_W_BITS}, got {w_bits!r}")
    if table_entries(name, k, w_bits) > MAX_ENTRIES:
        raise ValueError(f"a {name} table for k={k}, w_bits={w_bits} has "
                         f"{table_entries(name, k, w_bits)} entries; at most {MAX_ENTRIES} are "
                         "built (use table_entries() to count larger ones)")


def table_entries(name: str, k: int, w_bits: int = 1) -> int:
    """Entries per table: naive (2^W)^K, bit-serial 2^K, symmetric 2^(K-1) (§3.1), ternary 14."""
    return {"naive": 1 << (w_bits * k), "bitserial": 1 << k, "symmetric": 1 << (k - 1),
            "ternary": (3 ** 3 + 1) // 2}[name]


@functools.cache
def make_scheme(name: str, k: int = 4, w_bits: int = 1, offline_negation: bool = True
                ) -> TableScheme:
    """The table scheme ``name`` for groups of ``k`` activations and ``w_bits``-bit weights.

    ``offline_negation`` (symmetric only): store Eq. 6's pre-negated indices, so the lookup needs
    no NOT gates; with False the weight memory holds plain indices and ``resolve`` negates (Eq. 5).
    """
    check_scheme_args(name, k, w_bits)
    return {"naive": _naive, "bitserial": _bitserial, "symmetric": _symmetric,
            "ternary": _ternary}[name](k, w_bits, offline_negation)


def _naive(k, w_bits, _):
    levels = 1 << w_bits
    digits = (np.arange(levels ** k)[:, None] // levels ** np.arange(k)[None, :]) % levels

    def encode(q):
        return jnp.sum(q.astype(jnp.int64) << (w_bits * jnp.arange(k)))[None]

    return TableScheme(
        "naive", k, w_bits, 1, levels ** k, w_bits * k, _frozen(digits.astype(float)), encode,
        lambda stored: (stored, jnp.ones_like(stored)), (1.0,),
        lambda s, z: (s, z), (int(np.sum(1 << (w_bits * np.arange(k)))), 1))


def _planes(q, k, w_bits):
    """[w_bits] bit-serial indices: plane b holds bit b of each of the k weights."""
    bits = (q.astype(jnp.int64)[None, :] >> jnp.arange(w_bits)[:, None]) & 1
    return jnp.sum(bits << jnp.arange(k)[None, :], axis=1)


def _bitserial(k, w_bits, _):
    return TableScheme(
        "bitserial", k, w_bits, w_bits, 1 << k, k, _frozen(_bits(1 << k, k).astype(float)),
        lambda q: _planes(q, k, w_bits), lambda stored: (stored, jnp.ones_like(stored)),
        _frozen(2.0 ** np.arange(w_bits)), lambda s, z: (s, z), ((1 << k) - 1, 1))


def _symmetric(k, w_bits, offline_negation):
    half = 1 << (k - 1)
    mask = half - 1
    # {0,1} read as {-1,+1}; only the half with the top bit 0 is stored (Eq. 4-5)
    coefficients = 2.0 * _bits(half, k) - 1.0

    def negate_upper_half(idx):
        top = idx >> (k - 1)
        return top, jnp.where(top == 1, ~idx & mask, idx & mask)

    def encode(q):
        idx = _planes(q, k, w_bits)
        if not offline_negation:
            return idx
        top, low = negate_upper_half(idx)  # Eq. 6: done once, offline, on static weights
        return (top << (k - 1)) | low

    def resolve(stored):
        if offline_negation:
            top, entry = stored >> (k - 1), stored & mask
        else:
            top, entry = negate_upper_half(stored)  # the per-lookup NOT circuit of Eq. 5
        return entry, 1 - 2 * top

    def affine(s, z):
        # Eq. 2 with the weight bit width: q' = 2q - (2^W - 1), s' = s/2, z' = 2z + 1 - 2^W
        return s / 2, 2 * z + 1 - (1 << w_bits)

    return TableScheme("symmetric", k, w_bits, w_bits, half, k, _frozen(coefficients), encode,
                       resolve, _frozen(2.0 ** np.arange(w_bits)), affine, (0, -1),
                       lookup_negation=not offline_negation)


def _ternary(k, _w_bits, _):
    # three weights q in {0,1,2} (value q-1) -> base-3 index v in [0, 27); v and 26-v are
    # negations of each other, so 14 entries plus a sign bit: 5 bits instead of 3 x 2 (§5)
    digits = (np.arange(14)[:, None] // 3 ** np.arange(3)[None, :]) % 3

    def encode(q):
        v = jnp.sum(q.astype(jnp.int64) * 3 ** jnp.arange(3))
        return jnp.where(v <= 13, v, (1 << 4) | (26 - v))[None]

    return TableScheme(
        "ternary", 3, 2, 1, 14, 5, _frozen(digits.astype(float) - 1.0), encode,
        lambda stored: (stored & 15, 1 - 2 * (stored >> 4)), (1.0,),
        lambda s, z: (s, z - 1), (0, -1))


@check.entry
def pack_ternary(t):
    """Pack ternary weights t in {-1, 0, 1}, [..., 3G], into 5-bit codes [..., G] (uint8)."""
    t = jnp.asarray(check.integers("pack_ternary t", t, min=-1, max=1))
    if t.shape[-1] % 3:
        raise ValueError(f"ternary packing needs a multiple of 3 weights, got {t.shape[-1]}")
    groups = (t + 1).reshape(*t.shape[:-1], -1, 3)
    encode = make_scheme("ternary", 3).encode
    flat = groups.reshape(-1, 3)
    return jax.vmap(encode)(flat)[:, 0].reshape(groups.shape[:-1]).astype(jnp.uint8)


@check.entry
def unpack_ternary(codes):
    """Inverse of ``pack_ternary``: 5-bit codes [..., G] -> ternary weights [..., 3G] (int8)."""
    check.codes("unpack_ternary codes", codes, 32, what="5-bit ternary codes")
    if not isinstance(codes, jax.core.Tracer) and np.any(np.asarray(codes) & 15 > 13):
        raise ValueError("unpack_ternary codes: a magnitude field above 13 is not allowed; "
                         "allowed values: integer 5-bit ternary codes, sign bit 4 and "
                         "magnitude 0..13 (pack_ternary's)")
    codes = jnp.asarray(codes, jnp.int64)
    mag, negative = codes & 15, codes >> 4
    v = jnp.where(negative == 1, 26 - mag, mag)
    trits = (v[..., None] // 3 ** jnp.arange(3)) % 3 - 1
    return trits.reshape(*codes.shape[:-1], -1).astype(jnp.int8)
