"""The building blocks of ``lutcore.gpu``: per-format byte widths and tensor-core constants,
the kernel library (its records by name, kernel groups and per-kernel work) and the tile model's
pieces (candidate tiles, occupancy, DRAM traffic, precompute and quantize steps), the LLM's GEMMs,
and the end-to-end simulator's operators, machine and pricing steps.
"""

from lutcore import _face

from ._flash import FLASH_ATTENTION_2, FlashKernel
from ._frameworks import FRAMEWORKS, TENSORRT_LLM_HOPPER, Framework, engine_profile_rows
from ._kernels import (
    ACCUMULATOR_BYTES,
    ACT_BYTES,
    candidates,
    check_kernel_accumulate,
    default_lut_bits,
    dram_traffic,
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
    OUTPUT_BYTES,
    PRECOMPUTE,
    QUANTIZE_STEP,
    TENSOR_CORE_KERNELS,
    WORK,
    expected_bank_conflict,
    kernel_record,
)
from ._llms import Gemm, layer_gemms
from ._operators import (
    ATTENTION,
    KV_BYTES,
    PRECOMPUTE_TREATMENTS,
    Operator,
    Shapes,
    Workload,
    attention_operators,
    edge_operators,
    layer_operators,
    shapes,
)
from ._simulator import (
    FP16_KERNEL,
    SIMULATED_KERNELS,
    Machine,
    all_reduce_seconds,
    host_seconds,
    layer_latency,
    machine,
    model_breakdown,
    price,
)
from ._specs import (
    ACCUMULATE,
    INPUT_DATA,
    INPUT_RATE,
    LUT_ARRAY_1X,
    LUT_SCALES,
    TENSOR_CORES_PER_SM,
)
from ._tiles import GemmLatency, Hardware, Occupancy, Work, cutlass_heuristic, tile_model

__all__ = _face.public(globals())
