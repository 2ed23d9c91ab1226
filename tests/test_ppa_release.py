"""The LUT Tensor Core's released FP16 array (issue 14): the flush-to-zero adder, the bit-level
model of the released LMMA, our RTL of the release in simulation against both, and the
structural model of its structure by hand.

Oracles: numpy's IEEE float16 (the adder off its departures), integer matmul (exact small
integers), lutcore.lut's LMMA with FP16 tables and an FP16 accumulator rounded every plane
(IEEE), and hand-worked cases for every departure.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from amaranth.sim import Simulator

import lutcore.numerics as nm
import lutcore.ppa as ppa
from lutcore import lut
from lutcore.ppa import _cells, synth

jax.config.update("jax_enable_x64", True)
K, B_BITS = 4, 2
SCHEME = lut.make_scheme("symmetric", K, B_BITS)
ENTRIES = 2 ** (K - 1)


def f16(x) -> np.ndarray:
    """float64 values -> fp16 patterns (round to nearest even)."""
    return np.asarray(nm.from_float64(jnp.asarray(x, jnp.float64), "fp16"))


def value(bits) -> np.ndarray:
    return np.asarray(nm.to_float64(jnp.asarray(bits, jnp.uint16), "fp16"))


# ---------------------------------------------------------------------------------------------
# The flush-to-zero adder


def test_fp_add_ftz_is_ieee_on_normal_operands_and_results():
    rng = np.random.default_rng(0)
    a, b = rng.integers(0x0400, 0x7C00, (2, 2000)) | (rng.integers(0, 2, (2, 2000)) << 15)
    with np.errstate(over="ignore"):
        ieee = (a.astype(np.uint16).view(np.float16).astype(np.float64)
                + b.astype(np.uint16).view(np.float16).astype(np.float64)).astype(np.float16)
    normal = np.abs(ieee.astype(np.float64)) >= 2.0 ** -14  # finite, or inf by overflow
    got = np.asarray(nm.fp_add_ftz(a.astype(np.uint16), b.astype(np.uint16)))
    np.testing.assert_array_equal(got[normal], ieee.view(np.uint16)[normal])
    assert normal.mean() > 0.9


@pytest.mark.parametrize("a, b, expected", [
    (0x0001, 0x3C00, 0x3C00),  # a subnormal operand is a zero: 1 + 2^-24 = 1 (IEEE: 1 too)
    (0x03FF, 0x03FF, 0x0000),  # two subnormals are zeros: 0 (IEEE: 0x07FE, a normal number)
    (0x0401, 0x8400, 0x0000),  # 2^-24 exact, below the smallest normal: +0 (IEEE: 0x0001)
    (0x8401, 0x0400, 0x8000),  # the same with the sign of the exact sum: -0
    (0x3C00, 0xBC00, 0x0000),  # x + (-x) = +0
    (0x8000, 0x8000, 0x8000),  # (-0) + (-0) = -0
    (0x8001, 0x0002, 0x0000),  # subnormals of both signs are (-0) + (+0) = +0
    (0x7E00, 0x3C00, 0x7C00),  # a NaN pattern is an infinity
    (0x7C00, 0xFC00, 0x7C00),  # inf - inf: +inf, no NaN ever comes out
    (0x7BFF, 0x7BFF, 0x7C00),  # overflow: inf
])
def test_fp_add_ftz_departures_by_hand(a, b, expected):
    got = int(nm.fp_add_ftz(jnp.uint16(a), jnp.uint16(b)))
    assert got == expected, hex(got)
    assert int(nm.fp_add_ftz(jnp.uint16(b), jnp.uint16(a))) == expected  # commutative


def test_fp_add_ftz_refuses_formats_float64_cannot_add_exactly():
    with pytest.raises(ValueError, match="fp16, fp8"):
        nm.fp_add_ftz(jnp.uint32(0), jnp.uint32(0), "fp32")


def _fp16_vectors(count, seed):
    """Specials against each other, random patterns, near-cancellations, small exponents."""
    specials = [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x8400, 0x0401, 0x3C00,
                0xBC00, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01]
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 1 << 16, (2, count))
    near = rng.integers(0, 1 << 16, count)
    negated = ((near ^ 0x8000) + rng.integers(-40, 40, count)) & 0xFFFF
    small = rng.integers(0, 1 << 16, (2, count)) & 0x8FFF
    pairs = [(x, y) for x in specials for y in specials]
    for first, second in ((a, b), (near, negated), small):
        pairs += list(zip(first.tolist(), second.tolist()))
    return np.array(pairs, dtype=np.uint16)


def test_ftz_adder_rtl_matches_the_model():
    adder = synth.elaboratable("fp16_add_ftz")
    vectors = _fp16_vectors(150, seed=1)
    got = []

    async def bench(ctx):
        for a, b in vectors.tolist():
            ctx.set(adder.a, a)
            ctx.set(adder.b, b)
            got.append(ctx.get(adder.s))

    simulator = Simulator(adder)
    simulator.add_testbench(bench)
    simulator.run()
    np.testing.assert_array_equal(got, np.asarray(nm.fp_add_ftz(vectors[:, 0], vectors[:, 1])))


# ---------------------------------------------------------------------------------------------
# The released LMMA, bit level: V vectors at once, vector v's tables as row v and its weights as
# column v (the diagonal pairs them; the integer test uses every pair)

VECTORS = 240
IEEE_PLANES = lut.LMMA(m=VECTORS, n=VECTORS, k=K, a_dtype="fp16", w_dtype="int1",
                       accum="fp16", out="fp16")


@jax.jit
def _reference(a, w, psum):
    """For activations a [V, K] (FP16 values) and INT2 codes w [V, K]: the FP16 table patterns
    [V, 2^(K-1)], the release's b_tile [K, V], and lutcore.lut's LMMA (one instruction per bit
    plane, FP16 tables and accumulator; scale 2, zero 1.5: odd weights 2w - 3) after each plane
    [P, V, V] from psum [V, V] (values)."""
    tables = lut.to_format(lut.precompute_tables(a, SCHEME)[:, 0, :], "fp16")
    entry, coeff, _ = lut.lookup_plan(w, SCHEME, 2.0, 1.5)
    planes, acc = [], psum
    for plane in range(B_BITS):
        acc = lut.lmma(IEEE_PLANES, tables, entry[:, 0, plane:plane + 1],
                       coeff[:, 0, plane:plane + 1], acc)
        planes.append(acc)
    b_tile = lut.release_b_tile(jax.vmap(SCHEME.encode)(w), K)
    return nm.from_float64(tables, "fp16"), b_tile, jnp.stack(planes)


def test_released_lmma_is_the_integer_product_on_exact_inputs():
    """Small integers: every table entry, plane and sum is exact in FP16, so the release's
    result is sum_k a_k (2 w_k - 3) + psum exactly, for every pair of tables and weights
    (integer matmul, independent of lutcore.lut)."""
    rng = np.random.default_rng(2)
    a = rng.integers(-60, 61, (VECTORS, K)).astype(np.float64)
    w = rng.integers(0, 4, (VECTORS, K))
    psum = rng.integers(-500, 501, (VECTORS, VECTORS)).astype(np.float64)
    tables, b_tile, planes = _reference(a, w, psum)
    got = lut.released_lmma(tables, b_tile, f16(psum), b_bits=B_BITS)
    np.testing.assert_array_equal(value(got), a @ (2 * w - 3).T + psum)
    np.testing.assert_array_equal(np.asarray(planes[-1]), a @ (2 * w - 3).T + psum)


def test_scale_exponent_field_wraps():
    bits = jnp.asarray([0x3C00, 0x0000, 0x0001, 0x7800, 0x7C00, 0xFC00], jnp.uint16)
    got = np.asarray(lut.scale_exponent_field(bits, 1))
    # 1 -> 2; 0 -> 2^-14 (exponent field 1); subnormal -> normal; 2^15 -> inf; inf -> +-0
    np.testing.assert_array_equal(got, [0x4000, 0x0400, 0x0401, 0x7C00, 0x0000, 0x8000])


def _simulate_release(name, vectors):
    """Run (a_lut [M, E], b_tile [K, N], psum [M, N]) vectors through design ``name``, B_BITS
    cycles each; returns the results [V, M, N] read when ``valid`` is high."""
    spec = synth.design(name)
    dut = synth.elaboratable(name)
    out = []

    def pack(words, bits):
        return sum(int(x) << (i * bits) for i, x in enumerate(np.ravel(words)))

    async def bench(ctx):
        for a_lut, b_tile, psum in vectors:
            ctx.set(dut.a_lut, pack(a_lut, 16))
            ctx.set(dut.b_tile, pack(b_tile, spec.b_bits))
            ctx.set(dut.c_tile_psum, pack(psum, 16))
            for _ in range(spec.b_bits):
                await ctx.tick()
            assert ctx.get(dut.valid) == 1
            result = ctx.get(dut.result)
            out.append([(result >> (16 * i)) & 0xFFFF for i in range(spec.m * spec.n)])

    simulator = Simulator(dut)
    simulator.add_clock(1e-6)
    simulator.add_testbench(bench)
    simulator.run()
    return np.array(out, dtype=np.uint16).reshape(len(vectors), spec.m, spec.n)


def _simulate_dp4(tables, b_tile, psum):
    """Vector v of the DP4: tables[v], b_tile[:, v], psum[v]."""
    vectors = [(tables[v:v + 1], b_tile[:, v:v + 1], psum[v].reshape(1, 1))
               for v in range(len(tables))]
    return _simulate_release("release_lut_dp4", vectors)[:, 0, 0]


def _departure_free(tables, psum, planes):
    """No departure can occur: table entries normal and at most 2^14 (x2 stays finite), the
    partial sum and every plane's IEEE result zero or normal."""
    exponent = (tables >> 10) & 0x1F
    normal = np.all((exponent >= 1) & (exponent <= 29), axis=-1)
    tiny = [(r != 0) & (np.abs(r) < 2.0 ** -14) for r in (value(psum), *planes)]
    return normal & ~np.any(tiny, axis=0)


def test_release_dp4_rtl_matches_ieee_lmma_and_the_released_model():
    """DP4 (M1 N1 K4, B_BIT 2) on random FP16 activations and INT2 weights: bit-exact to the
    bit-level model everywhere, equal to lutcore.lut's LMMA where no departure can occur."""
    rng = np.random.default_rng(3)
    a = lut.to_format(rng.standard_normal((VECTORS, K))
                      * 2.0 ** rng.integers(-8, 9, (VECTORS, 1)), "fp16")
    w = rng.integers(0, 4, (VECTORS, K))
    psum = f16(np.broadcast_to(rng.standard_normal((VECTORS, 1)) * 4, (VECTORS, VECTORS)))
    tables, b_tile, planes = _reference(a, w, value(psum))
    tables, b_tile = np.asarray(tables), np.asarray(b_tile)
    got = _simulate_dp4(tables, b_tile, np.diagonal(psum))
    model = lut.released_lmma(tables, b_tile, psum, b_bits=B_BITS)
    np.testing.assert_array_equal(got, np.diagonal(np.asarray(model)))
    planes = [np.diagonal(np.asarray(p)) for p in planes]
    clean = _departure_free(tables, np.diagonal(psum), planes)
    assert clean.mean() > 0.9
    np.testing.assert_array_equal(value(got)[clean], planes[-1][clean])


def test_release_reproduces_its_departures_from_ieee():
    """Tables with zero, subnormal, huge and infinite entries and subnormal partial sums: the
    RTL reproduces the bit-level model exactly; hand-worked cases where it departs from IEEE."""
    rng = np.random.default_rng(4)
    special = np.array([0x0000, 0x8000, 0x0001, 0x83FF, 0x7800, 0x7BFF, 0x7C00, 0x3C00])
    tables = rng.integers(0, 1 << 16, (VECTORS, ENTRIES)) & 0xBFFF  # |x| < 2: finite
    mask = rng.random((VECTORS, ENTRIES)) < 0.3
    tables[mask] = rng.choice(special, mask.sum())
    tables = tables.astype(np.uint16)
    psum = np.where(rng.random((VECTORS, 1)) < 0.3, rng.integers(1, 0x400, (VECTORS, 1)),
                    rng.integers(0, 1 << 16, (VECTORS, 1)) & 0xBFFF)
    psum = np.broadcast_to(psum, (VECTORS, VECTORS)).astype(np.uint16)
    b_tile = rng.integers(0, 1 << B_BITS, (K, VECTORS))
    got = _simulate_dp4(tables, b_tile, np.diagonal(psum))
    model = lut.released_lmma(tables, b_tile, psum, b_bits=B_BITS)
    np.testing.assert_array_equal(got, np.diagonal(np.asarray(model)))
    # on plane 1 a zero entry becomes 2^-14 (exponent field 1); a subnormal psum flushes
    zero_entry = np.zeros((1, ENTRIES), np.uint16)
    b_tile = np.zeros((K, 1), np.int64)  # both planes select entry 0 with its sign
    cases = {0x3C00: 0x3C00,   # 1 + 0 + 2^-14 rounds back to 1 (IEEE: 1 too)
             0x0400: 0x0800,   # 2^-14 + 0 + 2^-14 = 2^-13 (IEEE: 2^-14)
             0x0200: 0x0400}   # 0 (flushed 2^-15) + 0 + 2^-14 (IEEE: 2^-15)
    vectors = [(zero_entry, b_tile, np.array([[p]], np.uint16)) for p in cases]
    np.testing.assert_array_equal(_simulate_release("release_lut_dp4", vectors)[:, 0, 0],
                                  list(cases.values()))
    for vec, expected in zip(vectors, cases.values()):
        assert int(lut.released_lmma(*vec, b_bits=B_BITS)[0, 0]) == expected


def test_release_array_slice_matches_the_released_model():
    """The M2 N8 K4 slice: rows share the column's index, columns the row's table."""
    rng = np.random.default_rng(5)
    spec = synth.design("release_lut_m2n8k4")
    vectors = [(rng.integers(0, 1 << 16, (spec.m, ENTRIES)).astype(np.uint16),
                rng.integers(0, 1 << B_BITS, (K, spec.n)),
                rng.integers(0, 1 << 16, (spec.m, spec.n)).astype(np.uint16))
               for _ in range(4)]
    got = _simulate_release("release_lut_m2n8k4", vectors)
    model = np.stack([np.asarray(lut.released_lmma(*vec, b_bits=B_BITS)) for vec in vectors])
    np.testing.assert_array_equal(got, model)


# ---------------------------------------------------------------------------------------------
# The structural model of the release


def test_release_structure_by_hand():
    """DP4: 7 x 16 MUX2 of the entry mux, 16 of the psum mux, 4 one-bit 2:1 index muxes; 16
    result flip-flops, the 1-bit counter and valid; 5 HA of the exponent +1 and the counter's
    +1 (HA), one XOR2 for the sign; the FP adder block once."""
    cost = ppa.release_lut_array(1, 1, 4, 2, 5, 10)
    counts = dict(zip(_cells.NAMES, np.asarray(cost.total.cells)))
    adder = dict(zip(_cells.NAMES, np.asarray(ppa.fp_adder(5, 11).cells)))
    assert counts["MUX2"] - adder["MUX2"] == 7 * 16 + 16 + 4
    assert counts["DFF"] == 16 + 2
    assert counts["HA"] - adder["HA"] == 5 + 1
    assert counts["XOR2"] - adder["XOR2"] == 1
    assert set(cost.parts) == set(ppa.RELEASE_PARTS)
    # the array: everything per output scales with M x N, the index muxes with K x N
    array = ppa.release_lut_array()
    per_output = float(cost.total.area()) - float(cost.parts["control"].area()) \
        - float(cost.parts["index_select"].area())
    expected = (128 * per_output + float(array.parts["control"].area())
                + 4 * 64 * float(ppa.mux_tree(2, 1).area()))
    assert float(array.total.area()) == pytest.approx(expected)
    assert ppa.RELEASE == ppa.ReleasedArray(2, 64, 4, 2, 5, 10, 0)


@pytest.mark.parametrize("shape", [(1, 1, 4), (2, 8, 4), (2, 64, 4)])
def test_release_is_the_paper_boundary_less_its_buffers(shape):
    """One structure: tensor_core's paper-boundary LUT Tensor Core at the release's parameters
    is the release's cells plus the broadcast buffers its RTL does not have."""
    array = ppa.tensor_core("lut_tensor_core", "fp16", "int2", *shape, boundary="paper")
    release = ppa.release_lut_array(*shape)
    total = sum(np.asarray(p.cells) for p in array.parts.values())
    extra = dict(zip(_cells.NAMES, total - np.asarray(release.total.cells)))
    buffers = sum(np.asarray(array.parts[p].cells)[_cells.INDEX["BUF"]]
                  for p in ("broadcast", "control"))
    assert {c: v for c, v in extra.items() if v} == {"BUF": buffers}
    assert float(array.delay) >= float(release.total.delay)
