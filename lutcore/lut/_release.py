"""The LMMA as the authors' released FP16 array computes it, bit for bit (``lutcore.ppa._release``
has the facts of that RTL, ``lutcore.ppa.synth.ReleasedLutArray`` our RTL of it).

One bit plane per cycle: for each output, the table entry the plane's index selects (index bits
[K-1:1]), its sign bit flipped by index bit 0, the plane number b added to its exponent field
(x 2^b, modulo the field: it wraps), then added to the partial sum (plane 0) or the running
result by a flush-to-zero FP16 adder (``lutcore.numerics.fp_add_ftz``), rounding every plane.

Where it departs from ``lmma`` with FP16 tables and an FP16 accumulator rounded once per plane
(IEEE arithmetic): a zero or subnormal entry scaled on plane b >= 1 becomes the normal number
with exponent field b (a zero entry turns into 2^(b - 15)); subnormal entries, partial sums and
results flush to zero; an infinite entry on plane b >= 1 wraps to exponent field b - 1; a NaN
operand counts as an infinity and inf - inf gives +inf.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from lutcore import numerics as nm


def release_b_tile(stored, k: int):
    """The released array's ``b_tile`` [K, N] from ``lutcore`` symmetric stored indices [N, P]
    (one k-bit index per bit plane, offline negation: entry in the low k-1 bits, sign in the
    top bit). The release reads entry = bits [K-1:1] and the sign from bit 0, so its index is
    the stored one rotated left by one; bit b of b_tile[k', n] is bit k' of plane b's index."""
    stored = jnp.asarray(stored, jnp.int64)
    rotated = ((stored & ((1 << (k - 1)) - 1)) << 1) | (stored >> (k - 1))  # [N, P]
    planes = jnp.arange(stored.shape[-1])
    bits = (rotated[None, :, :] >> jnp.arange(k)[:, None, None]) & 1     # [K, N, P]
    return jnp.sum(bits << planes, axis=-1)


def scale_exponent_field(bits, plane, fmt: str = "fp16"):
    """The release's x 2^plane: ``plane`` added to the exponent field, modulo the field width."""
    fmt = nm.as_format(fmt)
    b = jnp.asarray(bits).astype(jnp.uint64)
    field_mask = jnp.uint64(((1 << fmt.exp_bits) - 1) << fmt.man_bits)
    exponent = ((b & field_mask) + (jnp.asarray(plane, jnp.uint64) << fmt.man_bits)) & field_mask
    return ((b & ~field_mask) | exponent).astype(fmt.dtype)


@functools.partial(jax.jit, static_argnames=("b_bits", "fmt"))
def released_lmma(a_lut, b_tile, psum, *, b_bits: int, fmt: str = "fp16"):
    """One LMMA of the released array on bit patterns.

    a_lut: [M, 2^(K-1)] table entries; b_tile: [K, N] weights of ``b_bits`` bits (bit b: plane
    b's index bit k); psum: [M, N] partial sums. Returns the [M, N] results ``valid`` shows after
    ``b_bits`` cycles, in ``fmt`` patterns.
    """
    fmt = nm.as_format(fmt)
    a_lut = jnp.asarray(a_lut).astype(jnp.uint64)
    b_tile = jnp.asarray(b_tile, jnp.int64)
    k = b_tile.shape[0]
    sign_bit = jnp.uint64(1 << (fmt.width - 1))
    acc = jnp.asarray(psum).astype(fmt.dtype)
    for plane in range(b_bits):
        index = jnp.sum(((b_tile >> plane) & 1) << jnp.arange(k)[:, None], axis=0)  # [N]
        entry = a_lut[:, index >> 1]                                                 # [M, N]
        flipped = entry ^ jnp.where(index & 1 == 1, sign_bit, jnp.uint64(0))
        acc = nm.fp_add_ftz(scale_exponent_field(flipped, plane, fmt), acc, fmt)
    return acc
