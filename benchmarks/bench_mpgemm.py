"""Speed of lutcore.lut.mpgemm on a large GEMM, against dense matmuls of the same shape.

Run:  python benchmarks/bench_mpgemm.py [--size 4096] [--repeats 2]
Prints the best of ``repeats`` calls (compilation excluded) of, per weight width and table kind:
``mpgemm`` (prepare the weights, then tables and lookups), the prepared lookups alone
(``apply_weights``: what a model pays per input, its weights prepared once) and the ratio of
each to a dense float32 and a dense float64 matmul [M, K] @ [K, N] (M = N = Ktot = size).
Exact tables: per span of exactly summed lookups (512 activations here: one scale for all of K)
one float64 product of the activations with the lookups' integer weights, the dense depth,
then the scale and zero point span by span. INT8 tables: one float64 product of the tables
[M, G*E] with the selection tensor [G*E, N]; symmetric K=4 tables have E = 8 entries per 4
activations, twice the dense depth, in float64 (half float32's rate): about 4x a dense float32
matmul is what a dense product can do with them.
"""

import argparse
import functools
import time

import jax
import jax.numpy as jnp
import numpy as np

import lutcore.lut as lut


def _best(call, repeats):
    jax.block_until_ready(call())  # compile
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(call())
        best = min(best, time.perf_counter() - start)
    return best


@jax.jit
def _matmul(a, b):
    return a @ b


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4096, help="M = N = Ktot")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    n = args.size
    rng = np.random.default_rng(0)
    a = jax.device_put(rng.standard_normal((n, n)).astype(np.float16))
    b = rng.standard_normal((n, n))
    dense = {dtype: _best(functools.partial(_matmul, a.astype(dtype), jnp.asarray(b, dtype)),
                          args.repeats) for dtype in (jnp.float32, jnp.float64)}
    print(f"mpgemm {n}x{n}x{n}, FP16 activations, symmetric K=4 tables, {jax.devices()[0]}")
    print(f"  dense matmul float32: {dense[jnp.float32]:6.2f} s, float64: "
          f"{dense[jnp.float64]:6.2f} s")
    for w_bits in (1, 2, 4):
        w = jax.device_put(rng.integers(0, 1 << w_bits, (n, n)).astype(np.uint8))
        zero = ((1 << w_bits) - 1) / 2
        prepared = lut.prepare_weights(w, lut.make_scheme("symmetric", 4, w_bits), zero=zero)
        for table_bits in (None, 8):
            whole = _best(functools.partial(lut.mpgemm, a, w, w_bits=w_bits, zero=zero,
                                            table_bits=table_bits), args.repeats)
            lookups = _best(functools.partial(lut.apply_weights, a, prepared,
                                              table_bits=table_bits), args.repeats)
            tables = "exact" if table_bits is None else f"INT{table_bits}"
            print(f"  W_INT{w_bits} tables {tables:5s}: mpgemm {whole:6.2f} s "
                  f"({whole / dense[jnp.float32]:4.1f}x float32, "
                  f"{whole / dense[jnp.float64]:4.1f}x float64); prepared lookups {lookups:6.2f} s "
                  f"({lookups / dense[jnp.float32]:4.1f}x float32, "
                  f"{lookups / dense[jnp.float64]:4.1f}x float64)", flush=True)


if __name__ == "__main__":
    main()
