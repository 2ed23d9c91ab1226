"""lutcore.lut against numpy integer matmul, float64 references and the paper's equations."""

import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lutcore.lut as lut

from conftest import LIGHT_TEST_COMPILE, checkout_env

W_BITS = (1, 2, 3, 4, 8)


def integer_reference(a, w, zero):
    """a @ (w - zero).T exactly (zero integer or half-integer): 2x stays integer."""
    twice = np.asarray(a, np.int64) @ (2 * np.asarray(w, np.int64) - np.int64(2 * zero)).T
    return twice / 2


@settings(max_examples=25, deadline=None)  # each new shape compiles anew
@given(m=st.integers(1, 6), n=st.integers(1, 6), ktot=st.integers(1, 40),
       w_bits=st.sampled_from(W_BITS), k=st.integers(1, 6), symmetric=st.booleans(),
       twice_zero=st.integers(-4, 520), seed=st.integers(0, 2**32 - 1))
def test_exact_path_equals_integer_matmul(m, n, ktot, w_bits, k, symmetric, twice_zero, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(-2**15, 2**15, (m, ktot))  # INT16 activations
    w = rng.integers(0, 1 << w_bits, (n, ktot))
    out = lut.mpgemm(a, w, w_bits=w_bits, k=k, symmetric=symmetric, zero=twice_zero / 2)
    np.testing.assert_array_equal(np.asarray(out), integer_reference(a, w, twice_zero / 2))


@pytest.mark.parametrize("scheme", ["bitserial", "symmetric"])
@pytest.mark.parametrize("w_bits", W_BITS)
def test_identity_activations_give_back_the_dequantized_weights(scheme, w_bits):
    """mpgemm(I, w) = scale*(w - zero).T: every code, per-column scale and zero, through tables."""
    rng = np.random.default_rng(w_bits)
    n, ktot = 9, 12
    w = rng.integers(0, 1 << w_bits, (n, ktot))
    scale, zero = rng.uniform(0.1, 2, n), rng.integers(0, 1 << w_bits, n) + 0.5
    out = lut.lut_gemm(np.eye(ktot), w, lut.make_scheme(scheme, 4, w_bits), scale=scale,
                       zero=zero)
    np.testing.assert_allclose(np.asarray(out), (scale[:, None] * (w - zero[:, None])).T,
                               rtol=1e-13, atol=1e-12)


def test_float_activations_match_float64_reference():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((16, 64)).astype(np.float16)
    w = rng.integers(0, 16, (8, 64))
    scale = rng.uniform(0.01, 0.1, 8)
    ref = a.astype(np.float64) @ (scale[:, None] * (w - 7.5)).T
    out = lut.mpgemm(a, w, w_bits=4, scale=scale, zero=7.5)
    np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-12, atol=1e-12)
    bf16 = rng.standard_normal((4, 64)).astype(ml_dtypes.bfloat16)
    np.testing.assert_allclose(np.asarray(lut.mpgemm(bf16, w, w_bits=4)),
                               bf16.astype(np.float64) @ w.T, rtol=1e-12)


@pytest.mark.parametrize("name,w_bits", [("naive", 1), ("naive", 2), ("bitserial", 3),
                                         ("symmetric", 4), ("ternary", 2)])
def test_gather_and_onehot_lookups_agree(name, w_bits):
    rng = np.random.default_rng(2)
    scheme = lut.make_scheme(name, 3 if name == "ternary" else 4, w_bits)
    levels = 3 if name == "ternary" else 1 << w_bits
    a = rng.integers(-100, 100, (5, 21))
    w = rng.integers(0, levels, (7, 21))
    zero = 1 if name == "ternary" else 0.5
    outs = [np.asarray(lut.lut_gemm(a, w, scheme, zero=zero, lookup=method))
            for method in ("gather", "onehot")]
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0], integer_reference(a, w, zero))


def test_table_sizes_are_those_of_section_3_1():
    a = np.arange(1.0, 5.0)[None]
    for k in (1, 2, 3, 4, 5):
        for w_bits in (1, 2):
            for name, size in (("naive", (2 ** w_bits) ** k), ("bitserial", 2 ** k),
                               ("symmetric", 2 ** (k - 1))):
                tables = lut.precompute_tables(a[:, :k], lut.make_scheme(name, k, w_bits))
                assert tables.shape[-1] == size == lut.table_entries(name, k, w_bits)


@pytest.mark.parametrize("k", [1, 2, 4, 5])
def test_table_symmetry_eq4(k):
    """The full {-1,+1} table is odd: LUT[w] = -LUT[~w]; its stored half is the top-bit-0 half."""
    rng = np.random.default_rng(k)
    a = rng.integers(-1000, 1000, k).astype(float)  # exact sums: equality is meaningful
    bits = (np.arange(2 ** k)[:, None] >> np.arange(k)) & 1
    full = (2 * bits - 1) @ a
    np.testing.assert_array_equal(full, -full[~np.arange(2 ** k) & (2 ** k - 1)])
    half = np.asarray(lut.precompute_tables(a[None], lut.make_scheme("symmetric", k, 1)))[0, 0]
    np.testing.assert_array_equal(half, full[: 2 ** (k - 1)])


@pytest.mark.parametrize("name,k", [("symmetric", 8), ("bitserial", 8), ("symmetric", 4)])
def test_fp16_tables_are_exact_at_the_edges_of_the_format(name, k):
    """Every FP16 value is an integer times 2^-24 below 2^40 in magnitude, so a table entry (a
    +-1 or 0/1 combination of k <= 8 of them) is one below 2^43 < 2^53: exact in float64, in
    any order. At the edges: the largest normal, the smallest subnormal and normal, 1 + ulp."""
    edges = np.array([65504, -65504, 2.0 ** -24, -(2.0 ** -24), 2.0 ** -14, 1 + 2.0 ** -10,
                      -3 * 2.0 ** -24, 65504], np.float16)
    rng = np.random.default_rng(k)
    a = np.stack([rng.permutation(edges)[:k] for _ in range(16)])  # [16, k]
    scheme = lut.make_scheme(name, k, 1)
    got = np.asarray(lut.precompute_tables(a, scheme))[:, 0]  # [16, E]
    units = (a.astype(np.float64) * 2.0 ** 24).astype(np.int64)  # exact integers
    exact = units @ np.asarray(scheme.coefficients, np.int64).T
    np.testing.assert_array_equal(got * 2.0 ** 24, exact)


def test_offline_negation_changes_the_stored_index_not_the_result():
    rng = np.random.default_rng(3)
    a = rng.integers(-50, 50, (4, 32))
    w = rng.integers(0, 16, (6, 32))
    online = lut.make_scheme("symmetric", 4, 4, offline_negation=False)
    offline = lut.make_scheme("symmetric", 4, 4, offline_negation=True)
    np.testing.assert_array_equal(np.asarray(lut.lut_gemm(a, w, online)),
                                  np.asarray(lut.lut_gemm(a, w, offline)))
    idx = np.arange(16)
    stored = np.array([int(offline.encode(np.array([(i >> j) & 1 for j in range(4)]))[0])
                       for i in idx])
    top = idx >> 3  # Eq. 6: top bit kept, the rest NOT-ed where it is set
    np.testing.assert_array_equal(stored, np.where(top == 1, 8 | (~idx & 7), idx))
    assert online.lookup_negation and not offline.lookup_negation


def test_ternary_packing_round_trips_and_fits_5_bits():
    triples = np.array(np.meshgrid(*[[-1, 0, 1]] * 3, indexing="ij")).reshape(3, -1).T
    codes = np.asarray(lut.pack_ternary(triples.reshape(1, -1)))[0]
    assert codes.max() < 32 and len(set(codes.tolist())) == 27
    np.testing.assert_array_equal(np.asarray(lut.unpack_ternary(codes[None]))[0],
                                  triples.reshape(-1))
    with pytest.raises(ValueError, match="multiple of 3"):
        lut.pack_ternary(np.zeros((1, 4)))


def test_ternary_lut_gemm_is_exact():
    rng = np.random.default_rng(4)
    t = rng.integers(-1, 2, (10, 30))
    a = rng.integers(-128, 128, (3, 30))
    out = lut.lut_gemm(a, t + 1, lut.make_scheme("ternary", 3), scale=1.0, zero=1.0)
    np.testing.assert_array_equal(np.asarray(out), a @ t.T)


@pytest.mark.parametrize("k", [2, 4, 6])
@pytest.mark.parametrize("w_bits", [1, 2, 4])
@pytest.mark.parametrize("bits", [4, 8])
def test_table_quantization_error_within_bound(k, w_bits, bits):
    rng = np.random.default_rng(k * 100 + w_bits)
    a = rng.standard_normal((8, 96))
    a[:, 5] *= 40  # an outlier channel
    w = rng.integers(0, 1 << w_bits, (12, 96))
    scale, zero = rng.uniform(0.5, 1.5, 12), rng.integers(0, 1 << w_bits, 12) - 0.5
    scheme = lut.make_scheme("symmetric", k, w_bits)
    exact = np.asarray(lut.lut_gemm(a, w, scheme, scale=scale, zero=zero))
    quant = np.asarray(lut.lut_gemm(a, w, scheme, scale=scale, zero=zero, table_bits=bits))
    _, codes, table_scale = lut.quantize_tables(lut.precompute_tables(a, scheme), bits)
    assert np.abs(np.asarray(codes)).max() <= 2 ** (bits - 1) - 1
    bound = np.asarray(lut.table_quantization_bound(table_scale, scheme, scale=scale, zero=zero))
    err = np.abs(quant - exact)
    assert (err <= bound * (1 + 1e-9) + 1e-12).all()
    assert err.max() > 0.01 * bound.max()  # the bound is not vacuous


def test_table_quantization_bound_sums_groups_in_order():
    # the same last bit as a plain left-to-right sum of the rounded products, on any CPU
    rng = np.random.default_rng(5)
    scheme = lut.make_scheme("symmetric", 4, 2)
    table_scale = rng.uniform(0.01, 1.0, (3, 8))
    scale, zero = rng.uniform(0.5, 1.5, 5), rng.integers(0, 4, 5) - 0.5
    got = lut.table_quantization_bound(table_scale, scheme, scale=scale, zero=zero)
    s_eff, z_eff = scheme.affine(lut.per_group("scale", scale, 5, 32, 4),
                                 lut.per_group("zero", zero, 5, 32, 4))
    per_entry = np.asarray(np.abs(s_eff) * (sum(scheme.plane_weights) + np.abs(z_eff)) / 2)
    for m in range(3):
        for n in range(5):
            total = 0.0
            for g in range(8):
                total += float(table_scale[m, g]) * float(per_entry[n, g])
            assert got[m, n] == total


def test_symmetric_quantize_zero_and_rounding():
    codes, scale = lut.symmetric_quantize(np.array([[0.0, 0.0], [1.0, -0.5]]), 8)
    np.testing.assert_array_equal(np.asarray(scale), [1.0, 1 / 127])
    np.testing.assert_array_equal(np.asarray(codes), [[0, 0], [127, -64]])  # -63.5 -> -64


def test_lmma_fp32_accumulation_matches_sequential_float32_sum():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((4, 40)).astype(np.float16)
    w = rng.integers(0, 4, (6, 40))
    instr = lut.LMMA(m=2, n=64, k=4, a_dtype="fp16", w_dtype="int2", accum="fp32", out="fp32")
    out = np.asarray(lut.tiled_mpgemm(a, w, instr, zero=1.5))
    # independent reference: the exact group dot products, added in float32 one group at a time
    a64, r = a.astype(np.float64), (w - 1.5) * 2  # symmetric tables carry 2x, scale 1/2 at the end
    acc = np.zeros((4, 6), np.float32)
    for g in range(10):
        part = a64[:, 4 * g:4 * g + 4] @ r[:, 4 * g:4 * g + 4].T
        acc = (acc.astype(np.float64) + part).astype(np.float32)
    np.testing.assert_array_equal(out, (acc.astype(np.float64) * 0.5).astype(np.float32))
    assert instr.mnemonic == "lmma.m2n64k4.fp16.int2.fp32.fp32"


def test_lmma_fp16_accumulator_loses_accuracy_int32_does_not():
    rng = np.random.default_rng(6)
    a = rng.integers(-128, 128, (4, 512))
    w = rng.integers(0, 2, (8, 512))
    exact = a @ w.T
    int32 = lut.LMMA(a_dtype="int8", w_dtype="int1", accum="int32", out="int32")
    np.testing.assert_array_equal(np.asarray(lut.tiled_mpgemm(a, w, int32)), exact)
    fp16 = lut.LMMA(a_dtype="int8", w_dtype="int1", accum="fp16", out="fp16")
    assert np.abs(np.asarray(lut.tiled_mpgemm(a, w, fp16)) - exact).max() > 0


def test_op_counts_opt175b_precompute_redundancy():
    """§3.1.1: [4096, 12288] x [12288, 12288] on N=4 units recomputes each table 3072 times."""
    scheme = lut.make_scheme("symmetric", 4, 1)
    unit = lut.LMMA(m=2, n=4, k=4)
    shared = lut.op_counts(4096, 12288, 12288, scheme=scheme, unit=unit)
    per_unit = lut.op_counts(4096, 12288, 12288, scheme=scheme, unit=unit,
                             shared_precompute=False)
    assert per_unit.tables // shared.tables == 3072
    assert shared.lookups == 4096 * 12288 * 3072
    assert shared.index_negations == 0 and shared.shifts == 0


def test_op_counts_match_the_lookup_plan():
    scheme = lut.make_scheme("symmetric", 4, 3, offline_negation=False)
    w = np.zeros((5, 17), np.int64)
    entry, _, _ = lut.lookup_plan(w, scheme, 1.0, 0.0)
    counts = lut.op_counts(7, 5, 17, scheme=scheme, lut_bits=8)
    planes = entry.shape[-1] - 1  # the last plane is the zero-point lookup
    assert counts.lookups == 7 * entry.shape[0] * entry.shape[1] * planes
    assert counts.index_negations == counts.lookups
    assert counts.shifts == 7 * 5 * 5 * 2
    assert counts.table_bits == 8 * 8


def test_eq7_eq8_tile_storage():
    unit = lut.LMMA(m=2, n=64, k=4, w_dtype="int2")
    assert lut.tile_table_bits(unit, lut_bits=8) == 2 * 2 ** 3 * 8
    assert lut.tile_weight_bits(unit) == 4 * 64 * 2
    assert lut.tile_weight_bits(lut.LMMA(n=64, k=3, w_dtype="ternary")) == 64 * 5
    assert lut.lmma_instructions(4, 130, 10, unit) == 2 * 3 * 3


@pytest.mark.parametrize("kwargs,match", [
    (dict(w_bits=0), "w_bits must be an integer in 1..8"),
    (dict(w_bits=9), "w_bits must be an integer in 1..8"),
    (dict(w_bits=2, k=0), "k .* must be an integer >= 1"),
    (dict(w_bits=1), r"w: 3 \(at index \[0, 0\] of shape \(4, 8\)\) is not allowed; allowed "
                     r"values: integer codes of symmetric weights \(w_bits=1\) in \[0, 1\]"),
    (dict(w_bits=2, table_bits=1),
     r"table_bits: 1 is not allowed; allowed values: integers in \[2, 16\], or None"),
    (dict(w_bits=2, scale=np.ones(3)), r"scale must be a scalar, \[N\] = \(4,\)"),
])
def test_bad_arguments_name_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        lut.mpgemm(np.ones((2, 8)), np.full((4, 8), 3), **kwargs)


def test_bad_shapes_and_formats():
    with pytest.raises(ValueError, match="share Ktot"):
        lut.mpgemm(np.ones((2, 8)), np.zeros((4, 9), int), w_bits=1)
    with pytest.raises(ValueError, match="w: codes of symmetric weights .* must be integers"):
        lut.mpgemm(np.ones((2, 8)), np.zeros((4, 8)), w_bits=1)
    with pytest.raises(ValueError, match="accum 'fp64' unknown; allowed values"):
        lut.LMMA(accum="fp64")
    with pytest.raises(ValueError, match="int32' needs exact integer tables"):
        lut.LMMA(accum="int32", a_dtype="fp16")
    with pytest.raises(ValueError, match="scheme 'dense' unknown"):
        lut.make_scheme("dense")
    with pytest.raises(ValueError, match="entries; at most"):
        lut.make_scheme("naive", 8, 4)


def test_groupwise_scale_and_zero_along_k():
    """GGUF/GPTQ-style scales per group of 32 weights ride on the lookups of their k-groups."""
    rng = np.random.default_rng(7)
    a = rng.integers(-100, 100, (3, 96))
    w = rng.integers(0, 16, (5, 96))
    scale = rng.integers(1, 5, (5, 3)).astype(float)
    zero = rng.integers(0, 16, (5, 3)) + 0.5
    dequant = scale.repeat(32, axis=1) * (w - zero.repeat(32, axis=1))
    for symmetric in (True, False):
        out = lut.mpgemm(a, w, w_bits=4, scale=scale, zero=zero, symmetric=symmetric)
        np.testing.assert_array_equal(np.asarray(out), a @ dequant.T)
    with pytest.raises(ValueError, match=r"\[N, S\] with Ktot/S a multiple of k = 4"):
        lut.mpgemm(a, w, w_bits=4, scale=np.ones((5, 5)))
    with pytest.raises(ValueError, match="group-wise scales: use lut_gemm"):
        lut.tiled_mpgemm(a, w, lut.LMMA(w_dtype="int4", a_dtype="int8"), scale=scale)


def test_prepared_weights_serve_many_inputs():
    rng = np.random.default_rng(8)
    w = rng.integers(0, 4, (6, 40))
    scheme = lut.make_scheme("symmetric", 4, 2)
    prepared = lut.prepare_weights(w, scheme, zero=1.5)
    assert prepared.select.shape == (10 * 8, 6)
    for seed in range(2):
        a = np.random.default_rng(seed).integers(-9, 9, (4, 40))
        np.testing.assert_array_equal(np.asarray(lut.apply_weights(a, prepared)),
                                      integer_reference(a, w, 1.5))
    with pytest.raises(ValueError, match=r"a must be \[M, 40\]"):
        lut.apply_weights(np.ones((2, 41)), prepared)
    exact_only = lut.prepare_weights(w, scheme, zero=1.5, quantized_tables=False)
    assert exact_only.select is None
    np.testing.assert_array_equal(np.asarray(lut.apply_weights(a, exact_only)),
                                  integer_reference(a, w, 1.5))
    with pytest.raises(ValueError, match="table_bits: .*quantized_tables=False"):
        lut.apply_weights(a, exact_only, table_bits=8)


@pytest.mark.parametrize("w_bits", [1, 4])
def test_prepared_layers_are_each_layers_prepared_weights(w_bits):
    """A stack of layers with group-wise scales and zero points (and with scalars) gives, layer
    by layer, exactly prepare_weights's selection tensor; and still the integer product."""
    rng = np.random.default_rng(w_bits)
    w = rng.integers(0, 1 << w_bits, (3, 6, 64), dtype=np.uint8)
    scale = rng.choice([0.5, 0.75, 3.0], (3, 6, 2))
    zero = rng.choice([0.0, 1.5, -2.25], (3, 6, 2))
    scheme = lut.make_scheme("symmetric", 4, w_bits)
    stacked = lut.prepare_layers(w, scheme, scale=scale, zero=zero)
    assert stacked.select.shape == (3, 16 * 8, 6) and stacked.ktot == 64
    for i in range(3):
        one = lut.prepare_weights(w[i], scheme, scale=scale[i], zero=zero[i])
        for got, want in zip(stacked[:4], one[:4]):
            np.testing.assert_array_equal(np.asarray(got[i]), np.asarray(want))
    plain = lut.prepare_layers(w, scheme, zero=0.5)
    a = rng.integers(-9, 9, (2, 64))
    layer = plain._make([x[1] for x in plain[:4]] + [scheme, 64])
    np.testing.assert_array_equal(np.asarray(lut.apply_weights(a, layer)),
                                  integer_reference(a, w[1], 0.5))
    with pytest.raises(ValueError, match=r"w must be \[L, N, Ktot\]"):
        lut.prepare_layers(w[0], scheme)
    with pytest.raises(ValueError, match=r"w: \d+ .* allowed values: integer codes"):
        lut.prepare_layers(w + (1 << w_bits), scheme)



def scatter_reference(w, scheme, scale, zero):
    """The selection tensor [G*E, N] as a scatter-add of lookup_plan: each lookup's coefficient
    times s_eff (one rounding), added at its (group, entry) row in plane order from +0."""
    entry, coeff, s_eff = (np.asarray(v) for v in lut.lookup_plan(w, scheme, scale, zero))
    n, groups, planes = entry.shape
    select = np.zeros((groups * scheme.entries, n))
    rows = np.arange(groups)[:, None] * scheme.entries + entry  # [N, G, P]
    for p in range(planes):  # one plane at a time: within a plane no two lookups share a row
        np.add.at(select, (rows[..., p], np.arange(n)[:, None]), coeff[..., p] * s_eff)
    return select


@pytest.mark.parametrize("name,k,w_bits", [("naive", 2, 2), ("bitserial", 3, 3),
                                            ("symmetric", 4, 4), ("symmetric", 5, 2),
                                            ("ternary", 3, 2)])
def test_prepared_selection_is_the_scatter_of_the_lookup_plan(name, k, w_bits):
    """prepare_weights's fused build equals the scatter-add of the lookups bit for bit, with
    float64 scales and zero points whose products round (their sums depend on the order); 67
    columns: a vectorized loop and its remainder."""
    scheme = lut.make_scheme(name, k, w_bits)
    n, ktot, groups = 67, 6 * k, 2
    rng = np.random.default_rng(k * w_bits)
    w = rng.integers(0, 3 if name == "ternary" else 1 << w_bits, (n, ktot))
    scale = rng.uniform(-2, 2, (n, groups))
    zero = np.where(rng.random((n, groups)) < 0.5, rng.uniform(-20, 20, (n, groups)),
                    rng.integers(0, 1 << w_bits, (n, groups)))
    got = np.asarray(lut.prepare_weights(w, scheme, scale=scale, zero=zero).select)
    np.testing.assert_array_equal(got.view(np.int64),
                                  scatter_reference(w, scheme, scale, zero).view(np.int64))


FMA_CASE = """
import sys
import numpy as np
import lutcore.lut as lut
scheme = lut.make_scheme("symmetric", 4, 2)
w = np.zeros((64, 16), np.uint8)
scale = 1 + np.arange(1, 257, 2).reshape(64, 2) * 2.0 ** -52  # (3/2) s needs 54 bits
select = lut.prepare_weights(w, scheme, scale=scale, zero=np.zeros((64, 2))).select
np.save(sys.argv[1], np.asarray(select))
"""


def test_prepared_selection_rounds_each_lookup_before_its_sum(tmp_path):
    """Codes 0 with zero point 0, W_INT2 symmetric: the planes put s/2 + s at the all-(-1)
    entry and the zero point -(3/2)s, each rounded: exactly 0. One fused multiply-add would
    leave the rounding error of (3/2)s there instead. XLA CPU contracts a product and a sum
    only in its optimized, vectorized loops: so built in a process at XLA's default optimization
    level and emitters (the tests' conftest lightens them), on 64 columns of group-wise scales as
    in a model."""
    env = checkout_env()
    light = {flag.split("=")[0] for flag in LIGHT_TEST_COMPILE}
    env["XLA_FLAGS"] = " ".join(flag for flag in env["XLA_FLAGS"].split()
                                if flag.split("=")[0] not in light)
    run = subprocess.run([sys.executable, "-c", FMA_CASE, str(tmp_path / "select.npy")],
                         env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    select = np.load(tmp_path / "select.npy")
    assert (select[::8] == 0.0).all() and not np.signbit(select).any(), select[::8]
    scale = 1 + np.arange(1, 257, 2).reshape(64, 2) * 2.0 ** -52
    reference = scatter_reference(np.zeros((64, 16), np.uint8), lut.make_scheme("symmetric", 4, 2),
                                  scale, np.zeros((64, 2)))
    np.testing.assert_array_equal(select, reference)


def test_to_format_rounds_float64_once():
    # the tie 1 + 2^-11 nudged up by 2^-40: once to nearest, 1 + 2^-10; twice, through float32
    # (which rounds it back onto the tie), 1
    x = np.array([1 + 2.0 ** -11 + 2.0 ** -40, -(1 + 2.0 ** -11 + 2.0 ** -40), 65520.0, -0.0])
    got = np.asarray(lut.to_format(x, "fp16"))
    assert got.tolist()[:3] == [1 + 2.0 ** -10, -(1 + 2.0 ** -10), np.inf]
    assert np.signbit(got[3])


# FP16 specials: zeros of both signs, the smallest subnormal and normal, the largest value
FP16_SPECIALS = (0.0, -0.0, 2.0**-24, -(2.0**-24), 2.0**-14, 65504.0, -65504.0)


def fp16_activations(rng, m, ktot, specials):
    a = lut.to_format(rng.standard_normal((m, ktot)) * 2.0 ** rng.integers(-20, 12, (m, ktot)),
                      "fp16")
    where = rng.random((m, ktot)) < specials
    return np.where(where, rng.choice(FP16_SPECIALS, (m, ktot)), np.asarray(a))


def affine(rng, form, n, s):
    """A scale or zero point of float64 values whose products round: scalar, [N] or [N, S]."""
    shape = {"scalar": (), "column": (n,), "group": (n, s)}[form]
    return rng.uniform(-3, 3, shape) * 2.0 ** rng.integers(-8, 8, shape)


# each example compiles three programs (prepare, prepared and gathered lookups); the largest
# values and W_INT8 spans are covered exactly by test_exact_tables_need_no_summation_order
@settings(max_examples=10, deadline=None)
@given(name_bits=st.sampled_from([("symmetric", 1), ("symmetric", 4), ("symmetric", 8),
                                  ("bitserial", 3), ("naive", 2), ("ternary", 2)]),
       k=st.integers(2, 5), m=st.integers(1, 4), n=st.integers(1, 5), groups=st.integers(1, 6),
       per=st.integers(1, 3), forms=st.sampled_from(["scalar", "column", "group"]),
       specials=st.sampled_from([0.0, 0.3, 1.0]), seed=st.integers(0, 2**32 - 1))
def test_prepared_exact_tables_equal_the_lookups_bit_for_bit(name_bits, k, m, n, groups, per,
                                                              forms, specials, seed):
    """The prepared engine (each span one dense product of the activations and the lookups'
    integer weights) gives the literal lookups' bits: FP16 activations with +-0, subnormals and
    +-65504, float64 scales and zero points per column or per group (whose products round)."""
    name, w_bits = name_bits
    k = 3 if name == "ternary" else k
    scheme = lut.make_scheme(name, k, w_bits)
    rng = np.random.default_rng(seed)
    ktot = groups * per * k - (rng.integers(0, k) if forms != "group" else 0)  # K padded or not
    a = fp16_activations(rng, m, ktot, specials)
    w = rng.integers(0, 3 if name == "ternary" else 1 << w_bits, (n, ktot))
    scale, zero = affine(rng, forms, n, groups), affine(rng, forms, n, groups)
    gathered, prepared = (np.asarray(lut.lut_gemm(a, w, scheme, scale=scale, zero=zero,
                                                  lookup=method))
                          for method in ("gather", "onehot"))
    np.testing.assert_array_equal(prepared.view(np.int64), gathered.view(np.int64))


def exact_reference(a, w, scale, zero, span):
    """Symmetric tables' result from exact integers: per span of ``span`` activations, the
    FP16 activations (integers times 2^-24) times 2q - (2^W - 1) in Python integers, then
    s/2 * (P - (2z + 1 - 2^W) * A) added in span order by numpy, one rounding each."""
    a_units = [[int(x) for x in row] for row in (a * 2.0**24).astype(np.int64)]
    top = int(w.max()).bit_length()
    top = (1 << max(top, 1)) - 1
    out = np.zeros((a.shape[0], w.shape[0]))
    for j in range(a.shape[1] // span):
        cols = range(j * span, (j + 1) * span)
        p = np.array([[sum(row[i] * (2 * int(q[i]) - top) for i in cols) for q in w]
                      for row in a_units], np.float64) * 2.0**-24
        total = np.array([sum(row[i] for i in cols) for row in a_units], np.float64) * 2.0**-24
        s, z = scale[:, j] / 2, 2 * zero[:, j] + 1 - (top + 1)
        out = out + s * (p - z * total[:, None])
    return out


def test_exact_tables_need_no_summation_order():
    """Every span's sum is exact below 2^53 units of 2^-24, so the result is that of exact
    integers, whatever order a BLAS or XLA sums in: checked against Python integers at the
    format's largest values, W_INT4 groups of 32 (the LLM's), and W_INT8 columns of 4096,
    which the engine splits into spans of at most 2^13 / (4 * 255) = 8 groups of 4."""
    rng = np.random.default_rng(11)
    a = np.where(rng.random((3, 96)) < 0.5, 65504.0, -65504.0)
    w = rng.integers(0, 16, (4, 96))
    w[:, 0] = 15  # the reference reads W from the largest code
    scale, zero = rng.uniform(-1, 1, (4, 3)), rng.uniform(-20, 20, (4, 3))
    got = np.asarray(lut.mpgemm(a, w, w_bits=4, scale=scale, zero=zero))
    np.testing.assert_array_equal(got, exact_reference(a, w, scale, zero, 32))
    a = np.where(rng.random((2, 4096)) < 0.9, 65504.0, -65504.0)
    w = rng.integers(200, 256, (3, 4096))
    w[:, 0] = 255
    got = np.asarray(lut.mpgemm(a, w, w_bits=8, scale=0.75, zero=1.25))
    want = exact_reference(a, w, np.full((3, 128), 0.75), np.full((3, 128), 1.25), 32)
    np.testing.assert_array_equal(got, want)
