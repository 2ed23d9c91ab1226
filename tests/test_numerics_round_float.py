"""nm.round_float (two float additions) against the bit-level rounding of lutcore.numerics."""

import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lutcore.numerics as nm
from lutcore.numerics._formats import _rounds_by_addition

import fp_oracle as oracle

# (format, dtype of x) pairs that take the additions, not the bit-level fallback
BY_ADDITION = [(name, dtype) for name in sorted(nm.FORMATS) for dtype in (np.float32, np.float64)
               if _rounds_by_addition(nm.FORMATS[name], dtype)]


def _bit_level(x, fmt):
    with np.errstate(invalid="ignore"):  # widening a signalling NaN pattern raises "invalid"
        wide = np.asarray(x, np.float64)
    return np.asarray(nm.to_float64(nm.from_float64(wide, fmt), fmt))



def _traps(fmt, count=2048):
    """Where rounding goes wrong if done twice or with the wrong grid: each random finite value
    of ``fmt``, the tie between it and its upper neighbour, and that tie nudged either way by
    2^-20 of itself (float32 keeps it) and by 2^-40 (float32 rounds it back onto the tie:
    rounding twice through float32 goes wrong there); every exponent, subnormals and the
    overflow threshold (the tie above the largest value) included."""
    fmt = nm.FORMATS[fmt]
    patterns = np.random.default_rng(7).integers(0, 1 << (fmt.width - 1), count,
                                                 dtype=np.uint64)
    patterns = patterns[patterns < fmt.inf_bits].astype(fmt.dtype)
    values = np.asarray(nm.to_float64(patterns, fmt))
    above = np.where(patterns == fmt.max_bits, 2.0 ** (fmt.emax + 1),
                     np.asarray(nm.to_float64(patterns + 1, fmt)))
    ties = (values + above) / 2
    nudged = [ties * (1 + sign * 2.0 ** -bits) for sign in (1, -1) for bits in (20, 40)]
    both = np.concatenate([values, ties, *nudged])
    return np.concatenate([both, -both])


SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-300, -1e300,
                     1e-40, 3.4e38, -3.4028235e38, 1.0, -1.5])


def _inputs(fmt, dtype):
    rng = np.random.default_rng(3)
    if dtype == np.float64:
        patterns = rng.integers(0, 2 ** 64, 2 ** 16, dtype=np.uint64)
        exponent = rng.integers(1023 - 160, 1023 + 160, patterns.size).astype(np.uint64)
        banded = (patterns & np.uint64(0x800FFFFFFFFFFFFF)) | (exponent << np.uint64(52))
    else:
        patterns = rng.integers(0, 2 ** 32, 2 ** 16, dtype=np.uint32)
        exponent = rng.integers(127 - 40, 127 + 40, patterns.size).astype(np.uint32)
        banded = (patterns & np.uint32(0x807FFFFF)) | (exponent << np.uint32(23))
    with np.errstate(over="ignore"):  # float32: the float64-only magnitudes overflow to inf
        narrowed = [SPECIALS.astype(dtype), _traps(fmt).astype(dtype)]
    return np.concatenate([*narrowed, patterns.view(dtype), banded.view(dtype)])


def test_fp16_and_8_bit_formats_take_the_additions():
    assert {("fp16", np.float32), ("fp16", np.float64), ("fp16alt", np.float64),
            ("fp8", np.float32)} <= set(BY_ADDITION)


@pytest.mark.parametrize("fmt,dtype", BY_ADDITION)
def test_round_float_equals_bit_level_rounding(fmt, dtype):
    x = _inputs(fmt, dtype)
    got = nm.round_float(x, fmt)
    assert got.dtype == dtype
    assert oracle.same_values(got, _bit_level(x, fmt))


def _fixed_length(values, dtype, length=32):
    """The drawn values repeated to ``length``: rounding is elementwise, and one shape compiles
    once per format where each list length compiled its own programs (most of the time)."""
    return np.resize(np.array(values, dtype), length)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(nm.FORMATS)),
       st.lists(st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
                min_size=1, max_size=32))
def test_round_float_on_any_float64(fmt, values):
    x = _fixed_length(values, np.float64)
    assert oracle.same_values(nm.round_float(x, fmt), _bit_level(x, fmt))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["fp16", "fp8", "fp8alt"]),
       st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True, allow_subnormal=True),
                min_size=1, max_size=32))
def test_round_float_on_any_float32(fmt, values):
    x = _fixed_length(values, np.float32)
    assert oracle.same_values(nm.round_float(x, fmt), _bit_level(x, fmt))


def test_round_float_rejects_what_it_cannot_round():
    with pytest.raises(ValueError, match="pass float64"):
        nm.round_float(np.ones(2, np.float32), "fp16alt")
    with pytest.raises(ValueError, match="float32 or float64"):
        nm.round_float(np.ones(2, np.int32), "fp16")
    with pytest.raises(ValueError, match="unknown format .fp12.; known formats: fp64"):
        nm.round_float(np.ones(2), "fp12")
    assert jnp.isinf(nm.round_float(np.float64(65520.0), "fp16"))  # the tie above the largest
