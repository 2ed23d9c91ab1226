"""mfnn-table2 and mfnn-memory on small configs: data against lutcore.snitch, claims, config
errors."""

from fractions import Fraction

import numpy as np
import pytest

import lutcore.snitch as snitch
from experiments import ConfigError, get, make_config

TABLE2 = get("mfnn-table2")
MEMORY = get("mfnn-memory")


@pytest.fixture(scope="module")
def cycles_only():
    return TABLE2.run(make_config(TABLE2, {"sizes": ["64x64", "128x128", "128x256"],
                                           "functional": False}))


def test_table2_cells_are_the_cycle_model(cycles_only):
    cell = cycles_only.sel(kernel="fp8_fp16_exsdotp", size="128x256")
    p = snitch.kernel_profile("fp8_fp16_exsdotp", 128, 128, 256)
    assert int(cell["cycles"]) == p.cycles and int(cell["fits"]) == 1
    assert float(cell["flop_per_cycle"]) == pytest.approx(p.flop / p.cycles)
    assert int(cycles_only["fits"].sel(kernel="fp64_fma", size="128x128")) == 0
    assert np.isnan(float(cycles_only["cycles"].sel(kernel="fp64_fma", size="128x128")))
    assert "does not fit" in TABLE2.table(cycles_only)


def test_table2_claims_are_computed(cycles_only):
    claims = {c.claim: c for c in TABLE2.claims(cycles_only)}
    assert set(claims) == {"peak_flop_per_cycle_per_core", "peak_vs_fma", "fpu_utilization",
                           "exsdotp_fewer_cycles_than_fp16_fma",
                           "halving_format_speedup_worst_case",
                           "fp8_fp16_128x256_flop_per_cycle_ratios",
                           "overheads_shrink_with_size", "fp64_no_simd_overheads"}
    assert claims["peak_flop_per_cycle_per_core"].holds
    # the halving speed-ups grow toward 2x with the size; FP64 runs closest to its peak
    assert claims["overheads_shrink_with_size"].holds and claims["fp64_no_simd_overheads"].holds
    fp64 = (cycles_only["flop_per_cycle_per_core"].sel(kernel="fp64_fma", size="64x64")
            / cycles_only["peak_flop_per_cycle_per_core"].sel(kernel="fp64_fma"))
    assert f"64x64: fp64_fma {float(fp64):.0%}" in claims["fp64_no_simd_overheads"].ours
    assert float(fp64) > 0.9
    assert "fp8_fp16_exsdotp: 16 FLOP/cycle/core = 2x fp16_simd_fma (8), 1x fp8_simd_fma (16)" \
        in claims["peak_vs_fma"].ours
    use = (cycles_only["flop_per_cycle_per_core"].sel(kernel="fp64_fma", size="64x64")
           / cycles_only["peak_flop_per_cycle_per_core"].sel(kernel="fp64_fma"))
    assert f"fp64_fma {float(use):.1%}" in claims["fpu_utilization"].ours
    ratio = (cycles_only["flop_per_cycle"].sel(kernel="fp8_fp16_exsdotp", size="128x256")
             / cycles_only["flop_per_cycle"].sel(kernel="fp64_fma", size="64x64"))
    assert f"{float(ratio):.2f}x" in claims["fp8_fp16_128x256_flop_per_cycle_ratios"].ours
    assert "7.23" in claims["fp8_fp16_128x256_flop_per_cycle_ratios"].paper


def test_table2_functional_errors_order_the_formats():
    ds = TABLE2.run(make_config(TABLE2, {"sizes": ["32x32"], "kernels": [
        "fp16_fp32_exsdotp", "fp16_simd_fma", "fp8_fp16_exsdotp"]}))
    err = ds["error_reduced"].sel(size="32x32")
    # FP32 accumulation (ExSdotp) beats FP16 accumulation by orders of magnitude
    assert err.sel(kernel="fp16_fp32_exsdotp") < err.sel(kernel="fp16_simd_fma") / 100
    # the stored C adds the rounding to the input format: FP8's 2 fraction bits dominate
    stored = ds["error_c"].sel(size="32x32")
    assert stored.sel(kernel="fp8_fp16_exsdotp") > 50 * err.sel(kernel="fp8_fp16_exsdotp")
    assert (stored >= err).all()


def test_table2_reference_is_the_exact_product_rounded():
    rng = np.random.default_rng(3)
    a, bt = rng.standard_normal((3, 40)), rng.standard_normal((4, 40))
    a[0, :2], bt[0, :2] = [1e16, -1e16], [1.0, 1.0]  # cancellation: naive float64 sums lose it
    exact = [[float(sum(Fraction(x) * Fraction(y) for x, y in zip(row, col))) for col in bt]
             for row in a]
    np.testing.assert_array_equal(TABLE2.module._reference_product(a, bt), exact)


def test_memory_fit_limits_come_from_footprints():
    ds = MEMORY.run(make_config(MEMORY, {}))
    assert str(ds["largest_fitting"].sel(kernel="fp64_fma").item()) == "64x64"
    assert str(ds["largest_fitting"].sel(kernel="fp8_fp16_exsdotp").item()) == "128x256"
    assert int(ds["max_k"].sel(kernel="fp64_fma", rows=64)) == 96   # (16384 - 4096) / 128
    (claim,) = MEMORY.claims(ds)
    assert claim.holds and "fp16_simd_fma: 128x128" in claim.ours
    small = MEMORY.run(make_config(MEMORY, {"capacity_kib": 64}))
    assert str(small["largest_fitting"].sel(kernel="fp64_fma").item()) == "32x64"
    assert not MEMORY.claims(small)[0].holds


def test_bad_configs_name_the_allowed_values():
    with pytest.raises(ConfigError, match="allowed values: fp64_fma"):
        make_config(TABLE2, {"kernels": ["fp4_fma"]})
    with pytest.raises(ConfigError, match="multiple of the 8 cores"):
        make_config(TABLE2, {"sizes": ["100x32"]})
    with pytest.raises(ConfigError, match="RxK"):
        make_config(MEMORY, {"sizes": ["128"]})
    with pytest.raises(ConfigError, match="capacity_kib"):
        make_config(MEMORY, {"capacity_kib": 0})
