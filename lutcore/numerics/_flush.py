"""A non-IEEE floating-point adder: flush-to-zero, no NaN, in the manner of DesignWare's
``DW_fp_add`` with ``ieee_compliance = 0`` (the adder of the LUT Tensor Core's released array).

DesignWare's floating-point components with ``ieee_compliance = 0`` do not support denormals or
NaNs: a denormal operand is a zero and a NaN an infinity, and no denormal is produced. Synopsys's
datasheet is not public; the behaviour is as modelled by Stanford AHA's ``hwtypes``
(leonardt/hwtypes@025a22c3b2a81e0ac2cd72a9c36f60fd30cef38e ``hwtypes/fp_vector.py``:
with ``ieee_compliance`` false, subnormal values become zeros of their sign and NaN becomes
infinity) and stated by coreir's maintainers (rdaly525/coreir issue #972: the switch is
"compliance with subnormal/denormal floating point values"). Bit-level choices the sources leave
open, taken here and in the RTL (``lutcore.ppa.synth.FPAdderFTZ``):
- an operand whose exponent field is all ones is an infinity whatever its fraction;
- inf + (-inf) (invalid) gives +inf, since no NaN can come out;
- a result below the smallest normal is flushed to a zero of the exact sum's sign (the sum of
  two normal numbers below the smallest normal is exact, so tininess before or after rounding
  is the same); an exact zero is +0 for x + (-x) and (+0) + (-0), -0 for (-0) + (-0).
Rounding is to nearest even (``rnd = 0``), overflow gives infinity.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from .. import _checks as check
from ._formats import FORMATS, Format, as_format, check_patterns, from_float64, to_float64


def _exact_in_float64(fmt: Format) -> bool:
    """Whether every sum of two ``fmt`` values is exact in float64 (53-bit significand)."""
    return fmt.emax - (fmt.emin - fmt.man_bits) + 2 <= 53


@check.entry
def flush_operand(bits, fmt: str | Format = "fp16"):
    """float64 value of each pattern as the adder reads it: exponent field 0 -> zero of its
    sign, exponent field all ones -> infinity of its sign."""
    fmt = as_format(fmt)
    b = jnp.asarray(check_patterns("flush_operand bits", bits, fmt)).astype(jnp.uint64)
    exponent = (b >> fmt.man_bits) & ((1 << fmt.exp_bits) - 1)
    negative = (b >> (fmt.width - 1)) & 1 == 1
    signed_zero = jnp.where(negative, -0.0, 0.0)
    infinity = jnp.where(negative, -jnp.inf, jnp.inf)
    return jnp.where(exponent == 0, signed_zero,
                     jnp.where(exponent == (1 << fmt.exp_bits) - 1, infinity,
                               to_float64(b, fmt)))


@check.entry
def fp_add_ftz(x, y, fmt: str | Format = "fp16"):
    """x + y on ``fmt`` bit patterns, flush-to-zero and without NaN (module docstring); returns
    ``fmt`` patterns. Element-wise; ``fmt`` must be narrow enough that float64 adds exactly
    (fp16, fp8, fp8alt)."""
    fmt = as_format(fmt)
    if not _exact_in_float64(fmt):
        raise ValueError(f"fp_add_ftz: {FORMATS.label(fmt)} sums are not exact in float64; "
                         "allowed: formats with at most 5 exponent bits (fp16, fp8, fp8alt)")
    return _add_ftz(check_patterns("fp_add_ftz x", x, fmt), check_patterns("fp_add_ftz y", y, fmt),
                    fmt)


@functools.partial(jax.jit, static_argnames=("fmt",))
def _add_ftz(x, y, fmt: Format):
    total = flush_operand(x, fmt) + flush_operand(y, fmt)
    total = jnp.where(jnp.isnan(total), jnp.inf, total)  # inf - inf: +inf, never NaN
    bits = from_float64(total, fmt).astype(jnp.uint64)
    magnitude = bits & ((1 << (fmt.width - 1)) - 1)
    tiny = magnitude < (1 << fmt.man_bits)  # exponent field 0: zero or subnormal
    return jnp.where(tiny, bits & (1 << (fmt.width - 1)), bits).astype(fmt.dtype)
