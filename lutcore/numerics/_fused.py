"""Fused multi-term floating-point operations, bit-exact: exact sum, one rounding.

``exsdotp`` (a*b + c*d + e), ``exfma`` (a*b + c), ``exvsum`` (a + c + e, expanding) and ``vsum``
(a + c + e, non-expanding) all reduce to one kernel, :func:`_sum3_round`: up to three exact terms
(integer significand * 2^exponent), summed in a fixed-width integer window and rounded once.

The window (why a 64-bit integer suffices for an exact result). Normalize every term to a
C-bit significand (C = the widest term) at exponent x, and sort so |T1| >= |T2| >= |T3|.
Let G = max(2, p_dst + 2 - C) and R = x1 - G.
* *far*: T2 sits wholly below R (x2 + C + 1 <= R). Then |T2 + T3| < 2^R is far below the
  guard bit of the result, and only its sign matters: the result is T1 plus a round-to-odd
  jam bit (+1 / -1 / 0 from the exact sign of T2 + T3).
* *near*: otherwise. T1 and T2 are exact in a window whose LSB is L = R - C. T3 is exact there
  too, or is cut at L with floor and a sticky bit. If T1 + T2 != 0 it is at least 2^(x1 - 1),
  so the cut lies below the result's guard bit (round to odd again); if T1 + T2 == 0 the
  result is T3, exactly.
Both cases give a round-to-odd integer of at most G + 2C + 3 bits (53 for FP16->FP32), which
``round_with_flags`` rounds correctly in any mode, with IEEE 754 flags.

``model="rtl"`` swaps this kernel for the bit-level model of FPnew's datapath (``_rtl.py``);
specials (NaN, inf, inf*0) and the NV flag are common to both models.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .. import _checks as check
from . import _rtl
from ._formats import (
    FLAG_NV,
    FORMATS,
    Format,
    as_format,
    bit_length,
    check_patterns,
    decode,
    encode_special,
    is_rounding,
    round_with_flags,
    rounding_code,
)

# (src, dst) pairs of the MiniFloat-NN ExSdotp / ExVsum instructions (paper Table I).
EXPANDING_PAIRS: tuple[tuple[str, str], ...] = (
    ("fp8", "fp16"), ("fp8", "fp16alt"), ("fp8alt", "fp16"), ("fp8alt", "fp16alt"),
    ("fp16", "fp32"), ("fp16alt", "fp32"), ("fp8", "fp32"), ("fp8alt", "fp32"),
)
# Formats of the non-expanding Vsum instruction (8, 16 and 32 bit, paper Sec. III-C).
VSUM_FORMATS: tuple[str, ...] = ("fp8", "fp8alt", "fp16", "fp16alt", "fp32")
# "ideal": exact sum, one rounding (the paper's unit); "rtl": FPnew's datapath, bit for bit.
MODELS: tuple[str, ...] = ("ideal", "rtl")

_WINDOW_BITS = 63          # the int64 window holds magnitudes below 2^63
_ABSENT = -(1 << 20)       # exponent given to zero terms so they sort last


class Term(NamedTuple):
    """One exact addend: (-1)^sign * sig * 2^exp, or a special (inf, NaN)."""

    sign: jnp.ndarray
    sig: jnp.ndarray
    exp: jnp.ndarray
    is_inf: jnp.ndarray
    is_nan: jnp.ndarray
    invalid: jnp.ndarray  # raises NV by itself: a signalling NaN operand or inf * 0
    width: int  # static: significand bits this term can have


def _signalling(bits, u, fmt: Format):
    """NaNs whose quiet bit (the fraction's MSB) is clear."""
    quiet = (jnp.asarray(bits).astype(jnp.uint64) >> (fmt.man_bits - 1)) & 1
    return u.is_nan & (quiet == 0)


def value_term(bits, fmt: Format) -> Term:
    u = decode(bits, fmt)
    return Term(u.sign, u.sig, u.exp, u.is_inf, u.is_nan, _signalling(bits, u, fmt),
                fmt.precision)


def product_term(a_bits, b_bits, fmt: Format) -> Term:
    """The exact product of two ``fmt`` values (inf * 0 is NaN)."""
    a, b = decode(a_bits, fmt), decode(b_bits, fmt)
    a_zero = (a.sig == 0) & ~a.is_inf & ~a.is_nan
    b_zero = (b.sig == 0) & ~b.is_inf & ~b.is_nan
    inf_times_zero = (a.is_inf & b_zero) | (b.is_inf & a_zero)
    nan = a.is_nan | b.is_nan | inf_times_zero
    invalid = _signalling(a_bits, a, fmt) | _signalling(b_bits, b, fmt) | inf_times_zero
    return Term(a.sign ^ b.sign, a.sig * b.sig, a.exp + b.exp,
                (a.is_inf | b.is_inf) & ~nan, nan, invalid, 2 * fmt.precision)


def _window_gap(width: int, dst: Format) -> int:
    """G of the module docstring; checks that the window fits 64-bit integers."""
    gap = max(2, dst.precision + 2 - width)
    if gap + 2 * width + 3 > _WINDOW_BITS:
        raise ValueError(f"terms of {width} bits rounded to {FORMATS.label(dst)} need a "
                         f"{gap + 2 * width + 3}-bit window; at most {_WINDOW_BITS} fit")
    return gap


def _sort3(keys, *fields):
    """Sort three-element tuples of arrays by ``keys``, descending (a 3-comparator network)."""
    rows = [list(x) for x in zip(keys, *fields)]

    def swap(i, j):
        take = rows[i][0] < rows[j][0]
        rows[i], rows[j] = ([jnp.where(take, y, x) for x, y in zip(rows[i], rows[j])],
                            [jnp.where(take, x, y) for x, y in zip(rows[i], rows[j])])

    swap(0, 1)
    swap(1, 2)
    swap(0, 1)
    return [list(col) for col in zip(*rows)]


def _sum3_round(terms: tuple[Term, ...], dst: Format, rounding):
    """Sum three exact finite terms, round once: (``dst`` patterns, flags) (module docstring)."""
    width = max(t.width for t in terms)
    gap = _window_gap(width, dst)

    # Normalize each significand to exactly `width` bits; zeros get an absent exponent.
    signs, sigs, exps = [], [], []
    for t in terms:
        sig = jnp.asarray(t.sig, jnp.int64)
        lift = width - bit_length(sig)
        zero = sig == 0
        signs.append(jnp.asarray(t.sign, bool))
        sigs.append(sig << jnp.where(zero, 0, lift))
        exps.append(jnp.where(zero, _ABSENT, t.exp - lift))
    # Same exponent and width-bit significands: magnitude order is (exp, sig) order.
    keys = [((x - _ABSENT) << (width + 1)) | m for x, m in zip(exps, sigs)]
    keys, (s1, s2, s3), (m1, m2, m3), (x1, x2, x3) = _sort3(keys, signs, sigs, exps)
    v1, v2, v3 = (jnp.where(s, -m, m) for s, m in ((s1, m1), (s2, m2), (s3, m3)))

    # far: T1 plus the exact sign of T2 + T3 as a jam bit, LSB at R - 1.
    r = x1 - gap
    far = x2 + width + 1 <= r
    cancel = (keys[1] == keys[2]) & (s2 != s3)
    jam = jnp.where((m2 == 0) | cancel, 0, jnp.where(s2, -1, 1))
    n_far = (v1 << (gap + 1)) + jam

    # near: T1 + T2 exact with LSB at L; T3 exact or floored at L with a sticky bit.
    low = r - width
    v12 = (v1 << jnp.clip(x1 - low, 0, 62)) + (v2 << jnp.clip(x2 - low, 0, 62))
    up3 = jnp.clip(x3 - low, 0, 62)
    down3 = jnp.clip(low - x3, 0, 62)
    q3 = (v3 << up3) >> down3
    sticky3 = (m3 & ((jnp.int64(1) << down3) - 1)) != 0
    n_near = 2 * (v12 + q3) + sticky3.astype(jnp.int64)
    only3 = v12 == 0  # T1 + T2 cancelled exactly: the result is T3 itself

    n = jnp.where(far, n_far, jnp.where(only3, v3, n_near))
    lsb = jnp.where(far, r - 1, jnp.where(only3, x3, low - 1))

    # An exact zero is +0 (-0 when rounding down), or the common sign of all-zero terms.
    all_zero = m1 == 0
    zero_sign = jnp.where(all_zero & s1 & s2 & s3, True,
                          jnp.where(all_zero & ~(s1 | s2 | s3), False,
                                    is_rounding(rounding, "rdn")))
    sign = jnp.where(n == 0, zero_sign, n < 0)
    return round_with_flags(sign, jnp.abs(n), lsb, dst, rounding)


class Outputs(NamedTuple):
    """What a kernel computes; each caller asks for the fields it needs (the rest is pruned)."""

    bits: jnp.ndarray          # dst patterns
    flags: jnp.ndarray         # uint8: NV, DZ, OF, UF, NX as bits 4..0 (RISC-V fflags)
    first_sticky: jnp.ndarray  # rtl only: the first adder folded bits into its sticky bit


def _any(masks):
    return functools.reduce(jnp.logical_or, masks)


def _sum3(terms: tuple[Term, ...], products: tuple[bool, ...], dst: Format, rounding,
          model: str, lane) -> Outputs:
    """Either model's finite result, then the specials both share (fpnew_sdotp_multi's rules:
    any NaN, inf*0 or inf-inf gives the canonical NaN; NV for inf*0 even beside a quiet NaN,
    for signalling NaNs and for inf-inf; inf results are exact)."""
    if len(terms) == 2:  # a zero third term with the second's sign keeps IEEE's zero-sign rule
        last = terms[1]
        terms = (*terms, last._replace(sig=jnp.zeros_like(last.sig), is_inf=False, is_nan=False,
                                       invalid=False))
        products = (*products, products[1])
    if model == "ideal":
        bits, flags = _sum3_round(terms, dst, rounding)
        first_sticky = jnp.zeros(bits.shape, bool)
    else:
        bits, flags, first_sticky = _rtl.sum3(terms, products, dst, lane, rounding)

    nan = _any([t.is_nan for t in terms])
    pos_inf = _any([t.is_inf & ~t.sign for t in terms])
    neg_inf = _any([t.is_inf & t.sign for t in terms])
    invalid = _any([t.invalid for t in terms]) | (pos_inf & neg_inf & ~nan)
    special = nan | pos_inf | neg_inf
    bits = encode_special(nan | (pos_inf & neg_inf), pos_inf | neg_inf, neg_inf, bits, dst)
    flags = jnp.where(special, jnp.where(invalid, FLAG_NV, 0), flags).astype(jnp.uint8)
    return Outputs(bits, flags, first_sticky & ~special)


def _check_pair(src: Format, dst: Format, op: str):
    """Named formats must form a pair of the MiniFloat-NN ISA; custom Formats any that fit."""
    pair = FORMATS.label(src), FORMATS.label(dst)
    if pair[0] in FORMATS and pair[1] in FORMATS and pair not in EXPANDING_PAIRS:
        allowed = ", ".join(f"{s}->{d}" for s, d in EXPANDING_PAIRS)
        raise ValueError(f"{op}: {pair[0]}->{pair[1]} is not a MiniFloat-NN pair; "
                         f"allowed: {allowed}")


def _pick(out: Outputs, outputs: tuple[str, ...]):
    return out.bits if outputs == ("bits",) else tuple(getattr(out, f) for f in outputs)


# The rounding mode is a traced operand (a code of ROUNDING_MODES), as in FPnew, and every
# kernel returns all its ``Outputs`` (the wrappers pick): one compiled kernel per formats, model
# and lane serves all six modes and every public function of the unit.
_STATIC = ("src", "dst", "model", "lane")


@functools.partial(jax.jit, static_argnames=_STATIC)
def _exsdotp(a, b, c, d, e, src, dst, rounding, model, lane) -> Outputs:
    terms = (product_term(a, b, src), product_term(c, d, src), value_term(e, dst))
    return _sum3(terms, (True, True, False), dst, rounding, model, lane)


@functools.partial(jax.jit, static_argnames=_STATIC)
def _exfma(a, b, c, src, dst, rounding, model, lane) -> Outputs:
    return _sum3((product_term(a, b, src), value_term(c, dst)), (True, False), dst, rounding,
                 model, lane)


@functools.partial(jax.jit, static_argnames=_STATIC)
def _vsum(a, c, e, src, dst, rounding, model, lane) -> Outputs:
    terms = (value_term(a, src), value_term(c, src), value_term(e, dst))
    return _sum3(terms, (False, False, False), dst, rounding, model, lane)


def _operands(op: str, named):
    """Broadcast bit-pattern operands (name, patterns, format), each checked to be patterns of
    its format and cast to the format's unsigned dtype."""
    arrays = [jnp.asarray(check_patterns(f"{op} {name}", x, fmt)).astype(fmt.dtype)
              for name, x, fmt in named]
    return jnp.broadcast_arrays(*arrays)


def _kernel_args(src: Format, dst: Format, rounding, model: str, lane, op: str,
            vsum: bool = False) -> dict:
    """Checked keyword arguments of a kernel: the static formats, model and ``lane`` (resolved
    for the rtl model only) and the rounding mode's code, a traced operand."""
    if model not in MODELS:
        raise ValueError(f"{op}: unknown model {model!r}; allowed: {', '.join(MODELS)}")
    if model == "ideal" and lane is not None:
        raise ValueError(f"{op}: lane= selects an SDOTP lane of the rtl model; the ideal model "
                         "has none")
    if model == "rtl":
        lane = _rtl.resolve_lane(lane, src, dst, op, vsum)
    code = rounding_code(rounding)  # a name's code, or a code already traced (accumulate_dot)
    return dict(src=src, dst=dst, rounding=np.uint8(code) if isinstance(code, int) else code,
                model=model, lane=lane)


@check.entry
def exsdotp(a, b, c, d, e, *, src, dst, rounding="rne", model="ideal", lane=None):
    """Expanding sum of dot products a*b + c*d + e (``fpnew_sdotp``).

    ``a, b, c, d``: ``src`` bit patterns; ``e``: ``dst`` bit patterns (unsigned integer arrays,
    broadcast together). Returns ``dst`` patterns of the broadcast shape. ``src``/``dst``: format
    names or ``Format``. Any NaN, inf*0 or inf-inf gives ``dst``'s canonical quiet NaN.
    ``model``: "ideal" (exact sum, rounded once) or "rtl" (FPnew's datapath bit for bit, on
    ``lane`` "8->16" or "16->32", by default the narrowest lane that covers the formats).
    """
    return _exsdotp_outputs(a, b, c, d, e, src, dst, rounding, model, lane, ("bits",), "exsdotp")


@check.entry
def exsdotp_flags(a, b, c, d, e, *, src, dst, rounding="rne", model="ideal", lane=None):
    """``exsdotp`` and its status flags: (patterns, uint8 flags with NV, DZ, OF, UF, NX as bits
    4..0, RISC-V's fflags layout). The ideal model's flags are IEEE 754 with RISC-V's choices
    (tininess after rounding; NV for inf*0 even beside a quiet NaN); the rtl model's are FPnew's.
    """
    return _exsdotp_outputs(a, b, c, d, e, src, dst, rounding, model, lane, ("bits", "flags"),
                            "exsdotp")


@check.entry
def exsdotp_rtl_trace(a, b, c, d, e, *, src, dst, rounding="rne", lane=None) -> Outputs:
    """The rtl model's ``Outputs``: patterns, flags and whether the first adder folded bits of
    the intermediate addend into its sticky bit (the cause of most departures from IEEE)."""
    return Outputs(*_exsdotp_outputs(a, b, c, d, e, src, dst, rounding, "rtl", lane,
                                     Outputs._fields, "exsdotp"))


def _exsdotp_outputs(a, b, c, d, e, src, dst, rounding, model, lane, outputs, op):
    src, dst = as_format(src), as_format(dst)
    _check_pair(src, dst, op)
    ops = _operands(op, [("a", a, src), ("b", b, src), ("c", c, src), ("d", d, src),
                         ("e", e, dst)])
    return _pick(_exsdotp(*ops, **_kernel_args(src, dst, rounding, model, lane, op)), outputs)


@check.entry
def exfma(a, b, c, *, src, dst, rounding="rne"):
    """Expanding fused multiply-add a*b + c, one rounding; ``a, b`` in ``src``, ``c`` in ``dst``.

    With ``src == dst`` it is the plain IEEE fused multiply-add.
    """
    src, dst = as_format(src), as_format(dst)
    if src != dst:
        _check_pair(src, dst, "exfma")
    ops = _operands("exfma", [("a", a, src), ("b", b, src), ("c", c, dst)])
    return _exfma(*ops, **_kernel_args(src, dst, rounding, "ideal", None, "exfma")).bits


def exfma_cascade(a, b, c, d, e, *, src, dst, rounding="rne"):
    """a*b + c*d + e by two chained ExFMA units (paper Fig. 3): c*d + (a*b + e), two roundings."""
    first = exfma(a, b, e, src=src, dst=dst, rounding=rounding)
    return exfma(c, d, first, src=src, dst=dst, rounding=rounding)


def _unit_multipliers(a, src: Format):
    return jnp.full(jnp.shape(a), src.bias << src.man_bits, src.dtype)


@check.entry
def exvsum(a, c, e, *, src, dst, rounding="rne", model="ideal", lane=None):
    """Expanding vector sum a + c + e: ``a, c`` in ``src``, ``e`` in ``dst``. The unit runs it
    as ExSdotp with b = d = 1 (paper Sec. III-B), and so does this function."""
    one = _unit_multipliers(a, as_format(src))
    return _exsdotp_outputs(a, one, c, one, e, src, dst, rounding, model, lane, ("bits",),
                            "exvsum")


@check.entry
def exvsum_flags(a, c, e, *, src, dst, rounding="rne", model="ideal", lane=None):
    """``exvsum`` and its status flags, as ``exsdotp_flags``."""
    one = _unit_multipliers(a, as_format(src))
    return _exsdotp_outputs(a, one, c, one, e, src, dst, rounding, model, lane,
                            ("bits", "flags"), "exvsum")


@check.entry
def vsum(a, c, e, *, fmt, rounding="rne", model="ideal", lane=None):
    """Non-expanding three-term sum a + c + e, all in ``fmt``, rounded once (paper Eq. 6).
    ``model``/``lane`` as for ``exsdotp``; the unit reads all three in its destination fields."""
    return _vsum_outputs(a, c, e, fmt, rounding, model, lane, ("bits",))


@check.entry
def vsum_flags(a, c, e, *, fmt, rounding="rne", model="ideal", lane=None):
    """``vsum`` and its status flags, as ``exsdotp_flags``."""
    return _vsum_outputs(a, c, e, fmt, rounding, model, lane, ("bits", "flags"))


def _vsum_outputs(a, c, e, fmt, rounding, model, lane, outputs):
    fmt = as_format(fmt)
    label = FORMATS.label(fmt)
    if label in FORMATS and label not in VSUM_FORMATS:
        raise ValueError(f"vsum: {label} is not a Vsum format; allowed: {', '.join(VSUM_FORMATS)}")
    ops = _operands("vsum", [("a", a, fmt), ("c", c, fmt), ("e", e, fmt)])
    return _pick(_vsum(*ops, **_kernel_args(fmt, fmt, rounding, model, lane, "vsum", vsum=True)),
                 outputs)
