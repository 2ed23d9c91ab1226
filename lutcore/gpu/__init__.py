"""GPU performance models (LUT Tensor Core §4.3-4.5): datasheet specs of A100, RTX 3090, H100
and H200 with LUT Tensor Core and double-register (DRM) variants and measured achievable rates,
public LLM shapes, the tile-level latency model of GEMM / mpGEMM kernels (cuBLAS/CUTLASS-like,
dequantization, LUT-GEMM software, LUT Tensor Core) and the end-to-end simulator.

``gemm_latency(gpu, kernel, m, n, k, ...)`` (its weights a ``Quant``, its set-up a ``Setup``,
the kernel a name or a ``Kernel``) and ``model_latency(gpu, llm, deployment, work)`` are the
entry points; ``latency_sweep`` and ``layer_breakdown`` price many systems or one layer's
operators. The building blocks (``blocks``: the kernel library and its tables, the tile model,
the operators, per-format constants) compose new models and stay reachable as ``gpu.<name>``.
"""

from lutcore import _face

# The face: what a caller needs to price a GEMM or a model (the entry points, the records they
# take, the named specs and the registries that name them), at most 25 names; every other
# name (a table, a constant, a step of a model) is imported in blocks.py instead.
from . import blocks
from ._kernels import gemm_latency
from ._library import Kernel, Quant, Setup
from ._llms import LLMS, LLMShape, llm_shape
from ._operators import DEPLOYMENTS, Deployment, workload
from ._simulator import latency_sweep, layer_breakdown, model_latency
from ._specs import (
    A100,
    A100_PCIE,
    GPUS,
    H100,
    H200,
    RTX3090,
    GPUSpec,
    gpu_spec,
    gpus_with,
    with_double_registers,
    with_lut_tensor_core,
)

__all__ = _face.public(globals())
__getattr__ = _face.forward(__name__, blocks)  # gpu.ACT_BYTES, gpu.tile_occupancy still work
