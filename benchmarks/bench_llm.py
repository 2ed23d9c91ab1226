"""SmolLM2-135M through lutcore.llm: weight preparation and tokens per second per GEMM path.

Run:  python benchmarks/bench_llm.py [--window 512] [--paths dense-fp16 lut-int8]
Prints, per path (float64, as lut-table5 runs them): the seconds to prepare the weights
(dequantize, or build the LUT selection tensors) and tokens/s over one window once compiled.
The model is cached in results/.cache as the pipeline does.
"""

import argparse
import time

import jax
import numpy as np

import lutcore.llm as llm


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=int, default=512)
    parser.add_argument("--paths", nargs="+", default=["dense-fp16", "lut-exact", "lut-int8"],
                        choices=list(llm.GEMM_PATHS))
    args = parser.parse_args()
    checkpoint = llm.load_checkpoint(llm.smollm2_gguf(), "results/.cache")
    ids = checkpoint.tokenizer().encode(llm.kjv_text(("John",))).ids
    window = llm.token_windows(ids, args.window, 1)
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}, window {args.window} tokens")
    prepared = {}
    for name in args.paths:
        path = llm.gemm_path(name)
        start = time.perf_counter()
        if path.lut not in prepared:
            prepared = {path.lut: llm.prepare(checkpoint, path, dtype=np.float64)}
            jax.block_until_ready(prepared[path.lut].params)
        prepare = time.perf_counter() - start
        model = llm.with_path(prepared[path.lut], path)
        llm.score_windows(model, window)  # compile
        start = time.perf_counter()
        llm.score_windows(model, window)
        rate = window.size / (time.perf_counter() - start)
        print(f"{name:15s} prepare {prepare:5.1f} s   {rate:6.0f} tokens/s")


if __name__ == "__main__":
    main()
