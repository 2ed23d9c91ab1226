"""lutcore.ppa: cell table, hand-derived block counts, monotonicity, vectorization, DSE."""

import itertools

import numpy as np
import pytest

import lutcore.ppa as ppa
from lutcore.ppa import _cells


def counts(cost):
    """{cell: count} of the nonzero entries of a scalar Cost."""
    return {name: float(c) for name, c in zip(_cells.NAMES, np.asarray(cost.cells)) if c}


def test_cell_table_is_consistent():
    assert _cells.GE_AREA == 0.798  # NAND2_X1
    assert len(set(_cells.NAMES)) == len(_cells.CELLS)
    for cell in _cells.CELLS:
        assert cell.area > 0 and cell.leakage > 0 and cell.delay > 0
        assert cell.energy > cell.internal_energy
    assert _cells.FA_CARRY_DELAY < _cells.FA_SUM_DELAY


@pytest.mark.parametrize("bits", [1, 4, 8, 32])
def test_ripple_adder_is_one_full_adder_per_bit(bits):
    cost = ppa.ripple_adder(bits)
    assert counts(cost) == {"FA": bits}
    assert float(cost.area()) == pytest.approx(bits * 4.256)
    assert float(cost.delay) == pytest.approx((bits - 1) * 62.3 + 110.1)


def test_array_multiplier_matches_braun_counts():
    # 4 x 4 Braun array: 16 AND2 partial products and n(n-1) = 12 adders, 3 of them HA
    assert counts(ppa.array_multiplier(4, 4)) == {"AND2": 16, "FA": 9, "HA": 3}
    # a 1-bit multiplier is its AND gates
    assert counts(ppa.array_multiplier(8, 1)) == {"AND2": 8}


def test_mux_tree_shifter_register_counts():
    assert counts(ppa.mux_tree(8, 16)) == {"MUX2": 7 * 16}
    assert float(ppa.mux_tree(8, 16).delay) == pytest.approx(3 * 62.3)
    assert counts(ppa.barrel_shifter(16, 15)) == {"MUX2": 16 * 4}
    assert counts(ppa.register(32)) == {"DFF": 32}
    assert counts(ppa.mux_tree(1, 16)) == {}


def lzc_tree_counts(bits):
    """Cells of a 2-bit-counter LZC tree by recursion over its nodes: (cells, count width)."""
    if bits == 2:
        return {"NOR2": 1, "INV": 1}, 1
    half, width = lzc_tree_counts(bits // 2)
    cells = {name: 2 * c for name, c in half.items()}
    cells["AND2"] = cells.get("AND2", 0) + 1          # both halves all zero
    cells["MUX2"] = cells.get("MUX2", 0) + width      # lower count bits from the chosen half
    return cells, width + 1


@pytest.mark.parametrize("bits", [4, 8, 32, 64])
def test_leading_zero_count_equals_the_node_by_node_tree(bits):
    cells, width = lzc_tree_counts(bits)
    assert counts(ppa.leading_zero_count(bits)) == pytest.approx(cells)
    assert float(ppa.leading_zero_count(bits).delay) == pytest.approx(
        _cells.DELAY["NOR2"] + (width - 1) * _cells.DELAY["MUX2"])


def test_broadcast_buffer_tree():
    assert counts(ppa.broadcast(10, 1)) == {}
    assert counts(ppa.broadcast(10, 4)) == {"BUF": 10}  # one buffer drives 4 loads
    assert counts(ppa.broadcast(1, 64)) == {"BUF": 21}  # 4-ary tree: (64 - 1) / 3


def test_series_parallel_times():
    a, b = ppa.ripple_adder(4), ppa.mux_tree(4, 4)
    s, p = ppa.series(a, b), ppa.parallel(a, b)
    np.testing.assert_allclose(s.cells, p.cells)
    assert float(s.delay) == pytest.approx(float(a.delay + b.delay))
    assert float(p.delay) == pytest.approx(max(float(a.delay), float(b.delay)))
    assert counts(ppa.times(a, 3)) == {"FA": 12}


def test_fp_blocks_grow_with_the_format():
    assert float(ppa.fp_adder(5, 11).area()) < float(ppa.fp_adder(8, 24).area())
    assert float(ppa.fp_multiplier(4, 4).area()) < float(ppa.fp_multiplier(5, 11).area())
    # an FP16 multiplier holds an 11 x 11 significand array
    assert counts(ppa.fp_multiplier(5, 11))["AND2"] == 121
    # converters round only when the integer is wider than the significand
    assert "HA" in counts(ppa.int_to_fp(8, 4, 4))
    assert float(ppa.int_to_fp(4, 5, 11).area()) < float(ppa.int_to_fp(8, 5, 11).area())


@pytest.mark.parametrize("method", ppa.METHODS)
@pytest.mark.parametrize("act", ppa.ACTIVATIONS)
def test_more_weight_bits_never_cheaper(method, act):
    areas = [float(ppa.tensor_core(method, act, f"int{w}", 2, 8, 4).area) for w in range(1, 9)]
    assert all(x <= y for x, y in zip(areas, areas[1:]))


@pytest.mark.parametrize("method", ppa.METHODS)
def test_wider_activations_and_larger_arrays_cost_more(method):
    area = lambda act, m, n, k: float(ppa.tensor_core(method, act, "int2", m, n, k).area)
    assert area("int8", 2, 4, 4) < area("int16", 2, 4, 4)
    assert area("fp8", 2, 4, 4) < area("fp16", 2, 4, 4)
    for m, n, k in [(1, 4, 4), (2, 2, 4), (2, 4, 2)]:
        assert area("fp16", m, n, k) < area("fp16", 2, 4, 4)


def test_throughput_of_bit_serial_units():
    mac = ppa.tensor_core("mac", "int8", "int4", 2, 8, 4)
    lut = ppa.tensor_core("lut_tensor_core", "int8", "int4", 2, 8, 4)
    assert float(mac.ops_per_cycle) == 2 * 2 * 8 * 4
    assert float(lut.ops_per_cycle) == 2 * 2 * 8 * 4 / 4


@pytest.mark.parametrize("boundary", ppa.BOUNDARIES)
def test_ablation_steps_each_remove_hardware(boundary):
    areas = [float(ppa.tensor_core(m, "int8", "int2", 2, 64, 4, boundary=boundary).area)
             for m in ("unpu", "unpu_reinterpret", "unpu_offline_negation", "lut_tensor_core")]
    assert areas == sorted(areas, reverse=True) and len(set(areas)) == 4


def test_full_accounting_holds_tables_and_operands():
    lut = ppa.tensor_core("lut_tensor_core", "int8", "int2", 2, 64, 4, boundary="full")
    assert float(lut.parts["precompute"].area()) == 0.0
    # Eq. 7: M x 2^(K-1) x LUT_BIT table bits (INT8 sums of 4 need 10), each with a load enable
    assert counts(lut.parts["tables"]) == {"DFF": 2 * 8 * 10, "MUX2": 2 * 8 * 10}
    # the accumulator register is counted once, among the registers
    mac = ppa.tensor_core("mac", "int8", "int8", 1, 1, 4, boundary="full")
    assert counts(mac.parts["registers"]) == {"DFF": 4 * 8 + 4 * 8 + 32}
    assert "DFF" not in counts(mac.parts["accumulate"])
    bare = ppa.tensor_core("mac", "int8", "int8", 1, 1, 4, boundary="full",
                           operand_registers=False)
    assert counts(bare.parts["registers"]) == {"DFF": 32}


def test_vectorized_call_equals_scalar_calls():
    shapes = ppa.power_of_two_shapes(64)
    vec = ppa.tensor_core("lut_tensor_core", "fp16", "int2", *shapes.T)
    for i, (m, n, k) in enumerate(shapes):
        one = ppa.tensor_core("lut_tensor_core", "fp16", "int2", int(m), int(n), int(k))
        assert float(vec.area[i]) == pytest.approx(float(one.area))
        assert float(vec.delay[i]) == pytest.approx(float(one.delay))


def test_metrics_scale_and_units():
    cost = ppa.tensor_core("mac", "fp16", "fp16", 1, 1, 4)
    at45, at28 = ppa.metrics(cost, node="45nm"), ppa.metrics(cost, node="28nm")
    assert float(at28.area / at45.area) == pytest.approx((28 / 45) ** 2)
    assert float(at45.area) == pytest.approx(float(cost.area) * 1e-6)
    assert float(at45.throughput) == pytest.approx(8e-3)  # 8 ops per cycle at 1 GHz, TOPs
    assert float(at45.density) == pytest.approx(float(at45.throughput / at45.area))
    assert float(at45.efficiency) == pytest.approx(float(at45.throughput / at45.power * 1e3))


def test_bad_names_are_rejected_with_the_allowed_values():
    with pytest.raises(ValueError, match="allowed values: mac"):
        ppa.tensor_core("mca", "fp16", "int1", 1, 1, 4)
    with pytest.raises(ValueError, match="allowed values"):
        ppa.tensor_core("mac", "fp12", "int1", 1, 1, 4)
    with pytest.raises(ValueError, match="integer weights"):
        ppa.tensor_core("add", "fp16", "fp16", 1, 1, 4)
    with pytest.raises(ValueError, match="unknown cells"):
        ppa.gates(NAND3=1)


def test_power_of_two_shapes_and_best_index():
    shapes = ppa.power_of_two_shapes(512)
    assert len(shapes) == 55  # exponents (i, j, 9 - i - j)
    assert set(np.prod(shapes, axis=1)) == {512}
    assert {tuple(s) for s in shapes} == {s for s in itertools.product(
        [2 ** i for i in range(10)], repeat=3) if np.prod(s) == 512}
    assert ppa.power_of_two_shapes(512, k_max=8)[:, 2].max() == 8
    # known answer: the most square shape minimizes m + n + k
    idx = ppa.best_index(shapes.sum(axis=1))
    assert tuple(shapes[idx]) == (8, 8, 8)
    idx = ppa.best_index(shapes.sum(axis=1), feasible=shapes[:, 0] != 8)
    assert tuple(shapes[idx]) != (8, 8, 8)
    with pytest.raises(ValueError, match="power of two"):
        ppa.power_of_two_shapes(500)
    with pytest.raises(ValueError, match="no feasible"):
        ppa.best_index([1.0, 2.0], feasible=[False, False])


def test_buildable_limits_lut_tables_only():
    k = np.array([4, 8, 16])
    assert ppa.buildable("lut_tensor_core", k).tolist() == [True, True, False]
    assert ppa.buildable("mac", k).tolist() == [True, True, True]


@pytest.mark.parametrize("method", ["mac", "lut_tensor_core"])
def test_best_arrays_is_the_brute_force_minimum_of_area_times_power(method):
    sizes = (64, 512)
    best = ppa.best_arrays(method, "fp16", "int2", sizes, node="28nm", freq_ghz=1.41,
                           boundary="full")
    for size, found in zip(sizes, best):
        # one shape at a time, the slow way
        scored = []
        for m, n, k in ppa.power_of_two_shapes(size):
            if not ppa.buildable(method, k):
                continue
            x = ppa.metrics(ppa.tensor_core(method, "fp16", "int2", m, n, k, boundary="full"),
                            node="28nm", freq_ghz=1.41)
            scored.append((float(x.area) * float(x.power), (int(m), int(n), int(k)), x))
        _, shape, x = min(scored, key=lambda t: t[0])
        assert found.shape == shape
        assert found.metrics["area"] == pytest.approx(float(x.area), rel=1e-12)
        assert found.metrics["density"] == pytest.approx(float(x.density), rel=1e-12)


def test_best_arrays_at_the_paper_boundary_adds_the_operand_delivery():
    best = ppa.best_arrays("lut_tensor_core", "fp16", "int2", (64,), node="28nm", freq_ghz=1.41)
    shapes = ppa.power_of_two_shapes(64, k_max=ppa.MAX_TABLE_K)
    x = ppa.metrics(ppa.tensor_core("lut_tensor_core", "fp16", "int2", *shapes.T),
                    node="28nm", freq_ghz=1.41)
    d = ppa.metrics(ppa.operand_delivery("lut_tensor_core", "fp16", "int2", *shapes.T),
                    node="28nm", freq_ghz=1.41)
    score = [(float(x.area[i] + d.area[i]) * float(x.power[i] + d.power[i]), i)
             for i in range(len(shapes))]
    i = min(score)[1]
    assert best[0].shape == tuple(int(v) for v in shapes[i])
    assert best[0].metrics["area"] == pytest.approx(float(x.area[i]), rel=1e-12)
    assert best[0].delivery["power"] == pytest.approx(float(d.power[i]), rel=1e-12)
