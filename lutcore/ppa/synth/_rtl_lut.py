"""LUT Tensor Core arrays as Amaranth RTL: our integer array with table storage, and the FP16
array of the authors' release.

``LutArray`` is lutcore's own unit (tables loaded through a write port and held in registers,
wide integer accumulators): what ``tensor_core("lut_tensor_core", ...)`` prices at full
accounting. ``ReleasedLutArray`` is the structure of the authors' synthesized unit (T-MAC
``sv_lut_array/rtl/fp_lut_array_b_cycle_stage1.sv``; facts in ``lutcore.ppa._release``), written
from those facts, not from its code: the table entries, weights and partial sums are ports; per
output a 2^(K-1):1 mux of one entry, its sign flipped by index bit 0, the bit-plane index added
to its exponent field, a mux of the partial sum (first plane) or the running result, a
``DW_fp_add``-style adder (``FPAdderFTZ``) and one result register; one plane counter and one
``valid`` flop for the whole array.

Registers have no reset: the structural model counts plain D flip-flops (``register``). The
release resets its counter, ``valid`` and result registers asynchronously (``rst_n``); our cell
table has no resettable flip-flop, so that difference is left out on both sides.
"""

from __future__ import annotations

from dataclasses import dataclass

from amaranth.hdl import Cat, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ._rtl_fp import FPAdderFTZ, FPAdderFTZRTL


@dataclass(frozen=True)
class LutArray:
    """LUT Tensor Core array: m tables (rows) of 2^(k-1) signed entry_bits entries, each loaded
    through a write port; n columns of k-bit weight indices broadcast to every row. Each of the
    m x n units looks up entry = table[index[k-2:0]], negates it unless index[k-1] is set
    (offline negation delivers the low index bits already inverted), shifts it left by the
    plane index and accumulates. m = n = 1 is the DP-k unit."""
    m: int = 1
    n: int = 1
    k: int = 4
    entry_bits: int = 11
    plane_bits: int = 3
    acc_bits: int = 32



class LutArrayRTL(wiring.Component):
    """Ports: we (one bit per table), waddr, wdata (the shared write port); idx packs the n
    column indices (k bits each); plane; acc packs the m x n accumulators, row-major."""

    def __init__(self, spec: LutArray):
        self.spec = spec
        super().__init__({"we": In(spec.m), "waddr": In(spec.k - 1),
                          "wdata": In(signed(spec.entry_bits)),
                          "idx": In(spec.n * spec.k), "plane": In(spec.plane_bits),
                          "acc": Out(spec.m * spec.n * spec.acc_bits)})

    def elaborate(self, platform):
        spec = self.spec
        m = Module()
        accumulators = []
        for row in range(spec.m):
            table = [Signal(signed(spec.entry_bits), reset_less=True, name=f"table{row}_{i}")
                     for i in range(2 ** (spec.k - 1))]
            for address, entry in enumerate(table):
                with m.If(self.we[row] & (self.waddr == address)):
                    m.d.sync += entry.eq(self.wdata)
            packed_table = Cat(*table)
            for column in range(spec.n):
                index = self.idx.word_select(column, spec.k)
                entry = packed_table.word_select(index[:-1], spec.entry_bits).as_signed()
                value = Mux(index[-1], entry, -entry)
                accumulator = Signal(signed(spec.acc_bits), reset_less=True,
                                     name=f"acc{row}_{column}")
                m.d.sync += accumulator.eq(accumulator + (value << self.plane))
                accumulators.append(accumulator)
        m.d.comb += self.acc.eq(Cat(*accumulators))
        return m


@dataclass(frozen=True)
class ReleasedLutArray:
    """The released FP16 LUT array (defaults: its M2 N64 K4, B_BIT 2, FP16 entries and result):
    m x n outputs, 2^(k-1) table entries per row, b_bits weight bit planes, one plane per cycle.
    m = n = 1 is its DP-k unit."""
    m: int = 2
    n: int = 64
    k: int = 4
    b_bits: int = 2
    exp_bits: int = 5
    man_bits: int = 10


class ReleasedLutArrayRTL(wiring.Component):
    """Ports, packed: ``a_lut`` entry (row r, index e) is word r * 2^(k-1) + e; ``b_tile`` weight
    (k, column j) is word k * n + j of b_bits bits (bit b = plane b); ``c_tile_psum`` and
    ``result`` element (i, j) is word i * n + j; ``valid`` is high in the cycle after the last
    plane. Plane b runs in the cycle where the counter ``b_index`` equals b."""

    def __init__(self, spec: ReleasedLutArray):
        self.spec = spec
        width = 1 + spec.exp_bits + spec.man_bits
        outputs = spec.m * spec.n * width
        super().__init__({"a_lut": In(spec.m * 2 ** (spec.k - 1) * width),
                          "b_tile": In(spec.k * spec.n * spec.b_bits),
                          "c_tile_psum": In(outputs), "result": Out(outputs),
                          "valid": Out(1)})

    def elaborate(self, platform):
        spec = self.spec
        width = 1 + spec.exp_bits + spec.man_bits
        m = Module()
        b_index = Signal(max(1, (spec.b_bits - 1).bit_length()), reset_less=True,
                         name="b_index")
        last = b_index == spec.b_bits - 1
        m.d.sync += b_index.eq(Mux(last, 0, b_index + 1))
        valid = Signal(reset_less=True, name="valid_reg")
        m.d.sync += valid.eq(last)
        m.d.comb += self.valid.eq(valid)
        # Per column, shared by the rows: this plane's bit of each of the k weights.
        indices = []
        for column in range(spec.n):
            index = Signal(spec.k, name=f"index{column}")
            m.d.comb += index.eq(Cat(*(self.b_tile.word_select(k * spec.n + column, spec.b_bits)
                                       .bit_select(b_index, 1) for k in range(spec.k))))
            indices.append(index)
        results = []
        for row in range(spec.m):
            table = self.a_lut.word_select(row, 2 ** (spec.k - 1) * width)
            for column, index in enumerate(indices):
                psum = self.c_tile_psum.word_select(row * spec.n + column, width)
                result = Signal(width, reset_less=True, name=f"result{row}_{column}")
                m.d.sync += result.eq(self._unit(m, f"{row}_{column}", table, index, b_index,
                                                 psum, result))
                results.append(result)
        m.d.comb += self.result.eq(Cat(*results))
        return m

    def _unit(self, m: Module, name: str, table, index, b_index, psum, result):
        """One output's datapath for this cycle's plane: the sum its register loads."""
        spec = self.spec
        e, f, width = spec.exp_bits, spec.man_bits, 1 + spec.exp_bits + spec.man_bits
        entry = table.word_select(index[1:], width)
        exponent = (entry[f:f + e] + b_index)[:e]  # x 2^b in the exponent field (wraps)
        term = Signal(width, name=f"term{name}")
        m.d.comb += term.eq(Cat(entry[:f], exponent, entry[-1] ^ index[0]))
        adder = FPAdderFTZRTL(FPAdderFTZ(e, f))
        m.submodules[f"add{name}"] = adder
        m.d.comb += [adder.a.eq(term), adder.b.eq(Mux(b_index == 0, psum, result))]
        return adder.s
