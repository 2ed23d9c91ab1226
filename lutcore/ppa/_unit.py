"""The shared vocabulary of the arrays' units: operand formats, the ``UnitSpec`` every builder is
given, the ``Datapath`` it returns, the LUT variants, and the table-entry, accumulator and
precompute helpers both design boundaries (``_paper``, ``_full``) build from.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from lutcore import numerics as nm

from ._blocks import TEXTBOOK, Blocks, Cost, clog2, times, xp
from ._cells import NANGATE45, Scale


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


# The arrays' formats, by the LUT Tensor Core paper's names: FP8 is E4M3, the activation FP8 of
# H100-class tensor cores; a new format passes as a ``Format`` record.
ARRAY_FORMATS = nm.FormatSet(("fp16", "fp8", "fp32",
                              *(f"int{b}" for b in (1, 2, 3, 4, 5, 6, 7, 8, 16, 32))),
                             means={"fp8": "fp8_e4m3fn"})


ACTIVATIONS = ("fp16", "fp8", "int8", "int16")


PARTS = ("registers", "broadcast", "dequantize", "multiply", "precompute", "tables", "lookup",
         "adder_tree", "accumulate", "control")


TABLE_ENTRIES = ("fp16", "fp8", "int8", "int16")  # LUT entry formats (§3.1.3: INT8 tables)


ACCUMULATORS = ("fp16", "fp32", "int16", "int32")


def operand(fmt: str | nm.Format) -> Operand:
    """``fmt`` (a name of ``ARRAY_FORMATS`` or a ``Format``) as the widths an array prices."""
    record = ARRAY_FORMATS.lookup(fmt, "format")
    return Operand(ARRAY_FORMATS.label(record), record.width, record.exp_bits,
                   record.man_bits if record.is_float else 0)


def stacked(names, ndim: int) -> Operand:
    """Formats of one kind (all FP or all INT) as one ``Operand`` whose widths are arrays of
    shape [len(names), 1 x ndim]: a design axis in front of a design space of ``ndim`` axes."""
    formats = [operand(x) for x in names]
    if len({f.is_float for f in formats}) > 1:
        raise ValueError(f"formats {list(names)} mix FP and INT; one call prices one kind")
    shape = (len(formats),) + (1,) * ndim
    column = lambda field: np.array([getattr(f, field) for f in formats]).reshape(shape)
    return Operand("+".join(map(str, names)), column("bits"), column("exp_bits"),
                   column("man_bits"))


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


def entry_adder(spec: UnitSpec):
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
    return operand("fp32" if entry_format(spec).is_float else "int32")


def add_into(spec: UnitSpec, fmt: Operand) -> Cost:
    """A two-operand adder in ``fmt``: an FP adder or an integer adder of its width."""
    if fmt.is_float:
        return spec.blocks.fp_adder(fmt.exp_bits, fmt.significand)
    return spec.blocks.adder(fmt.bits)


def accumulating_adder(spec: UnitSpec) -> Cost:
    """The accumulating adder (its register is among the array's registers)."""
    return add_into(spec, accumulator_format(spec))


def precompute(spec: UnitSpec, symmetric: bool) -> Cost:
    """Hardware table precompute from K activations: each entry one add from an earlier entry
    (2^K - K - 1 adders for the full table; K - 1 for the first symmetric entry, then one
    add/sub of 2 a_i per further entry); log2 K adders deep."""
    adder, _ = entry_adder(spec)
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
    accumulating adder, ``accumulating_adder``), which pipelining cannot cut."""

    parts: dict
    paths: tuple
    ops_per_cycle: jnp.ndarray
    act_registers: bool = True
    registers: jnp.ndarray | float = 0.0
    loop: Cost | None = None


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
