"""GPU performance models (LUT Tensor Core §4.3-4.5): datasheet specs of A100, RTX 3090, H100
and H200 with LUT Tensor Core and double-register (DRM) variants, public LLM shapes, and
tile-level latency models of GEMM / mpGEMM kernels (cuBLAS-like, dequantization, LUT-GEMM
software, LUT Tensor Core). ``gemm_latency(gpu, kernel, m, n, k, ...)`` is the entry point.
"""

from ._kernels import (ACT_BYTES, BANK_CONFLICT, KERNELS, PRECOMPUTE, GemmLatency, Hardware,
                       candidates, expected_bank_conflict, gemm_latency, hardware, is_lut_kernel,
                       lut_precompute_adds, lut_table_bytes, peak_ops)
from ._llms import LLMS, Gemm, LLMShape, layer_gemms, llm_shape
from ._specs import (A100, GPUS, H100, H200, LUT_ARRAY_1X, LUT_SCALES, RTX3090,
                     TENSOR_CORES_PER_SM, GPUSpec, achievable_dram_bandwidth, cuda_core_flops,
                     dram_bandwidth, gpu_spec,
                     launch_overhead, with_double_registers, with_lut_tensor_core)

__all__ = [
    "ACT_BYTES", "BANK_CONFLICT", "KERNELS", "PRECOMPUTE", "GemmLatency", "Hardware",
    "candidates", "expected_bank_conflict", "gemm_latency", "hardware", "is_lut_kernel",
    "lut_precompute_adds", "lut_table_bytes", "peak_ops",
    "LLMS", "Gemm", "LLMShape", "layer_gemms", "llm_shape",
    "A100", "GPUS", "H100", "H200", "LUT_ARRAY_1X", "LUT_SCALES", "RTX3090",
    "TENSOR_CORES_PER_SM", "GPUSpec", "achievable_dram_bandwidth", "cuda_core_flops",
    "dram_bandwidth", "gpu_spec",
    "launch_overhead", "with_double_registers", "with_lut_tensor_core",
]

# end-to-end simulator
from ._simulator import (ATTENTION, FP16_KERNEL, PRECOMPUTE_TREATMENTS, Deployment, Machine,
                         Operator, Shapes, Workload,
                         attention_operators, edge_operators, latency_sweep, layer_breakdown,
                         layer_latency, layer_operators, machine, model_breakdown,
                         model_latency, price, shapes, workload)

__all__ += [
    "ATTENTION", "FP16_KERNEL", "PRECOMPUTE_TREATMENTS", "Deployment", "Machine", "Operator",
    "Shapes", "Workload",
    "attention_operators", "edge_operators", "latency_sweep", "layer_breakdown",
    "layer_latency", "layer_operators", "machine", "model_breakdown", "model_latency", "price",
    "shapes", "workload",
]
