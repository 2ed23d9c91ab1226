"""lutcore.ppa at the paper's design boundary: the released LUT array counted by hand, the same
rule for the other methods, the parameters the paper varies or leaves implicit, and the full
accounting unchanged."""

import json
import pathlib
import sys

import numpy as np
import pytest

import lutcore.ppa as ppa
from lutcore.ppa import _cells

ROOT = pathlib.Path(__file__).resolve().parents[1]


def counts(cost):
    """{cell: count} of the nonzero entries of a scalar Cost."""
    return {name: float(c) for name, c in zip(_cells.NAMES, np.asarray(cost.cells)) if c}


def total(array):
    """{cell: count} of a whole scalar ArrayPPA."""
    return counts(ppa.series(*array.parts.values()))


def plus(*dicts, times=None):
    """Sum of {cell: count} dicts; ``times`` scales the last one."""
    out = {}
    for i, d in enumerate(dicts):
        scale = times if (times is not None and i == len(dicts) - 1) else 1
        for name, count in d.items():
            out[name] = out.get(name, 0.0) + scale * count
    return out


FP16_ADD = counts(ppa.fp_adder(5, 11))  # DW_fp_add at FP16


def test_released_array_m1n1k4_counted_by_hand():
    # W_INT2 A_FP16, M1 N1 K4 (B_BIT = 2): per output an 8:1 mux of 16-bit entries (7 x 16
    # MUX2), the sign XOR, b_index (1 bit) as the +1 of the 5-bit exponent (5 HA), the 16-bit
    # psum-or-result mux, DW_fp_add at FP16, a 16-bit register; per array 4 plane-select MUX2,
    # the 1-bit counter (1 HA, 1 DFF), its b_index == 0 decode (1 NOR2), the valid DFF,
    # buffers driving b_index to 4 + 1 users (2 BUF) and the psum select to 16 mux bits (5 BUF).
    lut = ppa.tensor_core("lut_tensor_core", "fp16", "int2", 1, 1, 4)
    by_hand = plus(FP16_ADD, {"MUX2": 7 * 16 + 16 + 4, "XOR2": 1, "HA": 5 + 1, "NOR2": 1,
                              "BUF": 2 + 5, "DFF": 16 + 1 + 1})
    assert total(lut) == pytest.approx(by_hand)
    assert counts(lut.parts["registers"]) == {"DFF": 18}
    assert counts(lut.parts["tables"]) == {} and counts(lut.parts["precompute"]) == {}
    assert float(lut.ops_per_cycle) == 2 * 4 / 2


def test_released_array_m2n64k4_counted_by_hand():
    lut = ppa.tensor_core("lut_tensor_core", "fp16", "int2", 2, 64, 4)
    outputs = 2 * 64
    buffers = (2 * 8 * 16 * 21  # 256 entry bits to 64 columns: (64 - 1) / 3 buffers each
               + 4 * 64 * 1  # 256 weight-index bits to 2 rows
               + 128  # b_index to 256 plane selects + 128 exponent adders: 383 / 3
               + 683)  # psum select to 128 x 16 mux bits: 2047 / 3
    by_hand = plus({"MUX2": outputs * (7 * 16 + 16) + 4 * 64, "XOR2": outputs, "NOR2": 1,
                    "HA": outputs * 5 + 1, "BUF": buffers, "DFF": outputs * 16 + 2},
                   FP16_ADD, times=outputs)
    assert total(lut) == pytest.approx(by_hand)
    # one DW_fp_add per output, 128 result registers
    assert counts(lut.parts["registers"]) == {"DFF": outputs * 16 + 2}


def test_one_bit_weights_need_no_plane_logic():
    # B_BIT = 1: the psum enters every cycle, b_index is constant: no mux, counter or exponent add
    lut = ppa.tensor_core("lut_tensor_core", "fp16", "int1", 1, 1, 4)
    assert total(lut) == pytest.approx(plus(FP16_ADD, {"MUX2": 7 * 16, "XOR2": 1, "DFF": 16}))


def test_mac_built_like_designware_counted_by_hand():
    # W_FP16 A_FP16 DP4: 4 DW_fp_mult (exact product, then round: 11 sticky OR2 + 11 HA),
    # a tree of 3 DW_fp_add and the psum add at FP16, one 16-bit register; operands on ports.
    mac = ppa.tensor_core("mac", "fp16", "fp16", 1, 1, 4)
    mult = plus(counts(ppa.fp_multiplier(5, 11)), {"OR2": 11, "HA": 11})
    by_hand = plus(plus(mult, times=4), plus(FP16_ADD, times=4), {"DFF": 16})
    assert total(mac) == pytest.approx(by_hand)


def test_fp8_products_are_rebiased_into_the_fp16_accumulator():
    # E4M3 products into FP16: a 5-bit exponent adder per product, FP16 adders
    mac = ppa.tensor_core("mac", "fp8", "fp8", 1, 1, 4)
    mult = plus(counts(ppa.fp_multiplier(4, 4)), {"OR2": 4, "HA": 4, "FA": 5})
    assert total(mac) == pytest.approx(plus(plus(mult, times=4), plus(FP16_ADD, times=4),
                                            {"DFF": 16}))


def test_accumulator_width_on_a_hand_worked_int_unit():
    # W_INT2 A_INT8 M1N1K4: INT32 instead of INT16 adds 16 FA (adder), 16 MUX2 (psum mux), 16
    # DFF, and 6 buffers driving the psum select to 32 bits (11 vs 5); the plane shift stays at
    # the entry's 10 + 1 bits (one level of 11 MUX2)
    narrow = total(ppa.tensor_core("lut_tensor_core", "int8", "int2", 1, 1, 4,
                                   accumulator="int16"))
    wide = total(ppa.tensor_core("lut_tensor_core", "int8", "int2", 1, 1, 4))
    assert plus(wide, plus(narrow, times=-1)) == pytest.approx(
        {name: v for name, v in {"FA": 16, "MUX2": 16, "DFF": 16, "BUF": 6}.items()}
        | {n: 0.0 for n in narrow if n not in ("FA", "MUX2", "DFF", "BUF")})
    # paper boundary: FP16 as released, INT32 (the only integer tensor-core accumulator)
    assert ppa.unit_spec("mac", "int8", "int8", 1, 1, 4).accumulator.name == "int32"
    assert ppa.unit_spec("mac", "fp8", "fp8", 1, 1, 4).accumulator.name == "fp16"
    assert ppa.unit_spec("mac", "fp16", "int1", 1, 1, 4,
                         boundary="full").accumulator.name == "fp32"
    shift = ppa.tensor_core("lut_tensor_core", "int8", "int2", 1, 1, 4).parts["accumulate"]
    assert counts(shift)["MUX2"] == 11 + 32  # entry shift + psum mux


def test_fp32_accumulator_widens_the_released_fp16_array():
    lut = ppa.tensor_core("lut_tensor_core", "fp16", "int1", 1, 1, 4, accumulator="fp32")
    # FP16 entries rebiased into the FP32 exponent (an 8-bit adder), DW_fp_add at FP32
    assert total(lut) == pytest.approx(plus(counts(ppa.fp_adder(8, 24)),
                                            {"MUX2": 7 * 16, "XOR2": 1, "FA": 8, "DFF": 32}))


def test_int8_tables_narrow_the_entries():
    # INT8 activations, K = 4: exact sums need 10 bits; INT8 tables (§3.1.3) 8. Per output
    # 7 x 2 MUX2 fewer in the mux and 2 XOR2 fewer in the negation; at N = 4 the 2 x 8 fewer
    # entry bits need one buffer fewer each.
    def cells(entry, n):
        return total(ppa.tensor_core("lut_tensor_core", "int8", "int1", 1, n, 4, entry=entry))
    assert plus(cells(None, 1), plus(cells("int8", 1), times=-1)) == pytest.approx(
        {n: {"MUX2": 14.0, "XOR2": 2.0}.get(n, 0.0) for n in cells(None, 1)})
    diff = plus(cells(None, 4), plus(cells("int8", 4), times=-1))
    assert diff["MUX2"] == 4 * 14 and diff["XOR2"] == 4 * 2 and diff["BUF"] == 16
    assert ppa.entry_format(ppa.unit_spec("lut_tensor_core", "int8", "int1", 1, 1, 4,
                                          entry="int8")).bits == 8


def test_fp_activations_with_int8_tables_accumulate_integers():
    spec = ppa.unit_spec("lut_tensor_core", "fp16", "int2", 2, 64, 4, entry="int8")
    assert spec.accumulator.name == "int32"
    with pytest.raises(ValueError, match="allowed values: int16, int32"):
        ppa.unit_spec("lut_tensor_core", "fp16", "int2", 2, 64, 4, entry="int8",
                      accumulator="fp16")


def test_conventional_lut_shares_a_table_across_four_columns():
    # M1 N4 K4, INT8: one 16-entry table (11 precompute adders, Sec. 2.3) for the 4 units at the
    # paper boundary (Sec. 3.1.1: N = 4); four tables with table_share = 1
    def precompute(share):
        cost = ppa.tensor_core("lut_conventional", "int8", "int1", 1, 4, 4, table_share=share)
        return counts(cost.parts["precompute"])
    assert precompute(None) == {"FA": 11 * 10}  # 10-bit exact sums
    assert precompute(4) == precompute(None)
    assert precompute(1) == {"FA": 4 * 11 * 10}
    assert precompute(2) == {"FA": 2 * 11 * 10}
    assert ppa.unit_spec("lut_conventional", "int8", "int1", 1, 4, 4,
                         boundary="full").table_share == 1


def test_operand_delivery_counts_the_held_bits():
    # M2N64K4 W_INT2 A_FP16: tables 2 x 8 x 16 (Eq. 7), weights 4 x 64 x 2 (Eq. 8), psums
    # 128 x 16: one flip-flop per bit; MAC: activations 2 x 4 x 16 instead of tables
    lut = ppa.operand_delivery("lut_tensor_core", "fp16", "int2", 2, 64, 4)
    assert total(lut) == {"DFF": 256 + 512 + 2048}
    mac = ppa.operand_delivery("mac", "fp16", "int2", 2, 64, 4)
    assert total(mac) == {"DFF": 128 + 512 + 2048}
    assert float(lut.ops_per_cycle) == float(
        ppa.tensor_core("lut_tensor_core", "fp16", "int2", 2, 64, 4).ops_per_cycle)


def test_delivery_makes_the_shape_dse_see_the_operands():
    # Without delivery, every K = 4 shape of one size has the same per-output hardware; the
    # delivered bits 128 M + 4 N W (Eq. 7 + Eq. 8 at K = 4, FP16 tables, MN = 128) are least
    # at M = 2 for W = 1: the same balance the paper states in bits (Sec. 4.2.2)
    shapes = np.array([(1, 128, 4), (2, 64, 4), (4, 32, 4), (8, 16, 4)])
    bits = np.asarray(ppa.delivered_bits(ppa.unit_spec("lut_tensor_core", "fp16", "int1",
                                                       *shapes.T), "lut_tensor_core"))
    assert bits.tolist() == [128 + 512 + 2048, 256 + 256 + 2048, 512 + 128 + 2048,
                             1024 + 64 + 2048]
    array = ppa.Metrics(*(np.array([1.0, 2.0]),) * 6)
    delivery = ppa.Metrics(*(np.array([3.0, 0.5]),) * 6)
    assert ppa.shape_objective(array).tolist() == [1.0, 4.0]
    assert ppa.shape_objective(array, delivery).tolist() == [16.0, 6.25]


def test_full_boundary_is_bit_identical_to_the_accounting_before_it():
    """tests/data/ppa_full_snapshot.json was written by tools/ppa_full_snapshot.py before the
    boundary keyword (efc891f; rewritten, within 5e-16 relative, when cell sums became ordered);
    a sample of its designs (every method) is recomputed here, the tool checks all 228."""
    sys.path.insert(0, str(ROOT / "tools"))
    import ppa_full_snapshot as tool

    ref = json.loads((ROOT / "tests" / "data" / "ppa_full_snapshot.json").read_text())
    sample = {"mac/fp16/fp16/1", "add/fp8/int2/1", "lut_conventional/int16/int2/1",
              "unpu_reinterpret/fp16/int4/1", "lut_tensor_core/int8/int8/0"}  # every builder
    designs = list(tool.designs())
    tool_designs = tool.designs
    tool.designs = lambda: (d for d in designs if f"{d[0]}/{d[1]}/{d[2]}/{int(d[3])}" in sample)
    try:
        got = tool.snapshot(lambda method, act, weight, m, n, k, registers: ppa.tensor_core(
            method, act, weight, m, n, k, boundary="full", operand_registers=registers))
    finally:
        tool.designs = tool_designs
    assert set(got) == sample
    for key in sample:
        assert got[key] == ref[key], key


@pytest.mark.parametrize("kwargs, message", [
    ({"boundary": "release"}, "allowed values: paper, full"),
    ({"entry": "int4"}, "allowed values: fp16, fp8, int8, int16"),
    ({"accumulator": "fp64"}, "allowed values: fp16, fp32, int16, int32"),
    ({"accumulator": "int16"}, "allowed values: fp16, fp32"),
    ({"table_share": 2}, "table_share 2: columns per table of lut_conventional"),
    ({"operand_registers": True}, "allowed values at boundary='paper': None, False"),
])
def test_bad_boundary_options_name_the_allowed_values(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ppa.tensor_core("lut_tensor_core", "fp16", "int2", 2, 64, 4, **kwargs)
    with pytest.raises(ValueError, match="allowed values: integers >= 1"):
        ppa.tensor_core("lut_conventional", "fp16", "int2", 1, 4, 4, table_share=0)
    with pytest.raises(ValueError, match="entry 'fp16': a table-entry format of the LUT"):
        ppa.tensor_core("mac", "fp16", "int2", 1, 1, 4, entry="fp16")


@pytest.mark.parametrize("boundary", ppa.BOUNDARIES)
def test_stacked_designs_equal_one_call_each(boundary):
    shapes = np.array([(1, 1, 4), (2, 64, 4), (4, 16, 8)])
    acts, weights = ("fp16", "fp8"), ("int1", "int4")
    stacked = ppa.tensor_core("lut_tensor_core", acts, weights, *shapes.T, boundary=boundary)
    assert np.shape(stacked.area) == (2, 3)
    for i, (act, weight) in enumerate(zip(acts, weights)):
        one = ppa.tensor_core("lut_tensor_core", act, weight, *shapes.T, boundary=boundary)
        for field in ("area", "dynamic_energy", "leakage", "delay", "ops_per_cycle"):
            np.testing.assert_array_equal(np.asarray(getattr(stacked, field))[i],
                                          np.broadcast_to(getattr(one, field), (3,)))
    with pytest.raises(ValueError, match="mix FP and INT"):
        ppa.tensor_core("mac", ("fp16", "int8"), "int1", 1, 1, 4)
