"""tools/transcribe_mlcbench.py (the BitBLAS authors' kernel benchmarks, LeiWang1999/mlc-benchmark)
and the two validation files it writes: parsed from literals only, shapes from the cuBLAS
benchmark's table, each provider priced by its kernel with the benchmark's quantization."""

import copy
import pathlib
import sys

import numpy as np
import pytest

import lutcore.gpu as gpu
from experiments.lut_tensor_core import _measured

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
import transcribe_mlcbench as tool  # noqa: E402

# the layout of figures/data/*_gemm.py, two providers, 13 values each
DATA = """# fmt: off
s4_gemv_provider = ["V0","V1","V2","V3","V4","V5","V6","V7","V8","V9","V10","V11","V12"]

s4_gemv_times_data = [
    ('cuBLAS-W$_{FP16}$A$_{FP16}$', (0.5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, )),
    ('Marlin-W$_{INT4}$A$_{FP16}$', (0.25, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12.5
)),
]
"""
CU = ("std::vector<std::tuple<int, int, int, bool, bool>> inference_server_set = {\n    // gemv\n"
      + "".join(f"    std::make_tuple(1, {n}, {n}, false, true),\n" for n in range(1, 14))
      + "\n    // gemm\n"
      + "".join(f"    std::make_tuple(8192, {n}, 7, false, true),\n" for n in range(1, 14))
      + "\n};\nstd::vector<std::tuple<int, int, int, bool, bool>> scaling_bitwidth = {\n"
      "    std::make_tuple(16, 5, 5, false, true),\n};\n")


def test_the_data_file_is_read_as_literals():
    data = tool.assignments(DATA)
    assert data["s4_gemv_provider"][12] == "V12"
    assert tool.provider_times(data, "s4_gemv_times_data", "Marlin-W$_{INT4}$A$_{FP16}$") == (
        0.25, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12.5)
    with pytest.raises(ValueError, match="no provider 'vLLM'"):
        tool.provider_times(data, "s4_gemv_times_data", "vLLM")
    with pytest.raises(ValueError):  # a call is not a literal: nothing is executed
        tool.assignments("x = __import__('os').getcwd()")


def test_shapes_are_the_cublas_benchmarks_table():
    table = tool.shapes(CU)
    assert table["V"][0] == (1, 1, 1) and table["V"][12] == (1, 13, 13)
    assert table["M"] == [(8192, n, 7) for n in range(1, 14)]  # not scaling_bitwidth's rows
    with pytest.raises(ValueError, match="expected 13"):
        tool.shapes(CU.replace("    std::make_tuple(1, 13, 13, false, true),\n", ""))
    sets = tool.measured_sets(tool.assignments(DATA), table, [
        ("s4_gemv_times_data", "Marlin-W$_{INT4}$A$_{FP16}$", "V", "Marlin",
         {"kernel": "marlin", **tool.PER_CHANNEL})])
    assert sets[0]["points"][0] == [1, 1, 1, 0.25] and sets[0]["points"][12] == [1, 13, 13, 12.5]
    assert (sets[0]["kernel"], sets[0]["group_size"], sets[0]["columns"][-1]) == (
        "marlin", 0, "ms")


def test_each_w4a16_provider_is_priced_by_the_kernel_it_ran():
    """fpA_intB for FasterTransformer and TensorRT-LLM, but TensorRT-LLM's M = 1 rows (its
    batched GEMV for M <= 4) on the generic dequant kernel; Marlin's own."""
    kernels = {entry["name"]: entry["kernel"]
               for entry in _measured.load("mlcbench_a100.yaml")["sets"]}
    assert [kernels[f"{p} W4A16, M = {m}"] for m in (1, 8192)
            for p in ("FasterTransformer", "TensorRTLLM", "Marlin")] == [
        "fpa_intb", "dequant", "marlin", "fpa_intb", "fpa_intb", "marlin"]


@pytest.mark.parametrize("name, device, sets", [("mlcbench_a100.yaml", "a100-pcie", 11),
                                                ("mlcbench_rtx3090.yaml", "rtx3090", 5)])
def test_the_files_load_as_validation_sets(name, device, sets):
    data = _measured.load(name)
    assert (data["role"], data["device"], len(data["sets"])) == ("validation", device, sets)
    assert data["source"].startswith("LeiWang1999/mlc-benchmark@")
    for entry in data["sets"]:
        assert len(entry["points"]) == 13
        assert entry["kernel"] in ("cublas", *gpu.DEQUANT_KERNELS)
        assert {p[0] for p in entry["points"]} in ({1}, {8192, 16384})


def test_a_w4a16_row_is_priced_by_the_dequant_kernel_per_channel():
    """TensorRT-LLM's fpA_intB at M = 1 (V0: 1 x 16384 x 16384, 0.090765953 ms): the loader
    prices it as dequant, FP16 activations, 4-bit weights, one scale per output channel."""
    data = _measured.load("mlcbench_a100.yaml")
    entry = next(e for e in data["sets"] if e["name"] == "TensorRTLLM W4A16, M = 1")
    labels, categories, measured, modeled = _measured.gemm_points(data, entry)
    assert labels[0] == "TensorRTLLM W4A16, M = 1: 1x16384x16384"
    assert categories[0] == "mpgemm" and measured[0] == pytest.approx(0.090765953e-3)
    expected = gpu.gemm_latency(gpu.A100_PCIE, "dequant", 1, 16384, 16384, act="fp16",
                                weight_bits=4, group_size=0, zero_points=False).seconds
    assert modeled[0] == pytest.approx(float(expected))
    # the set's group_size reaches the model: G = 128 reads 2 more bytes per 128 weights
    grouped = dict(entry, group_size=128)
    assert _measured.gemm_points(data, grouped)[3][0] > modeled[0]


def test_group_keys_need_a_dequant_gemm_set():
    data = copy.deepcopy(_measured.load("mlcbench_rtx3090.yaml"))
    data["sets"][0]["group_size"] = 0  # cuBLAS FP16, M = 1
    kernels = ", ".join(gpu.DEQUANT_KERNELS)
    with pytest.raises(ValueError, match=f"group_size need kind gemm and a kernel of {kernels}"):
        _measured.check(data, "x.yaml")


def test_the_rtx3090_rows_are_priced():
    points = _measured.points("mlcbench_rtx3090.yaml")
    assert len(points) == 65 and all(np.isfinite(p.modeled) and p.modeled > 0 for p in points)
    assert {p.device for p in points} == {"rtx3090"}


def test_the_sets_accumulate_in_fp16_as_the_benchmark_ran():
    """Every FP16 set of both files carries accumulate fp16 (CUDA_R_16F, --accum=f16), every
    INT8 / W4A16 set none; the loader hands it to gemm_latency (with the cuBLAS sets' C read,
    beta = 1)."""
    for name in ("mlcbench_a100.yaml", "mlcbench_rtx3090.yaml"):
        for entry in _measured.load(name)["sets"]:
            fp16 = entry["kernel"] == "cublas" and entry["act"] == "fp16"
            assert entry.get("accumulate") == ("fp16" if fp16 else None), entry["name"]
    data = _measured.load("mlcbench_rtx3090.yaml")
    entry = next(e for e in data["sets"] if e["name"] == "cuBLAS FP16, M = 8192")
    modeled = _measured.gemm_points(data, entry)[3][10]  # M10: 8192 x 8192 x 8192
    expected = gpu.gemm_latency(gpu.RTX3090, "cublas", 8192, 8192, 8192, accumulate="fp16",
                                reads_c=True)
    assert modeled == pytest.approx(float(expected.seconds))
    fp32 = _measured.gemm_points(data, {k: v for k, v in entry.items() if k != "accumulate"})
    assert fp32[3][10] > 1.8 * modeled  # the FP32-accumulate rate is half


def test_accumulate_is_checked_before_any_work():
    data = copy.deepcopy(_measured.load("mlcbench_rtx3090.yaml"))
    int8 = next(e for e in data["sets"] if e["act"] == "int8")
    int8["accumulate"] = "fp16"
    with pytest.raises(ValueError, match="accumulate 'fp16' needs act 'fp16'"):
        _measured.check(data, "x.yaml")
    int8["accumulate"] = "fp8"
    with pytest.raises(ValueError, match="accumulate 'fp8' unknown; allowed values: fp32, fp16"):
        _measured.check(data, "x.yaml")


def test_the_sets_say_what_each_epilogue_reads_and_writes():
    """cublas_benchmark.cu runs beta = 1 (C read) with FP16 C, INT32 C for INT8; CUTLASS's
    profiler beta 0, its INT8 minimum the s8-output kernel; the W4A16 kernels the defaults."""
    expected = {("cuBLAS", "fp16"): ("fp16", True), ("cuBLAS", "int8"): ("int32", True),
                ("CUTLASS", "fp16"): ("fp16", False), ("CUTLASS", "int8"): ("int8", False)}
    for name in ("mlcbench_a100.yaml", "mlcbench_rtx3090.yaml"):
        for entry in _measured.load(name)["sets"]:
            provider = entry["name"].split(" ")[0]
            epilogue = (entry.get("output", "fp16"), entry.get("reads_c", False))
            assert epilogue == expected.get((provider, entry["act"]), ("fp16", False)), \
                entry["name"]
