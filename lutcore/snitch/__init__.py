"""Snitch cluster cycle model and functional execution of the MiniFloat-NN GEMM kernels.

``kernel_profile`` gives cycles, FLOP, instruction mix and scratchpad fit of a kernel on an
M x N x K GEMM (paper Sec. IV, Table II, Fig. 8); ``run_gemm`` executes the same kernel's
instruction sequence bit-exactly through ``lutcore.numerics``.
"""

from lutcore import _face

from ._cluster import CLASSES, FPU_CLASSES, SNITCH_CLUSTER, Cluster
from ._functional import GemmResult, run_gemm
from ._kernels import (
    KERNEL_SPECS,
    KERNELS,
    Frep,
    Instr,
    KernelSpec,
    block_program,
    check_gemm,
    fits_scratchpad,
    footprint_bytes,
    kernel_spec,
)
from ._timing import Profile, kernel_profile

__all__ = _face.public(globals())
