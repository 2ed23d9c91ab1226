"""The ExSdotp unit as FPnew's RTL computes it (``fpnew_sdotp_multi``, paper Sec. III-B).

A bit-level model of the finite datapath of one SDOTP lane, written from the public RTL
(pulp-platform/cvfpu ``pulp-v0.2.3`` = openhwgroup/cvfpu ``feature/expanding_dotp``,
``src/fpnew_sdotp_multi.sv`` and ``src/fpnew_rounding.sv``). With P = p_dst and S = p_src of the
lane (its widest formats, not the operation's):

1. Addends. Each product's 2*S-bit significand product sits at the top of a P-bit field; the
   accumulator (and the Vsum operands) at the top of theirs. Exponents are biased in the
   destination format; a zero product gets the exponent 2 - bias_dst, a zero value 1.
2. Sort by exponent only (not magnitude): max, int(ermediate), min; ties keep the order
   a*b, c*d, e.
3. First adder, 2P+3 bits: max << (P+3) +- int shifted right by the exponent difference; what
   falls below the window is ORed into one sticky bit. A subtraction with that sticky set
   truncates (no carry-in), and a negative sum is negated.
4. Second adder, widened by S bits: the first sum << S +- min shifted right from the first
   sum's exponent (again one sticky bit). If the first sum is an exact zero and min lost bits,
   min bypasses the adder.
5. Normalization by leading-zero count (capped at the subnormal exponent), a final 1-bit shift,
   and the sticky bit: sticky bits of both adders, cleared in two cases where the second adder
   reverses the first's direction (the "sticky overrides").
6. ``fpnew_rounding`` on the destination format; the sign of a result that rounds from below
   the smallest subnormal comes from exponent comparisons when the max addend is zero.
   UF is the rounded result's exponent field == 0 (and NX), not IEEE tininess.

Specials (NaN, inf, inf*0) are the same as the ideal model's and are handled by the caller.
Everything is element-wise jnp code on uint64 / int64 (the widest internal vector, the
normalizer's 2P+S+5 bits, is exactly 64 bits on the 16->32 lane).
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
from jax import lax

from .. import _checks as check
from ._formats import (
    FLAG_NX,
    FLAG_OF,
    FLAG_UF,
    FORMATS,
    Format,
    as_format,
    is_rounding,
    rounding_increment,
)
from ._units import SDOTP_LANES, SdotpLane, SdotpWidths, sdotp_widths

LANES = {lane.name: lane for lane in SDOTP_LANES}  # by name: "8->16", "16->32"


class RtlResult(NamedTuple):
    """Finite-path outputs of the datapath, all of the operands' shape."""

    bits: jnp.ndarray          # dst patterns
    flags: jnp.ndarray         # uint8, packed like STATUS_FLAGS
    first_sticky: jnp.ndarray  # bool: the first adder folded bits of int into its sticky bit


def lane_widths(lane: SdotpLane | str) -> SdotpWidths:
    """The internal widths of a lane (``SdotpLane`` or its name), from its widest source and
    destination formats."""
    lane = check.named(LANES, lane, what="SDOTP lane", record=SdotpLane)
    _, src_man = lane._fields(lane.src_formats)
    dst_exp, dst_man = lane._fields(lane.dst_formats)
    return sdotp_widths(src_man, dst_man, dst_exp)


def _covers(lane: SdotpLane, src: Format, dst: Format, vsum: bool) -> bool:
    """Vsum reads all three operands in the destination fields; the others need ``covers``."""
    if not vsum:
        return lane.covers(src, dst)
    exp_bits, man_bits = lane._fields(lane.dst_formats)
    return dst.exp_bits <= exp_bits and dst.man_bits <= man_bits


def resolve_lane(lane, src: Format, dst: Format, op: str, vsum: bool = False) -> SdotpLane:
    """The SDOTP lane that runs ``op`` on src -> dst: ``lane`` by name ("8->16", "16->32") or
    ``SdotpLane``, or by default the narrowest lane that covers the formats."""
    fitting = [x for x in SDOTP_LANES if _covers(x, src, dst, vsum)]
    pair = f"{FORMATS.label(src)}->{FORMATS.label(dst)}"  # the names the caller used
    if not fitting:
        raise ValueError(f"{op}: no SDOTP lane covers {pair}; lanes: "
                         f"{', '.join(x.name for x in SDOTP_LANES)}")
    if lane is None:
        return fitting[0]
    chosen = lane if isinstance(lane, SdotpLane) else LANES.get(lane)
    if chosen not in fitting:
        raise ValueError(f"{op}: lane {lane!r} cannot run {pair}; lanes that can: "
                         f"{', '.join(x.name for x in fitting)}")
    return chosen


def _mask(n: int):
    return jnp.uint64((1 << n) - 1)


def _shl(x, n):
    """x << n on uint64 for any int64 n >= 0 (0 from 64 on)."""
    return jnp.where(n >= 64, jnp.uint64(0), x << jnp.clip(n, 0, 63).astype(jnp.uint64))


def _shr(x, n):
    """x >> n on uint64 for any int64 n >= 0 (0 from 64 on)."""
    return jnp.where(n >= 64, jnp.uint64(0), x >> jnp.clip(n, 0, 63).astype(jnp.uint64))


def _align(mant, shamt, top: int):
    """Right-shift a field that starts with its LSB at bit ``top`` of a window by ``shamt``:
    (the bits left in the window, whether any bit fell below bit 0). Models the RTL's
    ``{window, sticky_bits} = (mant << top') >> shamt`` without the 75-bit intermediate."""
    inside = jnp.where(shamt <= top, _shl(mant, top - shamt), _shr(mant, shamt - top))
    lost = (shamt > top) & ((mant & (_shl(jnp.uint64(1), shamt - top) - 1)) != 0)
    return inside, lost


def _by_exponent(exps, *fields):
    """fpnew's addend sort: descending exponent, ties in operand order (exponent_cmp table)."""
    ex, ey, ez = exps
    xy, xz, yz = ex >= ey, ex >= ez, ey >= ez
    ranks = ((~xy).astype(int) + (~xz), xy.astype(int) + (~yz), xz.astype(int) + yz)
    return [[jnp.where(ranks[0] == k, f[0], jnp.where(ranks[1] == k, f[1], f[2]))
             for k in range(3)] for f in (exps, *fields)]


def _addend(term, product: bool, dst: Format, p_dst: int):
    """A Term as the RTL's addend: (sign, P-bit significand, biased exponent, is_zero)."""
    zero = term.sig == 0
    mant = term.sig.astype(jnp.uint64) << (p_dst - term.width)  # left-aligned in P bits
    exp = term.exp + dst.bias + term.width - 1                   # MSB weight 2^(exp - bias)
    if product:  # fpnew_sdotp_multi: "in case the product is zero, set minimum exp."
        exp = jnp.where(zero, 2 - dst.bias, exp)
    return jnp.asarray(term.sign, bool), mant, exp, zero


def sum3(terms, products: tuple[bool, bool, bool], dst: Format, lane: SdotpLane,
         rounding) -> RtlResult:
    """The finite datapath on addends x, y, z (a*b or a, c*d or c, e) of ``Term`` type.

    ``products``: static, which terms come out of the multipliers (their zero exponent differs).
    """
    dst = as_format(dst)
    widths = lane_widths(lane)
    p_src, p = widths.p_src, widths.p_dst
    w1 = widths.first_adder   # first adder (addend_max_shifted)
    w2 = widths.second_adder  # second adder (mantissa_w_shifted), widened by p_src
    one = jnp.uint64(1)
    signs, mants, exps, zeros = zip(*(_addend(t, f, dst, p) for t, f in zip(terms, products)))
    exps, signs, mants, zeros = _by_exponent(exps, signs, mants, zeros)
    (e_max, e_int, e_min), (s_max, s_int, s_min) = exps, signs
    (m_max, m_int, m_min), (z_max, z_int, z_min) = mants, zeros

    # First adder: max + int, int right-shifted by the exponent difference (capped at 2P+3).
    int_aligned, sticky1 = _align(m_int, jnp.minimum(e_max - e_int, w1), p + 3)
    sub1 = s_max ^ s_int
    raw1 = ((m_max << (p + 3)) + jnp.where(sub1, ~int_aligned & _mask(w1), int_aligned)
            + (sub1 & ~sticky1).astype(jnp.uint64))
    carry1 = ((raw1 >> w1) & one) == 1
    sum1 = jnp.where(sub1 & ~carry1, -raw1, raw1) & _mask(w1)
    zero1 = (sum1 == 0) & carry1 & ~sticky1 & sub1
    sign1 = jnp.where(zero1, is_rounding(rounding, "rdn"), jnp.where(sub1, carry1 == s_max, s_max))

    # Sign of a result that rounds from below the smallest subnormal when max is zero.
    both = jnp.where(s_max, s_int | s_min, s_int & s_min)
    int_wins = (e_int > e_min) | (m_int > m_min)
    sign_zero = jnp.select(
        [z_max & ~z_int & ~z_min, z_max & z_int & ~z_min, z_max & z_int & z_min,
         z_max & ~z_int & z_min],
        [jnp.where(int_wins, s_int, jnp.where(m_int == m_min, both, s_min)), s_min, both, s_int],
        s_max)

    # Second adder: first sum << p_src + min, min shifted from the first sum's exponent.
    e_w = e_max + 1
    min_aligned, sticky2 = _align(m_min, jnp.minimum(e_w - e_min, w2), p + p_src + 4)
    bypass = zero1 & ~z_min & sticky2  # exact-zero first sum: min is the result
    mant_w = (carry1 & ~sub1).astype(jnp.uint64) << w1 | sum1
    sign_t = jnp.where(bypass, s_min, sign1)
    sub2 = s_min ^ sign_t
    raw2 = jnp.where(
        bypass,
        _shr(m_min << (p + p_src + 4), jnp.where(e_min > 0, 0, 1 - e_min)),
        (mant_w << p_src) + jnp.where(sub2, ~min_aligned & _mask(w2), min_aligned)
        + (sub2 & ~sticky2).astype(jnp.uint64))
    carry2 = ((raw2 >> w2) & one) == 1
    sum2 = jnp.where(sub2 & ~carry2, -raw2, raw2) & _mask(w2)
    sign2 = jnp.where(sub2, carry2 == sign_t, sign_t)
    e_tent = jnp.where(bypass, jnp.maximum(e_min, 0), e_w)

    lower = (~sub2 & carry2).astype(jnp.uint64) << w2 | sum2
    e_fin, mantissa, low_bits = _normalize(widths, p, lower, e_tent)

    # Sticky bit, with the two overrides where the second adder reverses the first's direction.
    sticky = (low_bits != 0) | (sticky2 & ~bypass) | sticky1
    sticky &= ~(sticky1 & ~sticky2 & (low_bits == 0) & ~z_min & (sub1 != sub2))
    # A result rounding up from zero takes the sign the zero cases give it (``sign_zero``).
    bits, flags = _round(dst, p, e_fin, mantissa, sticky, rounding, sign2,
                         z_max, sign_zero, sub2)
    return RtlResult(bits, flags, sticky1)


def _normalize(widths, p: int, lower, e_tent):
    """(exponent, P + 1 kept mantissa bits: hidden one, P - 1 fraction, round; the bits below)
    of the second adder's sum ``lower`` at tentative exponent ``e_tent``: a leading-zero count
    over 2P+S+5 bits, capped at the subnormal exponent, then one correcting shift."""
    one, width, w2 = jnp.uint64(1), widths.normalizer, widths.second_adder
    lzc = lax.clz(lower).astype(jnp.int64) - (64 - width)
    normal = (e_tent - lzc + 1 > 0) & (lower != 0)
    shamt = jnp.where(normal, jnp.maximum(lzc - 1, 0), jnp.maximum(e_tent - 1, 0))
    e_norm = jnp.where(normal, jnp.where(lzc > 0, e_tent - lzc + 1, e_tent), 0)
    shifted = _shl(lower, shamt) & _mask(width)
    over = ((shifted >> w2) & one) == 1        # carry position: shift right once
    msb = ((shifted >> (w2 - 1)) & one) == 1   # normalized
    left = ~over & ~msb & (e_norm > 1)         # one short: shift left once
    kept = jnp.where(over, shifted >> 1, jnp.where(left, shifted << 1, shifted)) & _mask(w2)
    e_fin = jnp.where(over, e_norm + 1, jnp.where(msb, e_norm, jnp.where(left, e_norm - 1, 0)))
    low = p + widths.p_src + 3
    return e_fin, kept >> low, kept & _mask(low)


def _round(dst: Format, p: int, e_fin, mantissa, sticky, rounding, sign, z_max, sign_zero,
           sub2):
    """(bits, flags) of the normalized result rounded to ``dst`` (fpnew_rounding); overflow
    enters as max finite + R + S."""
    one = jnp.uint64(1)
    e_bits, m_bits = dst.exp_bits, dst.man_bits
    cut = p - 1 - m_bits                       # fraction bits the format drops, + the round bit
    of_before = e_fin >= (1 << e_bits) - 1
    pre_abs = jnp.where(of_before, jnp.uint64(dst.max_bits),
                        e_fin.astype(jnp.uint64) << m_bits
                        | ((mantissa >> (cut + 1)) & _mask(m_bits)))
    round_bit = (((mantissa >> cut) & one) == 1) | of_before
    sticky_bit = ((mantissa & _mask(cut)) != 0) | sticky | of_before
    inexact = round_bit | sticky_bit
    sign = jnp.where(z_max & (pre_abs == 0) & inexact, sign_zero, sign)
    rounded = pre_abs + rounding_increment(rounding, sign, (pre_abs & one) == 1, round_bit,
                                           sticky_bit).astype(jnp.uint64)
    sign = jnp.where((pre_abs == 0) & ~inexact & sub2, is_rounding(rounding, "rdn"), sign)
    field = (rounded >> m_bits) & _mask(e_bits)
    overflow = of_before | (field == _mask(e_bits))
    flags = (jnp.where(overflow, FLAG_OF | FLAG_NX, 0) | jnp.where(inexact, FLAG_NX, 0)
             | jnp.where((field == 0) & inexact, FLAG_UF, 0))
    bits = sign.astype(jnp.uint64) << (dst.width - 1) | rounded
    return bits.astype(dst.dtype), flags.astype(jnp.uint8)
