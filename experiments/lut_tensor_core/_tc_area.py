"""Tensor-core array area per SM for the GPU experiments (Fig. 17, Table 1), from lutcore.ppa.

A GPU SM holds ``TENSOR_CORES_PER_SM`` arrays; each is priced by ``lutcore.ppa.tensor_core`` at
its best power-of-two M x N x K shape of the given size (min area x power, as the paper's DSE,
Fig. 14), at 28nm and the paper's normalization clock (Table 1: 1.41 GHz).
"""

from __future__ import annotations

import functools

import numpy as np

import lutcore.gpu as gpu
import lutcore.ppa as ppa

NODE, CLOCK_GHZ = "28nm", 1.41  # Table 1 footnote: normalized to 28nm at 1.41 GHz


@functools.lru_cache(maxsize=None)
def array_metrics(method: str, act: str, weight: str, sizes: tuple[int, ...]) -> tuple:
    """For each array size M N K in ``sizes``, its best-shape array: a dict {'shape', 'area'
    mm^2, 'power' mW, 'delay', 'throughput', 'density', 'efficiency'} (ppa.metrics units) at
    28nm / 1.41 GHz. One ppa evaluation prices every size's shapes together."""
    per_size = []
    for size in sizes:
        shapes = ppa.power_of_two_shapes(int(size))
        if method in ppa.LUT_METHODS:
            shapes = shapes[shapes[:, 2] <= 8]  # tables beyond 2^8 entries are not built
        per_size.append(shapes)
    everything = np.concatenate(per_size)
    cost = ppa.tensor_core(method, act, weight, everything[:, 0], everything[:, 1],
                           everything[:, 2])
    values = {f: np.asarray(v) for f, v in
              ppa.metrics(cost, node=NODE, freq_ghz=CLOCK_GHZ)._asdict().items()}
    out, start = [], 0
    for shapes in per_size:
        rows = slice(start, start + len(shapes))
        start += len(shapes)
        best = ppa.best_index(values["area"][rows] * values["power"][rows])
        out.append({"shape": tuple(int(x) for x in shapes[best]),
                    **{f: float(v[rows][best]) for f, v in values.items()}})
    return tuple(out)


def sm_arrays(method: str, act: str, weight: str, macs_per_sm) -> list[dict]:
    """The best array of each SM size in ``macs_per_sm`` (MACs, or LUT lookups, per clock per
    SM, shared by ``TENSOR_CORES_PER_SM`` arrays), with 'sm_area' (mm^2 of the SM's arrays)."""
    per_core = tuple(int(m) // gpu.TENSOR_CORES_PER_SM for m in macs_per_sm)
    return [{**a, "sm_area": a["area"] * gpu.TENSOR_CORES_PER_SM}
            for a in array_metrics(method, act, weight, per_core)]
