"""lutcore.gpu's tensor-core accumulator format (``accumulate``): the GeForce GA102 runs FP16
MMAs with FP16 accumulators at twice its FP32-accumulate rate (GA102 whitepaper Table 9), the
data-center parts at one rate; FP16 accumulators take half the registers; bad values raise."""

import numpy as np
import pytest

import lutcore.gpu as gpu


@pytest.mark.parametrize("spec,fp32,fp16", [
    (gpu.RTX3090, 71e12, 142e12),  # GA102 whitepaper Table 9
    (gpu.A100, 312e12, 312e12),  # A100 whitepaper Table 3: either accumulator
    (gpu.H100, 989.4e12, 989.4e12)])  # H100 whitepaper Table 2, S5
def test_fp16_tensor_peaks_by_accumulator_match_the_datasheets(spec, fp32, fp16):
    assert spec.tensor_peak("fp16") == pytest.approx(fp32, rel=0.005)
    assert spec.tensor_peak("fp16", "fp16") == pytest.approx(fp16, rel=0.005)


@pytest.mark.parametrize("spec,ratio", [(gpu.RTX3090, 2.0), (gpu.A100, 1.0), (gpu.H200, 1.0)])
def test_the_hardware_rate_and_accumulator_size_follow_the_accumulator(spec, ratio):
    fp32 = gpu.hardware(spec, "cublas", "fp16", 16)
    fp16 = gpu.hardware(spec, "cublas", "fp16", 16, accumulate="fp16")
    assert float(fp16.macs) == ratio * float(fp32.macs)
    assert (float(fp32.accumulator_bytes), float(fp16.accumulator_bytes)) == (4.0, 2.0)
    assert float(fp16.macs) == spec.tensor_macs("fp16", "fp16") * spec.efficiency("fp16")


def test_a_compute_bound_gemm_runs_twice_as_fast_on_the_rtx3090_only():
    """8192^3 FP16: the tensor pipe of the same chosen tile takes half the time with FP16
    accumulators on the RTX 3090, the same on the A100."""
    shape = (8192, 8192, 8192)
    rtx = [gpu.gemm_latency(gpu.RTX3090, "cublas", *shape, accumulate=a) for a in ("fp32", "fp16")]
    assert (float(rtx[0].tile_m), float(rtx[0].tile_n)) == (float(rtx[1].tile_m),
                                                            float(rtx[1].tile_n))
    assert float(rtx[1].compute) == pytest.approx(float(rtx[0].compute) / 2, rel=1e-12)
    assert 1.8 < float(rtx[0].seconds) / float(rtx[1].seconds) <= 2.0
    a100 = [gpu.gemm_latency(gpu.A100, "cublas", *shape, accumulate=a) for a in ("fp32", "fp16")]
    assert float(a100[1].seconds) == float(a100[0].seconds)
    assert float(a100[1].compute) == float(a100[0].compute)


def test_fp16_accumulators_take_half_the_registers():
    """A 128 x 128 x 32 CTA of 64 x 64 MMA warp tiles: 64 x 64 accumulators over 32 threads,
    4 B each = 128 registers (FP32), 2 B = 64 (FP16); double-buffered k16 FP16 fragments
    2 x 16 x (64 + 64) x 2 B / 4 B / 32 = 64, plus 32 base."""
    for accumulate, accumulators in (("fp32", 128), ("fp16", 64)):
        occ = gpu.tile_occupancy(gpu.RTX3090, "cublas", (128, 128, 32), (64, 64),
                                 accumulate=accumulate)
        assert (float(occ.accumulators), float(occ.registers)) == (
            accumulators, accumulators + 64 + 32)


@pytest.mark.parametrize("kwargs,match", [
    ({"act": "int8", "weight_bits": 8, "accumulate": "fp16"},
     "accumulate 'fp16' needs act 'fp16', got act 'int8'"),
    ({"act": "bf16", "accumulate": "fp16"}, "accumulate 'fp16' needs act 'fp16'"),
    ({"accumulate": "fp8"}, "accumulate 'fp8' unknown; allowed values: fp32, fp16"),
])
def test_bad_accumulators_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        gpu.gemm_latency(gpu.RTX3090, "cublas", 1, 8, 8, **kwargs)
    with pytest.raises(ValueError, match=match):
        gpu.hardware(gpu.RTX3090, "cublas", kwargs.get("act", "fp16"), 16,
                     accumulate=kwargs["accumulate"])


def test_fp16_accumulate_needs_a_tensor_core_kernel():
    allowed = ", ".join(gpu.TENSOR_CORE_KERNELS)
    with pytest.raises(ValueError, match=f"allowed kernels: {allowed}, got 'lut_gemm'"):
        gpu.gemm_latency(gpu.RTX3090, "lut_gemm", 1, 8, 8, weight_bits=2, accumulate="fp16")
    mixed = [gpu.gemm_latency(gpu.RTX3090, "dequant", 4096, 4096, 4096, weight_bits=4,
                              accumulate=a).compute for a in ("fp32", "fp16")]
    assert float(mixed[1]) < float(mixed[0])
    assert np.isfinite(float(mixed[1]))
