"""Integer units as Amaranth RTL: adder, multiplier, mux, and the MAC and bit-serial ADD
dot-product units the LUT Tensor Core paper compares against (its Fig. 12 baselines).

Each design is a frozen dataclass of its parameters and a ``wiring.Component`` that elaborates it.
Registers have no reset: the structural model counts plain D flip-flops (``register``), and a
synchronous clear would add a gate per bit that the model does not price.
"""

from __future__ import annotations

from dataclasses import dataclass

from amaranth.hdl import Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out


@dataclass(frozen=True)
class Adder:
    """bits-bit unsigned a + b -> bits + 1 bits, combinational."""
    bits: int


@dataclass(frozen=True)
class Multiplier:
    """Unsigned a_bits x b_bits product, combinational."""
    a_bits: int
    b_bits: int


@dataclass(frozen=True)
class Multiplexer:
    """inputs:1 multiplexer of bits-bit words (log2(inputs) select bits), combinational."""
    inputs: int
    bits: int


@dataclass(frozen=True)
class MacDotProduct:
    """k signed act_bits x act_bits products, an adder tree, acc <= acc + sum (acc_bits)."""
    k: int = 4
    act_bits: int = 8
    acc_bits: int = 32


@dataclass(frozen=True)
class BitSerialAddDotProduct:
    """Bit-serial ADD unit (Stripes-style): per cycle one weight bit-plane; the sum of the k
    signed activations whose weight bit is 1, negated on the MSB plane (two's complement),
    shifted left by the plane index and accumulated."""
    k: int = 4
    act_bits: int = 8
    plane_bits: int = 3
    acc_bits: int = 32


class AdderRTL(wiring.Component):
    def __init__(self, spec: Adder):
        self.spec = spec
        super().__init__({"a": In(spec.bits), "b": In(spec.bits), "s": Out(spec.bits + 1)})

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.s.eq(self.a + self.b)
        return m


class MultiplierRTL(wiring.Component):
    def __init__(self, spec: Multiplier):
        self.spec = spec
        super().__init__({"a": In(spec.a_bits), "b": In(spec.b_bits),
                          "p": Out(spec.a_bits + spec.b_bits)})

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.p.eq(self.a * self.b)
        return m


class MultiplexerRTL(wiring.Component):
    """Inputs packed into one port: word i is d[i*bits:(i+1)*bits]."""

    def __init__(self, spec: Multiplexer):
        self.spec = spec
        select_bits = (spec.inputs - 1).bit_length()
        super().__init__({"d": In(spec.inputs * spec.bits), "sel": In(select_bits),
                          "y": Out(spec.bits)})

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.y.eq(self.d.word_select(self.sel, self.spec.bits))
        return m


class MacDotProductRTL(wiring.Component):
    """Activations and weights packed: operand i is a[i*act_bits:(i+1)*act_bits]."""

    def __init__(self, spec: MacDotProduct):
        self.spec = spec
        super().__init__({"a": In(spec.k * spec.act_bits), "w": In(spec.k * spec.act_bits),
                          "acc": Out(signed(spec.acc_bits))})

    def elaborate(self, platform):
        spec = self.spec
        m = Module()
        products = [kept(m, self.a.word_select(i, spec.act_bits).as_signed() *
                         self.w.word_select(i, spec.act_bits).as_signed(),
                         f"product{i}", signed(2 * spec.act_bits)) for i in range(spec.k)]
        tree_bits = 2 * spec.act_bits + (spec.k - 1).bit_length()
        products_sum = kept(m, adder_tree(products), "products_sum", signed(tree_bits))
        accumulator = Signal(signed(spec.acc_bits), reset_less=True)
        m.d.sync += accumulator.eq(accumulator + products_sum)
        m.d.comb += self.acc.eq(accumulator)
        return m


def kept(m: Module, value, name: str, shape) -> Signal:
    """``value`` on a wire Yosys must keep. Without it ``alumacc`` merges the products, the
    adder tree and the accumulator into one accumulator-wide multiply-accumulate: a different
    (and larger) architecture than the one described and priced by the structural model."""
    signal = Signal(shape, name=name, attrs={"keep": 1})
    m.d.comb += signal.eq(value)
    return signal


def adder_tree(terms):
    """Balanced binary tree of additions (pairs at each level)."""
    while len(terms) > 1:
        pairs = [terms[i] + terms[i + 1] for i in range(0, len(terms) - 1, 2)]
        terms = pairs + terms[len(pairs) * 2:]
    return terms[0]


class BitSerialAddRTL(wiring.Component):
    """Activations packed as in the MAC; w holds one weight bit per activation."""

    def __init__(self, spec: BitSerialAddDotProduct):
        self.spec = spec
        super().__init__({"a": In(spec.k * spec.act_bits), "w": In(spec.k),
                          "plane": In(spec.plane_bits), "msb": In(1),
                          "acc": Out(signed(spec.acc_bits))})

    def elaborate(self, platform):
        spec = self.spec
        m = Module()
        gated = [self.a.word_select(i, spec.act_bits).as_signed() &
                 self.w[i].replicate(spec.act_bits).as_signed() for i in range(spec.k)]
        plane_sum = kept(m, adder_tree(gated), "plane_sum",
                         signed(spec.act_bits + (spec.k - 1).bit_length()))
        signed_sum = Mux(self.msb, -plane_sum, plane_sum)
        accumulator = Signal(signed(spec.acc_bits), reset_less=True)
        m.d.sync += accumulator.eq(accumulator + (signed_sum << self.plane))
        m.d.comb += self.acc.eq(accumulator)
        return m
