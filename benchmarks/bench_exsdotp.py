"""Emulation rate of the bit-exact fused operations (target: FP8->FP16 ExSdotp >= 20 M op/s).

Run:  python benchmarks/bench_exsdotp.py [--n 4194304] [--repeats 5]
Prints one line per operation: million operations per second, best of the repeats, jitted,
inputs already on the device (compile time excluded).
"""

import argparse
import time

import jax
import numpy as np

import lutcore.numerics as nm

CASES = [
    ("exsdotp", "fp8", "fp16"), ("exsdotp", "fp8alt", "fp16alt"), ("exsdotp", "fp16", "fp32"),
    ("exsdotp", "fp8", "fp32"), ("exfma", "fp8", "fp16"), ("exfma", "fp16", "fp32"),
]


def rate(op, src, dst, n, repeats, rng):
    src, dst = nm.FORMATS[src], nm.FORMATS[dst]
    n_src = 4 if op == "exsdotp" else 2
    ops = [jax.device_put(rng.integers(0, 1 << src.width, n).astype(src.dtype))
           for _ in range(n_src)]
    ops.append(jax.device_put(rng.integers(0, 1 << dst.width, n).astype(dst.dtype)))
    fn = getattr(nm, op)
    fn(*ops, src=src, dst=dst).block_until_ready()  # compile
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*ops, src=src, dst=dst).block_until_ready()
        best = min(best, time.perf_counter() - start)
    return n / best / 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 22, help="operations per call")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}, n = {args.n}")
    for op, src, dst in CASES:
        mops = rate(op, src, dst, args.n, args.repeats, rng)
        print(f"{op:8s} {src:>8s} -> {dst:<8s} {mops:8.1f} M op/s")


if __name__ == "__main__":
    main()
