"""GEMM sizes as the MiniFloat-NN paper names them, shared by mfnn-table2 and mfnn-memory.

A size "R x K" (e.g. "128x256") is read as: A is R x K and B, stored transposed as the Snitch
kernels read it, is R x K too, so C = A B^T is R x R (M = N = R, inner dimension K). Square
sizes "n x n" are then n x n x n GEMMs. The paper does not spell its convention out; this one
makes every size it names a GEMM whose two input matrices have the named shape.
"""

from __future__ import annotations

import lutcore.snitch as snitch
from experiments import ConfigError, check_choice


def parse_size(size: str) -> tuple[int, int, int]:
    """(M, N, K) of a size "RxK"; ConfigError otherwise."""
    parts = size.lower().split("x")
    if len(parts) != 2 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise ConfigError(f"sizes: {size!r} is not of the form 'RxK' with positive integers "
                          "(e.g. '128x256')")
    rows, depth = map(int, parts)
    return rows, rows, depth


def check_sizes(sizes: tuple[str, ...], kernels: tuple[str, ...]) -> None:
    """Every kernel is known, every size parses and every kernel runs every size."""
    check_choice("kernels", kernels, tuple(snitch.KERNELS))
    if len(set(sizes)) != len(sizes) or len(set(kernels)) != len(kernels):
        raise ConfigError(f"sizes/kernels: duplicates in {sizes} / {kernels}")
    for size in sizes:
        for kernel in kernels:
            try:
                snitch.check_gemm(kernel, *parse_size(size))
            except ValueError as err:
                raise ConfigError(f"sizes: {size}: {err}") from None
