"""Operation counts and storage of LUT mpGEMM (LUT Tensor Core §3.1.1, §3.2.2, Eqs. 7-8).

The cost and performance models consume these; they follow from a scheme and a shape alone.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from lutcore import _checks as check

from ._gemm import LMMA, lmma_instructions
from ._schemes import TableScheme


class OpCounts(NamedTuple):
    """Work of one [M, Ktot] x [N, Ktot] LUT mpGEMM with symmetric weights (z_eff = 0, so no
    zero-point lookups). G = ceil(Ktot / k) groups, P lookups (planes) per group and column."""

    tables: int  # tables precomputed (M*G shared; M*G*ceil(N/unit.n) per unit)
    entries: int  # entries per table
    precompute_adds: int  # direct precompute: k-1 signed additions per entry
    precompute_muls: int  # naive tables of multi-bit weights: a_i * q_i products per entry
    lookups: int  # M*N*G*P table reads
    accumulate_adds: int  # one accumulation per lookup
    shifts: int  # bit-serial weighting: lookups of planes b > 0
    index_negations: int  # per-lookup NOT of the index (symmetric without offline negation)
    table_bits: int  # bits of one table: entries * lut_bits
    weight_index_bits: int  # bits of all stored weight indices: N*G*P*index_bits
    lmma_instructions: int
    table_fanout: int  # MUX units each table entry is broadcast to (the unit's N)
    weight_fanout: int  # MUX units each weight index is broadcast to (the unit's M)


@check.entry
def op_counts(m: int, n: int, ktot: int, *, scheme: TableScheme, lut_bits: int = 16,
              unit: LMMA = LMMA(), shared_precompute: bool = True) -> OpCounts:
    """Count the work of a LUT mpGEMM executed on ``unit``-shaped LUT arrays.

    ``shared_precompute``: one precompute operator serves all N columns (§3.1.1); with False,
    every unit recomputes its tables, once per N-tile of ``unit.n`` columns, as a conventional
    LUT design with the precompute beside the LUT unit does.
    """
    for name, value in (("m", m), ("n", n), ("ktot", ktot), ("lut_bits", lut_bits)):
        check.positive_int(name, value)
    groups = math.ceil(ktot / scheme.k)
    tables = m * groups * (1 if shared_precompute else math.ceil(n / unit.n))
    lookups = m * n * groups * scheme.planes
    naive_multibit = scheme.name == "naive" and scheme.w_bits > 1
    return OpCounts(
        tables=tables, entries=scheme.entries,
        precompute_adds=tables * scheme.entries * (scheme.k - 1),
        precompute_muls=tables * scheme.entries * scheme.k if naive_multibit else 0,
        lookups=lookups, accumulate_adds=lookups,
        shifts=m * n * groups * (scheme.planes - 1),
        index_negations=lookups if scheme.lookup_negation else 0,
        table_bits=scheme.entries * lut_bits,
        weight_index_bits=n * groups * scheme.planes * scheme.index_bits,
        lmma_instructions=lmma_instructions(m, n, ktot, unit),
        table_fanout=unit.n, weight_fanout=unit.m)


def tile_table_bits(unit: LMMA, lut_bits: int) -> int:
    """Eq. 7: the tables an M x N x K unit holds, M x 2^(K-1) x LUT_BIT bits (symmetric)."""
    return unit.m * unit.scheme.entries * lut_bits


def tile_weight_bits(unit: LMMA) -> int:
    """Eq. 8: the grouped binary weights of a unit, K x N x W_BIT bits (5 per 3 for ternary)."""
    scheme = unit.scheme
    return unit.n * scheme.planes * scheme.index_bits
