"""Emulation rate of the bit-exact fused operations (target: FP8->FP16 ExSdotp >= 20 M op/s),
and of rounding float values into a format (``nm.round_float`` against the bit-level
``to_float64(from_float64(x))``, which it equals).

Run:  python benchmarks/bench_exsdotp.py [--n 4194304] [--repeats 5]
Prints one line per operation: million operations (values) per second, best of the repeats,
jitted, inputs already on the device (compile time excluded).
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


ROUNDINGS = {
    "round_float": jax.jit(nm.round_float, static_argnums=1),
    "bit-level": jax.jit(lambda x, fmt: nm.to_float64(nm.from_float64(x, fmt), fmt),
                         static_argnums=1),
}


def best_rate(call, n, repeats):
    """Million items per second of ``call()`` (n items), best of ``repeats`` after a first
    call that compiles."""
    call().block_until_ready()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        call().block_until_ready()
        best = min(best, time.perf_counter() - start)
    return n / best / 1e6


def rate(op, src, dst, n, repeats, rng):
    src, dst = nm.FORMATS[src], nm.FORMATS[dst]
    n_src = 4 if op == "exsdotp" else 2
    ops = [jax.device_put(rng.integers(0, 1 << src.width, n).astype(src.dtype))
           for _ in range(n_src)]
    ops.append(jax.device_put(rng.integers(0, 1 << dst.width, n).astype(dst.dtype)))
    fn = getattr(nm, op)
    return best_rate(lambda: fn(*ops, src=src, dst=dst), n, repeats)


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
    x = jax.device_put(rng.standard_normal(args.n))
    for name, fn in ROUNDINGS.items():
        mvals = best_rate(lambda fn=fn: fn(x, "fp16"), args.n, args.repeats)
        print(f"{name:11s} float64 -> fp16 {mvals:8.1f} M values/s")


if __name__ == "__main__":
    main()
