"""Arrays at the full design boundary: a unit that holds what it computes with: operand
registers, tables held over the W bit-planes with a load enable per bit, 32-bit accumulation
(the methods are described in ``_arrays``).
"""

from __future__ import annotations

import functools

import numpy as np

from ._blocks import NOTHING, Cost, clog2, parallel, series, times, xp
from ._unit import (
    LUT_VARIANTS,
    Datapath,
    LutVariant,
    UnitSpec,
    accumulating_adder,
    accumulator_format,
    add_into,
    entry_adder,
    entry_format,
    precompute,
)


def _plane_shift(spec: UnitSpec, entry_bits) -> Cost:
    """Weight the bit-plane p result by 2^p before accumulating: an exponent add (FP) or a
    barrel shift (INT); nothing for 1-bit weights."""
    fmt, w_bits = entry_format(spec), spec.weight.bits
    if np.ndim(w_bits) == 0 and w_bits == 1:
        return NOTHING
    if fmt.is_float:  # (stacked weights: nothing where 1-bit)
        adder = spec.blocks.adder(fmt.exp_bits)
        plane = xp(w_bits).asarray(w_bits > 1, dtype=float)
        return Cost(adder.cells * plane[..., None], adder.delay * plane)
    return spec.blocks.barrel_shifter(entry_bits + w_bits - 1, w_bits - 1)


def _accumulate(spec: UnitSpec, bit_serial: bool) -> Cost:
    """Per output: the bit-plane shift of a bit-serial method, then the accumulating adder."""
    _, entry_bits = entry_adder(spec)
    shift = _plane_shift(spec, entry_bits) if bit_serial else NOTHING
    return series(shift, accumulating_adder(spec))


def _mac(spec: UnitSpec) -> Datapath:
    """Dequantize the weights to the activation format (one converter per weight, shared by the
    M rows), multiply, adder tree, accumulate. One K-dot per output per cycle."""
    a, w, m, n, k, b = spec[:6]
    if a.is_float and not w.is_float:
        dequant = b.int_to_fp(w.bits, a.exp_bits, a.significand)
    else:
        dequant = NOTHING  # INT: sign extension is wiring; FP weights need none
    mult = (b.fp_multiplier(a.exp_bits, a.significand) if a.is_float
            else b.multiplier(a.bits, a.bits))
    tree_adder = (add_into(spec, accumulator_format(spec)) if a.is_float
                  else b.adder(2 * a.bits + clog2(k)))
    units = m * n
    parts = {"dequantize": times(dequant, k * n),
             "multiply": times(mult, units * k),
             "adder_tree": times(b.adder_tree(k, tree_adder), units),
             "broadcast": parallel(b.broadcast(m * k * a.bits, n),
                                   b.broadcast(k * n * a.bits, m)),  # dequantized weights
             "accumulate": times(_accumulate(spec, bit_serial=False), units)}
    path = series(dequant, parts["broadcast"], mult, b.adder_tree(k, tree_adder),
                  _accumulate(spec, bit_serial=False))
    return Datapath(parts, (path,), 2 * units * k)


def _add(spec: UnitSpec) -> Datapath:
    """Bit-serial ADD (Stripes, Judd et al. MICRO 2016): one weight bit-plane per cycle, the
    activations gated by their weight bit, an adder tree, MSB-plane negation, shift, accumulate."""
    a, w, m, n, k, b = spec[:6]
    sum_adder, entry_bits = entry_adder(spec)
    units = m * n
    gating = b.gates(AND2=k * a.bits, delay=b.cell_delay("AND2"))
    sign = b.conditional_negate(entry_bits)  # MSB plane
    tree = b.adder_tree(k, sum_adder)
    accumulate = _accumulate(spec, bit_serial=True)
    parts = {"lookup": times(series(gating, sign), units),
             "adder_tree": times(tree, units),
             "broadcast": parallel(b.broadcast(m * k * a.bits, n), b.broadcast(k * n, m)),
             "accumulate": times(accumulate, units)}
    path = series(parts["broadcast"], gating, tree, sign, accumulate)
    return Datapath(parts, (path,), 2 * units * k / w.bits)


def _lut(variant: LutVariant, spec: UnitSpec) -> Datapath:
    """Tables of K-activation sums held in registers over the W bit-planes; each unit looks up
    one bit-plane per cycle (a mux on the K-bit weight index), negates, shifts and accumulates."""
    a, w, m, n, k, b = spec[:6]
    _, entry_bits = entry_adder(spec)
    units = m * n
    entries = 2.0 ** (k - 1) if variant.symmetric else 2.0 ** k
    index_invert = (b.gates(XOR2=k - 1, delay=b.cell_delay("XOR2")) if variant.index_invert
                    else NOTHING)
    sign = b.conditional_negate(entry_bits)  # MSB plane, or the sign of a symmetric lookup
    lookup = series(index_invert, b.mux_tree(entries, entry_bits), sign)
    weight_bcast = b.broadcast(k * n, m)  # one bit-plane (the K-bit index) per column
    if variant.table_per_unit:  # a table per table_share units, built from their activations
        groups = xp(n).ceil(n / spec.table_share)
        tables, table_fanout = m * groups, xp(n).minimum(spec.table_share, n)
        bcast = parallel(b.broadcast(m * k * a.bits, groups),
                         b.broadcast(tables * entries * entry_bits, table_fanout), weight_bcast)
    else:  # a table per row, broadcast to the N columns
        tables, table_fanout = m, n
        bcast = parallel(b.broadcast(m * entries * entry_bits, n), weight_bcast)
    act_fanout = groups if variant.table_per_unit else n
    table_bits = tables * entries * entry_bits  # Eq. 7 per table
    accumulate = _accumulate(spec, bit_serial=True)
    parts = {"lookup": times(lookup, units), "broadcast": bcast,
             "tables": series(b.register(table_bits),  # held over the W bit-planes:
                              b.gates(MUX2=table_bits)),  # a load enable per bit
             "accumulate": times(accumulate, units)}
    paths = [series(parallel(b.broadcast(m * entries * entry_bits, table_fanout), weight_bcast),
                    lookup, accumulate)]
    if variant.hardware_precompute:
        pre = precompute(spec, variant.symmetric)
        parts["precompute"] = times(pre, tables)
        paths.append(series(b.broadcast(m * k * a.bits, act_fanout), pre))
    return Datapath(parts, tuple(paths), 2 * units * k / w.bits,
                    act_registers=variant.hardware_precompute)


# One builder per method, as ``_paper.BUILDERS`` for the paper boundary.
BUILDERS = {"mac": _mac, "add": _add,
            **{name: functools.partial(_lut, variant) for name, variant in LUT_VARIANTS.items()}}


def registers(spec: UnitSpec, built: Datapath, operand_registers: bool):
    """Register bits of the full accounting: activations (unless loaded as tables), weights,
    and one accumulator per output."""
    a, w, m, n, k = spec[:5]
    regs = {"act": m * k * a.bits if built.act_registers else 0.0,
            "weight": k * n * w.bits, "acc": m * n * float(spec.accumulator.bits)}
    if not operand_registers:
        regs["act"] = regs["weight"] = 0.0
    return sum(regs.values())
