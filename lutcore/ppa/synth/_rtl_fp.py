"""Floating-point adders as Amaranth RTL, and the FP datapath pieces the FPnew units share.

``FPAdder`` is an IEEE 754 adder (subnormals, RNE, canonical NaN). ``FPAdderFTZ`` is an adder in
the manner of DesignWare's ``DW_fp_add`` with ``ieee_compliance = 0``, the adder of the LUT
Tensor Core's released array (``lutcore.ppa._release``): exponent-field-zero operands are zeros,
exponent-all-ones operands are infinities, tiny results flush to zero, no NaN ever comes out.
"""

from __future__ import annotations

from dataclasses import dataclass

from amaranth.hdl import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out


@dataclass(frozen=True)
class FPAdder:
    """IEEE binary floating-point adder, round to nearest even, with subnormals; a NaN operand
    or inf - inf gives the canonical quiet NaN. Combinational."""
    exp_bits: int = 5
    man_bits: int = 10


def leading_zeros(m: Module, bits) -> Signal:
    """Leading-zero count of a nonzero 2^j-bit value as a tree of 2-bit counters (the structure
    the model prices): each node gives (any bit set, count) and picks the high half's count
    unless that half is all zeros."""
    def count(value):
        if len(value) == 2:
            return value.any(), ~value[1]
        half = len(value) // 2
        high_any, high_count = count(value[half:])
        low_any, low_count = count(value[:half])
        return high_any | low_any, Cat(Mux(high_any, high_count, low_count), ~high_any)
    _, zeros = count(bits)
    result = Signal(len(zeros), name="leading_zeros")
    m.d.comb += result.eq(zeros)
    return result


def named(m: Module, value, name: str, shape=None) -> Signal:
    """``value`` on a signal called ``name`` (readable netlists and simulation traces)."""
    signal = Signal(shape if shape is not None else len(value), name=name)
    m.d.comb += signal.eq(value)
    return signal


GUARD_BITS = 3  # guard, round, sticky


def swap_by_magnitude(m: Module, a, b, magnitude_bits: int):
    """(big, small): the operands ordered so that big has the larger magnitude field."""
    swap = named(m, a[:magnitude_bits] < b[:magnitude_bits], "swap")
    return named(m, Mux(swap, b, a), "big"), named(m, Mux(swap, a, b), "small")


def align_add(m: Module, big_exp, small_exp, big_sig, small_sig, effective_subtract,
              exp_bits: int):
    """|big +- small| of two significands (hidden bit on top) in a window with guard, round
    and sticky bits below, the small one shifted right by the exponent difference: one adder
    with conditional inversion and carry-in (big >= small, so a subtraction's carry-out is
    dropped). Returns the window + 1 bits (carry on top)."""
    window = len(big_sig) + GUARD_BITS
    # A double-width window whose lower half catches every shifted-out bit for the sticky bit;
    # shifts >= window all go there.
    exp_difference = named(m, big_exp - small_exp, "exp_difference", exp_bits)
    align_shift = named(m, Mux(exp_difference >= window, window, exp_difference),
                        "align_shift", window.bit_length())
    shifted = named(m, Cat(Const(0, window + GUARD_BITS), small_sig) >> align_shift,
                    "shifted", 2 * window)
    sticky_in = shifted[window] | shifted[:window].any()
    small_window = named(m, Cat(sticky_in, shifted[window + 1:]), "aligned", window)
    big_window = Cat(Const(0, GUARD_BITS), big_sig)
    inverted = small_window ^ effective_subtract.replicate(window)
    carry_sum = named(m, big_window + inverted + effective_subtract, "carry_sum", window + 1)
    return named(m, Cat(carry_sum[:window], carry_sum[window] & ~effective_subtract), "total")


def round_fields(normalized, result_exp, exp_bits: int):
    """Round to nearest even a normalized window (hidden bit on top, then the fraction, guard,
    sticky bits) with exponent ``result_exp``: the +1 carries from the fraction into the
    exponent (subnormal -> smallest normal, all-ones fraction -> next binade, largest -> inf).
    Returns (exp_bits + man_bits field, hidden bit)."""
    window = len(normalized) - 1
    hidden = normalized[-1]
    fraction = normalized[GUARD_BITS + 1:window]
    guard = normalized[GUARD_BITS]
    sticky = normalized[:GUARD_BITS].any()
    round_up = guard & (sticky | fraction[0])
    exp_field = Mux(hidden, result_exp, 0)[:exp_bits]
    return Cat(fraction, exp_field) + round_up, hidden


class FPAdderRTL(wiring.Component):
    def __init__(self, spec: FPAdder):
        self.spec = spec
        width = 1 + spec.exp_bits + spec.man_bits
        super().__init__({"a": In(width), "b": In(width), "s": Out(width)})

    def elaborate(self, platform):
        e, f = self.spec.exp_bits, self.spec.man_bits
        magnitude_bits = e + f
        exp_all_ones = 2 ** e - 1
        window = f + 1 + GUARD_BITS   # significand with its hidden one, then G, R, S
        m = Module()
        big, small = swap_by_magnitude(m, self.a, self.b, magnitude_bits)
        big_exp_field, small_exp_field = big[f:magnitude_bits], small[f:magnitude_bits]
        big_normal, small_normal = big_exp_field.any(), small_exp_field.any()
        # Subnormals share the scale of the smallest normal exponent (1), without a hidden one.
        big_exp = named(m, Mux(big_normal, big_exp_field, 1), "big_exp", e)
        small_exp = named(m, Mux(small_normal, small_exp_field, 1), "small_exp", e)
        effective_subtract = named(m, self.a[-1] ^ self.b[-1], "effective_subtract")
        total = align_add(m, big_exp, small_exp, Cat(big[:f], big_normal),
                          Cat(small[:f], small_normal), effective_subtract, e)

        # Normalization: bring the leading one to the top (the carry position), but never
        # below the smallest normal exponent (subnormal results keep their leading zeros).
        # Padded to a power of two with a one at the bottom: a zero total still has a count.
        padded = Cat(Const(1, 2 ** (window + 1).bit_length() - window - 1), total)
        zeros = leading_zeros(m, padded)
        norm_shift = named(m, Mux(zeros <= big_exp, zeros, big_exp), "norm_shift", len(zeros))
        normalized = named(m, (total << norm_shift)[:window + 1], "normalized", window + 1)
        result_exp = named(m, big_exp + 1 - norm_shift, "result_exp", e + 1)
        field, hidden = round_fields(normalized, result_exp, e)
        rounded = named(m, field, "rounded", magnitude_bits)
        overflow = hidden & (result_exp >= exp_all_ones)
        exact_zero = ~total.any()
        sign = Mux(exact_zero & effective_subtract, 0, big[-1])
        infinity = Cat(Const(0, f), Const(exp_all_ones, e))
        finite_result = Cat(Mux(overflow, infinity, rounded), sign)

        # Specials: `big` is the NaN or the infinity if there is one; inf - inf is NaN.
        quiet_nan = Cat(Const(1 << (f - 1), f), Const(exp_all_ones, e), Const(0, 1))
        big_special = big_exp_field == exp_all_ones
        is_nan = big_special & (big[:f].any() |
                                ((small_exp_field == exp_all_ones) & effective_subtract))
        m.d.comb += self.s.eq(Mux(big_special, Mux(is_nan, quiet_nan, big), finite_result))
        return m


@dataclass(frozen=True)
class FPAdderFTZ:
    """Binary floating-point adder in the manner of DesignWare's ``DW_fp_add`` with
    ``ieee_compliance = 0`` and ``rnd = 0`` (round to nearest even), the adder of the LUT Tensor
    Core's released array: an operand whose exponent field is zero is a zero (subnormals are
    flushed), one whose exponent field is all ones an infinity (no NaN); a result below the
    smallest normal flushes to a zero of its sign; overflow gives infinity; inf - inf gives
    +inf (no NaN ever comes out). Matches ``lutcore.numerics.fp_add_ftz``. Combinational."""
    exp_bits: int = 5
    man_bits: int = 10


class FPAdderFTZRTL(wiring.Component):
    def __init__(self, spec: FPAdderFTZ):
        self.spec = spec
        width = 1 + spec.exp_bits + spec.man_bits
        super().__init__({"a": In(width), "b": In(width), "s": Out(width)})

    def elaborate(self, platform):
        e, f = self.spec.exp_bits, self.spec.man_bits
        magnitude_bits = e + f
        exp_all_ones = 2 ** e - 1
        window = f + 1 + GUARD_BITS
        m = Module()
        big, small = swap_by_magnitude(m, self.a, self.b, magnitude_bits)
        big_exp, small_exp = big[f:magnitude_bits], small[f:magnitude_bits]
        big_zero, small_zero = ~big_exp.any(), ~small_exp.any()
        big_inf, small_inf = big_exp.all(), small_exp.all()
        effective_subtract = named(m, self.a[-1] ^ self.b[-1], "effective_subtract")
        # Every significand has its hidden one; a zero small operand adds nothing.
        small_sig = Mux(small_zero, 0, Cat(small[:f], Const(1, 1)))
        total = align_add(m, big_exp, small_exp, Cat(big[:f], Const(1, 1)), small_sig,
                          effective_subtract, e)

        # Normalization without a floor: a result below exponent 1 is tiny and flushes. The
        # sum of two normal numbers below the smallest normal is exact, so deciding before
        # rounding loses nothing.
        padded = Cat(Const(1, 2 ** (window + 1).bit_length() - window - 1), total)
        zeros = leading_zeros(m, padded)
        normalized = named(m, (total << zeros)[:window + 1], "normalized", window + 1)
        result_exp = named(m, big_exp + 1 - zeros, "result_exp", signed(e + 2))
        field, _ = round_fields(normalized, result_exp, e)
        rounded = named(m, field, "rounded", magnitude_bits)
        flush = big_zero | ~total.any() | (result_exp < 1)
        infinity = Cat(Const(0, f), Const(exp_all_ones, e))
        magnitude = Mux(flush, 0, Mux(result_exp >= exp_all_ones, infinity, rounded))
        # Zeros: x + (-x) and (+0) + (-0) give +0, otherwise the sign of the larger operand.
        zero_sum = effective_subtract & (big_zero | ~total.any())
        finite_result = Cat(magnitude, big[-1] & ~zero_sum)
        inf_result = Cat(infinity, big[-1] & ~(small_inf & effective_subtract))
        m.d.comb += self.s.eq(Mux(big_inf, inf_result, finite_result))
        return m


class Fields:
    """An operand of format (exp_bits, man_bits) unpacked as fpnew's classifier does:
    sign, effective biased exponent (1 for subnormals), significand with its hidden bit, and
    the zero / inf / NaN classes."""

    def __init__(self, bits, exp_bits: int, man_bits: int):
        exp_field, man = bits[man_bits:man_bits + exp_bits], bits[:man_bits]
        normal = exp_field.any()
        special = exp_field.all()
        self.sign = bits[man_bits + exp_bits]
        self.exp = Mux(normal, exp_field, 1)
        self.sig = Cat(man, normal)
        self.zero = ~normal & ~man.any()
        self.inf = special & ~man.any()
        self.nan = special & man.any()


def bias(exp_bits: int) -> int:
    return 2 ** (exp_bits - 1) - 1


def normalize_round(m: Module, magnitude, top_exp, sticky, exp_bits: int, man_bits: int):
    """Round-to-nearest-even of ``magnitude`` (an unsigned window whose top bit has biased
    exponent ``top_exp``, signed) and ``sticky`` into (exp_bits, man_bits): leading-zero count,
    normalization shift capped at the smallest normal exponent, the +1, overflow to infinity.
    Returns the exp_bits + man_bits magnitude field."""
    n = len(magnitude)
    pad = 2 ** (n - 1).bit_length() - n  # ones below the window: constant, removed by Yosys
    zeros = leading_zeros(m, Cat(Const(2 ** pad - 1, pad), magnitude) if pad else magnitude)
    exp_width = len(top_exp) + 1
    result_exp = Signal(signed(exp_width), name="result_exp")
    m.d.comb += result_exp.eq(top_exp - zeros)
    normal = result_exp >= 1
    subnormal_shift = Mux(top_exp > 1, top_exp - 1, 0)
    shift = Signal(len(zeros) + 1, name="norm_shift")
    m.d.comb += shift.eq(Mux(normal, zeros, subnormal_shift))
    shifted = Signal(n, name="normalized")
    m.d.comb += shifted.eq(magnitude << shift)
    fraction = shifted[n - 1 - man_bits:n - 1]
    round_bit = shifted[n - 2 - man_bits]
    sticky_bit = shifted[:n - 2 - man_bits].any() | sticky
    exp_field = Mux(shifted[n - 1], result_exp[:exp_bits], 0)
    round_up = round_bit & (sticky_bit | fraction[0])
    rounded = Signal(exp_bits + man_bits, name="rounded")
    m.d.comb += rounded.eq(Cat(fraction, exp_field) + round_up)
    overflow = normal & (result_exp >= 2 ** exp_bits - 1)
    infinity = Cat(Const(0, man_bits), Const(2 ** exp_bits - 1, exp_bits))
    return Mux(overflow, infinity, rounded), ~shifted.any() & ~sticky


def aligned(m: Module, significand, window: int, shift, name: str):
    """``significand`` placed at the top of a ``window``-bit field and shifted right by
    ``shift`` (already capped at ``window``): (the bits left in the window, sticky of the rest)."""
    full = Signal(2 * window, name=f"{name}_shifted")
    m.d.comb += full.eq(Cat(Const(0, 2 * window - len(significand)), significand) >> shift)
    return full[window:], full[:window].any()


def signed_add(m: Module, big, small, subtract, sticky, name: str):
    """big +- small (``small`` already aligned, its lost bits in ``sticky``), FPnew style:
    inverted addend, no carry-in when sticky bits were lost, negation of a negative result.
    Returns (magnitude with the carry bit on top, carry)."""
    width = len(small)
    raw = Signal(width + 1, name=f"{name}_raw")
    m.d.comb += raw.eq(big + (small ^ subtract.replicate(width)) + (subtract & ~sticky))
    carry = raw[width]
    magnitude = Signal(width + 1, name=f"{name}_sum")
    m.d.comb += magnitude.eq(Cat(Mux(subtract & ~carry, -raw, raw)[:width], carry & ~subtract))
    return magnitude, carry


def special_result(nan, inf, inf_sign, finite, sign, exp_bits: int, man_bits: int):
    quiet_nan = Cat(Const(1 << (man_bits - 1), man_bits), Const(2 ** exp_bits - 1, exp_bits),
                    Const(0, 1))
    infinity = Cat(Const(0, man_bits), Const(2 ** exp_bits - 1, exp_bits), inf_sign)
    return Mux(nan, quiet_nan, Mux(inf, infinity, Cat(finite, sign)))
