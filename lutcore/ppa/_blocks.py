"""Structural building blocks: each returns the cells it is made of and its combinational delay.

A ``Cost`` is a vector of cell counts (one entry per logical cell of ``_cells.NAMES``) and the
delay of the block's slowest input-to-output path. Sizes may be arrays: every block broadcasts, so
one call prices a whole design space. Composition: ``series`` (cells add, delays add),
``parallel`` (cells add, slowest delay), ``times`` (n copies side by side). Counts do not depend
on the cell library; delays do (``library=``, NanGate45 by default), and areas and energies are
the counts priced in a library (``Cost.area(library)``).

The architectures here are the textbook ones, chosen because they are what a cell count can be
derived for by hand: ripple-carry adders (an n-bit adder is n full adders), carry-save array
multipliers (Braun), binary mux trees, logarithmic barrel shifters, buffer trees for broadcast
nets. Faster adders and multipliers are in ``_archs``; a ``Blocks`` set binds one library and one
choice of architectures (``_timing.blocks``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .. import _checks as check
from ._cells import INDEX, NAMES, NANGATE45, CellLibrary

BROADCAST_FANOUT = 4  # loads one X1 buffer drives at the table point's load (two inputs + wire)


def xp(*values):
    """The array namespace for these values: numpy when all are concrete (eager pricing is
    dominated by jax's per-operation dispatch, about 100x numpy's), jax.numpy when any is
    traced (under jit or vmap). Cost fields are numpy or jax arrays accordingly."""
    return jnp if any(isinstance(v, jax.core.Tracer) for v in values) else np


def per_cell(cells, values):
    """sum_i cells[..., i] * values[i] ([...]): a cell table's area, energy or leakage of cell
    counts, added in the table's order, an explicitly ordered reduction (the same bits on every
    machine and for every batch layout, as a BLAS dot product does not guarantee)."""
    total = cells[..., 0] * values[0]
    for i in range(1, len(values)):
        total = total + cells[..., i] * values[i]
    return total


class Cost(NamedTuple):
    """cells: [..., len(NAMES)] counts; delay: [...] ps (combinational, input to output)."""

    cells: jnp.ndarray
    delay: jnp.ndarray

    def area(self, library: CellLibrary = NANGATE45):
        """[...] um^2 in ``library`` (NanGate45 by default: 45nm)."""
        return per_cell(self.cells, library.area)


def gates(delay=0.0, **counts) -> Cost:
    """A block of ``counts`` cells (``NAND2=3, FA=n, ...``) with the given path delay."""
    unknown = set(counts) - set(NAMES)
    if unknown:
        raise ValueError(f"unknown cells {sorted(unknown)}; allowed values: {', '.join(NAMES)}")
    if xp(delay, *counts.values()) is np:
        return _concrete_gates(delay, counts)
    values = [jnp.asarray(counts.get(name, 0.0), dtype=float) for name in NAMES]
    shape = jnp.broadcast_shapes(jnp.shape(delay), *(v.shape for v in values))
    cells = jnp.stack([jnp.broadcast_to(v, shape) for v in values], axis=-1)
    return Cost(cells, jnp.broadcast_to(jnp.asarray(delay, dtype=float), shape))


def _concrete_gates(delay, counts: dict) -> Cost:
    arrays = {name: np.asarray(v, dtype=float) for name, v in counts.items()}
    delay = np.asarray(delay, dtype=float)
    shape = np.broadcast_shapes(delay.shape, *(a.shape for a in arrays.values()))
    cells = np.zeros((*shape, len(NAMES)))
    for name, a in arrays.items():
        cells[..., INDEX[name]] = a
    cells.flags.writeable = False  # Costs are shared (memoized blocks): values, never buffers
    return Cost(cells, np.broadcast_to(delay, shape))


NOTHING = gates()


def series(*parts: Cost) -> Cost:
    """Blocks one after another on the path: cells and delays add."""
    return Cost(sum(p.cells for p in parts), sum(p.delay for p in parts))


def parallel(*parts: Cost) -> Cost:
    """Blocks side by side: cells add, the slowest path counts."""
    delay = parts[0].delay
    for p in parts[1:]:
        delay = xp(delay, p.delay).maximum(delay, p.delay)
    return Cost(sum(p.cells for p in parts), delay)


@check.entry
def times(part: Cost, n) -> Cost:
    """``n`` copies of ``part`` side by side (n may be an array)."""
    check.integers("times n", n, min=0)
    ns = xp(part.cells, n)
    n = ns.asarray(n, dtype=float)
    return Cost(part.cells * n[..., None], ns.broadcast_to(part.delay, np.broadcast_shapes(
        np.shape(part.delay), n.shape)))


def clog2(x):
    """ceil(log2(x)) for x >= 1, elementwise (0 for x = 1)."""
    ns = xp(x)
    return ns.ceil(ns.log2(ns.maximum(ns.asarray(x, dtype=float), 1.0)) - 1e-9)


# ---------------------------------------------------------------------------------------------
# Integer datapath


@check.entry
def ripple_adder(bits, library: CellLibrary = NANGATE45) -> Cost:
    """bits-bit ripple-carry adder with carry-in: one FA per bit; carry chain then the last sum."""
    check.integers("ripple_adder bits", bits, min=0)
    bits = xp(bits).asarray(bits, dtype=float)
    return gates(FA=bits, delay=(bits - 1) * library.fa_carry_delay + library.fa_sum_delay)


def ripple_partial_adder(width, overlap, library: CellLibrary = NANGATE45) -> Cost:
    """width-bit ripple adder whose second operand has bits on only ``overlap`` positions (an
    aligned addend; the other positions propagate a carry): FA there, HA elsewhere."""
    width = xp(width).asarray(width, dtype=float)
    carry_only = width - overlap
    return gates(FA=overlap, HA=carry_only,
                 delay=overlap * library.fa_carry_delay + carry_only * library.ha_carry_delay
                 + library.fa_sum_delay)


@check.entry
def incrementer(bits, library: CellLibrary = NANGATE45) -> Cost:
    """bits-bit +1 (rounding): one HA per bit, a carry chain."""
    check.integers("incrementer bits", bits, min=0)
    bits = xp(bits).asarray(bits, dtype=float)
    return gates(HA=bits, delay=(bits - 1) * library.ha_carry_delay + library.delay["HA"])


@check.entry
def conditional_negate(bits, library: CellLibrary = NANGATE45) -> Cost:
    """Invert bits-bit two's complement on a control bit; the +1 is the next adder's carry-in."""
    check.integers("conditional_negate bits", bits, min=0)
    return gates(XOR2=bits, delay=library.delay["XOR2"])


@check.entry
def array_multiplier(n_bits, m_bits, library: CellLibrary = NANGATE45) -> Cost:
    """n x m carry-save array multiplier (Braun): n*m AND2 partial products, m-1 rows of n
    adders (the first of each row a HA), the last row rippling the carries."""
    check.integers("array_multiplier n_bits", n_bits, min=0)
    check.integers("array_multiplier m_bits", m_bits, min=0)
    ns = xp(n_bits, m_bits)
    n = ns.asarray(n_bits, dtype=float)
    m = ns.asarray(m_bits, dtype=float)
    rows = ns.maximum(m - 1, 0)
    delay = library.delay["AND2"] + rows * library.fa_sum_delay + ns.where(
        rows > 0, (n - 1) * library.fa_carry_delay, 0.0)
    return gates(AND2=n * m, FA=rows * (n - 1), HA=rows, delay=delay)


@check.entry
def mux_tree(inputs, bits, library: CellLibrary = NANGATE45) -> Cost:
    """inputs:1 multiplexer of bits-bit words: a binary tree of MUX2."""
    check.integers("mux_tree inputs", inputs, min=1)
    check.integers("mux_tree bits", bits, min=0)
    inputs = xp(inputs).asarray(inputs, dtype=float)
    return gates(MUX2=(inputs - 1) * bits, delay=clog2(inputs) * library.delay["MUX2"])


@check.entry
def barrel_shifter(bits, max_shift, library: CellLibrary = NANGATE45) -> Cost:
    """Shift bits-bit word by 0..max_shift: one MUX2 level per shift-amount bit."""
    check.integers("barrel_shifter bits", bits, min=0)
    check.integers("barrel_shifter max_shift", max_shift, min=0)
    levels = clog2(xp(max_shift).asarray(max_shift, dtype=float) + 1)
    return gates(MUX2=bits * levels, delay=levels * library.delay["MUX2"])


@check.entry
def leading_zero_count(bits, library: CellLibrary = NANGATE45) -> Cost:
    """Leading-zero counter as a tree of 2-bit counters (Oklobdzija, IEEE TVLSI 1994).

    Level 1 takes bit pairs: a NOR2 (both zero) and an INV (the count bit) each. A node of level
    l >= 2 merges two halves: an AND2 of their all-zero flags and l - 1 MUX2 picking the lower
    count bits (its top bit is the left half's flag, free). Summed over the L = clog2(bits)
    levels with bits / 2^l nodes each: bits (1 - (L + 1) / 2^L) MUX2, bits (1/2 - 1/2^L) AND2.
    """
    check.integers("leading_zero_count bits", bits, min=0)
    bits = xp(bits).asarray(bits, dtype=float)
    levels = clog2(bits)
    return gates(NOR2=bits / 2, INV=bits / 2, AND2=bits * (0.5 - 2.0 ** -levels),
                 MUX2=bits * (1 - (levels + 1) * 2.0 ** -levels),
                 delay=library.delay["NOR2"] + (levels - 1) * library.delay["MUX2"])


@check.entry
def register(bits) -> Cost:
    """bits flip-flops (timing is charged once per path: clock-to-Q + setup)."""
    check.integers("register bits", bits, min=0)
    return gates(DFF=bits)


@check.entry
def broadcast(signals, fanout, library: CellLibrary = NANGATE45) -> Cost:
    """Drive ``signals`` nets to ``fanout`` loads each: a buffer tree of fan-out 4 per buffer."""
    check.integers("broadcast signals", signals, min=0)
    check.integers("broadcast fanout", fanout, min=0)
    ns = xp(fanout)
    fanout = ns.asarray(fanout, dtype=float)
    buffers = ns.ceil((fanout - 1) / (BROADCAST_FANOUT - 1))
    levels = ns.ceil(ns.log(ns.maximum(fanout, 1.0)) / ns.log(BROADCAST_FANOUT) - 1e-9)
    return gates(BUF=signals * buffers, delay=levels * library.delay["BUF"])


@check.entry
def adder_tree(terms, adder: Cost) -> Cost:
    """Sum ``terms`` operands with terms - 1 copies of ``adder`` in log2(terms) levels."""
    check.integers("adder_tree terms", terms, min=1)
    terms = xp(terms).asarray(terms, dtype=float)
    tree = times(adder, terms - 1)
    return Cost(tree.cells, clog2(terms) * adder.delay)


# ---------------------------------------------------------------------------------------------
# Floating point (p = significand bits with the hidden one, e = exponent bits)


@check.entry
def fp_adder(e, p, blocks: Blocks | None = None) -> Cost:
    """Two-operand FP adder with one rounding: exponent difference, swap, alignment with
    guard/round/sticky, significand add/sub, leading-zero count, normalization, round, exponent
    adjust, special-value detection. ``blocks``: the adders etc. it is built from (``TEXTBOOK``)."""
    check.integers("fp_adder e", e, min=0)
    check.integers("fp_adder p", p, min=0)
    b = blocks or TEXTBOOK
    wide = p + 3
    return series(
        b.gates(INV=e), b.adder(e),                                 # exponent difference
        b.gates(MUX2=2 * p + e, delay=b.cell_delay("MUX2")),        # swap: larger one leads
        b.barrel_shifter(wide, wide), b.gates(OR2=p),               # align; sticky OR
        b.conditional_negate(wide), b.adder(wide),                  # effective subtraction
        b.leading_zero_count(wide), b.barrel_shifter(wide, wide),
        b.incrementer(p),                                           # round to nearest even
        parallel(b.adder(e), b.gates(AND2=2 * e, NOR2=2)),          # exponent adjust; specials
    )


@check.entry
def fp_multiplier(e, p, blocks: Blocks | None = None) -> Cost:
    """Exact FP product (no rounding, as a tensor core forwards it to its adder tree):
    p x p significand multiplier, exponent add, one-bit normalization."""
    check.integers("fp_multiplier e", e, min=0)
    check.integers("fp_multiplier p", p, min=0)
    b = blocks or TEXTBOOK
    return series(parallel(b.multiplier(p, p), b.adder(e + 1)),
                  b.gates(MUX2=2 * p, delay=b.cell_delay("MUX2")))


@check.entry
def int_to_fp(bits, e, p, blocks: Blocks | None = None) -> Cost:
    """Dequantization converter, signed bits-bit integer to FP(e, p): absolute value, leading-
    zero count, normalizing shift, exponent from the count, rounding when bits > p."""
    check.integers("int_to_fp bits", bits, min=0)
    check.integers("int_to_fp e", e, min=0)
    check.integers("int_to_fp p", p, min=0)
    b = blocks or TEXTBOOK
    ns = xp(bits)
    rounds = ns.where(ns.asarray(bits) > p, 1.0, 0.0)
    rounding = b.incrementer(p)
    return series(b.conditional_negate(bits), b.incrementer(bits), b.leading_zero_count(bits),
                  b.barrel_shifter(bits, bits), b.adder(e),
                  Cost(rounding.cells * rounds[..., None], rounding.delay * rounds))


# ---------------------------------------------------------------------------------------------
# The block set a unit is built from


class Blocks(NamedTuple):
    """The blocks a tensor-core builder composes, as pure functions bound to one cell library
    and one choice of architectures: a builder calls ``spec.blocks.adder(bits)``, never an
    architecture by name, so a faster adder or another library is a different ``Blocks``
    (``_timing.blocks(library, adder=..., multiplier=...)`` makes one)."""

    gates: Callable[..., Cost]
    cell_delay: Callable[[str], float]  # ps of one cell, e.g. cell_delay("AND2")
    adder: Callable[..., Cost]  # (bits) integer adder with carry-in
    incrementer: Callable[..., Cost]
    conditional_negate: Callable[..., Cost]
    multiplier: Callable[..., Cost]  # (n_bits, m_bits) unsigned integer multiplier
    mux_tree: Callable[..., Cost]
    barrel_shifter: Callable[..., Cost]
    register: Callable[..., Cost]
    broadcast: Callable[..., Cost]
    adder_tree: Callable[..., Cost]
    fp_adder: Callable[..., Cost]
    fp_multiplier: Callable[..., Cost]
    int_to_fp: Callable[..., Cost]
    leading_zero_count: Callable[..., Cost] = leading_zero_count
    partial_adder: Callable[..., Cost] = ripple_partial_adder  # (width, overlap)
    library: CellLibrary = NANGATE45
    architecture: str = "ripple+array"  # adder+multiplier


def _memo(block: Callable[..., Cost]) -> Callable[..., Cost]:
    """``block`` remembering its Cost per tuple of Python-number sizes (an FP adder is built
    several times per unit and grade); array sizes are priced every time."""
    cached = functools.cache(block)

    def memo(*sizes):
        if all(isinstance(x, (int, float)) for x in sizes):
            return cached(*sizes)
        return block(*sizes)
    return memo


def bind_fp(blocks: Blocks) -> Blocks:
    """``blocks`` with its FP blocks built from its own adders, shifters and multipliers."""
    return blocks._replace(fp_adder=_memo(functools.partial(fp_adder, blocks=blocks)),
                           fp_multiplier=_memo(functools.partial(fp_multiplier, blocks=blocks)),
                           int_to_fp=_memo(functools.partial(int_to_fp, blocks=blocks)))


# Today's architectures on the NanGate45 table: ripple-carry adders, Braun array multipliers.
TEXTBOOK = bind_fp(Blocks(
    gates=gates, cell_delay=NANGATE45.delay.__getitem__, adder=ripple_adder,
    incrementer=incrementer, conditional_negate=conditional_negate, multiplier=array_multiplier,
    mux_tree=mux_tree, barrel_shifter=barrel_shifter, register=register, broadcast=broadcast,
    adder_tree=adder_tree, fp_adder=fp_adder, fp_multiplier=fp_multiplier, int_to_fp=int_to_fp))
