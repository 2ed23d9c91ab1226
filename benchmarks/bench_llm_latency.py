"""Speed of the end-to-end LLM latency simulator (target: the whole Fig. 17 sweep in <= 5 s on
2 cores).

Run:  python benchmarks/bench_llm_latency.py
Prints the time of the full lut-fig17 sweep (GPUs x weight widths x systems x models x
workloads through ``lutcore.gpu.latency_sweep``: one jit-compiled, vmapped evaluation per
operator graph), first call (compilation included) and best of three later calls, and the
time of one single-configuration ``model_latency`` call; then the sweep again with a
framework's per-layer costs (lut-fig17 runs both; the same compiled graphs).
"""

import time

import jax

import lutcore.gpu as gpu
from experiments import get

FIG17 = get("lut-fig17").module


def timed(call):
    start = time.perf_counter()
    jax.block_until_ready(call())
    return time.perf_counter() - start


def main():
    configs, llms, work = FIG17.sweep_inputs(FIG17.Config())
    sweep = lambda: gpu.latency_sweep(configs, llms, work)  # noqa: E731
    first = timed(sweep)
    steady = min(timed(sweep) for _ in range(3))
    points = len(configs) * len(llms) * work.batch.size
    print(f"Fig. 17 sweep: {len(configs)} GPU/kernel configs x {len(llms)} models x "
          f"{work.batch.size} workloads = {points} model latencies")
    print(f"  first call (incl. compilation): {first:.2f} s; later calls: {steady * 1e3:.0f} ms "
          f"({jax.devices()[0]})")
    framed = timed(lambda: FIG17._latency(FIG17.Config(), FIG17.FRAMEWORK))
    print(f"  the same sweep with {FIG17.FRAMEWORK}'s costs (its graphs compiled): "
          f"{framed:.2f} s")
    one = lambda: gpu.model_latency(gpu.A100, gpu.LLMS["llama2-70b"], gpu.Deployment(),  # noqa
                                    gpu.workload(1, 2048))
    timed(one)
    print(f"  one model_latency call (compiled): {min(timed(one) for _ in range(3)) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
