"""The calibrated constants of lutcore.gpu are what tools/calibrate_gpu.py fits on the
calibration sets (and nothing is fitted to a validation set)."""

import pathlib
import sys

import numpy as np
import pytest

import lutcore.gpu as gpu
from experiments.lut_tensor_core import _measured
from lutcore.gpu import _specs

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
import calibrate_gpu  # noqa: E402


@pytest.mark.parametrize("name", ["a100", "a100-pcie", "h100"])
def test_memory_and_all_reduce_constants_are_the_fits(name):
    spec, fitted = gpu.gpu_spec(name), calibrate_gpu.constants()[name]
    for field, value in fitted.items():
        assert getattr(spec, field) == pytest.approx(value, rel=5e-3), field


def test_weight_only_plugin_runs_at_the_best_shape_rate():
    """TensorRT-LLM's weight-only plugin takes each GPU's best-shape 16-bit fraction (the H200
    the H100's), and at it the A100 calibration GEMMs at M >= 1024 come out within 3 % (a check:
    nothing is fitted on them); at the A100's own 16-bit fraction they were 3-4 % slow."""
    assert gpu.KERNEL_LIBRARY["trtllm_weight_only"].rates == "best_shape"
    for name, fraction in (("a100", _specs.BEST_16_A100), ("h100", _specs.BEST_16_H100),
                           ("h200", _specs.BEST_16_H100)):
        for dtype in ("fp16", "bf16"):
            assert gpu.gpu_spec(name).efficiency(dtype, "best_shape") == fraction
    assert abs(calibrate_gpu.weight_only_bias()) < 0.03


def test_tensor_fractions_are_the_fits():
    """At the calibrated fractions the tile model is unbiased on the A100 SXM4 modules' 16-bit
    GEMMs and on the compute-bound H100 Vidur GEMMs, and reproduces the FP8 MAMF rows; the
    H100's FP8 and the A100's INT8 fractions leave TensorRT-LLM's compute-bound FP8 and INT8
    GEMMs, TensorRT-LLM's 16-bit rates its compute-bound BF16 GEMMs (aiconfigurator,
    calibration) unbiased (one model evaluation each instead of the tool's bisection)."""
    assert calibrate_gpu.sxm_errors(_specs.FP16_A100).mean() == pytest.approx(0, abs=2e-3)
    assert calibrate_gpu.vidur_bias("h100", _specs.FP16_H100) == pytest.approx(0, abs=2e-3)
    rows = {(e["device"], e["act"]): e
            for e in calibrate_gpu._load("mamf_stas00.yaml")["sets"]}
    for key, fraction in ((("h100", "fp8"), _specs.MAMF_FP8_H100),
                          (("h200", "fp8"), _specs.MAMF_FP8_H200),
                          (("a100", "bf16"), _specs.BEST_16_A100),
                          (("h100", "bf16"), _specs.BEST_16_H100)):
        assert calibrate_gpu.mamf_error(rows[key], fraction) == pytest.approx(0, abs=2e-3), key
    for key, fraction in ((("h100", "fp8"), _specs.FP8_H100), (("a100", "int8"), _specs.INT8_A100),
                          (("h100", "bf16"), _specs.TRTLLM_16_H100),
                          (("a100", "bf16"), _specs.TRTLLM_16_A100)):
        assert gpu.gpu_spec(key[0]).efficiency(key[1], calibrate_gpu.LIBRARY[key]) == fraction
        errors = calibrate_gpu.application_errors(*key, fraction)
        assert errors.mean() == pytest.approx(0, abs=2e-3), key
        assert len(errors) == 32  # 8 shapes x M 1024-8192


def test_the_trt_profiler_cost_is_the_fit():
    """TensorRT's per-layer profiler cost (``_library.TIMING_OVERHEAD``) is the intercept the
    tool fits on the A100 calibration rows it timed (M <= 4), and those rows are the TensorRT
    plugins' (24 sets: 8 shapes x SmoothQuant, INT8 and INT4 weight-only)."""
    from lutcore.gpu import _library

    assert _library.TIMING_OVERHEAD["trt_layer_profiler"] == pytest.approx(
        calibrate_gpu.profiler_overhead(), rel=1e-3)
    timed = [e for e in calibrate_gpu._load("aiconfigurator_a100_sxm.yaml")["sets"]
             if e.get("timing") == "trt_layer_profiler"]
    assert len(timed) == 24 and {e["kernel"] for e in timed} == {"trtllm_smoothquant",
                                                               "trtllm_weight_only"}


def test_the_wgmma_chain_is_the_fit():
    """C8: the H100's interval leaves its TensorRT-LLM weight-only rows above the GEMV unbiased
    (1 % either side moves the mean error across 0); the H200 takes it (same GH100 SM), the
    GPUs without wgmma have none."""
    chain = gpu.H100.wgmma_chain
    assert abs(np.mean(calibrate_gpu.weight_only_errors(chain))) < 2e-3
    assert (np.mean(calibrate_gpu.weight_only_errors(0.99 * chain)) < 0
            < np.mean(calibrate_gpu.weight_only_errors(1.01 * chain)))
    assert gpu.H200.wgmma_chain == chain and gpu.A100.wgmma_chain == 0.0


def test_the_quantize_round_is_the_fit():
    """The FP8 quantize step's seconds per round of absolute-max blocks
    (``_library.QUANTIZE_ROUND``) is what the tool fits on the H100 FP8 rows at M <= 64."""
    from lutcore.gpu import _library

    assert _library.QUANTIZE_ROUND == pytest.approx(calibrate_gpu.quantize_round(), rel=1e-3)


def test_the_a100_fraction_rests_on_sxm4_modules_only():
    """Every row behind the A100's 16-bit fraction is a 16-bit GEMM of a calibration set on the
    SXM4 module (device a100): the MAMF row, the four thonking rows, the four torchperf rows."""
    assert len(calibrate_gpu.sxm_errors(_specs.FP16_A100)) == 9  # not the PCIe, H100 or FP8 rows
    for name in calibrate_gpu.SXM_SETS:
        assert calibrate_gpu._load(name)["role"] == "calibration"  # _load refuses validation


def test_the_pcie_clock_is_the_fit():
    """With the A100's fraction, the A100 PCIe's sustained clock leaves the compute-bound Vidur
    GEMMs (PCIe cards) unbiased; it lies below the boost clock, and the PCIe card's only other
    differences from the SXM module are datasheet numbers."""
    assert calibrate_gpu.vidur_bias("a100-pcie", _specs.FP16_A100) == pytest.approx(0, abs=2e-3)
    assert gpu.A100_PCIE.sustained_clock_ghz == _specs.A100_PCIE_CLOCK < gpu.A100.clock_ghz
    differ = {f for f in ("dram_bandwidth", "sustained_clock_ghz", "tensor_efficiency",
                          "gemv_dram_efficiency", "kernel_latency", "nvlink_bandwidth")
              if getattr(gpu.A100, f) != getattr(gpu.A100_PCIE, f)}
    assert differ == {"dram_bandwidth", "sustained_clock_ghz", "gemv_dram_efficiency"}


def test_the_sxm4_gemv_rate_is_its_own_fit():
    """The A100 SXM4 module's GEMM DRAM fraction leaves its own GEMV-class calibration rows
    (aiconfigurator BF16, M <= 16: 8 shapes x M 1, 2, 4, 8, 16) unbiased; the PCIe card keeps
    Vidur's, and the fit is not the card's (the two are 7 % apart)."""
    errors = calibrate_gpu.gemv_errors("a100", gpu.A100.gemv_dram_efficiency)
    assert len(errors) == 40 and errors.mean() == pytest.approx(0, abs=2e-3)
    assert gpu.A100_PCIE.gemv_dram_efficiency == _specs.GEMV_A100_PCIE
    assert calibrate_gpu.gemv_errors("a100", _specs.GEMV_A100_PCIE).mean() < -0.05


def test_input_rates_are_the_fits():
    assert calibrate_gpu.input_rates() == pytest.approx(_specs.INPUT_RATE, abs=1e-4)


def test_the_tool_reads_calibration_sets_only():
    roles = {name: _measured.load(name)["role"] for name in _measured.files()}
    for name in ("vidur_a100.yaml", "vidur_h100.yaml", "vidur_allreduce.yaml",
                 "mamf_stas00.yaml", "thonking_inputs_a100.yaml", "torchperf_sxm.yaml"):
        assert roles[name] == "calibration"
    assert {"llmcompass_a100.yaml", "trtllm_first_token.yaml"} <= {
        n for n, r in roles.items() if r == "validation"}
    with pytest.raises(ValueError, match="not a calibration set"):
        calibrate_gpu._load("llmcompass_a100.yaml")


def test_relative_least_squares_recovers_a_line():
    x = [1.0, 2.0, 4.0, 8.0]
    assert calibrate_gpu.relative_line(x, [3.0 + 0.5 * v for v in x]) == pytest.approx(
        (3.0, 0.5))


def test_torchperf_rows_are_read_by_their_header():
    """tools/transcribe_torchperf.py reads database.md by column name (the file gained a tf32
    column after the SXM4 rows were added) and refuses a snapshot without its rows."""
    import transcribe_torchperf

    head = "| device | fp32 | tf32 | fp16 | bf16 | note |\n| --- | --- | --- | --- | --- | --- |\n"
    rows = ("| NVIDIA A100 SXM4 80GB | 19.18 |  | 258.74 | 264.53 | docker |\n"
            "| NVIDIA A100 40GB | 18.11 |  | 247.63 | 246.33 | docker |\n"
            "| NVIDIA A800 SXM4 80GB | 19.08 |  | 266.04 | 266.48 | docker |\n")
    assert transcribe_torchperf.rows(head + rows) == {
        "NVIDIA A100 SXM4 80GB": {"fp16": 258.74, "bf16": 264.53},
        "NVIDIA A800 SXM4 80GB": {"fp16": 266.04, "bf16": 266.48}}
    with pytest.raises(ValueError, match="A800 SXM4"):
        transcribe_torchperf.rows(head + rows.splitlines(keepends=True)[0])
    stored = {e["name"]: e["points"][0][0]
              for e in calibrate_gpu._load("torchperf_sxm.yaml")["sets"]}
    assert stored["A100 SXM4 80GB BF16, best of five squares"] == 264.53


def test_deepgemm_rows_are_read_from_the_dense_table():
    """tools/transcribe_deepgemm.py reads the dense table by its header and stops at its end
    (the grouped tables follow); the stored set is DeepGEMM's kernel as the model prices it."""
    import transcribe_deepgemm

    readme = ("### Normal GEMMs for dense models\n\n"
              "|  M   |   N   |   K   | Computation | Memory bandwidth | Speedup |\n"
              "|:----:|:-----:|:-----:|:-----------:|:----------------:|:-------:|\n"
              "|  64  | 2112  | 7168  | 206 TFLOPS  |    1688 GB/s     |  2.7x   |\n"
              "| 4096 | 7168  | 16384 | 1520 TFLOPS |     384 GB/s     |  1.4x   |\n\n"
              "### Grouped GEMMs for MoE models (contiguous layout)\n\n"
              "| #Groups | M per group |  N   |  K   | Computation |\n|:-:|:-:|:-:|:-:|:-:|\n"
              "|    4    |    8192     | 4096 | 7168 | 1346 TFLOPS |\n")
    assert transcribe_deepgemm.rows(readme) == [[64, 2112, 7168, 206.0],
                                                [4096, 7168, 16384, 1520.0]]
    with pytest.raises(ValueError, match="Normal GEMMs"):
        transcribe_deepgemm.rows(readme.split("### Grouped")[1])
    data = calibrate_gpu._load("deepgemm_h800.yaml")
    (entry,) = data["sets"]
    assert (data["device"], entry["act"], entry["persistent"], entry["serial_epilogue"]) == (
        "h100", "fp8", False, True)
    assert len(entry["points"]) == 18 and [4096, 7168, 16384, 1520.0] in entry["points"]
    _, _, measured, modeled = _measured.gemm_points(data, entry)
    m, n, k, _ = (np.array(c, float) for c in zip(*entry["points"]))
    expected = gpu.gemm_latency(gpu.H100, "cublas", m, n, k, act="fp8", weight_bits=8,
                                persistent=False, serial_epilogue=True).seconds
    np.testing.assert_allclose(modeled, expected)


@pytest.mark.parametrize("name,role,device", [
    ("aiconfigurator_a100_sxm.yaml", "calibration", "a100"),
    ("aiconfigurator_h100_sxm.yaml", "calibration", "h100"),
    ("aiconfigurator_a100_sxm_vllm.yaml", "calibration", "a100"),
    ("aiconfigurator_a100_sxm_sglang.yaml", "calibration", "a100"),
    ("aiconfigurator_h100_sxm_vllm.yaml", "calibration", "h100"),
    ("aiconfigurator_h100_sxm_sglang.yaml", "calibration", "h100"),
    ("llmservingsim_rtx3090.yaml", "calibration", "rtx3090"),
    ("aiconfigurator_h200_sxm.yaml", "validation", "h200"),
    ("aiconfigurator_h100_sxm_trtllm_rc3.yaml", "calibration", "h100"),
    ("aiconfigurator_h200_sxm_trtllm_rc3.yaml", "validation", "h200"),
    ("llmservingsim_h100.yaml", "validation", "h100")])
def test_issue_30_sets_keep_their_roles(name, role, device):
    """The roles issue 30 fixed before any comparison: aiconfigurator's A100 / H100 SXM and
    LLMServingSim's RTX 3090 tables may calibrate; the H200 tables and LLMServingSim's H100
    ones only validate (and the tool refuses to read them)."""
    data = _measured.load(name)
    assert (data["role"], data["device"]) == (role, device)
    if role == "validation":
        with pytest.raises(ValueError, match="not a calibration set"):
            calibrate_gpu._load(name)


def test_trtllm_16_bit_rate_is_the_library_s_not_the_gpu_s():
    """TensorRT-LLM's BF16 Linear (``trtllm_gemm``) runs at its release's own 16-bit rate, the
    other kernels at the GPU's (the H100's from Vidur, 13.6 % apart); both 16-bit formats, and
    the H200 takes the H100's; on the shapes both H100 calibration sets time at M >= 1024 the
    aiconfigurator rows are the faster by a median of more than 5 %."""
    for spec, rate in ((gpu.H100, _specs.TRTLLM_16_H100), (gpu.H200, _specs.TRTLLM_16_H100),
                       (gpu.A100, _specs.TRTLLM_16_A100)):
        for dtype in ("fp16", "bf16"):
            assert spec.efficiency(dtype, "tensorrt_llm") == rate
            assert spec.efficiency(dtype) == spec.tensor_efficiency != rate
    fast = gpu.gemm_latency(gpu.H100, "trtllm_gemm", 4096, 4096, 4096, act="bf16")
    slow = gpu.gemm_latency(gpu.H100, "cublas", 4096, 4096, 4096, act="bf16")
    assert float(slow.compute) / float(fast.compute) == pytest.approx(
        _specs.TRTLLM_16_H100 / _specs.FP16_H100, rel=1e-6)
    vidur = {}
    for entry in calibrate_gpu._load("vidur_h100.yaml")["sets"]:
        for point in entry["points"]:
            row = dict(zip(entry["columns"], point))
            for op, (n, k) in calibrate_gpu._projections(entry["model"]).items():
                vidur.setdefault((row["tokens"], n, k), []).append(row[op])
    ratios = [np.median(vidur[m, n, k]) / (ms * 1e-3)
              for entry in calibrate_gpu._load("aiconfigurator_h100_sxm.yaml")["sets"]
              if entry["act"] == "bf16" for m, n, k, ms in entry["points"]
              if m >= 1024 and (m, n, k) in vidur]
    assert len(ratios) >= 8 and np.median(ratios) > 1.05
