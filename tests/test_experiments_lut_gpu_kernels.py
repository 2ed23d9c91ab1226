"""Experiments lut-fig4, lut-fig15, lut-fig18 on small configs: datasets, claims computed from
them (and flipping when the data or the reference flips), tables, config errors; the reader of
the authors' Accel-Sim release."""

import dataclasses
import pathlib
import sys

import matplotlib
import numpy as np
import pytest
import xarray as xr

import lutcore.gpu as gpu
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
def fig15_int8():
    return FIG15.run(make_config(FIG15, {"scales": [1], "activations": ["int8"],
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
    # the caption names W_INT4 A_FP16: a W_INT1 point where LUT-GEMM wins is context only
    both = xr.concat([fig4, flipped.assign_coords(weight_bits=[1])], "weight_bits")
    claim = {c.claim: c for c in FIG4.claims(both)}["dequant_faster_everywhere"]
    assert claim.holds and "W_INT1 batch 1" in claim.deviation and "W_INT1: 4/8" in claim.ours
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


def with_reference(monkeypatch, module, key, **value):
    """``module``'s reference entry ``key`` with ``value`` merged into its value."""
    real = module.module.reference

    def patched(paper, experiment, name):
        ref = real(paper, experiment, name)
        return ref if name != key else dataclasses.replace(ref, value={**ref.value, **value})

    monkeypatch.setattr(module.module, "reference", patched)


def test_fig15_tiles_are_the_kernels_picks_and_the_tile_claim_counts_registers(
        fig15_int8, monkeypatch):
    spec = gpu.with_double_registers(gpu.with_lut_tensor_core(gpu.A100, 1, "int8"))
    picked = gpu.gemm_latency(spec, "lut_tensor_core", 2048, 27648, 5120, act="int8",
                              weight_bits=1)
    tile = fig15_int8.lut_tile.sel(activation="int8", weight_bits=1, scale=1, kernel_bar="drm")
    assert list(tile.values) == [float(picked.tile_m), float(picked.tile_n),
                                 float(picked.tile_k), float(picked.warp_m),
                                 float(picked.warp_n)]
    claims = {c.claim: c for c in FIG15.claims(fig15_int8)}
    occ = gpu.tile_occupancy(spec, "lut_tensor_core", (128, 512, 32), (64, 256), act="int8",
                             weight_bits=1)
    assert f"needs {float(occ.registers):.0f} registers per thread" in \
        claims["tile_shapes_int1_int8"].ours
    assert claims["tile_shapes_int1_int8"].holds == bool(occ.feasible)
    # a tile that fits flips the claim
    with_reference(monkeypatch, FIG15, "tile_shapes_int1_int8", thread_block=[32, 512, 32],
                   warp=[8, 256, 32])
    assert {c.claim: c for c in FIG15.claims(fig15_int8)}["tile_shapes_int1_int8"].holds


def test_fig15_shape_claim_finds_the_projection(fig15_int8, monkeypatch):
    claims = {c.claim: c for c in FIG15.claims(fig15_int8)}
    layer = {g.name: g for g in gpu.layer_gemms(gpu.llm_shape("llama2-13b"), 2048)}
    assert (layer["ffn_up"].n, layer["ffn_up"].k) == (2 * 13824, 5120)  # gate + up, hidden
    assert claims["gemm_shape"].holds and "ffn_up projection" in claims["gemm_shape"].ours
    with_reference(monkeypatch, FIG15, "gemm_shape", n=13824)
    assert not {c.claim: c for c in FIG15.claims(fig15_int8)}["gemm_shape"].holds
    with_reference(monkeypatch, FIG15, "gemm_shape", n=5120, k=13824)  # the down projection
    claim = {c.claim: c for c in FIG15.claims(fig15_int8)}["gemm_shape"]
    assert claim.holds and "ffn_down projection" in claim.ours


def test_accelsim_facts_are_read_from_the_release_files():
    """tools/tmac_accelsim_facts.py on excerpts shaped like the release's kernel and log."""
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
    import tmac_accelsim_facts as facts

    kernel = facts.kernel_facts(
        "using ElementAccumulator = cutlass::half_t;\n"
        "  using CutlassGemm = cutlass::gemm::device::Gemm<\n      cutlass::half_t,\n"
        "      cutlass::gemm::GemmShape<128, 512/8, 32>,\n"
        "      cutlass::gemm::GemmShape<64, 256/8, 32>, cutlass::gemm::GemmShape<16, 8, 16>,\n"
        "      cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, 2\n      >;\n")
    assert kernel == {"thread block tile": "GemmShape<128, 512/8, 32>",
                      "warp tile": "GemmShape<64, 256/8, 32>",
                      "instruction": "GemmShape<16, 8, 16>",
                      "ElementAccumulator": "cutlass::half_t", "stages": 2}
    log = facts.log_facts("-gpgpu_clock_domains 1410:1410:1410:1512.0 # Clock\n"
                          "gpu_sim_cycle = 804234\n"
                          "gpgpu_simulation_rate = 253 (cycle/sec)\n"
                          "gpgpu_silicon_slowdown = 5573122x\n")
    assert log == {"core clock (MHz)": 1410.0, "gpu_sim_cycle": 804234,
                   "simulated cycles per second": 253, "gpgpu_silicon_slowdown": 5573122}


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
    (FIG4, {"gpu": "a200"}, r"gpu: 'a200' not allowed; allowed values: a100"),
    (FIG4, {"batches": [0, 4]}, "batches: must be positive integers"),
    (FIG4, {"weight_bits": [8]}, r"weight_bits: \[8\] not allowed; allowed values: 1, 2"),
    (FIG15, {"scales": [3]}, r"scales: \[3\] not allowed; allowed values: 1, 2, 4, 8"),
    (FIG15, {"gpu": "a200"}, r"gpu: 'a200' not allowed; allowed values: a100, rtx3090, "),
    (FIG18, {"model": "gpt-5"}, r"model: 'gpt-5' not allowed"),
    (FIG18, {"tile": 64}, "unknown key"),
])
def test_bad_config_is_one_clear_error(module, params, match):
    with pytest.raises(ConfigError, match=match):
        make_config(module, params)


def test_fig15_runs_the_papers_gpu_and_admits_the_specs_whose_tensor_cores_take_its_formats(
        monkeypatch):
    assert FIG15.config().gpu == "a100"  # Sec. 4.1.2: the A100 is the baseline
    # a GPU registered at test time whose tensor cores take FP16 but not INT8
    fp16_only = dataclasses.replace(gpu.RTX3090, name="toy-fp16", tc_macs=tuple(
        (dtype, macs) for dtype, macs in gpu.RTX3090.tc_macs if dtype != "int8"))
    monkeypatch.setitem(gpu.GPUS, fp16_only.name, fp16_only)
    assert "toy-fp16" in gpu.gpus_with("fp16") and "toy-fp16" not in gpu.gpus_with("int8")
    assert make_config(FIG15, {"gpu": "toy-fp16", "activations": ["fp16"]}).gpu == "toy-fp16"
    allowed = ", ".join(gpu.gpus_with("fp16", "int8"))
    with pytest.raises(ConfigError, match=rf"gpu: 'toy-fp16' not allowed; allowed values: "
                                          rf"{allowed}$"):
        make_config(FIG15, {"gpu": "toy-fp16"})  # the default activations: fp16 and int8
