"""Transcribe aiconfigurator's GEMM timing tables into experiments/reference/measured/.

NVIDIA's aiconfigurator (github.com/ai-dynamo/aiconfigurator) publishes, per GPU, framework and
version, the latency of every GEMM kind its collectors time, in
aic-core/src/aiconfigurator_core/systems/data/<gpu>/gemm/<framework>/<version>/gemm_perf.parquet
(columns framework, version, device, op_name, kernel_source, gemm_dtype, m, n, k, latency in
ms). What each kind runs, from the collectors (collector/trtllm/collect_gemm.py at the same
commit; the TensorRT-engine collector collect_gemm_trt.py at cdd7ba5, the parent of the commit
that removed it, unchanged since 13669a1, which added the 1.2.0rc5 tables; the parquet's
kernel_source names the flow of every row: ``torch_flow``, or ``trt_flow_`` and the plugin
layer):

- ``bfloat16``, ``fp8`` (``torch_flow``): TensorRT-LLM's PyTorch ``Linear`` (BF16 activations);
  a CUDA graph over up to 5 weight copies (so the L2 does not hold the weights; one copy when
  the weights exceed the L2), CUDA events, time per call. The FP8 weights carry no input scale,
  so the Linear quantizes its activations dynamically (per tensor) before the FP8 GEMM, and the
  time includes that step (the collector's own comment).
- ``int8_wo``, ``int4_wo``: TensorRT's ``WeightOnlyQuantMatmul`` plugin (FP16 activations,
  per-channel scales: ``QuantMode.from_description`` weight-only, no groups); ``sq``: the
  ``SmoothQuantGemm`` plugin (INT8 x INT8, per-channel weight and per-tensor activation scales,
  FP16 output; the activation quantization is a separate layer, not in the time). Timed by
  TensorRT's per-layer profiler (``IProfiler``), one run: about 1 us resolution.

The same folders hold the BF16 GEMMs of vLLM's and SGLang's collectors (``bfloat16`` only:
their FP8 kinds run those frameworks' own kernels), each PyTorch's ``F.linear`` (cuBLAS) under
a CUDA graph over up to 6 weight copies, CUDA events (collector/helper.py
``benchmark_with_power``; provenance "legacy", so the collectors at the same commit are the
nearest statement of how they ran): SGLang's (collector/sglang/collect_gemm.py) on
``torch.randn`` activations and weights (random); vLLM's (collector/vllm/collect_gemm.py) on
``torch.randn`` activations and a ``RowParallelLinear`` whose BF16 weights are never written
(``torch.empty``; the collector's own "TODO, to evaluate random weights impact"), so their
contents are not stated: transcribed with ``inputs: unstated`` in the set's protocol note and
priced as random.

Usage: python tools/transcribe_aiconfigurator.py <aiconfigurator git dir> [--commit SHA]
(nothing is fetched; needs pyarrow, a tool-only dependency). Writes aiconfigurator_<gpu>.yaml
for the A100 SXM and H100 SXM (role calibration) and the H200 SXM (role validation; roles fixed
by issue 30 before any comparison), and aiconfigurator_<gpu>_{vllm,sglang}.yaml for the A100
and H100 SXM (role calibration, by the same rule: issue 30 permits every a100_sxm and h100_sxm
table; they set no constant yet, and serve as further sources of the same GPUs for the
cross-source comparison of lut-fig16): every M of ``MS`` at the (N, K) pairs of ``SHAPES``
(the LLM projection sizes the experiments use, 4096-16384, and a smaller spread), and for the
vLLM / SGLang tables also at ``CROSS_SHAPES`` (the square sizes the A100 validation sets time,
chosen for the comparison before any model error was read).
"""

from __future__ import annotations

import io
import subprocess

from snapshot import snapshot_args, write_measured

DATA = "aic-core/src/aiconfigurator_core/systems/data"
# (N, K): square 4096 / 8192 projections, QKV- and FFN-like 3-4x rectangles both ways, and a
# small 1024 / 4096 spread
SHAPES = ((1024, 4096), (4096, 1024), (4096, 4096), (8192, 8192), (12288, 4096),
          (4096, 12288), (16384, 4096), (4096, 16384))
# (N, K) the vLLM / SGLang tables add: the squares of LLMCompass's and mlc-benchmark's A100 sweeps
# that their grid holds
CROSS_SHAPES = ((1024, 1024), (2048, 2048), (12288, 12288), (16384, 16384))
# the M of the A100 and H200 tables (the H100 tables add M +- 1 and more M < 17: left out)
MS = (1, 2, 4, 8, 16, 32, 48, 64, 80, 96, 128, 160, 192, 256, 384, 512, 768, 1024, 2048, 4096,
      8192)
# gemm_dtype -> the set's lutcore.gpu kernel and formats (BF16: the PyTorch-flow Linear, cuBLAS
# as the TensorRT-LLM release ships it, at that release's own rate: ``trtllm_gemm``)
KINDS = {
    "bfloat16": {"kernel": "trtllm_gemm", "act": "bf16"},
    "fp8": {"kernel": "cublas_quantize", "act": "fp8"},
    "sq": {"kernel": "trtllm_smoothquant", "act": "int8", "timing": "trt_layer_profiler"},
    "int8_wo": {"kernel": "trtllm_weight_only", "act": "fp16", "weight_bits": 8, "group_size": 0,
                "timing": "trt_layer_profiler"},
    "int4_wo": {"kernel": "trtllm_weight_only", "act": "fp16", "weight_bits": 4, "group_size": 0,
                "timing": "trt_layer_profiler"},
}
# the vLLM / SGLang BF16 Linear: PyTorch's F.linear, cuBLAS at the GPU's own rates
TORCH_KINDS = {"bfloat16": {"kernel": "cublas", "act": "bf16"}}
FORMS = {"a100_sxm": ("a100", "A100 SXM4 (aiconfigurator a100_sxm)"),
         "h100_sxm": ("h100", "H100 SXM5 (aiconfigurator h100_sxm)"),
         "h200_sxm": ("h200", "H200 SXM (aiconfigurator h200_sxm)")}
# (file suffix, folder, framework/version, role, kinds, (N, K) pairs)
TABLES = (
    ("", "a100_sxm", "trtllm/1.0.0", "calibration", KINDS, SHAPES),
    ("", "h100_sxm", "trtllm/1.2.0rc5", "calibration", KINDS, SHAPES),
    ("", "h200_sxm", "trtllm/1.2.0rc5", "validation", KINDS, SHAPES),
    *((f"_{framework}", folder, f"{framework}/{version}", "calibration", TORCH_KINDS,
       SHAPES + CROSS_SHAPES)
      for folder in ("a100_sxm", "h100_sxm")
      for framework, version in (("vllm", "0.14.0"), ("sglang", "0.5.9"))),
)
# what the vLLM / SGLang tables ran, beyond PROTOCOL (module doc)
TORCH_METHOD = {
    "vllm": "vLLM RowParallelLinear (F.linear, cuBLAS), torch.randn activations, BF16 weights "
            "never written (torch.empty: contents unstated, priced as random); CUDA graph over "
            "6 weight copies, CUDA events (collector/vllm/collect_gemm.py, helper.py)",
    "sglang": "F.linear (cuBLAS) of torch.randn activations and weights; CUDA graph over up to 6 "
              "weight copies, CUDA events (collector/sglang/collect_gemm.py, helper.py)",
}
PROTOCOL = {
    "timing": "device",
    "method": "bfloat16 / fp8: CUDA graph of calls over up to 5 weight copies (L2 defeated), "
              "CUDA events, time per call (collector/trtllm/collect_gemm.py); int8_wo / int4_wo "
              "/ sq: TensorRT per-layer profiler, one run, the GEMM plugin's layer only "
              "(collect_gemm_trt.py at cdd7ba5)",
    "dtype": "bf16 (torch_flow), fp8 e4m3 with dynamic per-tensor activation quantization "
             "(included), fp16 x int8/int4 weight-only per channel, int8 x int8 SmoothQuant",
    "library": "TensorRT-LLM (version per file) and its cuBLAS / CUTLASS kernels",
    "clocks": "default application clocks (not stated)",
}


def table(gitdir: str, commit: str, folder: str, version: str):
    """The parquet table of one GPU and framework version as a dict of columns."""
    import pyarrow.parquet as pq  # the tool's own dependency, not the project's

    path = f"{DATA}/{folder}/gemm/{version}/gemm_perf.parquet"
    blob = subprocess.run(["git", "--git-dir", gitdir, "show", f"{commit}:{path}"], check=True,
                          capture_output=True).stdout
    return path, pq.read_table(io.BytesIO(blob)).to_pydict()


def sets_of(rows, path: str, kinds: dict, shapes: tuple) -> list[dict]:
    """The measured sets of one table: per kind of ``kinds`` and (N, K) of ``shapes``, its rows
    at every M of ``MS``; ``rows`` are (gemm_dtype, m, n, k, ms) tuples, ``path`` the file."""
    rows = list(rows)
    sets = []
    for kind, setup in kinds.items():
        for n, k in shapes:
            points = sorted({(m, n, k, round(float(ms), 6)) for d, m, nn, kk, ms in rows
                             if d == kind and (nn, kk) == (n, k) and m in MS})
            if points:
                sets.append({"name": f"{kind} N{n} K{k}", "kind": "gemm", "file": path,
                             **setup, "columns": ["m", "n", "k", "ms"],
                             "points": [list(p) for p in points]})
    return sets


def document(source: str, folder: str, role: str, protocol: dict, sets: list) -> dict:
    """A measured file's content: ``sets`` of aiconfigurator's ``folder`` GPU under ``role``."""
    device, form = FORMS[folder]
    return {"source": source,
            "citation": "NVIDIA, aiconfigurator (ai-dynamo), per-GPU GEMM performance tables",
            "role": role, "device": device, "form_factor": form, "protocol": protocol,
            "sets": sets}


def transcribe(gitdir: str, commit: str, folder: str, version: str, role: str, kinds: dict,
               shapes: tuple) -> dict:
    path, columns = table(gitdir, commit, folder, version)
    rows = zip(columns["gemm_dtype"], columns["m"], columns["n"], columns["k"],
               columns["latency"])
    framework = version.split("/")[0]
    protocol = PROTOCOL if framework == "trtllm" else {
        **PROTOCOL, "method": TORCH_METHOD[framework], "dtype": "bf16",
        "library": f"{version} and the PyTorch / cuBLAS it ships"}
    return document(f"ai-dynamo/aiconfigurator@{commit}", folder, role, protocol,
                    sets_of(rows, path, kinds, shapes))


def main():
    gitdir, commit = snapshot_args(__doc__.splitlines()[0])
    for suffix, folder, version, role, kinds, shapes in TABLES:
        data = transcribe(gitdir, commit, folder, version, role, kinds, shapes)
        header = (f"# Transcribed by tools/transcribe_aiconfigurator.py from "
                  f"ai-dynamo/aiconfigurator@{commit}\n# ({DATA}/{folder}/gemm/{version}/"
                  "gemm_perf.parquet); do not edit by hand.\n")
        write_measured(f"aiconfigurator_{folder}{suffix}.yaml", header, data)


if __name__ == "__main__":
    main()
