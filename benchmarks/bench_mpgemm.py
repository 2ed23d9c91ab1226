"""Speed of lutcore.lut.mpgemm on a large GEMM (target: a 4096^3 GEMM in seconds on 2 cores).

Run:  python benchmarks/bench_mpgemm.py [--size 4096] [--repeats 2]
Prints one line per (weight bits, tables): seconds of the best call (compilation excluded) and
the rate in lookups per second (M * N * Ktot/k * w_bits lookups through symmetric K=4 tables).
"""

import argparse
import functools
import time

import jax
import numpy as np

import lutcore.lut as lut


def _mpgemm_blocking(a, w, w_bits, table_bits):
    """One mpgemm call with zero point (2^w_bits - 1)/2, waiting for the result."""
    return lut.mpgemm(a, w, w_bits=w_bits, zero=((1 << w_bits) - 1) / 2,
                      table_bits=table_bits).block_until_ready()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4096, help="M = N = Ktot")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    n = args.size
    rng = np.random.default_rng(0)
    a = jax.device_put(rng.standard_normal((n, n)).astype(np.float16))
    print(f"mpgemm {n}x{n}x{n}, FP16 activations, symmetric K=4 tables, {jax.devices()[0]}")
    for w_bits in (1, 2, 4):
        w = jax.device_put(rng.integers(0, 1 << w_bits, (n, n)).astype(np.uint8))
        for table_bits in (None, 8):
            call = functools.partial(_mpgemm_blocking, a, w, w_bits, table_bits)
            call()  # compile
            best = float("inf")
            for _ in range(args.repeats):
                start = time.perf_counter()
                call()
                best = min(best, time.perf_counter() - start)
            lookups = n * n * (n // 4) * w_bits
            tables = "exact" if table_bits is None else f"INT{table_bits}"
            print(f"  W_INT{w_bits} tables {tables:5s}: {best:6.2f} s  "
                  f"({lookups / best / 1e9:.1f} G lookups/s)", flush=True)


if __name__ == "__main__":
    main()
