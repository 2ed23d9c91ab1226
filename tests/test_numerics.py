"""lutcore.numerics against independent references: a Fraction oracle and ml_dtypes casts."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lutcore.numerics as nm

import fp_oracle as oracle

ML_DTYPES = {
    "fp16": np.float16,
    "fp16alt": ml_dtypes.bfloat16,
    "fp8": ml_dtypes.float8_e5m2,
    "fp8alt": ml_dtypes.float8_e4m3,
    "fp32": np.float32,
}
RNG_SEED = 20221
UNIFORM = 20_000  # uniform random patterns per pair under RNE (the oracle costs ~0.1 ms each)


def random_bits(rng, fmt, n):
    return rng.integers(0, 1 << fmt.width, n, dtype=np.uint64).astype(fmt.dtype)


def special_bits(fmt):
    """+-0, smallest/largest subnormal, smallest normal, 1, max, +-inf, qNaN, sNaN, and
    negations."""
    m = fmt.man_bits
    one = fmt.bias << m
    base = [0, 1, (1 << m) - 1, 1 << m, one, one + 1, fmt.max_bits, fmt.inf_bits,
            fmt.qnan_bits, fmt.inf_bits | 1]
    sign = 1 << (fmt.width - 1)
    return np.array(base + [b | sign for b in base], dtype=np.uint64).astype(fmt.dtype)


def check_against_oracle(ours, operands, reference):
    ours = np.asarray(ours)
    expected = np.array([reference(*map(int, xs)) for xs in zip(*operands)], dtype=np.uint64)
    bad = np.nonzero(ours.astype(np.uint64) != expected)[0]
    assert len(bad) == 0, (
        f"{len(bad)} mismatches, first: operands "
        f"{[hex(int(x[bad[0]])) for x in operands]} ours {hex(int(ours[bad[0]]))} "
        f"oracle {hex(int(expected[bad[0]]))}")


# ------------------------------------------------------------------------------------------------
# Formats


@pytest.mark.parametrize("name", sorted(ML_DTYPES))
def test_format_constants_match_ml_dtypes(name):
    fmt, info = nm.FORMATS[name], ml_dtypes.finfo(ML_DTYPES[name])
    assert fmt.max_value == float(info.max)
    assert fmt.min_normal == float(info.smallest_normal)
    assert fmt.min_subnormal == float(info.smallest_subnormal)
    assert fmt.epsilon == float(info.eps)
    assert fmt.width == info.bits


def test_fpnew_format_table():
    widths = {k: (v.exp_bits, v.man_bits) for k, v in nm.FORMATS.items()}
    assert widths == {"fp64": (11, 52), "fp32": (8, 23), "fp16": (5, 10), "fp16alt": (8, 7),
                      "fp8": (5, 2), "fp8alt": (4, 3)}
    assert nm.FORMATS["fp8alt"].max_value == 240.0  # IEEE-like e4m3, not OCP e4m3fn (448)


def test_bad_names_give_clear_errors():
    with pytest.raises(ValueError, match="unknown format 'fp12'.*fp8alt"):
        nm.as_format("fp12")
    with pytest.raises(ValueError, match="unknown rounding mode 'nearest'.*rne"):
        nm.exsdotp(0, 0, 0, 0, 0, src="fp8", dst="fp16", rounding="nearest")
    with pytest.raises(ValueError, match="fp16->fp16alt is not a MiniFloat-NN pair"):
        nm.exsdotp(0, 0, 0, 0, 0, src="fp16", dst="fp16alt")
    with pytest.raises(ValueError, match="fp64 is not a Vsum format"):
        nm.vsum(0, 0, 0, fmt="fp64")
    with pytest.raises(ValueError, match="exp_bits"):
        nm.FPFormat(1, 3)
    with pytest.raises(ValueError, match="101-bit window"):  # fp32 FMA: 48-bit products
        nm.exfma(0, 0, 0, src="fp32", dst="fp32")


@pytest.mark.parametrize("name", ["fp8", "fp8alt", "fp16", "fp16alt"])
def test_decode_every_pattern_matches_ml_dtypes(name):
    fmt = nm.FORMATS[name]
    bits = np.arange(1 << fmt.width, dtype=np.uint64).astype(fmt.dtype)
    ours = np.asarray(nm.to_float64(bits, fmt))
    with np.errstate(invalid="ignore"):  # NaN patterns
        ref = bits.view(ML_DTYPES[name]).astype(np.float64)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(ref))
    finite = ~np.isnan(ref)
    np.testing.assert_array_equal(ours[finite], ref[finite])
    np.testing.assert_array_equal(np.signbit(ours[finite]), np.signbit(ref[finite]))


@pytest.mark.parametrize("name", sorted(ML_DTYPES))
def test_cast_from_float64_matches_ml_dtypes(name):
    fmt, dtype = nm.FORMATS[name], ML_DTYPES[name]
    rng = np.random.default_rng(RNG_SEED)
    scale = 2.0 ** rng.integers(fmt.emin - fmt.man_bits - 3, fmt.emax + 3, 50_000)
    x = rng.standard_normal(50_000) * scale
    # every pattern's value and the midpoints between neighbours (ties) are the hard cases
    grid = np.asarray(nm.to_float64(random_bits(rng, fmt, 20_000), fmt))
    grid = grid[np.isfinite(grid)]
    nxt = np.asarray(nm.to_float64(np.asarray(nm.from_float64(grid, fmt)) + 1, fmt))
    ties = (grid + nxt) / 2
    x = np.concatenate([x, grid, ties[np.isfinite(ties)], [0.0, -0.0, np.inf, -np.inf, np.nan]])
    ours = np.asarray(nm.from_float64(x, fmt))
    with np.errstate(over="ignore"):  # out-of-range values become inf, as intended
        ref = x.astype(dtype)
    is_nan = np.isnan(ref.astype(np.float64))
    assert np.all(ours[is_nan] == fmt.qnan_bits)
    np.testing.assert_array_equal(ours[~is_nan], ref[~is_nan].view(fmt.dtype))


@pytest.mark.parametrize("rounding", nm.ROUNDING_MODES)
@pytest.mark.parametrize("src,dst", [("fp32", "fp16"), ("fp32", "fp8alt"), ("fp16", "fp8"),
                                     ("fp32", "fp16alt"), ("fp8", "fp32")])
def test_convert_matches_oracle(src, dst, rounding):
    src, dst = nm.FORMATS[src], nm.FORMATS[dst]
    rng = np.random.default_rng(RNG_SEED)
    bits = np.concatenate([random_bits(rng, src, 4000), special_bits(src)])
    ours = nm.convert(bits, src, dst, rounding)

    def reference(b):
        v = oracle.value(b, src)
        return oracle.fused_sum([v], dst, rounding)

    check_against_oracle(ours, [bits], reference)


# ------------------------------------------------------------------------------------------------
# Fused operations: uniform random bit patterns (specials and subnormals occur naturally)


def test_fpnew_vector():
    """FPnew's fpnew_sdotp_multi: exact 2^15 stays 0x47000000 (issue #2)."""
    out = nm.exsdotp(0x1C01, 0x1C01, 0x9C01, 0x1C01, 0x47000000, src="fp16", dst="fp32")
    assert int(out) == 0x47000000
    assert out.dtype == np.uint32


@pytest.mark.parametrize("src,dst", nm.EXPANDING_PAIRS)
def test_exsdotp_uniform_bits_rne(src, dst):
    src, dst = nm.FORMATS[src], nm.FORMATS[dst]
    rng = np.random.default_rng(RNG_SEED)
    ops = [random_bits(rng, src, UNIFORM) for _ in range(4)] + [random_bits(rng, dst, UNIFORM)]
    ours = nm.exsdotp(*ops, src=src, dst=dst)
    check_against_oracle(ours, ops, lambda a, b, c, d, e: oracle.exsdotp(a, b, c, d, e, src, dst))


@pytest.mark.parametrize("rounding", ["rtz", "rdn", "rup", "rmm"])
@pytest.mark.parametrize("src,dst", nm.EXPANDING_PAIRS)
def test_exsdotp_uniform_bits_directed(src, dst, rounding):
    src, dst = nm.FORMATS[src], nm.FORMATS[dst]
    rng = np.random.default_rng(RNG_SEED + 1)
    ops = [random_bits(rng, src, 5000) for _ in range(4)] + [random_bits(rng, dst, 5000)]
    ours = nm.exsdotp(*ops, src=src, dst=dst, rounding=rounding)
    check_against_oracle(
        ours, ops, lambda a, b, c, d, e: oracle.exsdotp(a, b, c, d, e, src, dst, rounding))


def make_finite(bits, fmt):
    """Turn inf/NaN patterns into finite ones by clearing the exponent's lowest bit."""
    bits = np.asarray(bits).astype(np.uint64)
    biased = (bits >> np.uint64(fmt.man_bits)) & np.uint64((1 << fmt.exp_bits) - 1)
    flip = np.where(biased == (1 << fmt.exp_bits) - 1, np.uint64(1 << fmt.man_bits), 0)
    return (bits ^ flip).astype(fmt.dtype)


@pytest.mark.parametrize("rounding", nm.ROUNDING_MODES)
@pytest.mark.parametrize("src,dst", nm.EXPANDING_PAIRS)
def test_exsdotp_cancellation(src, dst, rounding):
    """e close to -(a*b + c*d), and c*d close to -a*b: the cases a windowed adder gets wrong."""
    src, dst = nm.FORMATS[src], nm.FORMATS[dst]
    rng = np.random.default_rng(RNG_SEED + 2)
    n = 2000
    a, b, c, d = (make_finite(random_bits(rng, src, n), src) for _ in range(4))
    flip = rng.random(n) < 0.4  # c = -a, d = b +- 1 ulp: the two products nearly cancel
    c = np.where(flip, a ^ (1 << (src.width - 1)), c).astype(src.dtype)
    d = np.where(flip, (b.astype(np.int64) + rng.integers(-1, 2, n)) % (1 << src.width), d)
    d = make_finite(d, src)
    e = []
    for xs in zip(a, b, c, d):
        va, vb, vc, vd = (oracle.value(int(x), src) for x in xs)
        va, vb, vc, vd = (v[0] if isinstance(v, tuple) else v for v in (va, vb, vc, vd))
        near = oracle.round_fraction(-(va * vb + vc * vd), dst, str(rng.choice(nm.ROUNDING_MODES)))
        e.append((near + int(rng.integers(-2, 3))) % (1 << dst.width))
    e = np.array(e, dtype=np.uint64).astype(dst.dtype)
    ours = nm.exsdotp(a, b, c, d, e, src=src, dst=dst, rounding=rounding)
    check_against_oracle(ours, [a, b, c, d, e],
                         lambda *xs: oracle.exsdotp(*xs, src, dst, rounding))


@pytest.mark.parametrize("rounding", nm.ROUNDING_MODES)
@pytest.mark.parametrize("src,dst", [("fp8", "fp16"), ("fp16", "fp32"), ("fp8alt", "fp16alt"),
                                     ("fp16", "fp16"), ("fp16alt", "fp16alt")])
def test_exfma_matches_oracle(src, dst, rounding):
    src, dst = nm.FORMATS[src], nm.FORMATS[dst]
    rng = np.random.default_rng(RNG_SEED + 3)
    ops = [random_bits(rng, src, 5000) for _ in range(2)] + [random_bits(rng, dst, 5000)]
    ours = nm.exfma(*ops, src=src, dst=dst, rounding=rounding)
    check_against_oracle(ours, ops, lambda a, b, c: oracle.exfma(a, b, c, src, dst, rounding))


@pytest.mark.parametrize("rounding", nm.ROUNDING_MODES)
@pytest.mark.parametrize("fmt", nm.VSUM_FORMATS)
def test_vsum_matches_oracle(fmt, rounding):
    fmt = nm.FORMATS[fmt]
    rng = np.random.default_rng(RNG_SEED + 5)
    ops = [random_bits(rng, fmt, 5000) for _ in range(3)]
    ours = nm.vsum(*ops, fmt=fmt, rounding=rounding)
    check_against_oracle(ours, ops, lambda a, c, e: oracle.vsum(a, c, e, fmt, fmt, rounding))


@pytest.mark.parametrize("src,dst", [("fp8", "fp16"), ("fp16alt", "fp32"), ("fp8alt", "fp32")])
def test_exvsum_matches_oracle(src, dst):
    src, dst = nm.FORMATS[src], nm.FORMATS[dst]
    rng = np.random.default_rng(RNG_SEED + 6)
    ops = [random_bits(rng, src, 20_000) for _ in range(2)] + [random_bits(rng, dst, 20_000)]
    ours = nm.exvsum(*ops, src=src, dst=dst)
    check_against_oracle(ours, ops, lambda a, c, e: oracle.vsum(a, c, e, src, dst))


def test_exvsum_is_exsdotp_with_unit_multipliers():
    rng = np.random.default_rng(RNG_SEED + 7)
    src, dst = nm.FORMATS["fp8alt"], nm.FORMATS["fp16"]
    a, c, e = random_bits(rng, src, 5000), random_bits(rng, src, 5000), random_bits(rng, dst, 5000)
    one = src.bias << src.man_bits
    np.testing.assert_array_equal(np.asarray(nm.exvsum(a, c, e, src=src, dst=dst)),
                                  np.asarray(nm.exsdotp(a, one, c, one, e, src=src, dst=dst)))


def test_cascade_rounds_twice():
    """1*1 + (-1)*1 + 2^-12 in fp8 -> fp16alt: fused keeps 2^-12; the cascade rounds 1 + 2^-12
    to 1 (8-bit precision) in its first ExFMA and returns +0."""
    src, dst = nm.FORMATS["fp8"], nm.FORMATS["fp16alt"]
    one, neg = src.bias << src.man_bits, 1 << (src.width - 1)
    e = (dst.bias - 12) << dst.man_bits
    assert int(nm.exsdotp(one, one, one | neg, one, e, src=src, dst=dst)) == e
    assert int(nm.exfma_cascade(one, one, one | neg, one, e, src=src, dst=dst)) == 0


# ------------------------------------------------------------------------------------------------
# Specials, shapes, dtypes


def test_specials_follow_hardware_convention():
    s, d = nm.FORMATS["fp8"], nm.FORMATS["fp16"]
    one, zero, inf, nan = s.bias << s.man_bits, 0, s.inf_bits, s.qnan_bits
    neg = 1 << (s.width - 1)
    call = lambda a, b, c, d_, e, r="rne": int(nm.exsdotp(a, b, c, d_, e, src=s, dst=d,
                                                         rounding=r))
    assert call(inf, zero, one, one, 0) == d.qnan_bits            # inf * 0
    assert call(inf, one, inf | neg, one, 0) == d.qnan_bits       # inf - inf
    assert call(nan | neg, one, one, one, 0) == d.qnan_bits       # NaN in -> canonical NaN
    assert call(inf, one, one, one, d.inf_bits | (1 << 15)) == d.qnan_bits
    assert call(inf, one | neg, one, one, 0) == d.inf_bits | (1 << 15)
    assert call(one, one, one | neg, one, 0) == 0                 # exact cancellation: +0
    assert call(one, one, one | neg, one, 0, "rdn") == 1 << 15    # ... -0 when rounding down
    assert call(zero | neg, one, zero | neg, one, 1 << 15) == 1 << 15  # all -0 -> -0
    assert call(zero | neg, one, zero, one, 1 << 15) == 0          # mixed zeros -> +0
    assert call(s.max_bits, s.max_bits, s.max_bits, s.max_bits, d.max_bits) == d.inf_bits
    assert call(s.max_bits, s.max_bits, s.max_bits, s.max_bits, 0, "rtz") == d.max_bits


def test_broadcasting_and_dtypes():
    s, d = nm.FORMATS["fp16"], nm.FORMATS["fp32"]
    a = np.full((3, 1), s.bias << s.man_bits, np.uint16)         # 1.0
    e = np.arange(4, dtype=np.uint32)                             # tiny subnormals
    out = nm.exsdotp(a, a, 0, 0, e, src=s, dst=d)
    assert out.shape == (3, 4) and out.dtype == np.uint32
    assert np.all(np.asarray(out) == d.bias << d.man_bits)       # 1 + tiny rounds to 1


def test_exsdotp_under_vmap_and_jit():
    import jax

    s, d = nm.FORMATS["fp8"], nm.FORMATS["fp16"]
    rng = np.random.default_rng(RNG_SEED + 8)
    ops = [random_bits(rng, s, 64) for _ in range(4)] + [random_bits(rng, d, 64)]
    f = jax.jit(jax.vmap(lambda *xs: nm.exsdotp(*xs, src="fp8", dst="fp16")))
    np.testing.assert_array_equal(np.asarray(f(*ops)), np.asarray(nm.exsdotp(*ops, src=s, dst=d)))


# ------------------------------------------------------------------------------------------------
# Property tests


def bit_patterns(fmt):
    """Uniform patterns, mixed with the special values every test must cover."""
    return st.one_of(st.integers(0, (1 << fmt.width) - 1),
                     st.sampled_from([int(x) for x in special_bits(fmt)]))


@pytest.mark.parametrize("src,dst", [("fp8", "fp16"), ("fp16", "fp32"), ("fp8alt", "fp16alt")])
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_exsdotp_property(src, dst, data):
    s, d = nm.FORMATS[src], nm.FORMATS[dst]
    a, b, c, dd = (data.draw(bit_patterns(s)) for _ in range(4))
    e = data.draw(bit_patterns(d))
    rounding = data.draw(st.sampled_from(nm.ROUNDING_MODES))
    ours = int(nm.exsdotp(a, b, c, dd, e, src=s, dst=d, rounding=rounding))
    assert ours == oracle.exsdotp(a, b, c, dd, e, s, d, rounding)


@settings(max_examples=200, deadline=None)
@given(a=st.integers(0, 0xFFFF), b=st.integers(0, 0xFFFF), c=st.integers(0, 0xFFFF),
       d=st.integers(0, 0xFFFF))
def test_exsdotp_commutes(a, b, c, d):
    """a*b + c*d + e == c*d + a*b + e == b*a + d*c + e, bit for bit (one exact rounding)."""
    e = 0x3F800000
    x = int(nm.exsdotp(a, b, c, d, e, src="fp16", dst="fp32"))
    assert x == int(nm.exsdotp(c, d, a, b, e, src="fp16", dst="fp32"))
    assert x == int(nm.exsdotp(b, a, d, c, e, src="fp16", dst="fp32"))
