"""Transcribe the BitBLAS authors' kernel benchmarks (LeiWang1999/mlc-benchmark) into
experiments/reference/measured/mlcbench_a100.yaml and mlcbench_rtx3090.yaml (role validation).

figures/data/a100_gemm.py and gtx3090_gemm.py hold, per provider, the time in ms of 13 shapes
V0-V12 (M = 1) or M0-M12 (M = 8192); microsoft/BitBLAS benchmark/README.md ("Benchmark
Configuration") lists their M, N, K and says the runs were on a "24GB RTX 3090 and 80GB A100,
with CUDA 12.1". The same 26 shapes, in that order, are ``inference_server_set`` of the
snapshot's cuBLAS/cublas-benchmark/cublas_benchmark.cu, which this tool reads (``shapes``).
The data files are read with ``ast`` (literal values only, never executed).

Which lutcore kernel prices which provider (by what the kernel is):
- ``cublas``: cuBLAS and CUTLASS FP16 / INT8 tensor-core GEMMs;
- ``fpa_intb``: FasterTransformer's and TensorRT-LLM's fpA_intB CUTLASS kernel (both through
  TVM's CUTLASS BYOC, FasterTransformer/ and TenorrtLLM/lowprecision_kernels/
  cutlass_fpa_intb.py, one FP16 scale per output channel, ``B: (N,)``, no zero points; TVM
  1afbf20 builds tlc-pack/cutlass_fpA_intB_gemm@390e821, TVM 2bf3a0a @74ee6cb), but for
  TensorRT-LLM's M = 1 rows: @74ee6cb sends M <= 4 to its batched GEMV instead
  (fpA_intB_gemm_impl.h, ``weight_only_batched_gemv``), priced as ``dequant``;
- ``marlin``: Marlin (IST-DASLab/marlin@512f1b1; Marlin/kernel_benchmark.py: ``groupsize =
  -1``, one scale per output channel);
- ``dequant`` (INT4 weights converted to FP16 in registers in the main loop, then tensor-core
  MMA, on the library tiles): TensorRT-LLM's GEMV. ``group_size: 0`` for all W4A16 sets.
Not priced: vLLM's INT4 kernel (vLLM/kernel_benchmark.py calls ``ops.awq_gemm``: AWQ's fixed
16 x 64/128 x 32 tile of 64 threads that dequantizes into shared memory, not a library-tiled
GEMM); bitsandbytes NF4 (a 16-entry float code book, no lutcore kernel); every BitBLAS row (the
authors' TVM-generated kernels: the M = 8192 forms take both operands in a pre-permuted
"propagated" layout made by an untimed transform, BitBLAS/matmul.py and
matmul_dequantize_int4.py ``*_propagate_a_propagate_b``; FP4 / NF4 / INT2 x INT8 weights).
FP16 accumulation (``accumulate: fp16``, every FP16 set): cublas_benchmark.cu runs FP16 GEMMs
with ``compute_type = CUDA_R_16F`` and CUTLASS's profiler with ``--accum=f16``; had the A100's
cuBLAS rows come from cuBLAS/tvm_cublas_invokation instead, TVM's ``cublas.matmul`` of float16
into float16 calls ``cublasHgemm`` (apache/tvm src/runtime/contrib/cublas/cublas.cc,
``CublasHgemmOp``), FP16 compute too. The GA102 runs FP16 MMAs with FP16 accumulators at twice
its FP32-accumulate rate (142 against 71 TFLOPS, GA102 whitepaper Table 9; cuBLAS's M0 row,
123 TFLOPS, is above the 71), lutcore's ``rtx3090`` ``fp16_accumulate_macs``; the A100 at the
same rate either way (A100 whitepaper Table 3).

Operand data (``inputs``): cublas_benchmark.cu fills FP16 operands with curand uniform (0, 1]
floats converted to half (random), and INT8 operands with the same floats ``static_cast`` to
uint8_t, which truncates them to 0 (``zeros``); CUTLASS's profiler (CUTLASS/cutlassgemm-
benchmark/cutlass-gemm-bench.py sets no ``--dist``) fills integer-valued uniform data (its
default, NVIDIA/cutlass tools/profiler: -4..4, F16 -3..3, S8 -2..2; ``integer``);
FasterTransformer / TensorRT-LLM: numpy uniform(0, 1) activations and randint INT4 weights
(random); Marlin: torch.randn activations, random INT4 words, but all-zero scales (``s =
torch.zeros``), so the dequantized weights the MMAs see are zeros: neither of lutcore's
both-operand kinds, left at the default ``random``.

Epilogue (``output``, ``reads_c``: what each kernel reads and writes besides A and W):
cublas_benchmark.cu's ``time_gemm`` passes ``beta = 1`` (a ``const int``) and C_type CUDA_R_16F
for FP16 (compute type CUDA_R_16F, so cuBLAS reads the scalars as half: the int's low bytes,
2^-24, still not 0) and CUDA_R_32I for INT8 (compute type CUDA_R_32I, beta the int 1): its
epilogue reads C and writes D, 2 bytes each for FP16 (``reads_c: true``), 4 bytes each for INT8
(``output: int32``); every shape runs transa = CUBLAS_OP_T, transb = CUBLAS_OP_N (a_t false, b_t
true: both operands K-contiguous, the layout of the IMMA kernels; lda = ldb = K a multiple of
4 and alpha = beta = 1, as cublasGemmEx's CUDA_R_32I path requires: "only supported with alpha,
beta being either 1 or 0; A, B being 32-bit aligned; and lda, ldb being multiples of 4", cuBLAS
Library User Guide, cublasGemmEx, as quoted in forums.developer.nvidia.com/t/53397), so no
layout conversion runs. CUTLASS's profiler
runs beta = 0 unless ``--beta`` is given (NVIDIA/cutlass@629f465
tools/profiler/src/gemm_operation_profiler.cu, ``cast_from_double(this->beta, ..., 0)``; the
script gives none): no C read. Its FP16 kernels write FP16; for INT8 it runs both SM80 s8
kernel families (python/cutlass_library/generator.py GenerateSM80_TensorOp_16832_TN: s32
output with LinearCombination, s8 output with LinearCombinationClamp), the same main loops,
and dataparser.py keeps the smallest runtime: the s8-output kernel's, whose epilogue writes a
quarter of the bytes (``output: int8``). W4A16 kernels: FP16 output, beta 0 (defaults).

The A100 is the 300 W PCIe card (``a100-pcie``). mlc-benchmark and BitBLAS say "80GB A100"
only, and a rule fixed before any error was computed took the SXM4 module (``a100``) for it;
three sources name the card (issue 30, read after the errors were known, so the rule gave way
to them, not to the fit):
- the same runs: the Ladder OSDI'24 artifact by the same author (LeiWang1999/Ladder@dd7f708,
  artifact/Figure12/cutlassgemm-benchmark/cutlass-gemm-bench_execution.log) holds the CUTLASS
  profiler's output behind these CUTLASS rows: its best row-major x column-major 8192 x 8192 x
  28672 kernels take 14.2733 ms (f16) and 7.93774 ms (s8), digit for digit this file's M12
  rows; its README.md puts Figure 12 ("Operator Benchmark on the NVIDIA A100 GPU") on "Device:
  NVIDIA A100-80GB-PCIe GPU", the only A100 it names ("Require NVIDIA A100-80GB-PCIe GPU to
  reproduce the main results");
- its cutlass-dequantize-benchmark/logs/cutlass_fpa_intb.log times the fpA_intB kernel at 1 x
  14336 x 57344 in 0.5168 ms (this file's FasterTransformer V4: 0.5162 ms);
- the snapshot's own Nsight Compute report (tir-roller/testing/cuda/evaluate.ncu-rep, committed
  2024-02-03 by the same author, ncu 2022.4.1, sm_80) names its device "NVIDIA A100 80GB PCIe".

Usage: python tools/transcribe_mlcbench.py <git dir> [--commit SHA] (the git dir of a clone or
snapshot; nothing is fetched). To check: rerun and ``git diff --exit-code
experiments/reference/measured/mlcbench_*.yaml``.
"""

from __future__ import annotations

import ast
import re

from snapshot import git, snapshot_args, write_measured

SHAPES_FILE = "cuBLAS/cublas-benchmark/cublas_benchmark.cu"
SHAPES_PER_GROUP = 13  # V0-V12 (M = 1), then M0-M12 (M = 8192)
CUBLAS_HOST = ("cuBLAS: cuBLAS/cublas-benchmark/cublas_benchmark.cu, cublasGemmEx "
               "(CUBLAS_GEMM_DFALT_TENSOR_OP, tensor-op math), one warm-up call, then "
               "std::chrono::steady_clock around 5 back-to-back calls and one "
               "cudaDeviceSynchronize (numRepeats = max(5, 100 / (warm-up in ns)) = 5), "
               "integer microseconds per call; whether the A100 rows came from this program "
               "(its CMakeLists.txt builds sm_86 only) or from cuBLAS/tvm_cublas_invokation "
               "is not stated")
CUTLASS_DEVICE = ("CUTLASS: cutlass_profiler --op_class=tensorop --accum=f16,s32 "
                  "--warmup-iterations=5 --profiling-iterations=10 over every tensor-op kernel, "
                  "the smallest runtime of the row-major A x column-major B kernels "
                  "(dataparser.py's __main__ passes 'row', 'col'; CUTLASS/cutlassgemm-benchmark/"
                  "cutlass-gemm-bench.py), beta 0 (the profiler's default); the "
                  "profiler times on the device with CUDA events")
FPA_INTB_HOST = ("FasterTransformer / TensorRT-LLM: TVM Relax VM running the CUTLASS fpA_intB "
                 "kernel, 5 warm-up calls, then time.time() around 10 back-to-back calls "
                 "between two dev.sync() (TenorrtLLM/lowprecision_kernels/cutlass_fpa_intb.py, "
                 "whose committed shape list holds other shapes than the published ones)")
MARLIN_HOST = ("Marlin: Marlin/kernel_benchmark.py, 1 warm-up call, then time.time() around 10 "
               "back-to-back marlin.mul calls and one torch.cuda.synchronize(), 1 s sleep "
               "between shapes")
PROTOCOL = {
    "timing": "host",
    "method": "; ".join([CUBLAS_HOST, CUTLASS_DEVICE, FPA_INTB_HOST, MARLIN_HOST]),
    "dtype": "fp16 activations; fp16 / int8 / int4 weights; cuBLAS FP16 with compute type "
             "CUDA_R_16F (FP16 accumulation), INT8 with CUDA_R_32I; CUTLASS --accum=f16 "
             "(FP16) / s32 (INT8); the W4A16 kernels' accumulation type not stated",
    "library": "CUDA 12.1; CUTLASS 629f465, FasterTransformer kernels via apache/tvm@1afbf20, "
               "TensorRT-LLM kernels via apache/tvm@2bf3a0a, Marlin 512f1b1 (microsoft/BitBLAS "
               "benchmark/README.md and the snapshot's submodules); cuBLAS version not stated",
    "clocks": "not stated (Marlin sleeps 1 s between shapes 'to avoid "
              "throttling')",
}
FP16_ACCUMULATE = {"act": "fp16", "accumulate": "fp16"}  # CUDA_R_16F, --accum=f16
CUBLAS_FP16 = {**FP16_ACCUMULATE, "reads_c": True}  # time_gemm's beta = 1, C_type CUDA_R_16F
PER_CHANNEL = {"act": "fp16", "weight_bits": 4, "group_size": 0, "zero_points": False}
# The kernel of each W4A16 provider and shape group (V: M = 1, M: M = 8192), docstring above
W4A16_KERNEL = {("FasterTransformer", "V"): "fpa_intb", ("FasterTransformer", "M"): "fpa_intb",
                ("TensorRTLLM", "V"): "dequant", ("TensorRTLLM", "M"): "fpa_intb",
                ("Marlin", "V"): "marlin", ("Marlin", "M"): "marlin"}
# (variable, provider title, shape group, set name, set keys) of the dense M = 8192 GEMMs, the
# same variables and providers in both devices' files
DENSE_M8192 = [
    ("f16_gemm_times_data", "cuBLAS", "M", "cuBLAS FP16, M = 8192", CUBLAS_FP16),
    ("f16_gemm_times_data", "CUTLASS", "M", "CUTLASS FP16, M = 8192",
     {**FP16_ACCUMULATE, "inputs": "integer"}),
    ("s8_gemm_times_data", "cuBLAS", "M", "cuBLAS INT8, M = 8192",
     {"act": "int8", "inputs": "zeros", "output": "int32", "reads_c": True}),
    ("s8_gemm_times_data", "CUTLASS", "M", "CUTLASS INT8, M = 8192",
     {"act": "int8", "inputs": "integer", "output": "int8"}),
]
# (device file, variable, provider title, shape group, set name, set keys); the rows above say
# why each kernel and input kind
SETS = {
    "a100": ("figures/data/a100_gemm.py", [
        ("s4_gemv_times_data", "cuBLAS-W$_{FP16}$A$_{FP16}$", "V", "cuBLAS FP16, M = 1",
         CUBLAS_FP16),
        *DENSE_M8192,
        *[(variable, f"{provider}-W$_{{INT4}}$A$_{{FP16}}$", group,
           f"{provider} W4A16, M = {1 if group == 'V' else 8192}",
           {"kernel": W4A16_KERNEL[provider, group], **PER_CHANNEL})
          for group, variable in (("V", "s4_gemv_times_data"), ("M", "s4_gemm_times_data"))
          for provider in ("FasterTransformer", "TensorRTLLM", "Marlin")],
    ]),
    "rtx3090": ("figures/data/gtx3090_gemm.py", [
        ("nf4_gemv_times_data", "cuBLAS-W$_{FP16}$A$_{FP16}$", "V", "cuBLAS FP16, M = 1",
         CUBLAS_FP16),
        *DENSE_M8192,
    ]),
}
# The file of each device's sets (mlcbench_<key>.yaml) and the lutcore GPU they ran on
DEVICE = {"a100": "a100-pcie", "rtx3090": "rtx3090"}
FORM_FACTOR = {
    "a100": "A100 80GB PCIe (300 W; '80GB A100' in the sources; the card the Ladder OSDI'24 "
            "artifact's logs of the same CUTLASS runs name, see tools/transcribe_mlcbench.py)",
    "rtx3090": "GeForce RTX 3090 24GB (GA102, 350 W board)",
}
NOT_PRICED = {
    "a100": "vLLM W4A16 (AWQ fixed-tile kernel), BitBLAS FP16 / INT8 / W4A16 / WFP4A16 / "
            "W2A8 (TVM kernels with propagated operand layouts; FP4 and INT2 x INT8 weights); "
            "the s4_gemm cuBLAS row repeats f16_gemm's; the s1 / s2 speedup tables (ratios)",
    "rtx3090": "BitBLAS FP16 (TVM kernels with propagated operand layouts), bitsandbytes and "
               "BitBLAS NF4, BitBLAS INT8; the nf4_gemm cuBLAS row repeats f16_gemm's",
}


def assignments(source: str) -> dict:
    """{name: value} of the module-level ``name = <literal>`` statements of ``source`` (the
    data files hold nothing else; ``ast.literal_eval``, nothing is executed)."""
    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = ast.literal_eval(node.value)
    return out


def shapes(source: str) -> dict[str, list[tuple[int, int, int]]]:
    """{"V": 13 (m, n, k), "M": 13 (m, n, k)}: ``inference_server_set`` of
    cublas_benchmark.cu (its std::make_tuple(m, n, k, a_t, b_t) rows, GEMVs first)."""
    block = re.search(r"inference_server_set\s*=\s*\{(.*?)\};", source, re.S)
    if block is None:
        raise ValueError(f"{SHAPES_FILE} has no inference_server_set")
    rows = [tuple(int(v) for v in row) for row in
            re.findall(r"std::make_tuple\((\d+),\s*(\d+),\s*(\d+),", block.group(1))]
    if len(rows) != 2 * SHAPES_PER_GROUP or {m for m, _, _ in rows[:SHAPES_PER_GROUP]} != {1}:
        raise ValueError(f"inference_server_set: expected 13 M = 1 then 13 M = 8192 rows, "
                         f"got {rows}")
    return {"V": rows[:SHAPES_PER_GROUP], "M": rows[SHAPES_PER_GROUP:]}


def provider_times(data: dict, variable: str, provider: str) -> tuple[float, ...]:
    """The times (ms) of ``provider`` in the list ``variable`` of a data file."""
    rows = dict(data[variable])
    if provider not in rows:
        raise ValueError(f"{variable} has no provider {provider!r}; it has {sorted(rows)}")
    if len(rows[provider]) != SHAPES_PER_GROUP:
        raise ValueError(f"{variable} {provider!r}: {len(rows[provider])} times, expected 13")
    return rows[provider]


def measured_sets(data: dict, table: dict, specs: list) -> list[dict]:
    """One ``gemm`` set per (variable, provider, group, name, keys) of ``specs``."""
    sets = []
    for variable, provider, group, name, keys in specs:
        times = provider_times(data, variable, provider)
        sets.append({"name": name, "kind": "gemm", "kernel": "cublas", **keys,
                     "columns": ["m", "n", "k", "ms"],
                     "points": [[*shape, t] for shape, t in zip(table[group], times)]})
    return sets


def transcribe(gitdir: str, commit: str, device: str) -> dict:
    path, specs = SETS[device]
    table = shapes(git(gitdir, "show", f"{commit}:{SHAPES_FILE}"))
    data = assignments(git(gitdir, "show", f"{commit}:{path}"))
    return {"source": f"LeiWang1999/mlc-benchmark@{commit}",
            "file": path,
            "citation": "L. Wang et al., mlc-benchmark (GitHub), the benchmarks behind "
                        "microsoft/BitBLAS benchmark/README.md ('24GB RTX 3090 and 80GB A100, "
                        f"with CUDA 12.1'); {path}, shapes from {SHAPES_FILE}",
            "role": "validation", "device": DEVICE[device], "form_factor": FORM_FACTOR[device],
            "protocol": PROTOCOL, "sets": measured_sets(data, table, specs)}


def main():
    gitdir, commit = snapshot_args(__doc__.splitlines()[0])
    for device in SETS:
        header = (f"# Transcribed by tools/transcribe_mlcbench.py from "
                  f"LeiWang1999/mlc-benchmark@{commit}\n"
                  f"# ({SETS[device][0]}; kernels, inputs and protocol in the tool's "
                  "docstring); do not edit by hand.\n"
                  f"# Not priced: {NOT_PRICED[device]}.\n")
        write_measured(f"mlcbench_{device}.yaml", header, transcribe(gitdir, commit, device))


if __name__ == "__main__":
    main()
