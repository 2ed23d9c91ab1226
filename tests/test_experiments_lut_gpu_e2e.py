"""The end-to-end GPU experiments (LUT Tensor Core Figs. 16-17, Tables 1 and 4) on small configs:
data equal independent lutcore calls, claims computed, datasets storable, config errors."""

import numpy as np
import pytest

import lutcore.gpu as gpu
from experiments import ConfigError, get, make_config
from experiments.lut_tensor_core._tc_area import sm_arrays

FIG16, FIG17, TABLE1, TABLE4 = (get(i) for i in ("lut-fig16", "lut-fig17", "lut-table1",
                                                  "lut-table4"))


def storable(ds, tmp_path):
    ds.to_netcdf(tmp_path / "out.nc", engine="h5netcdf")


def test_fig16_gemm_points_are_the_kernel_model_plus_host_overhead(tmp_path):
    ds = FIG16.run(make_config(FIG16, {"sets": ["gemm"]}))
    point = ds.sel(point="GEMM 1024x12288x12288")
    modeled = float(gpu.gemm_latency(gpu.A100, "cublas", 1024, 12288, 12288).seconds) + 2.1e-5
    assert float(point.modeled) == pytest.approx(modeled * 1e3, rel=1e-6)
    assert float(point.measured) == pytest.approx(1.1990)
    errors = (ds.modeled - ds.measured) / ds.measured * 100
    np.testing.assert_allclose(ds.error, errors)
    assert FIG16.mapes(ds)["GEMMs"] == pytest.approx(float(np.abs(errors).mean()))
    [claim] = FIG16.claims(ds)
    assert claim.claim == "simulator_mape" and "GEMMs" in claim.ours
    assert "| GEMM 64x12288x12288 |" in FIG16.table(ds)
    storable(ds, tmp_path)


def test_fig16_layer_total_is_the_sum_of_its_operators():
    ds = FIG16.run(make_config(FIG16, {"sets": ["gpt3_layer_decode"]}))
    operators = ds.sel(point=~ds.is_total)
    total = ds.sel(point="decode layer total")
    assert float(total.measured) == pytest.approx(float(operators.measured.sum()))
    assert float(total.modeled) == pytest.approx(float(operators.modeled.sum()))
    assert set(FIG16.mapes(ds)) == {"layer totals", "layer operators", "all points"}


def test_fig16_bad_config():
    with pytest.raises(ConfigError, match="sets"):
        make_config(FIG16, {"sets": ["gemv"]})
    with pytest.raises(ConfigError, match="source"):
        make_config(FIG16, {"source": "nowhere.yaml"})


def test_fig17_small_sweep(tmp_path):
    config = make_config(FIG17, {"gpus": ["a100"], "models": ["llama2-7b"], "weight_bits": [2],
                                 "lut_scales": [1, 8], "batches": [1, 64],
                                 "sequences": [128, 1]})
    ds = FIG17.run(config)
    assert list(ds.system.values) == ["fp16", "dequant", "lut-1x", "lut-8x", "lut-1x-drm",
                                      "lut-8x-drm"]
    pick = dict(gpu="a100", model="llama2-7b", weight_bits=2)
    spec = gpu.with_double_registers(gpu.with_lut_tensor_core(gpu.A100, 8))
    want = gpu.model_latency(spec, gpu.LLMS["llama2-7b"],
                             gpu.Deployment(kernel="lut_tensor_core", weight_bits=2),
                             gpu.workload(64, 1))
    assert float(ds.latency.sel(**pick, system="lut-8x-drm", workload="BS64 SEQ1")) == \
        pytest.approx(float(want) * 1e3, rel=1e-6)
    np.testing.assert_allclose(ds.speedup.sel(system="fp16"), 1.0)
    ratio = (ds.latency.sel(system="fp16") / ds.latency).transpose(*ds.speedup.dims)
    np.testing.assert_allclose(ds.speedup, ratio)
    for boundary in ("paper", "full"):
        lut = sm_arrays("lut_tensor_core", "fp16", "int2", [spec.lut_macs(1)],
                        boundary=boundary)[0]["sm_area"]
        mac = sm_arrays("mac", "fp16", "fp16", [gpu.A100.tensor_macs("fp16")],
                        boundary=boundary)[0]["sm_area"]
        assert float(ds.area_fraction.sel(gpu="a100", lut_scale=8, boundary=boundary)) == \
            pytest.approx(100 * lut / mac)
    int8 = sm_arrays("lut_tensor_core", "int8", "int2", [spec.lut_macs(1)], entry="int8")[0]
    assert float(ds.area_fraction_int8.sel(gpu="a100", lut_scale=8, boundary="paper")) == \
        pytest.approx(100 * int8["sm_area"] / sm_arrays(
            "mac", "fp16", "fp16", [gpu.A100.tensor_macs("fp16")])[0]["sm_area"])
    assert [c.claim for c in FIG17.claims(ds)] == ["max_speedup", "area_fraction_8x",
                                                   "area_fraction_activation"]
    assert "lut-8x-drm" in FIG17.table(ds)
    storable(ds, tmp_path)


def test_fig17_bad_config():
    with pytest.raises(ConfigError, match="lut_scales"):
        make_config(FIG17, {"lut_scales": [3]})
    with pytest.raises(ConfigError, match="batches"):
        make_config(FIG17, {"batches": [1, 2], "sequences": [1]})


def test_table1_two_rows(tmp_path):
    ds = TABLE1.run(make_config(TABLE1, {"rows": ["A100 FP16 TC", "A100-LUT-8X"]}))
    fp16 = gpu.model_latency(gpu.A100, gpu.LLMS["llama-3b"], gpu.Deployment(),
                             gpu.workload(1024, 1))
    assert float(ds.decode_ms.sel(row="A100 FP16 TC")) == pytest.approx(float(fp16) * 1e3,
                                                                      rel=1e-6)
    assert float(ds.peak.sel(row="A100 FP16 TC")) == pytest.approx(312, rel=0.01)
    lut = gpu.with_double_registers(gpu.with_lut_tensor_core(gpu.A100, 8, "int8"))
    assert float(ds.peak.sel(row="A100-LUT-8X")) == pytest.approx(lut.lut_peak(2) / 1e12)
    # the headline area: paper boundary, INT8 tables, 1x = 512 lookups; the 256-FMA 1x halves it
    area = sm_arrays("lut_tensor_core", "int8", "int2", [lut.lut_macs(1)], entry="int8")[0]
    assert float(ds.area_mm2.sel(row="A100-LUT-8X")) == pytest.approx(area["sm_area"])
    half = sm_arrays("lut_tensor_core", "int8", "int2", [lut.lut_macs(1) // 2], entry="int8",
                     boundary="full")[0]
    assert float(ds.tc_area.sel(row="A100-LUT-8X", boundary="full", sizing="256-fma")) == \
        pytest.approx(half["sm_area"])
    # the priced arrays' peak: 8 x 512 lookups x 2 ops / 2 weight bits x 4 TCs x 108 SMs
    assert float(ds.tc_peak.sel(row="A100-LUT-8X", boundary="paper", sizing="512-lookup")) == \
        pytest.approx(8 * 512 * 2 / 2 * 4 * 108 * 1.41e-3)
    claims = {c.claim: c for c in TABLE1.claims(ds)}
    assert set(claims) == {"max_speedup", "density_gain", "efficiency_gain", "area_fraction",
                           "rows", "lut_peak_sizing", "lut_area_sizing", "one_x_definition"}
    assert claims["one_x_definition"].verdict == "paper-inconsistent"
    # 33.65 / 2.98 = 11.29 (LUT-8X), 33.32 / 2.98 = 11.18 (LUT-4X): the text's 11.2x is LUT-4X's
    assert "A100-LUT-4X (11.181) row" in claims["efficiency_gain"].ours
    speedup = float(ds.decode_ms.sel(row="A100 FP16 TC") / ds.decode_ms.sel(row="A100-LUT-8X"))
    assert f"{speedup:.2f}x" in claims["max_speedup"].ours
    storable(ds, tmp_path)


def test_table1_bad_config():
    with pytest.raises(ConfigError, match="rows"):
        make_config(TABLE1, {"rows": ["B200 FP4 TC"]})


def test_table4_small_cases(tmp_path):
    ds = TABLE4.run(make_config(TABLE4, {"cases": [["llama2-7b", 1, 256],
                                                   ["llama2-7b", 64, 1]]}))
    np.testing.assert_allclose(ds.overhead.sel(precompute="none"), 0.0)
    assert np.all(ds.latency.sel(precompute="fused") <= ds.latency.sel(precompute="separate"))
    assert np.all(ds.overhead.sel(precompute="fused") >= 0)
    spec = gpu.with_lut_tensor_core(gpu.A100, 1)
    want = gpu.layer_latency(spec, gpu.LLMS["llama2-7b"],
                             gpu.Deployment(kernel="lut_tensor_core", weight_bits=2,
                                            precompute="separate"), gpu.workload(64, 1))
    assert float(ds.latency.sel(case="llama2-7b BS64 SEQ1", precompute="separate")) == \
        pytest.approx(float(want) * 1e3, rel=1e-6)
    assert TABLE4.average_overheads(ds, "fused").keys() == {"prefill", "decode"}
    assert [c.claim for c in TABLE4.claims(ds)] == ["separate_overhead", "fused_overhead"]
    storable(ds, tmp_path)


def test_table4_bad_config():
    with pytest.raises(ConfigError, match="cases"):
        make_config(TABLE4, {"cases": [["gpt-5", 1, 1]]})
    with pytest.raises(ConfigError, match="lut_scale"):
        make_config(TABLE4, {"lut_scale": 3})
