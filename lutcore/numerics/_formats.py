"""Binary floating-point formats with IEEE-754 semantics, over raw bit patterns.

A value is carried as an unsigned integer bit pattern of its format. ``decode`` unpacks patterns
into exact integer (sign, significand, exponent) triples; ``round_to_format`` packs an exact (or
round-to-odd) integer magnitude back into a pattern under one of six rounding modes, and
``round_with_flags`` also returns the IEEE 754 status flags. Everything is element-wise jnp
code, so it jits and vmaps.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _checks as check
from ._format import _UINT, IEEE, Format, FormatSet

ROUNDING_MODES = ("rne", "rtz", "rdn", "rup", "rmm", "rod")
"""Round to nearest even, toward zero, down (-inf), up (+inf), to nearest ties away from zero,
and to odd (FPnew's ``ROD``, not an IEEE 754 mode: an inexact result gets LSB 1 and overflow
gives the largest finite value)."""

STATUS_FLAGS = ("NV", "DZ", "OF", "UF", "NX")
"""IEEE 754 status flags in the bit order of RISC-V's ``fflags``: NV is bit 4, NX bit 0."""
FLAG_NV, FLAG_DZ, FLAG_OF, FLAG_UF, FLAG_NX = 0x10, 0x08, 0x04, 0x02, 0x01

FPFormat = Format
"""The arithmetic here works on IEEE-convention ``Format`` records (the name FPnew's papers use)."""

# The formats of the MiniFloat-NN FPU, by FPnew's names (MiniFloat-NN paper, Sec. III-A): the
# formats this package supports by name; any other IEEE-convention ``Format`` works as a record.
FORMATS = FormatSet(("fp64", "fp32", "fp16", "fp16alt", "fp8", "fp8alt"),
                    means={"fp8": "fp8_e5m2"}, admits=lambda fmt: fmt.specials == IEEE)


def as_format(fmt: str | Format) -> Format:
    """Resolve a format name or pass a ``Format`` through; unknown names list the known ones,
    formats this arithmetic cannot model (OCP "fn", integers) are refused."""
    return FORMATS.lookup(fmt)


def check_patterns(name: str, bits, fmt: Format):
    """``bits`` checked as bit patterns of ``fmt`` (``_checks.patterns``), the format named
    as ``FORMATS`` calls it (fp8, not fp8_e5m2)."""
    return check.patterns(name, bits, fmt, label=FORMATS.label(fmt))


def check_rounding(rounding: str) -> str:
    if rounding not in ROUNDING_MODES:
        raise ValueError(f"unknown rounding mode {rounding!r}; "
                         f"allowed: {', '.join(ROUNDING_MODES)}")
    return rounding


def rounding_code(rounding):
    """A rounding mode as its index in ``ROUNDING_MODES``: a name (checked) gives a Python int;
    a code array (a traced jit argument: one compiled kernel serves every mode, as in FPnew,
    where the mode is an operand) is returned as it is."""
    if isinstance(rounding, str):
        return ROUNDING_MODES.index(check_rounding(rounding))
    return rounding


def is_rounding(rounding, name: str):
    """Whether ``rounding`` (a name or a code array) is the mode ``name``."""
    return rounding_code(rounding) == ROUNDING_MODES.index(name)


def by_rounding(rounding, choices: dict):
    """``choices[mode]`` for the mode ``rounding`` (a name or a code array); ``choices`` maps
    every name of ``ROUNDING_MODES`` to a value or array. A named mode picks its entry; a
    code array selects elementwise among all of them (the same values, bit for bit)."""
    code = rounding_code(rounding)
    if isinstance(code, int):
        return choices[ROUNDING_MODES[code]]
    return jnp.select([code == i for i in range(len(ROUNDING_MODES))],
                      [jnp.asarray(choices[m]) for m in ROUNDING_MODES])


class Unpacked(NamedTuple):
    """Bit patterns unpacked into exact integers: a finite value is (-1)^sign * sig * 2^exp.

    All fields have the patterns' shape. ``sig`` is int64 (0 for zeros), ``exp`` int64.
    """

    sign: jnp.ndarray
    sig: jnp.ndarray
    exp: jnp.ndarray
    is_inf: jnp.ndarray
    is_nan: jnp.ndarray


@check.entry
def decode(bits, fmt: str | Format) -> Unpacked:
    """Unpack ``fmt`` bit patterns (any unsigned integer array) into exact integer fields."""
    fmt = as_format(fmt)
    b = jnp.asarray(check_patterns("decode bits", bits, fmt)).astype(jnp.uint64)
    man_mask = (1 << fmt.man_bits) - 1
    exp_mask = (1 << fmt.exp_bits) - 1
    sign = ((b >> (fmt.width - 1)) & 1).astype(bool)
    biased = ((b >> fmt.man_bits) & exp_mask).astype(jnp.int64)
    frac = (b & man_mask).astype(jnp.int64)
    special = biased == exp_mask
    sig = jnp.where(biased == 0, frac, frac | (1 << fmt.man_bits))
    exp = jnp.maximum(biased, 1) - fmt.bias - fmt.man_bits
    return Unpacked(sign, jnp.where(special, 0, sig), exp,
                    special & (frac == 0), special & (frac != 0))


def bit_length(x):
    """Number of significant bits of a non-negative int64 array (0 for 0)."""
    return 64 - lax.clz(x.astype(jnp.int64))


def rounding_increment(rounding, sign, lsb, guard, sticky):
    """Whether rounding adds one unit in the last place to a truncated magnitude.

    ``lsb``: the truncated magnitude's last bit; ``guard``: the first bit cut off; ``sticky``:
    any bit below it. The decision table of FPnew's ``fpnew_rounding`` (= IEEE 754 for the five
    IEEE modes), shared by the ideal and the RTL model. Boolean arrays in, boolean array out;
    ``rounding`` a mode name or a code array (``rounding_code``).
    """
    inexact = guard | sticky
    return by_rounding(rounding, {"rne": guard & (sticky | lsb), "rtz": jnp.zeros_like(inexact),
                                  "rdn": inexact & sign, "rup": inexact & ~sign, "rmm": guard,
                                  "rod": inexact & ~lsb})


def _round_at(sign, mag, lsb_exp, q, rounding):
    """Round mag * 2^lsb_exp to a multiple of 2^q: (kept in 2^q units, round-up bit, inexact)."""
    shift = q - lsb_exp
    right = jnp.clip(shift, 0, 64)                # 64: everything shifts out (mag < 2^63)
    left = jnp.clip(-shift, 0, 63)
    kept = jnp.where(right >= 64, 0, (mag >> jnp.minimum(right, 63)) << left)
    guard_pos = jnp.maximum(right - 1, 0)
    guard = (right >= 1) & (((mag >> guard_pos) & 1) == 1)
    sticky = (right >= 1) & ((mag & ((jnp.int64(1) << guard_pos) - 1)) != 0)
    up = rounding_increment(rounding, sign, (kept & 1) == 1, guard, sticky)
    return kept, up.astype(jnp.int64), guard | sticky


def round_with_flags(sign, mag, lsb_exp, fmt: str | Format, rounding: str = "rne"):
    """Round (-1)^sign * mag * 2^lsb_exp into ``fmt`` patterns; also return the status flags.

    ``mag``: int64 >= 0, < 2^63. Either exact, or *round-to-odd*: its LSB is 1 when the true
    magnitude lies strictly between ``mag - 1`` and ``mag + 1`` units, and that LSB sits at
    least two bits below the rounding position (below the guard bit). Under that condition the
    result equals the correctly rounded true value in every mode (Boldo & Melquiond, "When
    double rounding is odd", 2005). ``mag == 0`` gives a zero carrying ``sign``.
    Overflow gives inf or the largest finite value as the mode requires (IEEE 754-2019 7.4).

    Returns (patterns, flags): flags uint8 packed as ``STATUS_FLAGS`` (NX = 0x01). OF: the
    result rounded with an unbounded exponent exceeds the largest finite value; UF: the result
    is tiny *after* rounding (rounded to ``fmt``'s precision with an unbounded exponent, it is
    below 2^emin) and inexact, the choice RISC-V makes of IEEE 754-2019 7.5; NX: inexact or OF.
    """
    fmt = as_format(fmt)
    rounding = rounding_code(rounding)
    sign = jnp.asarray(sign, bool)
    mag = jnp.asarray(mag, jnp.int64)
    lsb_exp = jnp.asarray(lsb_exp, jnp.int64)
    p = fmt.precision
    q_min = fmt.emin - (p - 1)                    # exponent of the subnormal LSB
    top = lsb_exp + bit_length(mag) - 1           # exponent of the leading one
    q = jnp.where(mag == 0, q_min, jnp.maximum(top - (p - 1), q_min))  # the result's LSB
    kept, up, inexact = _round_at(sign, mag, lsb_exp, q, rounding)
    # A carry out of the significand bumps the exponent field by itself: pattern = field << m + sig.
    field = jnp.minimum(q - q_min, 1 << fmt.exp_bits)
    pattern = (field << fmt.man_bits) + kept + up
    overflow = pattern >= fmt.inf_bits
    overflow_to_inf = by_rounding(rounding, {"rne": True, "rmm": True, "rtz": False,
                                             "rod": False, "rdn": sign, "rup": ~sign})
    saturated = jnp.where(overflow_to_inf, fmt.inf_bits, fmt.max_bits)
    pattern = jnp.where(overflow, saturated, pattern).astype(jnp.uint64)
    pattern = pattern | (sign.astype(jnp.uint64) << (fmt.width - 1))

    # Tiny after rounding: only a value just below 2^emin can round up to it at precision p.
    kept_p, up_p, _ = _round_at(sign, mag, lsb_exp, top - (p - 1), rounding)
    tiny = (mag != 0) & ((top < fmt.emin - 1)
                         | ((top == fmt.emin - 1) & (kept_p + up_p < (1 << p))))
    flags = (jnp.where(overflow, FLAG_OF | FLAG_NX, 0) | jnp.where(inexact, FLAG_NX, 0)
             | jnp.where(tiny & inexact, FLAG_UF, 0))
    return pattern.astype(fmt.dtype), flags.astype(jnp.uint8)


def round_to_format(sign, mag, lsb_exp, fmt: str | Format, rounding: str = "rne"):
    """Round (-1)^sign * mag * 2^lsb_exp into ``fmt`` bit patterns (``round_with_flags``'s
    patterns; same conditions on ``mag``)."""
    return round_with_flags(sign, mag, lsb_exp, fmt, rounding)[0]


def encode_special(is_nan, is_inf, sign, finite_bits, fmt: Format):
    """Overlay NaN (canonical quiet NaN) and signed infinity on finite result patterns."""
    neg_inf = np.asarray((1 << (fmt.width - 1)) | fmt.inf_bits, fmt.dtype)
    inf = jnp.where(sign, neg_inf, np.asarray(fmt.inf_bits, fmt.dtype))
    out = jnp.where(is_inf, inf, finite_bits)
    return jnp.where(is_nan, jnp.asarray(fmt.qnan_bits, fmt.dtype), out)


@check.entry
def convert(bits, src: str | Format, dst: str | Format, rounding: str = "rne"):
    """Cast ``src`` bit patterns to ``dst`` patterns with one rounding (NaN -> canonical NaN)."""
    src = as_format(src)
    return _convert(jnp.asarray(check_patterns("convert bits", bits, src)), src, as_format(dst),
                    check_rounding(rounding))


@functools.partial(jax.jit, static_argnums=(1, 2, 3))
def _convert(bits, src: Format, dst: Format, rounding: str):
    u = decode(bits, src)
    finite = round_to_format(u.sign, u.sig, u.exp, dst, rounding)
    return encode_special(u.is_nan, u.is_inf, u.sign, finite, dst)


@check.entry
def to_float64(bits, fmt: str | Format):
    """Exact float64 values of ``fmt`` patterns (every format here fits float64 exactly)."""
    fmt = as_format(fmt)
    check_patterns("to_float64 bits", bits, fmt)
    return _to_float64(jnp.asarray(bits, jnp.uint64) if fmt.width == 64 else jnp.asarray(bits),
                       fmt)


# The conversions with their bit casts in one compiled program per format and shape: called
# eagerly, each cast was a program of its own to compile.
@functools.partial(jax.jit, static_argnums=(1,))
def _to_float64(bits, fmt: Format):
    if fmt.width == 64:
        return lax.bitcast_convert_type(bits, jnp.float64)
    return lax.bitcast_convert_type(convert(bits, fmt, FORMATS["fp64"]), jnp.float64)


def from_float64(x, fmt: str | Format, rounding: str = "rne"):
    """Round float64 values into ``fmt`` patterns (one rounding)."""
    return _from_float64(jnp.asarray(x, jnp.float64), as_format(fmt), check_rounding(rounding))


@functools.partial(jax.jit, static_argnums=(1, 2))
def _from_float64(x, fmt: Format, rounding: str):
    return convert(lax.bitcast_convert_type(x, jnp.uint64), FORMATS["fp64"], fmt, rounding)


def round_float(x, fmt: str | Format):
    """Float32 or float64 ``x`` rounded to nearest even into ``fmt``, as values of x's dtype:
    ``to_float64(from_float64(x, fmt), fmt)`` (NaN stays NaN, overflow gives +-inf, zeros keep
    their sign), by two float additions where x's dtype allows (``_rounds_by_addition``: for
    float32 x, formats of at most 21 fraction bits whose subnormals are float32 normals, e.g.
    FP16 and the 8-bit formats, not BF16), several times faster than the bit-level rounding.
    """
    x, fmt = jnp.asarray(x), as_format(fmt)
    if x.dtype not in (jnp.float32, jnp.float64):
        raise ValueError(f"round_float: x must be float32 or float64, got {x.dtype}")
    if x.dtype == jnp.float32 and not _rounds_by_addition(fmt, x.dtype):
        raise ValueError(f"round_float: {FORMATS.label(fmt)} does not fit float32 x's normal "
                         "range with two bits to spare; pass float64 x")
    return _round_float(x, fmt)


def _rounds_by_addition(fmt: Format, dtype) -> bool:
    """Whether ``_round_float``'s additions stay exact in ``dtype``: ``fmt`` has two significand
    bits fewer, and its grid's magic constants (1.5 x 2^(precision + quantum exponent)) are
    normal numbers of ``dtype``, from its smallest subnormal's quantum to its overflow's."""
    info = jnp.finfo(dtype)
    lowest, highest = fmt.emin - fmt.man_bits, fmt.emax + 1 - fmt.man_bits
    return (fmt.man_bits <= info.nmant - 2 and lowest + info.nmant >= info.minexp
            and highest + info.nmant + 1 < info.maxexp)


@functools.partial(jax.jit, static_argnums=(1,))
def _round_float(x, fmt: Format):
    if not _rounds_by_addition(fmt, x.dtype):
        return to_float64(from_float64(x, fmt), fmt).astype(x.dtype)
    info = jnp.finfo(x.dtype)
    uint = _UINT[info.bits]
    bits = lax.bitcast_convert_type(x, uint)
    exponent = ((bits >> info.nmant) & ((1 << info.nexp) - 1)).astype(jnp.int32) + info.minexp - 1
    # The grid x rounds onto: ulp of fmt at x's exponent (its subnormals' below emin; for
    # overflowing x, past emax, any grid: the result leaves the range).
    quantum = jnp.clip(exponent, fmt.emin, fmt.emax + 1) - fmt.man_bits
    # Adding 1.5 x 2^(quantum + precision) rounds to that grid, to nearest even (the constant
    # is an even multiple of the quantum and its binade's ulp is the quantum); subtracting it
    # back is exact.
    magic = lax.bitcast_convert_type(
        ((quantum + info.nmant - info.minexp + 1).astype(uint) << info.nmant)
        | uint(1 << (info.nmant - 1)), x.dtype)
    rounded = jnp.abs((x + magic) - magic)
    rounded = jnp.where(rounded > fmt.max_value, jnp.inf, rounded)
    return jnp.copysign(rounded, x)  # RNE keeps the sign; zeros take x's
