"""Speed of the lutcore.ppa design-space sweep (target: >= 1 M design points/s on 2 cores; the
full Fig. 14 sweep in under a second once compiled).

Run:  python benchmarks/bench_ppa.py [--points 1000000]
Prints the time of the Fig. 14 sweep (55 shapes x 12 panels x 3 methods, jitted per method and
format, compilation excluded), the rate on a large random design space, and the same sweep as
the experiments run it (eager, one call per design), unconstrained and closed at 1 GHz in each
cell library.
"""

import argparse
import itertools
import time

import jax
import numpy as np

import lutcore.ppa as ppa

PANELS = [(a, w) for a in ("fp16", "int16", "fp8", "int8") for w in ("int1", "int2", "int4")]
METHODS = ("mac", "add", "lut_tensor_core")


def priced(method, act, weight):
    """A jitted area/power/delay function of (m, n, k) arrays for one method and format."""
    def figures(m, n, k):
        cost = ppa.tensor_core(method, act, weight, m, n, k)
        return ppa.metrics(cost)
    return jax.jit(figures)


def best_of(calls):
    best = np.inf
    for _ in range(3):
        start = time.perf_counter()
        calls()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=1_000_000)
    args = parser.parse_args()
    fns = {(m, a, w): priced(m, a, w) for a, w in PANELS for m in METHODS}
    shapes = ppa.power_of_two_shapes(512).astype(float).T
    sweep = lambda: [jax.block_until_ready(f(*shapes)) for f in fns.values()]
    sweep()  # compile
    seconds = best_of(sweep)
    points = len(fns) * shapes.shape[1]
    print(f"Fig. 14 sweep: {points} design points in {seconds * 1e3:.1f} ms "
          f"({points / seconds / 1e6:.2f} M points/s), {jax.devices()[0]}")
    rng = np.random.default_rng(0)
    m, n, k = (2.0 ** rng.integers(0, 7, args.points) for _ in range(3))
    f = fns[("lut_tensor_core", "fp16", "int2")]
    jax.block_until_ready(f(m, n, k))
    seconds = best_of(lambda: jax.block_until_ready(f(m, n, k)))
    print(f"random design space: {args.points} LUT Tensor Core points in {seconds:.3f} s "
          f"({args.points / seconds / 1e6:.2f} M points/s)")
    for library in ppa.LIBRARY_NAMES:
        for clock in (None, 1.0):
            def eager(library=library, clock=clock):
                for method, (act, weight) in itertools.product(METHODS, PANELS):
                    ppa.metrics(ppa.tensor_core(method, act, weight, *shapes, library=library,
                                                clock_ghz=clock))
            eager()  # warm up
            seconds = best_of(eager)
            print(f"Fig. 14 sweep eager, {library}, "
                  f"{'closed at 1 GHz' if clock else 'unconstrained'}: {seconds:.2f} s "
                  f"({points / seconds / 1e3:.1f} k points/s)")


if __name__ == "__main__":
    main()
