"""Arrays at the paper's design boundary: the unit the LUT Tensor Core authors synthesized and
report (§4.1.1), and every other method built by the same rule.

The released array (microsoft/T-MAC@c3319db, branch LUTTensorCore_ISCA25,
``sv_lut_array/rtl/fp_lut_array_b_cycle_stage1.sv``, the top of ``scripts/dc.tcl``; facts only):
- ports, no storage: the table entries ``a_lut[M][2^(K-1)]``, the weights ``b_tile[K][N]`` with
  all B_BIT planes and the partial sums ``c_tile_psum[M][N]`` are module inputs, held by the
  environment over the B_BIT cycles;
- per array: a ``b_index`` counter of clog2(B_BIT) bits and a ``valid`` flop; each weight bit is
  picked from its B_BIT planes by ``b_index`` (a B_BIT:1 mux per bit of ``b_tile[k][j]``);
- per output (i, j): a 2^(K-1):1 mux of one 16-bit entry (select = index bits [K-1:1]); index
  bit 0 flips the entry's sign bit; ``b_index`` is added to the exponent field (x 2^b); a 16-bit
  mux picks ``c_tile_psum`` on the first plane, else the running result; ``DW_fp_add`` at FP16
  (``IEEE_COMPLIANCE = 0``); one 16-bit result register.
No INT array and no MAC/ADD/UNPU RTL were released. The same rule builds them here: operands
(activations, tables, weights with all planes, partial sums) enter on ports; what a unit
computes from them it computes every cycle (UNPU's precompute is combinational from the held
activations); one result register per output in the accumulator format (``_arrays.
DEFAULT_ACCUMULATOR``: FP16 as released, INT32 for integers); bit-serial methods add the
released control (plane counter, valid flop, plane select, psum-or-result mux). The MAC is
built as DesignWare would build it: ``DW_fp_mult`` (product rounded to the activation format)
and ``DW_fp_add`` at the accumulator format, no subnormal path (our FP blocks have none:
``IEEE_COMPLIANCE = 0``).

With no storage in the array, the shape DSE would be blind to where operands come from:
``operand_delivery`` prices the bits that must be held at the array's ports for one instruction
(tables M 2^(K-1) LUT_BIT, Eq. 7; weights K N W_BIT, Eq. 8; partial sums M N C_BIT; or the
activations M K A_BIT of the methods without loaded tables), one flip-flop per bit: the latch of
a GPU operand collector that holds each source operand of an instruction until the unit has
consumed it (GPGPU-Sim/Accel-Sim's operand collector, the simulator the paper uses, §4.1.2).
"""

from __future__ import annotations

import functools

from .. import _checks as check
from ._arrays import (
    LUT_VARIANTS,
    ArrayPPA,
    Datapath,
    LutVariant,
    Operand,
    UnitSpec,
    _entry,
    _precompute,
    add_into,
    entry_format,
    price,
    unit_spec,
)
from ._blocks import NOTHING, Cost, clog2, parallel, series, times, xp


def _when(flag, cost: Cost) -> Cost:
    """``cost`` where ``flag`` holds (a bool or a 0/1 array), nothing elsewhere."""
    f = xp(flag, cost.cells).asarray(flag, dtype=float)
    return Cost(cost.cells * f[..., None], cost.delay * f)


def _negate(spec: UnitSpec, fmt: Operand) -> Cost:
    """Negate a value of ``fmt`` on a control bit: FP flips the sign bit (one XOR2: the release
    does this with index bit 0), INT inverts its bits (the +1 is the next adder's carry-in)."""
    b = spec.blocks
    if fmt.is_float:
        return b.gates(XOR2=1, delay=b.cell_delay("XOR2"))
    return b.conditional_negate(fmt.bits)


def _widen(spec: UnitSpec, fmt: Operand, acc: Operand) -> Cost:
    """Bring a value of ``fmt`` into the accumulator format: INT sign extension and an FP
    mantissa pad are wiring; a narrower FP exponent is rebiased (an adder of the accumulator's
    exponent width)."""
    if not fmt.is_float:
        return NOTHING
    return _when(fmt.exp_bits != acc.exp_bits, spec.blocks.adder(acc.exp_bits))


def _plane_weight(spec: UnitSpec, fmt: Operand) -> Cost:
    """x 2^b for weight bit-plane b on the way into the accumulator. FP (the release): b added
    to the exponent field: with one plane-index bit (B_BIT = 2, as released) an incrementer of
    the exponent width whose +1 is b_index, with more a clog2(W)-bit add carrying into the
    upper exponent bits; or one add of the accumulator's exponent width when the entry is
    rebiased too. INT: the entry shifted left by 0..W-1 (the release's stage-2 variant shifts
    its entry), entry + W - 1 bits wide up to the accumulator's width, then sign-extended.
    Nothing else for 1-bit weights."""
    b, w, acc = spec.blocks, spec.weight.bits, spec.accumulator
    if not acc.is_float:
        return b.barrel_shifter(xp(fmt.bits, w).minimum(fmt.bits + w - 1, acc.bits), w - 1)
    lw, same = clog2(w), xp(fmt.exp_bits).asarray(fmt.exp_bits == acc.exp_bits)
    one_bit = _when(same & (lw == 1), b.incrementer(acc.exp_bits))
    wider = _when(same & (lw > 1), series(b.adder(xp(lw).maximum(lw, 1)),
                                          b.incrementer(acc.exp_bits - lw)))
    return series(one_bit, wider, _widen(spec, fmt, acc))  # at most one of the three


def _psum_select(spec: UnitSpec) -> Cost:
    """The psum-or-result mux of every output (bit-serial only): a MUX2 per accumulator bit."""
    b = spec.blocks
    return _when(spec.weight.bits > 1,
                 b.gates(MUX2=spec.accumulator.bits, delay=b.cell_delay("MUX2")))


def _tail(spec: UnitSpec, fmt: Operand) -> Cost:
    """Per output, after its plane value (of ``fmt``): x 2^b, the psum-or-result mux (bit-serial
    only; on the adder's other input, in parallel), the adder in the accumulator format. The
    result register is among the registers. (Cells; the path is ``_to_adder``'s.)"""
    return series(parallel(_plane_weight(spec, fmt), _psum_select(spec)),
                  add_into(spec, spec.accumulator))


def _to_adder(spec: UnitSpec, fmt: Operand) -> Cost:
    """The path from a plane value of ``fmt`` to the accumulating adder's output: its sign (index
    bit 0, or the MSB plane) and x 2^b on one input, side by side for FP (the sign bit and the
    exponent field are different bits, as in the release), one after the other for INT; the
    psum-or-result mux on the other input; then the adder."""
    sign, weight = _negate(spec, fmt), _plane_weight(spec, fmt)
    value = parallel(sign, weight) if fmt.is_float else series(sign, weight)
    return series(parallel(value, _psum_select(spec)), add_into(spec, spec.accumulator))


def _loop(spec: UnitSpec) -> Cost:
    """The accumulator loop of a bit-serial output: result register, psum-or-result mux, adder,
    back to the register (what pipelining cannot cut)."""
    return series(_psum_select(spec), add_into(spec, spec.accumulator))


def _plane_select(spec: UnitSpec) -> Cost:
    """The W:1 plane select of each of the K N weight bits (bit ``b_index`` of ``b_tile``)."""
    return times(spec.blocks.mux_tree(spec.weight.bits, 1), spec.k * spec.n)


def _plane_counter(spec: UnitSpec) -> Cost:
    """The plane counter's +1 and the b_index == 0 decode that selects the partial sum (its
    clog2(W) flops and the valid flop are registers); bit-serial only."""
    b, lw = spec.blocks, clog2(spec.weight.bits)
    decode = b.gates(NOR2=1, AND2=lw - 1, delay=b.cell_delay("NOR2"))
    return _when(spec.weight.bits > 1, series(b.incrementer(lw), decode))


def _control_drive(spec: UnitSpec) -> Cost:
    """Buffers that drive the plane index to the K N plane selects and the M N exponent adds,
    and the psum select to the M N x accumulator-width muxes (the released RTL has none; a
    timing-driven flow inserts them)."""
    b, w = spec.blocks, spec.weight.bits
    m, n, k = spec.m, spec.n, spec.k
    drive = parallel(b.broadcast(clog2(w), k * n + m * n),
                     b.broadcast(1.0, m * n * spec.accumulator.bits))
    return _when(w > 1, drive)


def _control(spec: UnitSpec) -> Cost:
    """Bit-serial control of the array: plane selects, plane counter and decode, their drive."""
    return parallel(_plane_select(spec), _plane_counter(spec), _control_drive(spec))


def _registers(spec: UnitSpec):
    """One result register per output; the plane counter and the valid flop when bit-serial."""
    w = spec.weight.bits
    return (spec.m * spec.n * float(spec.accumulator.bits)
            + xp(w).where(w > 1, clog2(w) + 1.0, 0.0))


def _mac(spec: UnitSpec) -> Datapath:
    """MAC as DesignWare builds it: a converter per weight for INT weights with FP activations
    (shared by the M rows), ``DW_fp_mult`` per product (exact product, then rounded to the
    activation format), each product widened to the accumulator format, an adder tree and the
    psum add in that format (INT: exact products and tree, the psum add at the accumulator
    width). One K-dot per output per cycle; no counter, no mux."""
    a, w, m, n, k, b = spec[:6]
    acc, units = spec.accumulator, m * n
    if a.is_float:
        dequant = NOTHING if w.is_float else b.int_to_fp(w.bits, a.exp_bits, a.significand)
        rounding = series(b.gates(OR2=a.significand), b.incrementer(a.significand))
        mult = series(b.fp_multiplier(a.exp_bits, a.significand), rounding,
                      _widen(spec, a, acc))
        tree = b.adder_tree(k, add_into(spec, acc))
    else:
        dequant = NOTHING  # sign extension is wiring
        mult = b.multiplier(a.bits, a.bits)
        tree = b.adder_tree(k, b.adder(2 * a.bits + clog2(k)))
    bcast = parallel(b.broadcast(m * k * a.bits, n), b.broadcast(k * n * a.bits, m))
    parts = {"dequantize": times(dequant, k * n), "multiply": times(mult, units * k),
             "adder_tree": times(tree, units), "broadcast": bcast,
             "accumulate": times(add_into(spec, acc), units)}
    path = series(dequant, bcast, mult, tree, add_into(spec, acc))
    return Datapath(parts, (path,), 2 * units * k, act_registers=False,
                    registers=m * n * float(acc.bits))


def _add(spec: UnitSpec) -> Datapath:
    """Bit-serial ADD (Stripes, Judd et al. MICRO 2016) by the same rule: per output the K
    activations gated by their weight bit (AND2), a K-term adder tree in the sum format,
    MSB-plane negation, then ``_tail``; the array's ``_control``."""
    a, w, m, n, k, b = spec[:6]
    fmt = entry_format(spec)
    adder, _ = _entry(spec)
    units = m * n
    gating = b.gates(AND2=k * a.bits, delay=b.cell_delay("AND2"))
    sign, tree, tail = _negate(spec, fmt), b.adder_tree(k, adder), _tail(spec, fmt)  # cells
    weights = series(b.mux_tree(w.bits, 1), b.broadcast(k * n, m))
    bcast = parallel(b.broadcast(m * k * a.bits, n), b.broadcast(k * n, m))
    parts = {"lookup": times(series(gating, sign), units), "adder_tree": times(tree, units),
             "broadcast": bcast, "accumulate": times(tail, units), "control": _control(spec)}
    path = series(parallel(b.broadcast(m * k * a.bits, n), weights), gating, tree,
                  _to_adder(spec, fmt))
    return Datapath(parts, (path,), 2 * units * k / w.bits, act_registers=False,
                    registers=_registers(spec), loop=_loop(spec))


def _lut(variant: LutVariant, spec: UnitSpec) -> Datapath:
    """The LUT methods by the release's rule. LUT Tensor Core = the released array: tables on
    ports, broadcast to the N columns. UNPU (and its ablation steps): one table per row,
    precomputed every cycle from the held activations, broadcast to N; conventional LUT: one
    per ``table_share`` columns. Per output: (index inversion,) the entry mux, the sign (index
    bit 0 of a symmetric table, else the MSB plane), then ``_tail``; the array's ``_control``."""
    a, w, m, n, k, b = spec[:6]
    fmt = entry_format(spec)
    _, entry_bits = _entry(spec)
    units = m * n
    entries = 2.0 ** (k - 1) if variant.symmetric else 2.0 ** k
    index_invert = (b.gates(XOR2=k - 1, delay=b.cell_delay("XOR2")) if variant.index_invert
                    else NOTHING)
    entry_mux = series(index_invert, b.mux_tree(entries, entry_bits))
    lookup = series(entry_mux, _negate(spec, fmt))
    share = spec.table_share if variant.table_per_unit else n
    groups = xp(n).ceil(n / share)  # tables per row
    if variant.hardware_precompute:  # from the row's held activations, every cycle
        act_bcast = b.broadcast(m * k * a.bits, groups)
        pre = _precompute(spec, variant.symmetric)
    else:  # LUT Tensor Core: the tables are ports
        act_bcast = pre = NOTHING
    entry_bcast = b.broadcast(m * groups * entries * entry_bits, xp(n).minimum(share, n))
    weights = series(b.mux_tree(w.bits, 1), b.broadcast(k * n, m))
    tail = _tail(spec, fmt)
    parts = {"lookup": times(lookup, units), "precompute": times(pre, m * groups),
             "broadcast": parallel(act_bcast, entry_bcast, b.broadcast(k * n, m)),
             "accumulate": times(tail, units), "control": _control(spec)}
    path = series(parallel(series(act_bcast, pre, entry_bcast), weights), entry_mux,
                  _to_adder(spec, fmt))
    return Datapath(parts, (path,), 2 * units * k / w.bits, act_registers=False,
                    registers=_registers(spec), loop=_loop(spec))


# One builder per method, as ``_arrays.BUILDERS`` for the full accounting.
BUILDERS = {"mac": _mac, "add": _add,
            **{name: functools.partial(_lut, variant) for name, variant in LUT_VARIANTS.items()}}


def delivered_bits(spec: UnitSpec, method: str):
    """Bits held at the array's ports for one instruction: the tables (Eq. 7) of LUT Tensor Core
    or the activations of the other methods, the weights with all their planes (Eq. 8), and the
    partial sums."""
    a, w, m, n, k = spec[:5]
    if method == "lut_tensor_core":
        inputs = m * 2.0 ** (k - 1) * _entry(spec)[1]
    else:
        inputs = m * k * a.bits
    return inputs + k * n * w.bits + m * n * float(spec.accumulator.bits)


@check.entry
def operand_delivery(method: str, act: str, weight: str, m, n, k, *,
                     clock_ghz: float | None = None, **options) -> ArrayPPA:
    """The cost of delivering the operands of a paper-boundary array (``delivered_bits``, one
    flip-flop per bit, see the module docstring), priced like an array of the same throughput:
    add it to ``tensor_core(..., boundary="paper")`` wherever the operands come from
    matters (the shape DSE). ``options``: those of ``tensor_core`` (``library`` among them);
    ``clock_ghz`` changes nothing (flip-flops alone have no path to close)."""
    del clock_ghz
    spec = unit_spec(method, act, weight, m, n, k, boundary="paper", **options)
    ops = 2 * spec.m * spec.n * spec.k / (1.0 if method == "mac" else spec.weight.bits)
    return price(spec, Datapath({}, (NOTHING,), ops, registers=delivered_bits(spec, method)))
