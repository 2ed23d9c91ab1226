"""The MiniFloat-NN units as Amaranth RTL: ExSdotp and the expanding FMA, written from FPnew's
``fpnew_sdotp_multi`` and ``fpnew_fma_multi`` (see ``lutcore.ppa._fpu``), with the internal widths
of ``lutcore.numerics.sdotp_widths``.
"""

from __future__ import annotations

from dataclasses import dataclass

from amaranth.hdl import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from lutcore.numerics import sdotp_widths

from ._rtl_fp import Fields, aligned, bias, normalize_round, signed_add, special_result
from ._rtl_int import kept


@dataclass(frozen=True)
class ExSdotp:
    """Combinational ExSdotp unit a*b + c*d + e (fpnew_sdotp_multi's datapath, one source and one
    destination format): two S x S multipliers (S = p_src), the sort of the three addends by
    exponent, a first adder of 2P+3 bits and a second of 2P+S+4 bits (P = p_dst, the wider of
    the destination precision and a full product), one normalization, one rounding (RNE).
    Matches ``lutcore.numerics.exsdotp`` (RNE) on random vectors, except a bypassed minimum
    addend (exact-zero first sum) that needs a right shift below the subnormal range: that
    shift is clamped at zero."""
    src_exp: int = 5
    src_man: int = 2
    dst_exp: int = 5
    dst_man: int = 10


@dataclass(frozen=True)
class ExFMA:
    """Combinational multi-format expanding FMA a*b + c (fpnew_fma_multi's datapath): a and b
    in the source format or, with ``narrow`` low, in the destination format (the super format
    of both sets the p x p multiplier), c and the result in the destination format; a 3p+4-bit
    aligned addend, one adder, one normalization, one rounding (RNE). Checked against
    ``lutcore.numerics.exfma`` (RNE) on random vectors of both source formats."""
    src_exp: int = 5
    src_man: int = 2
    dst_exp: int = 5
    dst_man: int = 10


class ExSdotpRTL(wiring.Component):
    def __init__(self, spec: ExSdotp):
        self.spec = spec
        src_width = 1 + spec.src_exp + spec.src_man
        dst_width = 1 + spec.dst_exp + spec.dst_man
        super().__init__({"a": In(src_width), "b": In(src_width), "c": In(src_width),
                          "d": In(src_width), "e": In(dst_width), "s": Out(dst_width)})

    def elaborate(self, platform):
        spec = self.spec
        widths = sdotp_widths(spec.src_man, spec.dst_man, spec.dst_exp)
        exp_type = signed(widths.exponent + 1)  # fpnew's exponent datapath, signed here
        m = Module()
        operands = [Fields(x, spec.src_exp, spec.src_man)
                    for x in (self.a, self.b, self.c, self.d)]
        e = Fields(self.e, spec.dst_exp, spec.dst_man)
        terms = self._addends(m, operands, e, widths, exp_type)
        finite, sign = self._sum(m, terms, widths, exp_type)
        m.d.comb += self.s.eq(self._specials(operands, e, terms, finite, sign))
        return m

    def _addends(self, m: Module, operands, e, widths, exp_type):
        """The three addends (sign, P-bit significand, exponent): a*b, c*d and e."""
        spec, ps, pd = self.spec, widths.p_src, widths.p_dst
        rebias = bias(spec.dst_exp) - 2 * bias(spec.src_exp) + 1

        def product(x, y, name):
            significand = kept(m, x.sig * y.sig, f"product_{name}", 2 * ps)
            zero = x.zero | y.zero
            exponent = Signal(exp_type, name=f"exp_{name}")
            m.d.comb += exponent.eq(Mux(zero, 0, x.exp + y.exp + rebias))
            return x.sign ^ y.sign, significand << (pd - 2 * ps), exponent

        a, b, c, d = operands
        exp_e = Signal(exp_type, name="exp_e")
        m.d.comb += exp_e.eq(e.exp)
        return [product(a, b, "ab"), product(c, d, "cd"),
                (e.sign, e.sig << (pd - spec.dst_man - 1), exp_e)]

    @staticmethod
    def _sorted(m: Module, terms, pd: int, exp_type):
        """fpnew's sort by exponent only: (sign, significand, exponent) of max, int, min."""
        (_, _, ex), (_, _, ey), (_, _, ez) = terms
        xy, xz, yz = ex >= ey, ex >= ez, ey >= ez
        max_index = Mux(xy & xz, 0, Mux(yz, 1, 2))
        min_index = Mux(xz & yz, 2, Mux(xy, 1, 0))
        int_index = 3 - max_index - min_index

        def pick(index, field, name, shape):
            signal = Signal(shape, name=name)
            m.d.comb += signal.eq(Mux(index == 0, terms[0][field],
                                      Mux(index == 1, terms[1][field], terms[2][field])))
            return signal

        ranks = ((max_index, "max"), (int_index, "int"), (min_index, "min"))
        return [[pick(i, field, f"{kind}_{n}", shape) for i, n in ranks]
                for field, kind, shape in ((0, "sign", 1), (1, "sig", pd), (2, "exp", exp_type))]

    def _sum(self, m: Module, terms, widths, exp_type):
        """The two adders, normalization and rounding: (finite result field, its sign)."""
        spec, ps, pd = self.spec, widths.p_src, widths.p_dst
        first, second = widths.first_adder, widths.second_adder
        (s_max, s_int, s_min), (m_max, m_int, m_min), (e_max, e_int, e_min) = \
            self._sorted(m, terms, pd, exp_type)
        # First adder: max + int, int aligned in the 2P+3-bit window.
        shift_int = Mux(e_max - e_int > first, first, e_max - e_int)[:first.bit_length()]
        int_aligned, sticky1 = aligned(m, Cat(Const(0, pd + 3), m_int), first, shift_int,
                                       "int")
        sub1 = s_max ^ s_int
        sum1, carry1 = signed_add(m, Cat(Const(0, pd + 3), m_max), int_aligned, sub1,
                                  sticky1, "first")
        sign1 = Mux(sub1, carry1 == s_max, s_max)
        # Second adder, widened by p_src: the first sum + min aligned from e_max + 1.
        shift_min = Mux(e_max + 1 - e_min > second, second,
                        e_max + 1 - e_min)[:second.bit_length()]
        min_aligned, sticky2 = aligned(m, m_min, second, shift_min, "min")
        bypass = ~sum1.any() & ~sticky1 & sticky2  # exact-zero first sum: min is the result
        sub2 = s_min ^ sign1
        sum2, carry2 = signed_add(m, Mux(bypass, Cat(Const(0, second - pd), m_min),
                                         Cat(Const(0, ps), sum1)),
                                  Mux(bypass, 0, min_aligned), sub2 & ~bypass,
                                  sticky2 & ~bypass, "second")
        sign2 = Mux(bypass, s_min, Mux(sub2, carry2 == sign1, sign1))
        top_exp = Signal(exp_type, name="top_exp")
        m.d.comb += top_exp.eq(Mux(bypass, e_min + 1, e_max + 2))
        finite, exact_zero = normalize_round(m, sum2, top_exp, sticky1 | sticky2,
                                             spec.dst_exp, spec.dst_man)
        return finite, Mux(exact_zero, s_max & s_int & s_min, sign2)

    def _specials(self, operands, e, terms, finite, sign):
        """NaN (a NaN operand, inf * 0, inf - inf), infinities, else the finite result."""
        spec = self.spec
        a, b, c, d = operands
        inf_ab, inf_cd = (a.inf | b.inf) & ~(a.nan | b.nan), (c.inf | d.inf) & ~(c.nan | d.nan)
        invalid = ((a.inf & b.zero) | (a.zero & b.inf) | (c.inf & d.zero) | (c.zero & d.inf))
        signs = [t[0] for t in terms]
        infs = [inf_ab, inf_cd, e.inf]
        mixed = (infs[0] & infs[1] & (signs[0] != signs[1])) | \
            (infs[0] & infs[2] & (signs[0] != signs[2])) | \
            (infs[1] & infs[2] & (signs[1] != signs[2]))
        nan = a.nan | b.nan | c.nan | d.nan | e.nan | invalid | mixed
        inf_sign = Mux(infs[0], signs[0], Mux(infs[1], signs[1], signs[2]))
        return special_result(nan, infs[0] | infs[1] | infs[2], inf_sign, finite, sign,
                              spec.dst_exp, spec.dst_man)


class ExFMARTL(wiring.Component):
    """Ports: a, b (destination width; with ``narrow`` set, source-format values in the low
    bits), c, s (destination format)."""

    def __init__(self, spec: ExFMA):
        self.spec = spec
        dst_width = 1 + spec.dst_exp + spec.dst_man
        super().__init__({"a": In(dst_width), "b": In(dst_width), "narrow": In(1),
                          "c": In(dst_width), "s": Out(dst_width)})

    def elaborate(self, platform):
        spec = self.spec
        exp_bits, man_bits = max(spec.src_exp, spec.dst_exp), max(spec.src_man, spec.dst_man)
        p = man_bits + 1
        window = 3 * p + 4
        exp_type = signed(max(exp_bits + 2, (window + 1).bit_length()) + 2)
        m = Module()

        def unpack(x, name):
            """Source or destination format onto the super format (mantissa left-aligned,
            exponent rebiased)."""
            wide = Fields(x, spec.dst_exp, spec.dst_man)
            narrow = Fields(x, spec.src_exp, spec.src_man)
            rebias = bias(exp_bits) - bias(spec.src_exp)
            fields = {}
            for key, shape in (("sign", 1), ("exp", exp_type), ("sig", p), ("zero", 1),
                               ("inf", 1), ("nan", 1)):
                wide_value, narrow_value = getattr(wide, key), getattr(narrow, key)
                if key == "sig":
                    wide_value = wide_value << (man_bits - spec.dst_man)
                    narrow_value = narrow_value << (man_bits - spec.src_man)
                if key == "exp":
                    wide_value = wide_value + bias(exp_bits) - bias(spec.dst_exp)
                    narrow_value = narrow_value + rebias
                signal = Signal(shape, name=f"{name}_{key}")
                m.d.comb += signal.eq(Mux(self.narrow, narrow_value, wide_value))
                fields[key] = signal
            return fields

        a, b = unpack(self.a, "a"), unpack(self.b, "b")
        c = Fields(self.c, spec.dst_exp, spec.dst_man)
        c_exp = c.exp + bias(exp_bits) - bias(spec.dst_exp)
        product = kept(m, a["sig"] * b["sig"], "product", 2 * p)
        product_zero = a["zero"] | b["zero"]
        product_exp = Signal(exp_type, name="product_exp")
        m.d.comb += product_exp.eq(a["exp"] + b["exp"] - bias(exp_bits))
        product_sign = a["sign"] ^ b["sign"]
        # Addend alignment: its MSB starts at window bit 3p+3 (exponent product_exp + p + 3).
        shift_raw = Signal(exp_type, name="addend_shift_raw")
        m.d.comb += shift_raw.eq(product_exp + p + 3 - c_exp)
        addend_leads = (shift_raw < 0) | product_zero
        shift = Mux(addend_leads, 0, Mux(shift_raw > window, window, shift_raw))
        addend, sticky = aligned(m, c.sig, window, shift[:window.bit_length()], "addend")
        subtract = product_sign ^ c.sign
        total, carry = signed_add(m, Cat(Const(0, 2), product), addend, subtract, sticky,
                                  "sum")
        sign = Mux(subtract, Mux(carry, product_sign, c.sign), product_sign)
        top_exp = Signal(exp_type, name="top_exp")
        m.d.comb += top_exp.eq(Mux(addend_leads, c_exp + 1, product_exp + p + 4)
                               - (bias(exp_bits) - bias(spec.dst_exp)))
        finite, exact_zero = normalize_round(m, total, top_exp, sticky, spec.dst_exp,
                                             spec.dst_man)
        sign = Mux(exact_zero, product_sign & c.sign, sign)

        product_inf = (a["inf"] | b["inf"]) & ~(a["nan"] | b["nan"])
        invalid = (a["inf"] & b["zero"]) | (a["zero"] & b["inf"]) | \
            (product_inf & c.inf & subtract)
        nan = a["nan"] | b["nan"] | c.nan | invalid
        m.d.comb += self.s.eq(special_result(nan, product_inf | c.inf,
                                             Mux(product_inf, product_sign, c.sign),
                                             finite, sign, spec.dst_exp, spec.dst_man))
        return m
