"""The kernel libraries as records (lutcore.gpu._library): one Kernel per library kernel with
its structure and source, Quant and Setup validated once, and gemm_latency taking the records
or the loose keywords of earlier versions with the same result."""

import dataclasses

import numpy as np
import pytest

import lutcore.gpu as gpu
from lutcore.gpu import _tiles


def test_every_kernel_is_a_record_with_its_source():
    assert set(gpu.KERNEL_LIBRARY) == set(gpu.KERNELS)
    for name, record in gpu.KERNEL_LIBRARY.items():
        assert record.name == name and record.source and record.library
        assert gpu.kernel_record(record) is record
    # the derived families follow the records' fields
    assert set(gpu.DENSE_KERNELS) == {"cublas", "cublas_quantize", "trtllm_gemm",
                                       "trtllm_smoothquant"}
    assert "lut_tensor_core" not in gpu.TENSOR_CORE_KERNELS
    assert "lut_gemm" not in gpu.DEQUANT_KERNELS and "marlin" in gpu.DEQUANT_KERNELS


@pytest.mark.parametrize("loose,record", [
    ({"weight_bits": 4, "group_size": 0}, {"quant": gpu.Quant(weight_bits=4, group_size=0)}),
    ({"weight_bits": 8, "group_size": 32, "zero_points": True, "inputs": "integer"},
     {"quant": gpu.Quant(weight_bits=8, group_size=32, zero_points=True),
      "setup": gpu.Setup(inputs="integer")})])
def test_records_and_loose_keywords_agree(loose, record):
    m = np.array([1.0, 64.0, 4096.0])
    a = gpu.gemm_latency(gpu.A100, "fpa_intb", m, 4096, 4096, **loose).seconds
    b = gpu.gemm_latency(gpu.A100, gpu.KERNEL_LIBRARY["fpa_intb"], m, 4096, 4096,
                         **record).seconds
    np.testing.assert_array_equal(a, b)


def test_marlin_group_scales_follow_the_quant():
    """Marlin's conversions: 5/8 INT32 and 1 FP16 lane-op per weight, plus 1 with group scales
    (marlin_cuda_kernel.cu), read off the record for the Quant."""
    marlin = gpu.KERNEL_LIBRARY["marlin"]
    assert marlin.work_for(gpu.Quant(weight_bits=4, group_size=0)).dequant_ops == (5 / 8, 1.0)
    assert marlin.work_for(gpu.Quant(weight_bits=4, group_size=128)).dequant_ops == (5 / 8, 2.0)


@pytest.mark.parametrize("make,match", [
    (lambda: gpu.Quant(weight_bits=5), "weight_bits 5 unknown"),
    (lambda: gpu.Quant(group_size=-1),
     "group_size: -1 is not allowed; allowed values: integers >= 0"),
    (lambda: gpu.Quant(table_bits=12), "table_bits 12 unknown"),
    (lambda: gpu.Setup(inputs="ones"), "inputs 'ones' unknown"),
    (lambda: gpu.Setup(precompute="inline"), "precompute 'inline' unknown"),
    (lambda: gpu.Setup(output="int16"), "output 'int16' unknown"),
    (lambda: dataclasses.replace(gpu.KERNEL_LIBRARY["marlin"], unit="fpga"), "unit 'fpga'"),
    (lambda: gpu.gemm_latency(gpu.A100, "cublas", 8, 8, 8, stages=3), "unknown keyword"),
    (lambda: gpu.gemm_latency(gpu.A100, "cublas", 8, 8, 8, quant=gpu.Quant(), weight_bits=16),
     "not both"),
    (lambda: gpu.gemm_latency(gpu.A100, "marlin", 8, 8, 8, weight_bits=8),
     "marlin weight_bits must be one of 4"),
    (lambda: gpu.gemm_latency(gpu.A100, "nvfp4", 8, 8, 8), "unknown kernel 'nvfp4'")])
def test_bad_records_name_the_field(make, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make()


def test_a_library_runs_at_its_own_rate():
    """TensorRT-LLM's kernels (rates "tensorrt_llm") take the H100's FP8 rate calibrated on
    its own GEMMs; cuBLAS at other libraries' rate the MAMF fraction; where a library has no
    rate of its own (RTX 3090 FP16) both are the GPU's."""
    m = np.array([8192.0])
    h100 = {k: gpu.hardware(gpu.H100, k, "fp8", 8).macs for k in ("cublas", "trtllm_gemm")}
    assert float(h100["trtllm_gemm"] / h100["cublas"]) == pytest.approx(
        gpu.H100.efficiency("fp8", "tensorrt_llm") / gpu.H100.efficiency("fp8"))
    assert gpu.H100.efficiency("fp8", "tensorrt_llm") < gpu.H100.efficiency("fp8")
    rtx = [gpu.gemm_latency(gpu.RTX3090, k, m, 4096, 4096).seconds
           for k in ("cublas", "trtllm_gemm")]
    np.testing.assert_array_equal(*rtx)



def test_the_epilogue_reads_and_writes_the_output_format_of_the_setup():
    """The output's bytes are part of what a kernel moves: by hand, 1 x 4096 outputs at the
    default (FP16 written once) are 8192 bytes; INT32 with beta != 0 (C read, D written) 32768;
    INT8 written once 4096. The tile model's traffic counts exactly those beyond A and W, and a
    DRAM-bound INT8 GEMM (M = 4096, K = 256) with INT32 C read and D written takes longer than
    with INT8 D written once, by at most the extra bytes at the GEMM DRAM rate plus a round's
    fill and epilogue."""
    c = {name: np.array([value], float) for name, value in dict(
        tm=16, tn=128, tk=64, stages=3, wm=16, wn=32, warps=4, group=1, split=1,
        streamk=0, cuda_core=0).items()}
    by_hand = {gpu.Setup(): 8192, gpu.Setup(output="int32", reads_c=True): 32768,
               gpu.Setup(output="int8"): 4096}
    for setup, out in by_hand.items():
        hw = gpu.blocks.hardware(gpu.A100, "cublas", "int8", 8, setup=setup)
        moved = _tiles.traffic(hw, c, 1.0, 4096.0, 4096.0,
                               _tiles.occupancy(hw, c, _tiles.Work()))
        assert float(moved.out_bytes) == out
        # A's row by each of the 32 column tiles, W once, the output
        assert float(moved.l2_bytes[0]) == 4096 * (32 + 4096) + out
    shape = (4096, 8192, 256)
    slow, fast = (float(gpu.gemm_latency(gpu.A100, "cublas", *shape, act="int8", weight_bits=8,
                                         setup=s).seconds) for s in by_hand if s.output != "fp16")
    extra = shape[0] * shape[1] * (8 - 1) / gpu.A100.gemm_dram_bandwidth
    assert fast < slow <= fast + extra + gpu.A100.gemm_prologue


def test_kernels_without_tensor_core_work_run_at_the_boost_clock():
    """Only the CUDA-core kernels (LUT-GEMM) take ``Work.boost_clock``; on the H100 (SM 1.83,
    boost 1.98 GHz) LUT-GEMM's CUDA-core seconds are the same clocks at the boost clock: the
    ratio to a spec whose boost clock is its SM clock is exactly 1.83 / 1.98."""
    assert {name for name, r in gpu.KERNEL_LIBRARY.items() if r.work.boost_clock} == {
        name for name, r in gpu.KERNEL_LIBRARY.items() if r.unit == "cuda_core"} == {
        "lut_gemm"}
    h100 = gpu.gpu_spec("h100")
    flat = dataclasses.replace(h100, boost_clock_ghz=0.0)
    args = ("lut_gemm", 4096, 4096, 4096)
    boosted, at_sm = (gpu.gemm_latency(spec, *args, act="fp16", weight_bits=2)
                      for spec in (h100, flat))
    assert float(boosted.tile_m) == float(at_sm.tile_m)
    assert float(boosted.cuda_core) / float(at_sm.cuda_core) == pytest.approx(
        h100.sm_clock / h100.boost_clock, rel=1e-12)
    cublas = [gpu.gemm_latency(spec, "cublas", *args[1:], act="fp16") for spec in (h100, flat)]
    assert float(cublas[0].seconds) == float(cublas[1].seconds)
