"""Design-space exploration over tensor-core shapes (LUT Tensor Core §4.2.2, Fig. 14)."""

from __future__ import annotations

import numpy as np


def power_of_two_shapes(total: int, *, k_max: int | None = None) -> np.ndarray:
    """Every (M, N, K) of powers of two with M * N * K = total (and K <= k_max): [S, 3] ints.

    The paper sweeps MNK = 512, the A100 INT8 tensor core's M8 N4 K16 (§4.2.2)."""
    if total < 1 or total & (total - 1):
        raise ValueError(f"total must be a power of two, got {total}")
    e = total.bit_length() - 1
    shapes = [(1 << i, 1 << j, 1 << (e - i - j)) for i in range(e + 1) for j in range(e + 1 - i)]
    if k_max is not None:
        shapes = [s for s in shapes if s[2] <= k_max]
    return np.array(shapes, dtype=np.int64)


def best_index(objective, feasible=None) -> int:
    """Index of the smallest objective (e.g. area x power) among the feasible points; ties go to
    the first (shapes are listed in a fixed order)."""
    values = np.asarray(objective, dtype=float)
    if feasible is not None:
        values = np.where(np.asarray(feasible), values, np.inf)
    if not np.isfinite(values).any():
        raise ValueError("no feasible design point")
    return int(np.argmin(values))
