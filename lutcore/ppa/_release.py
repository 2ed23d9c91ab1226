"""The LUT Tensor Core as its authors synthesized it: the facts of their released unit and a
structural model of exactly that structure.

Source (facts only, no code): public GitHub ``microsoft/T-MAC``, tag ``LUTTensorCore_ISCA25``
(commit c3319dbb598a46713c52bd5a00b8682973c431f7), folder ``sv_lut_array/``;
``tools/tmac_rtl_facts.py`` reads them from a snapshot and checks every value below.
- ``rtl/fp_lut_array_b_cycle_stage1.sv`` (the top ``dc.tcl`` synthesizes): parameters
  SIG_WIDTH 10, EXP_WIDTH 5 (FP16), IEEE_COMPLIANCE 0, A_LUT_BIT = C_BIT = 16, B_BIT 2, M_DIM 2,
  N_DIM 64, K_DIM 4, A_LUT_DIM = 2^(K-1). Ports: ``a_lut[M][2^(K-1)]``, ``b_tile[K][N]`` (B_BIT
  bits each), ``c_tile_psum[M][N]``, ``result[M][N]``, ``valid``: no table, weight or
  activation storage in the array. One ``b_index`` counter (clog2(B_BIT) bits, wraps at
  B_BIT - 1) and one ``valid`` flop for the array. Per column, index bit k = bit ``b_index`` of
  weight k; per output: entry = a_lut[i][index[K-1:1]], sign bit XOR index[0], exponent field
  + b_index (EXP_WIDTH bits, so it wraps), mux of c_tile_psum (b_index == 0) or the result
  register, ``DW_fp_add #(SIG_WIDTH, EXP_WIDTH, IEEE_COMPLIANCE)`` with rnd = 0 (RNE), one
  C_BIT result register. The counter, ``valid`` and the results reset asynchronously (rst_n).
- ``scripts/dc.tcl``: target library tcbn28hpcplusbwp30p140ulvttt0p9v25c (TSMC 28HPC+, ULVT,
  typical, 0.9 V, 25 C), DesignWare foundation library, ``compile`` (default effort), then
  ``report_area``, ``report_power`` (no activity file read), ``report_timing``.
- ``scripts/constraint.tcl``: ``set_max_area 0``, clock period 1 (ns), input and output delay
  0 x period, driving cell BUFFD1BWP30P140ULVT.
There is no INT version and no MAC, ADD or UNPU RTL in the release. The folder also holds
``rtl/fp_lut_array_b_cycle_stage2.sv``, a two-stage variant (registers between the lookup and the
adder), which ``dc.tcl`` does not synthesize.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import _checks as check
from . import _paper
from ._blocks import TEXTBOOK, Cost, parallel, register, series, times
from ._unit import Operand, UnitSpec, add_into

SOURCE = ("microsoft/T-MAC@c3319dbb598a46713c52bd5a00b8682973c431f7 (tag LUTTensorCore_ISCA25) "
          "sv_lut_array/")


class ReleasedArray(NamedTuple):
    """The released array's parameters (names as in its RTL, lower case)."""

    m: int
    n: int
    k: int
    b_bits: int
    exp_bits: int
    man_bits: int
    ieee_compliance: int


# fp_lut_array_b_cycle_stage1.sv parameter defaults (M_DIM, N_DIM, K_DIM, B_BIT, EXP_WIDTH,
# SIG_WIDTH, IEEE_COMPLIANCE)
RELEASE = ReleasedArray(m=2, n=64, k=4, b_bits=2, exp_bits=5, man_bits=10, ieee_compliance=0)
CLOCK_PERIOD_PS = 1000.0  # constraint.tcl: set clk_period 1 (ns; TSMC 28nm)


class ReleasedArrayCost(NamedTuple):
    """The release's structure priced: cells per part (``RELEASE_PARTS``) and the whole array,
    whose delay is the register-to-register critical path (clock-to-Q + logic + setup, ps)."""

    parts: dict[str, Cost]
    total: Cost


RELEASE_PARTS = ("index_select", "entry_mux", "sign_exponent", "psum_mux", "fp_adder",
                 "result_register", "control")


def release_spec(m: int = RELEASE.m, n: int = RELEASE.n, k: int = RELEASE.k,
                 b_bits: int = RELEASE.b_bits, exp_bits: int = RELEASE.exp_bits,
                 man_bits: int = RELEASE.man_bits) -> UnitSpec:
    """The released array as the paper boundary's ``UnitSpec`` (NanGate45 textbook blocks):
    FP entries of 1 + exp_bits + man_bits bits, ``b_bits``-bit weights, the accumulator in the
    entry format (C_BIT = A_LUT_BIT)."""
    for name, value in (("m", m), ("n", n), ("k", k), ("b_bits", b_bits),
                        ("exp_bits", exp_bits), ("man_bits", man_bits)):
        check.positive_int(name, value)
    width = 1 + exp_bits + man_bits
    fmt = Operand(f"fp{width}", width, exp_bits, man_bits)
    m, n, k = (np.asarray(float(x)) for x in (m, n, k))
    return UnitSpec(fmt, Operand(f"int{b_bits}", b_bits), m, n, k, TEXTBOOK, accumulator=fmt)


@check.entry
def release_lut_array(m: int = RELEASE.m, n: int = RELEASE.n, k: int = RELEASE.k,
                      b_bits: int = RELEASE.b_bits, exp_bits: int = RELEASE.exp_bits,
                      man_bits: int = RELEASE.man_bits) -> ReleasedArrayCost:
    """The released array's structure, block for block (module docstring), M x N outputs,
    priced by the paper boundary's own blocks (``_paper``, one home): it is
    ``tensor_core("lut_tensor_core", ..., boundary="paper")`` for the release's parameters less
    the broadcast buffers that array adds (``_paper._control_drive`` and the entry and weight
    broadcasts; the RTL has none, a timing-driven flow inserts them), part by part:

    - index_select: per column and weight, the B_BIT:1 mux picking bit ``b_index``;
    - entry_mux: per output, the 2^(K-1):1 mux of one table entry (``mux_tree``);
    - sign_exponent: per output, the sign flip (XOR2) and ``b_index`` added to the exponent
      field (an incrementer when b_index is one bit), side by side;
    - psum_mux: per output, partial sum or running result (a 2:1 mux of the word);
    - fp_adder: per output, the FP adder (``fp_adder``; DW_fp_add in the release);
    - result_register: per output, one word of flip-flops;
    - control: the b_index counter and its +1, the ``valid`` flop, the b_index == 0 decode.
    No reset (the release's flops reset asynchronously; the cell table has no such flip-flop).
    """
    spec = release_spec(m, n, k, b_bits, exp_bits, man_bits)
    fmt, b, outputs = spec.act, spec.blocks, m * n
    index_bits = max(1, (b_bits - 1).bit_length())
    unit = {
        "entry_mux": b.mux_tree(2 ** (k - 1), fmt.bits),
        "sign_exponent": parallel(_paper._negate(spec, fmt), _paper._plane_weight(spec, fmt)),
        "psum_mux": _paper._psum_select(spec),
        "fp_adder": add_into(spec, fmt),
        "result_register": register(fmt.bits),
    }
    parts = {
        "index_select": _paper._plane_select(spec),
        **{name: times(cost, outputs) for name, cost in unit.items()},
        "control": series(register(index_bits + 1), _paper._plane_counter(spec)),
    }
    lib = b.library
    # b_index (a register) -> index mux -> entry mux -> sign/exponent -> adder -> register
    path = (lib.dff_clk_to_q + parts["index_select"].delay + parts["entry_mux"].delay
            + parts["sign_exponent"].delay + parts["fp_adder"].delay + lib.dff_setup)
    total = Cost(sum(p.cells for p in parts.values()), np.asarray(path))
    return ReleasedArrayCost(parts=parts, total=total)
