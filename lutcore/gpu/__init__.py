"""GPU performance models (LUT Tensor Core §4.3-4.5): datasheet specs of A100, RTX 3090, H100
and H200 with LUT Tensor Core and double-register (DRM) variants and measured achievable rates,
public LLM shapes, the tile-level latency model of GEMM / mpGEMM kernels (cuBLAS/CUTLASS-like,
dequantization, LUT-GEMM software, LUT Tensor Core) and the end-to-end simulator.
``gemm_latency(gpu, kernel, m, n, k, ...)`` and ``model_latency(gpu, llm, deployment, work)``
are the entry points.
"""

from ._kernels import (
                       ACCUMULATOR_BYTES,
                       ACT_BYTES,
                       candidates,
                       check_kernel_accumulate,
                       default_lut_bits,
                       dram_traffic,
                       gemm_latency,
                       group_bytes,
                       hardware,
                       is_lut_kernel,
                       lut_precompute_adds,
                       lut_table_bytes,
                       memory_seconds,
                       peak_ops,
                       precompute_seconds,
                       precompute_work,
                       quantize_seconds,
                       tile_occupancy,
)
from ._library import (
                       BANK_CONFLICT,
                       DENSE_KERNELS,
                       DEQUANT_GROUP,
                       DEQUANT_KERNELS,
                       FPA_INTB_DEQUANT,
                       KERNEL_LIBRARY,
                       KERNELS,
                       PRECOMPUTE,
                       QUANTIZE_STEP,
                       TENSOR_CORE_KERNELS,
                       WORK,
                       Kernel,
                       Quant,
                       Setup,
                       expected_bank_conflict,
                       kernel_record,
)
from ._llms import LLMS, Gemm, LLMShape, layer_gemms, llm_shape
from ._specs import (
                       A100,
                       A100_PCIE,
                       ACCUMULATE,
                       GPUS,
                       H100,
                       H200,
                       INPUT_DATA,
                       INPUT_RATE,
                       LUT_ARRAY_1X,
                       LUT_SCALES,
                       RTX3090,
                       TENSOR_CORES_PER_SM,
                       GPUSpec,
                       gpu_spec,
                       gpus_with,
                       with_double_registers,
                       with_lut_tensor_core,
)
from ._tiles import GemmLatency, Hardware, Occupancy, Work, cutlass_heuristic, tile_model

__all__ = [
    "ACCUMULATOR_BYTES", "ACT_BYTES", "BANK_CONFLICT", "DENSE_KERNELS", "DEQUANT_GROUP",
    "DEQUANT_KERNELS", "FPA_INTB_DEQUANT", "KERNELS", "PRECOMPUTE", "QUANTIZE_STEP",
    "TENSOR_CORE_KERNELS", "KERNEL_LIBRARY", "Kernel", "Quant", "Setup", "kernel_record",
    "WORK", "candidates", "check_kernel_accumulate",
    "default_lut_bits", "dram_traffic", "expected_bank_conflict", "gemm_latency", "group_bytes",
    "hardware",
    "is_lut_kernel",
    "lut_precompute_adds", "lut_table_bytes", "memory_seconds", "peak_ops", "precompute_seconds",
    "precompute_work", "quantize_seconds", "tile_occupancy",
    "LLMS", "Gemm", "LLMShape", "layer_gemms", "llm_shape",
    "A100", "A100_PCIE", "ACCUMULATE", "GPUS", "H100", "H200", "INPUT_DATA", "INPUT_RATE",
    "LUT_ARRAY_1X",
    "LUT_SCALES", "RTX3090", "TENSOR_CORES_PER_SM", "GPUSpec", "gpu_spec", "gpus_with",
    "with_double_registers",
    "with_lut_tensor_core",
    "GemmLatency", "Hardware", "Occupancy", "Work", "cutlass_heuristic", "tile_model",
]

# end-to-end simulator
from ._frameworks import FRAMEWORKS, Framework
from ._operators import (
                       ATTENTION,
                       DEPLOYMENTS,
                       KV_BYTES,
                       PRECOMPUTE_TREATMENTS,
                       Deployment,
                       Operator,
                       Shapes,
                       Workload,
                       attention_operators,
                       edge_operators,
                       layer_operators,
                       shapes,
                       workload,
)
from ._simulator import (
                       FP16_KERNEL,
                       SIMULATED_KERNELS,
                       Machine,
                       all_reduce_seconds,
                       host_seconds,
                       latency_sweep,
                       layer_breakdown,
                       layer_latency,
                       machine,
                       model_breakdown,
                       model_latency,
                       price,
)

__all__ += [
    "FRAMEWORKS", "Framework", "DEPLOYMENTS",
    "ATTENTION", "KV_BYTES", "PRECOMPUTE_TREATMENTS", "Deployment", "Operator", "Shapes",
    "Workload", "attention_operators", "edge_operators", "layer_operators", "shapes",
    "workload",
    "FP16_KERNEL", "SIMULATED_KERNELS", "Machine", "all_reduce_seconds", "host_seconds",
    "latency_sweep", "layer_breakdown", "layer_latency", "machine", "model_breakdown",
    "model_latency", "price",
]
