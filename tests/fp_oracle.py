"""An exact, slow, obviously-correct reference for the fused operations: exact rationals.

Written independently of lutcore.numerics: decode a pattern to an exact rational (gmpy2's mpq,
a drop-in for fractions.Fraction at twice the speed), add exactly, round once with textbook
IEEE 754 rules. Specials follow the hardware convention of the issue: any NaN
operand, inf*0 or inf-inf gives the canonical quiet NaN. The ``*_flags`` functions add the IEEE
754 status flags with RISC-V's choices (tininess after rounding; NV for inf*0 beside a quiet NaN).
"""

from __future__ import annotations

import functools

import numpy as np
from gmpy2 import mpq as Fraction

HALF = Fraction(1, 2)
NAN = "nan"  # a sentinel: test it with `is` (an mpq compared with a str takes ~5 us)


def fields(fmt):
    """(exp_bits, man_bits) of a lutcore FPFormat or a plain tuple."""
    return (fmt.exp_bits, fmt.man_bits) if hasattr(fmt, "exp_bits") else fmt


def value(bits: int, fmt):
    """Fraction, ('inf', sign) or NAN; zeros come back as (0, sign) to keep the sign of zero."""
    return _value(bits, *fields(fmt))


@functools.lru_cache(maxsize=1 << 16)  # the tests decode the same narrow patterns many times
def _value(bits: int, e: int, m: int):
    sign = (bits >> (e + m)) & 1
    biased = (bits >> m) & ((1 << e) - 1)
    frac = bits & ((1 << m) - 1)
    bias = (1 << (e - 1)) - 1
    if biased == (1 << e) - 1:
        return NAN if frac else ("inf", sign)
    if biased == 0:
        mag = Fraction(frac, 1) * Fraction(2) ** (1 - bias - m)
    else:
        mag = Fraction((1 << m) | frac, 1) * Fraction(2) ** (biased - bias - m)
    return (mag, sign) if mag == 0 else (-mag if sign else mag)


def round_fraction(x: Fraction, fmt, mode: str, sign_if_zero: int = 0) -> int:
    """Round a Fraction to a pattern of ``fmt`` (one IEEE rounding)."""
    e, m = fields(fmt)
    bias = (1 << (e - 1)) - 1
    emin, emax = 1 - bias, (1 << e) - 2 - bias
    sign = 1 if x < 0 else (sign_if_zero if x == 0 else 0)
    a = abs(x)
    if a == 0:
        return sign << (e + m)
    exp = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** exp > a:
        exp -= 1
    exp = max(exp, emin)
    ulp = Fraction(2) ** (exp - m)
    scaled = a / ulp
    n = scaled.numerator // scaled.denominator
    rem = scaled - n
    up = {
        "rne": rem > HALF or (rem == HALF and n % 2 == 1),
        "rtz": False,
        "rdn": rem > 0 and sign == 1,
        "rup": rem > 0 and sign == 0,
        "rmm": rem >= HALF,
        "rod": rem > 0 and n % 2 == 0,
    }[mode]
    n += up
    if n == 1 << (m + 1):
        n, exp = n >> 1, exp + 1
    if exp > emax:
        to_inf = {"rne": True, "rmm": True, "rtz": False, "rdn": sign == 1, "rup": sign == 0,
                  "rod": False}[mode]
        body = ((1 << e) - 1) << m if to_inf else (((1 << e) - 1) << m) - 1
        return (sign << (e + m)) | body
    field = exp + bias if n >> m else 0
    return (sign << (e + m)) | (field << m) | (n & ((1 << m) - 1))


def qnan(fmt) -> int:
    e, m = fields(fmt)
    return (((1 << e) - 1) << m) | (1 << (m - 1))


def inf(fmt, sign) -> int:
    e, m = fields(fmt)
    return (sign << (e + m)) | (((1 << e) - 1) << m)


def _product(x, y):
    if x is NAN or y is NAN:
        return NAN
    xinf, yinf = isinstance(x, tuple) and x[0] == "inf", isinstance(y, tuple) and y[0] == "inf"
    xs = x[1] if isinstance(x, tuple) else int(x < 0)
    ys = y[1] if isinstance(y, tuple) else int(y < 0)
    if xinf or yinf:
        other = y if xinf else x
        if isinstance(other, tuple) and other[0] == 0:
            return NAN
        return ("inf", xs ^ ys)
    xv = x[0] if isinstance(x, tuple) else x
    yv = y[0] if isinstance(y, tuple) else y
    p = xv * yv
    return (Fraction(0), xs ^ ys) if p == 0 else p


def fused_sum(terms, dst, mode: str) -> int:
    """Round the exact sum of ``terms`` (values from ``value``/products) once into ``dst``."""
    if any(t is NAN for t in terms):
        return qnan(dst)
    infs = {t[1] for t in terms if isinstance(t, tuple) and t[0] == "inf"}
    if len(infs) == 2:
        return qnan(dst)
    if infs:
        return inf(dst, infs.pop())
    total = sum((t[0] if isinstance(t, tuple) else t) for t in terms)
    if total != 0:
        return round_fraction(total, dst, mode)
    zero_signs = [t[1] for t in terms if isinstance(t, tuple)]
    if len(zero_signs) == len(terms) and len(set(zero_signs)) == 1:
        return round_fraction(Fraction(0), dst, mode, zero_signs[0])
    return round_fraction(Fraction(0), dst, mode, int(mode == "rdn"))


def exsdotp(a, b, c, d, e, src, dst, mode="rne") -> int:
    return fused_sum([_product(value(a, src), value(b, src)),
                      _product(value(c, src), value(d, src)), value(e, dst)], dst, mode)


def exfma(a, b, c, src, dst, mode="rne") -> int:
    return fused_sum([_product(value(a, src), value(b, src)), value(c, dst)], dst, mode)


def vsum(a, c, e, src, dst, mode="rne") -> int:
    return fused_sum([value(a, src), value(c, src), value(e, dst)], dst, mode)


# ------------------------------------------------------------------------------------------------
# Status flags: (NV, DZ, OF, UF, NX) packed as bits 4..0, as RISC-V's fflags.

NV, OF, UF, NX = 0x10, 0x04, 0x02, 0x01


def signalling(bits: int, fmt) -> bool:
    """A NaN pattern with its quiet bit (the fraction's MSB) clear."""
    e, m = fields(fmt)
    return value(bits, fmt) is NAN and not (bits >> (m - 1)) & 1


def is_zero(v) -> bool:
    return isinstance(v, tuple) and v[0] == 0


def is_inf(v) -> bool:
    return isinstance(v, tuple) and v[0] == "inf"


def rounding_flags(x: Fraction, fmt, mode: str) -> int:
    """OF, UF, NX of rounding the finite non-zero ``x`` into ``fmt``. Overflow and tininess
    come from rounding to the same precision with two more exponent bits (no overflow, no
    subnormals for our values: the unbounded exponent range of IEEE 754-2019 7.4, 7.5)."""
    e, m = fields(fmt)
    delivered = value(round_fraction(x, fmt, mode), fmt)
    if is_inf(delivered):
        return OF | NX
    unbounded = value(round_fraction(x, (e + 2, m), mode), (e + 2, m))
    largest = value((((1 << e) - 1) << m) - 1, fmt)
    smallest_normal = value(1 << m, fmt)
    flags = 0
    if abs(unbounded) > largest:
        flags |= OF | NX
    inexact = (delivered[0] if isinstance(delivered, tuple) else delivered) != x
    if inexact:
        flags |= NX
        if abs(unbounded) < smallest_normal:
            flags |= UF
    return flags


def fused_sum_flags(terms, dst, mode: str, invalid: bool) -> tuple[int, int]:
    """``fused_sum`` and its flags; ``invalid``: an operand was a signalling NaN or a product
    was inf*0 (NV whatever else the terms hold)."""
    bits = fused_sum(terms, dst, mode)
    infs = {t[1] for t in terms if is_inf(t)}
    nan = any(t is NAN for t in terms)
    if nan or infs:
        return bits, NV if invalid or (len(infs) == 2 and not nan) else 0
    total = sum((t[0] if isinstance(t, tuple) else t) for t in terms)
    return bits, 0 if total == 0 else rounding_flags(total, dst, mode)


def exsdotp_flags(a, b, c, d, e, src, dst, mode="rne") -> tuple[int, int]:
    va, vb, vc, vd, ve = value(a, src), value(b, src), value(c, src), value(d, src), value(e, dst)
    inf_zero = any((is_inf(x) and is_zero(y)) or (is_zero(x) and is_inf(y))
                   for x, y in ((va, vb), (vc, vd)))
    invalid = inf_zero or any(signalling(x, src) for x in (a, b, c, d)) or signalling(e, dst)
    return fused_sum_flags([_product(va, vb), _product(vc, vd), ve], dst, mode, invalid)


def vsum_flags(a, c, e, src, dst, mode="rne") -> tuple[int, int]:
    invalid = signalling(a, src) or signalling(c, src) or signalling(e, dst)
    return fused_sum_flags([value(a, src), value(c, src), value(e, dst)], dst, mode, invalid)


def same_values(got, want) -> bool:
    """Arrays of equal values, zeros of equal sign, NaN where the other has NaN (any payload)."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return bool(np.all((got == want) & (np.signbit(got) == np.signbit(want))
                       | (np.isnan(got) & np.isnan(want))))
