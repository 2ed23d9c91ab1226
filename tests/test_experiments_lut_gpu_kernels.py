"""Experiments lut-fig4, lut-fig15, lut-fig18 on small configs: datasets, claims computed from
them (and flipping when the data flips), tables, config errors."""

import matplotlib
import numpy as np
import pytest

from experiments import ConfigError, get, make_config

matplotlib.use("Agg")
FIG4, FIG15, FIG18 = get("lut-fig4"), get("lut-fig15"), get("lut-fig18")


@pytest.fixture(scope="module")
def fig4():
    return FIG4.run(make_config(FIG4, {"batches": [1, 4096], "weight_bits": [4]}))


@pytest.fixture(scope="module")
def fig15():
    return FIG15.run(make_config(FIG15, {"scales": [1, 8], "activations": ["fp16"],
                                         "weight_bits": [1]}))


@pytest.fixture(scope="module")
def fig18():
    return FIG18.run(make_config(FIG18, {"weight_bits": [1, 4], "gemm_m": 1024}))


def test_fig4_dequant_wins_and_claims_follow_the_data(fig4):
    assert fig4.latency.dims == ("kernel", "weight_bits", "batch", "shape")
    assert list(fig4.n.values) == [10240, 8192, 57344, 8192]
    ratio = fig4.latency.sel(kernel="lut_gemm") / fig4.latency.sel(kernel="dequant")
    assert bool((ratio > 1).all())
    assert bool((ratio.isel(batch=-1) > 10 * ratio.isel(batch=0)).all())
    held = {c.claim: c for c in FIG4.claims(fig4)}
    assert held["dequant_faster_everywhere"].holds
    assert f"{float(ratio.isel(batch=-1).max()):.1f}x" in held["lut_degrades_at_large_batch"].ours
    flipped = fig4.copy(deep=True)
    flipped.latency.loc[dict(kernel="lut_gemm", batch=1)] = 0.0
    assert not {c.claim: c.holds for c in FIG4.claims(flipped)}["dequant_faster_everywhere"]
    assert "| M2 (ffn_up) | W_INT4 | 4096 |" in FIG4.table(fig4)
    FIG4.plot(fig4)


def test_fig15_lut_beats_mac_and_drm_helps(fig15):
    lut = fig15.lut_ms.sel(activation="fp16", weight_bits=1)
    ideal, modeled = lut.sel(bar="ideal"), lut.sel(bar="modeled")
    assert bool((modeled >= ideal * (1 - 1e-9)).all())
    assert float(ideal.sel(scale=8)) == pytest.approx(float(ideal.sel(scale=1)) / 8)
    cublas = float(fig15.mac_ms.sel(activation="fp16", mac_bar="cublas"))
    assert cublas >= float(fig15.mac_ms.sel(activation="fp16", mac_bar="ideal")) * (1 - 1e-9)
    claims = {c.claim: c for c in FIG15.claims(fig15)}
    fraction = 100 * float(fig15.lut_area.sel(activation="fp16", weight_bits=1, scale=1)
                           / fig15.mac_area.sel(activation="fp16"))
    assert f"{fraction:.1f} % of the MAC" in claims["int1_fp16_beats_mac"].ours
    assert claims["drm_relieves_registers"].holds == bool(
        (lut.sel(bar="drm") < modeled * 0.999).any())
    assert "| A_FP16 | LUT W_INT1 | 8x |" in FIG15.table(fig15)
    FIG15.plot(fig15)


def test_fig18_speedups_are_latency_ratios(fig18):
    lat = fig18.latency
    ratio = lat.sel(kernel="lut_gemm") / lat.sel(kernel="lut_tensor_core")
    claims = {c.claim: c for c in FIG18.claims(fig18)}
    assert claims["max_gemv_speedup"].ours.startswith(
        f"{float(ratio.sel(case='GEMV').max()):.2f}x")
    assert claims["max_gemm_speedup"].ours.startswith(
        f"{float(ratio.sel(case='GEMM').max()):.2f}x")
    gain = lat.sel(kernel="cublas") / lat.sel(kernel="lut_gemm")
    assert claims["lut_gemm_only_gemv"].holds == bool(
        (gain.sel(case="GEMV") > 1).all() and (gain.sel(case="GEMM") < 1).all())
    assert 0 < fig18.attrs["area_fraction"] < 1
    assert np.all(np.isfinite(lat.values))
    assert "| GEMM | W_INT4 |" in FIG18.table(fig18)
    FIG18.plot(fig18)


@pytest.mark.parametrize("module,params,match", [
    (FIG4, {"gpu": "a200"}, r"gpu: \['a200'\] not allowed; allowed values: a100"),
    (FIG4, {"batches": [0, 4]}, "batches: must be positive integers"),
    (FIG4, {"weight_bits": [8]}, r"weight_bits: \[8\] not allowed; allowed values: 1, 2"),
    (FIG15, {"scales": [3]}, r"scales: \[3\] not allowed; allowed values: 1, 2, 4, 8"),
    (FIG15, {"gpu": "h100"}, r"gpu: \['h100'\] not allowed; allowed values: a100, rtx3090"),
    (FIG18, {"model": "gpt-5"}, r"model: \['gpt-5'\] not allowed"),
    (FIG18, {"tile": 64}, "unknown key"),
])
def test_bad_config_is_one_clear_error(module, params, match):
    with pytest.raises(ConfigError, match=match):
        make_config(module, params)
