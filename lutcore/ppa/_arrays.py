"""Dot-product units and M x N x K tensor-core arrays of every method the LUT Tensor Core paper
compares (§4.1.1, §4.2, §4.5.2), priced from the blocks of ``_blocks``, at two design boundaries:

- ``boundary="paper"`` (default): what the authors synthesized. Their released LUT array has no
  storage: tables, weights and partial sums are module ports, one 16-bit FP16 result register per
  output; every method is built by that rule (``_paper``, where the part lists are).
- ``boundary="full"``: a unit that holds what it computes with (``_full``): operand
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

import dataclasses
from collections.abc import Callable, Mapping
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from lutcore import numerics as nm

from .. import _checks as check
from . import _full, _paper, _timing
from ._blocks import NOTHING, TEXTBOOK, Blocks, Cost, parallel, per_cell, series, xp
from ._cells import NANGATE45
from ._libraries import library as _library
from ._power import check_activity, dynamic_energy
from ._unit import (
    ACCUMULATORS,
    ACTIVATIONS,
    LUT_VARIANTS,
    PARTS,
    TABLE_ENTRIES,
    ArrayPPA,
    Datapath,
    Operand,
    UnitSpec,
    accumulating_adder,
    entry_format,
    operand,
    stacked,
)


@dataclasses.dataclass(frozen=True)
class Boundary:
    """A design boundary: what an array holds and how each method is built at it.

    builders: {method: UnitSpec -> Datapath}; accumulator: the default accumulator format for
    FP (True) and integer (False) sums; table_share: columns per lut_conventional table by
    default; operand_registers: whether the unit holds its operands and accumulators in
    registers (added to what the builders count); operand_delivery: whether the operands sit at
    the array's ports, to be priced apart (``operand_delivery``)."""

    name: str
    builders: Mapping[str, Callable[[UnitSpec], Datapath]]
    accumulator: Mapping[bool, str]
    table_share: int
    operand_registers: bool
    operand_delivery: bool

    def build(self, method: str, spec: UnitSpec, operand_registers: bool | None = None
              ) -> Datapath:
        """The datapath of ``method`` with its register bits (operand registers unless
        ``operand_registers`` is False, where the boundary has them)."""
        built = self.builders[method](spec)
        if not self.operand_registers:
            return built
        return built._replace(registers=_full.registers(spec, built,
                                                        operand_registers is not False))


# Default accumulators. Paper: the narrowest accumulator a GPU tensor core offers for the kind of
# its inputs, which is what the released array uses for FP: FP16 (C_BIT = A_LUT_BIT = 16,
# DW_fp_add at FP16; HMMA's .f16 accumulate); no INT array was released, and the only integer
# accumulator is INT32 (IMMA .s32): 16 bits would overflow after three INT8 x INT8 products
# (3 x 127^2 > 2^15). Full: 32 bits for both (FP32 / INT32).
# Columns sharing one conventional-LUT table: §3.1.1 "a naive direct precompute unit shares a
# table across a LUT-based Tensor Core within an array size of N=4" (the paper's conventional
# design); the full accounting keeps a table per unit (its Fig. 5 three-step unit).
BOUNDARY = {
    "paper": Boundary("paper", _paper.BUILDERS, {True: "fp16", False: "int32"}, table_share=4,
                      operand_registers=False, operand_delivery=True),
    "full": Boundary("full", _full.BUILDERS, {True: "fp32", False: "int32"}, table_share=1,
                     operand_registers=True, operand_delivery=False),
}
BOUNDARIES = tuple(BOUNDARY)
# One builder per method at every boundary (Accelergy's table of interchangeable estimators), in
# report order.
METHODS = tuple(_full.BUILDERS)
LUT_METHODS = tuple(LUT_VARIANTS)


def boundary_named(boundary: str | Boundary) -> Boundary:
    """The record of ``boundary`` (a name of ``BOUNDARIES`` or a ``Boundary``)."""
    return check.named(BOUNDARY, boundary, what="boundary", record=Boundary)


def _formats(acts, weights, ndim: int, method: str) -> tuple[Operand, Operand]:
    """(activation, weight) operands: single formats, or equal-length tuples paired on a design
    axis (a single name is repeated)."""
    one = lambda x: isinstance(x, (str, nm.Format))  # a name or a (new) format's record
    stack = not (one(acts) and one(weights))
    acts, weights = ((x,) if one(x) else tuple(x) for x in (acts, weights))
    size = max(len(acts), len(weights))
    acts, weights = (x * size if len(x) == 1 else x for x in (acts, weights))
    if len(acts) != len(weights):
        raise ValueError(f"act {acts} and weight {weights}: tuples of one length")
    for act, weight in zip(acts, weights):
        operand(act), operand(weight)
        if not isinstance(act, nm.Format) and act not in ACTIVATIONS:
            raise ValueError(f"activation {act!r} not supported; allowed values: "
                             f"{', '.join(ACTIVATIONS)}")
        if method != "mac" and operand(weight).is_float:
            raise ValueError(f"{method} needs integer weights (int1..int8), got {weight!r}")
    if not stack:
        return operand(acts[0]), operand(weights[0])
    return stacked(acts, ndim), stacked(weights, ndim)


def unit_spec(method: str, act, weight, m, n, k, *, boundary: str | Boundary = "paper",
              entry: str | None = None, accumulator: str | None = None,
              table_share: int | None = None, library="nangate45") -> UnitSpec:
    """The checked ``UnitSpec`` of one design, or of designs stacked on a leading axis (see
    ``tensor_core`` for the arguments), built from ``library``'s textbook blocks; one clear
    ValueError naming the key and its allowed values for anything it cannot build."""
    bound = boundary_named(boundary)
    if method not in bound.builders:
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
                    table_share=float(bound.table_share if table_share is None else table_share))
    sums_float = entry_format(spec).is_float
    acc = operand(accumulator or bound.accumulator[sums_float])
    if acc.is_float != sums_float:
        raise ValueError(f"accumulator {acc.name!r} must be of the kind of the sums it adds "
                         f"({'FP' if sums_float else 'INT'}); allowed values: " + ", ".join(
                             x for x in ACCUMULATORS if operand(x).is_float == sums_float))
    return spec._replace(accumulator=acc)


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
    loop = ((accumulating_adder(spec) if built.loop is None else built.loop).delay
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
def tensor_core(method: str, act: str, weight: str, m, n, k, *, boundary: str | Boundary = "paper",
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
    bound = boundary_named(boundary)
    if operand_registers and not bound.operand_registers:
        raise ValueError(f"operand_registers=True: the {bound.name} boundary has no operand "
                         f"registers; allowed values at boundary={bound.name!r}: None, False")
    if clock_ghz is not None:
        check.finite("clock_ghz", clock_ghz, above=0)
    spec = unit_spec(method, act, weight, m, n, k, boundary=bound, entry=entry,
                     accumulator=accumulator, table_share=table_share, library=library)
    if clock_ghz is None:
        return price(spec, bound.build(method, spec, operand_registers))

    def priced_with(blocks: Blocks) -> Priced:
        graded_spec = spec._replace(blocks=blocks)
        return _priced(graded_spec, bound.build(method, graded_spec, operand_registers))

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


@check.entry
def operand_delivery(method: str, act: str, weight: str, m, n, k, *,
                     clock_ghz: float | None = None, **options) -> ArrayPPA:
    """The cost of delivering the operands of a paper-boundary array (``_paper.delivered_bits``, one
    flip-flop per bit, see ``_paper``), priced like an array of the same throughput:
    add it to ``tensor_core(..., boundary="paper")`` wherever the operands come from
    matters (the shape DSE). ``options``: those of ``tensor_core`` (``library`` among them);
    ``clock_ghz`` changes nothing (flip-flops alone have no path to close)."""
    del clock_ghz
    spec = unit_spec(method, act, weight, m, n, k, boundary=BOUNDARY["paper"], **options)
    ops = 2 * spec.m * spec.n * spec.k / (1.0 if method == "mac" else spec.weight.bits)
    return price(spec, Datapath({}, (NOTHING,), ops, registers=_paper.delivered_bits(spec, method)))
