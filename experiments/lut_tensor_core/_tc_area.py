"""Tensor-core array area per SM for the GPU experiments (Fig. 17, Table 1), from lutcore.ppa.

A GPU SM holds ``TENSOR_CORES_PER_SM`` arrays; each is priced by ``lutcore.ppa.tensor_core`` at
its best power-of-two M x N x K shape of the given size (min area x power, as the paper's DSE,
Fig. 14), at 28nm and the paper's normalization clock (Table 1: 1.41 GHz).
"""

from __future__ import annotations

import functools

import lutcore.gpu as gpu
import lutcore.ppa as ppa

NODE, CLOCK_GHZ = "28nm", 1.41  # Table 1 footnote: normalized to 28nm at 1.41 GHz


@functools.lru_cache(maxsize=None)
def array_metrics(method: str, act: str, weight: str, sizes: tuple[int, ...]) -> tuple:
    """For each array size M N K in ``sizes``, its best-shape array (``lutcore.ppa.best_arrays``):
    a dict {'shape', 'area' mm^2, 'power' mW, 'delay', 'throughput', 'density', 'efficiency'}
    (ppa.metrics units) at 28nm / 1.41 GHz."""
    best = ppa.best_arrays(method, act, weight, sizes, node=NODE, freq_ghz=CLOCK_GHZ)
    return tuple({"shape": b.shape, **b.metrics} for b in best)


def sm_arrays(method: str, act: str, weight: str, macs_per_sm) -> list[dict]:
    """The best array of each SM size in ``macs_per_sm`` (MACs, or LUT lookups, per clock per
    SM, shared by ``TENSOR_CORES_PER_SM`` arrays), with 'sm_area' (mm^2 of the SM's arrays)."""
    per_core = tuple(int(m) // gpu.TENSOR_CORES_PER_SM for m in macs_per_sm)
    return [{**a, "sm_area": a["area"] * gpu.TENSOR_CORES_PER_SM}
            for a in array_metrics(method, act, weight, per_core)]
