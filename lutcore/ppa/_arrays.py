"""Dot-product units and M x N x K tensor-core arrays of every method the LUT Tensor Core paper
compares (§4.1.1, §4.2, §4.5.2), priced from the blocks of ``_blocks``, at two design boundaries:

- ``boundary="paper"`` (default): what the authors synthesized. Their released LUT array has no
  storage: tables, weights and partial sums are module ports, one 16-bit FP16 result register per
  output; every method is built by that rule (``_paper``, where the part lists are).
- ``boundary="full"``: a unit that holds what it computes with (this module's builders): operand
  registers, tables held over the W bit-planes with a load enable per bit, 32-bit accumulation.

An array computes C[M, N] += A[M, K] @ W[K, N]: A (activations) enter per row and are broadcast
to the N columns, W (weights) per column and broadcast to the M rows (LUT Tensor Core Fig. 9).
A dot-product unit is the array with M = N = 1.

Methods at the full boundary (all with the same operand/accumulator registers and the same
accumulator):
- ``mac``: dequantize the weights to the activation format (one converter per weight, shared by
  the M rows), multiply, adder tree, accumulate. One K-dot per output per cycle.
- ``add``: bit-serial (Stripes, Judd et al. MICRO 2016): one weight bit-plane per cycle, the
  activations gated by their weight bit, an adder tree, MSB-plane negation, shift, accumulate.
- ``lut_conventional``: every unit (or every ``table_share`` units, §3.1.1) precomputes its own
  2^K table from its activations, keeps it in registers, looks up one bit-plane per cycle
  (2^K:1 mux), MSB-plane negation, shift-add.
- ``unpu``: UNPU (Lee et al., JSSC 2019) with the array shape free (DSE): one hardware
  precompute and one 2^K table per row, broadcast to the N lookup units.
- ``unpu_reinterpret``: + weight reinterpretation {0,1} -> {-1,1} (§3.1.2): 2^(K-1) table;
  each lookup inverts its index by the top bit (Eq. 5) and negates the entry.
- ``unpu_offline_negation``: + the index inversion done offline on the weights (Eq. 6).
- ``lut_tensor_core``: + the precompute moved to software and fused with the previous operator
  (§3.1.1): no precompute adders and no activation registers in the array; tables are loaded.

Bit-serial methods finish a W-bit product in W cycles: ``ops_per_cycle`` says so, and compute
density and energy efficiency are per operation, so they compare at equal work.

Cells: any library of ``LIBRARIES`` (``library=``; NanGate45 by default). Power: every cell
output toggles with probability ``_power.ACTIVITY`` per cycle (random data, glitches ignored),
or under Design Compiler's default activity (``_power``); every flip-flop is clocked each
cycle; plus leakage. Critical path: clock-to-Q, the slowest register-to-register path, setup.
Timing closure (``clock_ghz=``): the design is priced with the cheapest speed grade (adder and
multiplier architectures, ``_timing.GRADES``) whose path fits the clock, per design point; only
where none does, pipeline registers cut the feed-forward path (the accumulator's loop cannot be
cut); a design whose loop alone does not fit is flagged (``meets_timing`` False).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from .. import _checks as check
from . import _timing
from ._blocks import NOTHING, TEXTBOOK, Blocks, Cost, clog2, parallel, per_cell, series, times, xp
from ._cells import NANGATE45, Scale
from ._libraries import library as _library
from ._power import check_activity, dynamic_energy


class Operand(NamedTuple):
    """A number format of an operand: total bits, exponent bits (0 = integer), mantissa bits.
    The widths may be arrays (formats of one kind stacked on a design axis, ``stacked``)."""

    name: str
    bits: int
    exp_bits: int = 0
    man_bits: int = 0

    @property
    def is_float(self) -> bool:
        return bool(np.all(np.asarray(self.exp_bits) > 0))

    @property
    def significand(self) -> int:
        """Significand bits with the hidden one."""
        return self.man_bits + 1


OPERANDS = {
    "fp16": Operand("fp16", 16, 5, 10),
    "fp8": Operand("fp8", 8, 4, 3),  # E4M3, the activation FP8 of H100-class tensor cores
    "fp32": Operand("fp32", 32, 8, 23),
    **{f"int{b}": Operand(f"int{b}", b) for b in (1, 2, 3, 4, 5, 6, 7, 8, 16, 32)},
}
ACTIVATIONS = ("fp16", "fp8", "int8", "int16")
PARTS = ("registers", "broadcast", "dequantize", "multiply", "precompute", "tables", "lookup",
         "adder_tree", "accumulate", "control")
BOUNDARIES = ("paper", "full")
TABLE_ENTRIES = ("fp16", "fp8", "int8", "int16")  # LUT entry formats (§3.1.3: INT8 tables)
ACCUMULATORS = ("fp16", "fp32", "int16", "int32")
# Default accumulator per (boundary, float kind). Paper: the narrowest accumulator a GPU tensor
# core offers for the kind of its inputs, which is what the released array uses for FP: FP16
# (C_BIT = A_LUT_BIT = 16, DW_fp_add at FP16; HMMA's .f16 accumulate); no INT array was
# released, and the only integer accumulator is INT32 (IMMA .s32): 16 bits would overflow after
# three INT8 x INT8 products (3 x 127^2 > 2^15). Full: 32 bits for both (FP32 / INT32).
DEFAULT_ACCUMULATOR = {("paper", True): "fp16", ("paper", False): "int32",
                       ("full", True): "fp32", ("full", False): "int32"}
# Columns sharing one conventional-LUT table: §3.1.1 "a naive direct precompute unit shares a
# table across a LUT-based Tensor Core within an array size of N=4" (the paper's conventional
# design); the full accounting keeps a table per unit (its Fig. 5 three-step unit).
DEFAULT_TABLE_SHARE = {"paper": 4, "full": 1}


def operand(name: str) -> Operand:
    if name not in OPERANDS:
        raise ValueError(f"unknown format {name!r}; allowed values: {', '.join(OPERANDS)}")
    return OPERANDS[name]


def stacked(names, ndim: int) -> Operand:
    """Formats of one kind (all FP or all INT) as one ``Operand`` whose widths are arrays of
    shape [len(names), 1 x ndim]: a design axis in front of a design space of ``ndim`` axes."""
    formats = [operand(x) for x in names]
    if len({f.is_float for f in formats}) > 1:
        raise ValueError(f"formats {list(names)} mix FP and INT; one call prices one kind")
    shape = (len(formats),) + (1,) * ndim
    column = lambda field: np.array([getattr(f, field) for f in formats]).reshape(shape)
    return Operand("+".join(names), column("bits"), column("exp_bits"), column("man_bits"))


class ArrayPPA(NamedTuple):
    """Cost of an M x N x K array in its cell library (NanGate45: 45nm); every field broadcasts
    over the shape arrays (numpy arrays; jax arrays under jit).

    parts: {part: Cost} (see ``PARTS``); area: um^2; dynamic_energy: fJ per cycle (``random``
    activity); leakage: nW; delay: ps, the critical path (closed: per pipeline stage);
    ops_per_cycle: multiply-adds x 2 per cycle; dc_default_energy: fJ per cycle under Design
    Compiler's default activity; meets_timing: the clock asked for is met (always, unasked);
    grade: index into ``_timing.GRADES`` of the architectures used; stages: pipeline stages
    (1: none); to_28nm: the library's scale factors to "28nm"; node_nm: the library's node.
    """

    parts: dict
    area: jnp.ndarray
    dynamic_energy: jnp.ndarray
    leakage: jnp.ndarray
    delay: jnp.ndarray
    ops_per_cycle: jnp.ndarray
    dc_default_energy: jnp.ndarray = None
    meets_timing: jnp.ndarray = None
    grade: jnp.ndarray = None
    stages: jnp.ndarray = None
    to_28nm: Scale = NANGATE45.to_28nm
    node_nm: float = NANGATE45.node_nm


class UnitSpec(NamedTuple):
    """What every builder is given: the operand formats, the array shape (float arrays of one
    broadcast shape, a design space), the blocks to build from, the table-entry format (None:
    the rule of ``entry_format``), the accumulator format (None: FP32 / INT32) and how many
    columns share one conventional-LUT table."""

    act: Operand
    weight: Operand
    m: jnp.ndarray
    n: jnp.ndarray
    k: jnp.ndarray
    blocks: Blocks = TEXTBOOK
    entry: Operand | None = None
    accumulator: Operand | None = None
    table_share: float = 1.0


def entry_format(spec: UnitSpec) -> Operand:
    """Format of a K-term signed sum of activations (a table entry or an adder-tree node):
    ``spec.entry`` when given; else the activation format (FP, as the released FP16 array) or
    the activation widened by log2 K (INT, exact)."""
    if spec.entry is not None:
        return spec.entry
    if spec.act.is_float:
        return spec.act
    return Operand("int", spec.act.bits + clog2(spec.k))


def _entry(spec: UnitSpec):
    """(adder, bits) of the sums of ``entry_format``."""
    fmt = entry_format(spec)
    if fmt.is_float:
        return spec.blocks.fp_adder(fmt.exp_bits, fmt.significand), xp(fmt.bits).asarray(
            fmt.bits, dtype=float)
    return spec.blocks.adder(fmt.bits), fmt.bits


def accumulator_format(spec: UnitSpec) -> Operand:
    """The accumulator: ``spec.accumulator``, else FP32 for FP sums and INT32 for integers."""
    if spec.accumulator is not None:
        return spec.accumulator
    return OPERANDS["fp32" if entry_format(spec).is_float else "int32"]


def add_into(spec: UnitSpec, fmt: Operand) -> Cost:
    """A two-operand adder in ``fmt``: an FP adder or an integer adder of its width."""
    if fmt.is_float:
        return spec.blocks.fp_adder(fmt.exp_bits, fmt.significand)
    return spec.blocks.adder(fmt.bits)


def _accumulator(spec: UnitSpec) -> Cost:
    """The accumulating adder (its register is among the array's registers)."""
    return add_into(spec, accumulator_format(spec))


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


def _precompute(spec: UnitSpec, symmetric: bool) -> Cost:
    """Hardware table precompute from K activations: each entry one add from an earlier entry
    (2^K - K - 1 adders for the full table; K - 1 for the first symmetric entry, then one
    add/sub of 2 a_i per further entry); log2 K adders deep."""
    adder, _ = _entry(spec)
    k = spec.k
    count = (k - 1 + 2.0 ** (k - 1) - 1) if symmetric else (2.0 ** k - k - 1)
    pre = times(adder, count)
    return Cost(pre.cells, clog2(k) * adder.delay)


class Datapath(NamedTuple):
    """What a builder returns: its parts ({part: Cost}, the rest of ``PARTS`` is empty), its
    register-to-register paths (combinational; the slowest counts), multiply-adds x 2 per cycle,
    whether the activations are registered in the array (full accounting), its register
    bits (the paper boundary's builders count their own; the full ones get them from
    ``tensor_core``) and the accumulator loop from the result register back to it (None: the
    accumulating adder, ``_accumulator``), which pipelining cannot cut."""

    parts: dict
    paths: tuple
    ops_per_cycle: jnp.ndarray
    act_registers: bool = True
    registers: jnp.ndarray | float = 0.0
    loop: Cost | None = None


def _accumulate(spec: UnitSpec, bit_serial: bool) -> Cost:
    """Per output: the bit-plane shift of a bit-serial method, then the accumulating adder."""
    _, entry_bits = _entry(spec)
    shift = _plane_shift(spec, entry_bits) if bit_serial else NOTHING
    return series(shift, _accumulator(spec))


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
    entry_adder, entry_bits = _entry(spec)
    units = m * n
    gating = b.gates(AND2=k * a.bits, delay=b.cell_delay("AND2"))
    sign = b.conditional_negate(entry_bits)  # MSB plane
    tree = b.adder_tree(k, entry_adder)
    accumulate = _accumulate(spec, bit_serial=True)
    parts = {"lookup": times(series(gating, sign), units),
             "adder_tree": times(tree, units),
             "broadcast": parallel(b.broadcast(m * k * a.bits, n), b.broadcast(k * n, m)),
             "accumulate": times(accumulate, units)}
    path = series(parts["broadcast"], gating, tree, sign, accumulate)
    return Datapath(parts, (path,), 2 * units * k / w.bits)


class LutVariant(NamedTuple):
    """How a LUT method differs from the others (LUT Tensor Core §2.3, §3.1, Table 2)."""

    symmetric: bool  # 2^(K-1) entries ({0,1} read as {-1,1}, §3.1.2) instead of 2^K
    table_per_unit: bool  # every ``table_share`` units build a table; else one per row
    index_invert: bool  # each lookup inverts its index by the top bit (Eq. 5), not offline
    hardware_precompute: bool  # tables built by adders in the array; else loaded (§3.1.1)


LUT_VARIANTS = {
    "lut_conventional": LutVariant(symmetric=False, table_per_unit=True, index_invert=False,
                                   hardware_precompute=True),
    "unpu": LutVariant(symmetric=False, table_per_unit=False, index_invert=False,
                       hardware_precompute=True),
    "unpu_reinterpret": LutVariant(symmetric=True, table_per_unit=False, index_invert=True,
                                   hardware_precompute=True),
    "unpu_offline_negation": LutVariant(symmetric=True, table_per_unit=False,
                                        index_invert=False, hardware_precompute=True),
    "lut_tensor_core": LutVariant(symmetric=True, table_per_unit=False, index_invert=False,
                                  hardware_precompute=False),
}


def _lut(variant: LutVariant, spec: UnitSpec) -> Datapath:
    """Tables of K-activation sums held in registers over the W bit-planes; each unit looks up
    one bit-plane per cycle (a mux on the K-bit weight index), negates, shifts and accumulates."""
    a, w, m, n, k, b = spec[:6]
    _, entry_bits = _entry(spec)
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
        pre = _precompute(spec, variant.symmetric)
        parts["precompute"] = times(pre, tables)
        paths.append(series(b.broadcast(m * k * a.bits, act_fanout), pre))
    return Datapath(parts, tuple(paths), 2 * units * k / w.bits,
                    act_registers=variant.hardware_precompute)


# One builder per method (Accelergy's table of interchangeable estimators), in report order.
BUILDERS = {"mac": _mac, "add": _add,
            **{name: functools.partial(_lut, variant) for name, variant in LUT_VARIANTS.items()}}
METHODS = tuple(BUILDERS)
LUT_METHODS = tuple(LUT_VARIANTS)


def _formats(acts, weights, ndim: int, method: str) -> tuple[Operand, Operand]:
    """(activation, weight) operands: single formats, or equal-length tuples paired on a design
    axis (a single name is repeated)."""
    stack = not (isinstance(acts, str) and isinstance(weights, str))
    acts, weights = ((x,) if isinstance(x, str) else tuple(x) for x in (acts, weights))
    size = max(len(acts), len(weights))
    acts, weights = (x * size if len(x) == 1 else x for x in (acts, weights))
    if len(acts) != len(weights):
        raise ValueError(f"act {acts} and weight {weights}: tuples of one length")
    for act, weight in zip(acts, weights):
        operand(act), operand(weight)
        if act not in ACTIVATIONS:
            raise ValueError(f"activation {act!r} not supported; allowed values: "
                             f"{', '.join(ACTIVATIONS)}")
        if method != "mac" and operand(weight).is_float:
            raise ValueError(f"{method} needs integer weights (int1..int8), got {weight!r}")
    if not stack:
        return operand(acts[0]), operand(weights[0])
    return stacked(acts, ndim), stacked(weights, ndim)


def unit_spec(method: str, act, weight, m, n, k, *, boundary: str = "paper",
              entry: str | None = None, accumulator: str | None = None,
              table_share: int | None = None, library="nangate45") -> UnitSpec:
    """The checked ``UnitSpec`` of one design, or of designs stacked on a leading axis (see
    ``tensor_core`` for the arguments), built from ``library``'s textbook blocks; one clear
    ValueError naming the key and its allowed values for anything it cannot build."""
    if boundary not in BOUNDARIES:
        raise ValueError(f"boundary {boundary!r} unknown; allowed values: {', '.join(BOUNDARIES)}")
    if method not in BUILDERS:
        raise ValueError(f"unknown method {method!r}; allowed values: {', '.join(METHODS)}")
    lib = _library(library)
    for name, size in (("m", m), ("n", n), ("k", k)):
        check.integers(name, size, min=1)
    a, w = _formats(act, weight, len(np.broadcast_shapes(*map(np.shape, (m, n, k)))), method)
    if entry is not None and (method not in LUT_METHODS or entry not in TABLE_ENTRIES):
        raise ValueError(f"entry {entry!r}: a table-entry format of the LUT methods; allowed "
                         f"values: {', '.join(TABLE_ENTRIES)} (with method in "
                         f"{', '.join(LUT_METHODS)})")
    if accumulator is not None and accumulator not in ACCUMULATORS:
        raise ValueError(f"accumulator {accumulator!r} unknown; allowed values: "
                         f"{', '.join(ACCUMULATORS)}")
    if table_share is not None and (method != "lut_conventional" or isinstance(table_share, bool)
                                    or not isinstance(table_share, int) or table_share < 1):
        raise ValueError(f"table_share {table_share!r}: columns per table of lut_conventional; "
                         "allowed values: integers >= 1")
    ns = xp(m, n, k)  # numpy unless traced: eager pricing is op-dispatch bound
    m, n, k = (ns.asarray(x, dtype=float) for x in (m, n, k))
    spec = UnitSpec(a, w, m, n, k, TEXTBOOK if lib is NANGATE45 else _timing.blocks(lib),
                    entry=None if entry is None else operand(entry),
                    table_share=float(DEFAULT_TABLE_SHARE[boundary] if table_share is None
                                      else table_share))
    sums_float = entry_format(spec).is_float
    acc = operand(accumulator or DEFAULT_ACCUMULATOR[(boundary, sums_float)])
    if acc.is_float != sums_float:
        raise ValueError(f"accumulator {acc.name!r} must be of the kind of the sums it adds "
                         f"({'FP' if sums_float else 'INT'}); allowed values: " + ", ".join(
                             x for x in ACCUMULATORS if operand(x).is_float == sums_float))
    return spec._replace(accumulator=acc)


def _full_registers(spec: UnitSpec, built: Datapath, operand_registers: bool):
    """Register bits of the full accounting: activations (unless loaded as tables), weights,
    and one accumulator per output."""
    a, w, m, n, k = spec[:5]
    regs = {"act": m * k * a.bits if built.act_registers else 0.0,
            "weight": k * n * w.bits, "acc": m * n * float(spec.accumulator.bits)}
    if not operand_registers:
        regs["act"] = regs["weight"] = 0.0
    return sum(regs.values())


def build(method: str, spec: UnitSpec, boundary: str, operand_registers: bool | None = None
          ) -> Datapath:
    """The datapath of ``method`` at ``boundary`` (``_paper.BUILDERS`` or ``BUILDERS``), with
    its register bits."""
    if boundary == "paper":
        return _paper.BUILDERS[method](spec)
    built = BUILDERS[method](spec)
    return built._replace(registers=_full_registers(spec, built, operand_registers is not False))


class Priced(NamedTuple):
    """One array under one Blocks set: its parts, register-to-register path and accumulator
    loop (ps), and the flip-flops of one pipeline cut (the accumulator word of every output)."""

    parts: dict
    delay: jnp.ndarray
    loop: jnp.ndarray
    ops_per_cycle: jnp.ndarray
    cut_bits: jnp.ndarray


def _priced(spec: UnitSpec, built: Datapath) -> Priced:
    """A built datapath with its registers, path, loop and cut, every field broadcast to the
    design space's shape (to stack grades and designs)."""
    parts = {part: built.parts.get(part, NOTHING) for part in PARTS}
    parts["registers"] = spec.blocks.register(built.registers)
    lib = spec.blocks.library
    delay = parallel(*built.paths).delay + lib.dff_clk_to_q + lib.dff_setup
    loop = ((_accumulator(spec) if built.loop is None else built.loop).delay
            + lib.dff_clk_to_q + lib.dff_setup)
    cut = spec.m * spec.n * float(spec.accumulator.bits)
    ns = xp(delay, loop, cut, *(c.cells for c in parts.values()))
    shape = np.broadcast_shapes(*(np.shape(x) for x in (delay, loop, cut, built.ops_per_cycle)),
                                *(c.cells.shape[:-1] for c in parts.values()))
    grow = lambda x: ns.broadcast_to(x, shape)
    parts = {p: Cost(ns.broadcast_to(c.cells, (*shape, c.cells.shape[-1])), grow(c.delay))
             for p, c in parts.items()}
    return Priced(parts, grow(delay), grow(loop), grow(built.ops_per_cycle), grow(cut))


def price(spec: UnitSpec, built: Datapath) -> ArrayPPA:
    """Area, energy, leakage and critical path of a built datapath and its registers,
    unconstrained (``spec``'s blocks)."""
    priced = _priced(spec, built)
    shape = np.shape(priced.delay)
    return _finish(priced, np.ones(shape, bool), np.zeros(shape, int), np.ones(shape),
                   spec.blocks.library)


@check.entry
def tensor_core(method: str, act: str, weight: str, m, n, k, *, boundary: str = "paper",
                operand_registers: bool | None = None, entry: str | None = None,
                accumulator: str | None = None, table_share: int | None = None,
                library="nangate45", clock_ghz: float | None = None,
                pipeline: bool = True) -> ArrayPPA:
    """Cost of an m x n x k array of ``method`` for activations ``act`` and weights ``weight``
    (``int1``..``int8`` for every method; ``fp16``/``fp8`` for ``mac``). m, n, k: ints or
    arrays of one shape (a design space). ``act`` and ``weight`` may be tuples of names of one
    kind (all FP or all INT activations; INT or FP weights), paired: the designs then stack on a
    leading axis of every output, one call for all of them.

    boundary: "paper" (default: the design the authors synthesized and report, see ``_paper``)
    or "full" (operand and table storage, 32-bit accumulation). entry: LUT table-entry format
    (``TABLE_ENTRIES``; default the activation format for FP, the exact K-sum for INT).
    accumulator: ``ACCUMULATORS`` (default ``DEFAULT_ACCUMULATOR``). table_share: columns per
    lut_conventional table (default ``DEFAULT_TABLE_SHARE``). operand_registers=False leaves the
    activation and weight registers out of the full accounting (the paper boundary has none).
    library: a name of ``LIBRARIES``. clock_ghz: close timing at this clock at the paper's 28nm
    (the LUT Tensor Core paper synthesizes at 1 GHz); None prices the textbook architectures
    (ripple adders, array multipliers) unconstrained. pipeline=False keeps the design in one
    stage at that clock (a given RTL, as synthesized): the least-area grade whose path fits,
    else the fastest, flagged. Pure: ``jax.jit(tensor_core,
    static_argnums=(0, 1, 2))`` compiles one method/format for large sweeps
    (``benchmarks/bench_ppa.py``)."""
    if operand_registers and boundary == "paper":
        raise ValueError("operand_registers=True: the paper boundary has no operand registers; "
                         "allowed values at boundary='paper': None, False")
    if clock_ghz is not None:
        check.finite("clock_ghz", clock_ghz, above=0)
    spec = unit_spec(method, act, weight, m, n, k, boundary=boundary, entry=entry,
                     accumulator=accumulator, table_share=table_share, library=library)
    if clock_ghz is None:
        return price(spec, build(method, spec, boundary, operand_registers))

    def priced_with(blocks: Blocks) -> Priced:
        graded_spec = spec._replace(blocks=blocks)
        return _priced(graded_spec, build(method, graded_spec, boundary, operand_registers))

    lib = spec.blocks.library
    period = _timing.period_ps(clock_ghz, lib)
    graded = _timing.every_grade(priced_with, lib)
    total = series(*graded.parts.values())
    if not pipeline:
        grade, meets = _timing.choose_grade(total.area(lib), graded.delay, period)
        one = xp(grade).ones(np.shape(grade))
        return _finish(_timing.take_grade(graded, grade), meets, grade, one, lib)
    overhead = lib.dff_clk_to_q + lib.dff_setup
    grade, stages, meets = _timing.choose_pipelined(
        total.area(lib), graded.delay, graded.loop, graded.cut_bits * lib.cell("DFF").area,
        period, overhead)
    priced = _timing.take_grade(graded, grade)
    cut = spec.blocks.register((stages - 1) * priced.cut_bits)  # pipeline registers, if any
    ns = xp(priced.delay, stages)
    staged = ns.maximum((priced.delay - overhead) / stages + overhead, priced.loop)
    priced = priced._replace(
        parts={**priced.parts, "registers": series(priced.parts["registers"], cut)},
        delay=ns.where(stages > 1, staged, priced.delay))
    return _finish(priced, meets, grade, stages, lib)


def _finish(priced: Priced, meets, grade, stages, lib) -> ArrayPPA:
    """The ArrayPPA of a priced design: numpy arrays unless traced (``xp``)."""
    total = series(*priced.parts.values())
    ns = xp(total.cells, priced.delay, meets, grade, stages)
    return ArrayPPA(parts=priced.parts, area=total.area(lib),
                    dynamic_energy=dynamic_energy(total.cells, lib, "random"),
                    leakage=per_cell(total.cells, lib.leakage),
                    delay=ns.asarray(priced.delay),
                    ops_per_cycle=ns.asarray(priced.ops_per_cycle),
                    dc_default_energy=dynamic_energy(total.cells, lib, "dc_default"),
                    meets_timing=ns.asarray(meets), grade=ns.asarray(grade),
                    stages=ns.asarray(stages), to_28nm=lib.to_28nm, node_nm=lib.node_nm)


class Metrics(NamedTuple):
    """Figures of merit at a technology node and clock: area mm^2, power mW, critical path ps,
    throughput TFLOPs (TOPs for integers), compute density TFLOPs/mm^2, efficiency TFLOPs/W,
    and whether the critical path fits the clock."""

    area: jnp.ndarray
    power: jnp.ndarray
    delay: jnp.ndarray
    throughput: jnp.ndarray
    density: jnp.ndarray
    efficiency: jnp.ndarray
    meets_timing: jnp.ndarray = None


@check.entry
def metrics(ppa: ArrayPPA, *, node: str = "28nm", freq_ghz: float = 1.0,
            activity: str = "random") -> Metrics:
    """``ppa`` as the paper reports it: at ``node`` ("28nm": the library scaled onto the paper's
    node, see ``_cells``; or the library's own, "45nm" for NanGate45, "7nm" for ASAP7) and
    ``freq_ghz`` (the paper synthesizes at 1 GHz), its power under the ``activity`` model
    ("random": 1/2 per node; "dc_default": Design Compiler's default activity, ``_power``)."""
    native = f"{ppa.node_nm:g}nm"
    if node not in (native, "28nm"):
        raise ValueError(f"unknown node {node!r}; allowed values: '{native}', '28nm'")
    check_activity(activity)
    check.finite("freq_ghz", freq_ghz, above=0)
    scaled = node == "28nm"
    energy = ppa.dynamic_energy if activity == "random" else ppa.dc_default_energy
    area = ppa.area * (ppa.to_28nm.area if scaled else 1.0) * 1e-6
    dynamic = energy * (ppa.to_28nm.energy if scaled else 1.0) * freq_ghz * 1e-3
    leakage = ppa.leakage * (ppa.to_28nm.leakage if scaled else 1.0) * 1e-6
    power = dynamic + leakage
    throughput = ppa.ops_per_cycle * freq_ghz * 1e-3
    delay = ppa.delay * (ppa.to_28nm.delay if scaled else 1.0)
    return Metrics(area=area, power=power, delay=delay, throughput=throughput,
                   density=throughput / area, efficiency=throughput / (power * 1e-3),
                   meets_timing=delay <= 1e3 / freq_ghz)


from . import _paper  # noqa: E402  (its builders use this module's formats and helpers)
