"""Measure GEMMs, a W4A16 GEMM and one decoder layer on the local GPU through JAX, and write
them in the schema of experiments/reference/measured/ (a validation set for ``lut-fig16``).

What it times (each a jitted function; median of ``--repeats`` host-timed calls after warm-up,
with the host cost of one dispatch of a trivial jitted function measured the same way and
stored as ``host_overhead_s``, the protocol of the LLMCompass set):

- dense GEMMs C[m, n] = A[m, k] W[n, k]^T in FP16, BF16, FP8 (E4M3, BF16 output; Hopper and
  newer) and INT8 (INT32 output), M from 1 to 16384, four LLaMA-like (N, K);
- a W4A16-style GEMM: INT4 weights packed two per byte with one BF16 scale per 128 weights,
  unpacked and scaled, then a BF16 GEMM, all in one jitted function (XLA fuses what it can);
- one LLaMA-2-7B decoder layer (RMSNorm, fused QKV, rotary, causal attention, output, SwiGLU
  FFN, residuals) at prefill (batch 1, 2048 tokens) and decode (batch 16, 1 token, 2048 cached).

Needs nothing beyond JAX with CUDA (``pip install -U "jax[cuda12]"``); takes under 5 minutes
on one GPU. ``--dry-run`` runs on the CPU with tiny shapes and writes the same schema (the
tests run it). Usage:

    python benchmarks/measure_gpu.py --out experiments/reference/measured/jax_h200.yaml
    python benchmarks/measure_gpu.py --dry-run --out /tmp/jax_dry_run.yaml
"""

from __future__ import annotations

import argparse
import functools
import pathlib
import statistics
import subprocess
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import yaml

GEMM_M = (1, 4, 16, 64, 256, 1024, 4096, 16384)
GEMM_NK = ((4096, 4096), (11008, 4096), (4096, 11008), (8192, 8192))
FORMATS = ("fp16", "bf16", "fp8", "int8")
LAYER = {"hidden": 4096, "ffn": 11008, "heads": 32, "kv_heads": 32, "layers": 1,
         "vocab": 32000, "gated": True, "rotary": True}  # LLaMA-2-7B
PHASES = ((1, 2048, 2048), (16, 1, 2048))  # (batch, new tokens, context)
DRY = {"m": (1,), "nk": ((64, 256),), "layer": {**LAYER, "hidden": 64, "ffn": 128, "heads": 4,
                                                  "kv_heads": 4, "vocab": 100},
       "phases": ((1, 8, 8), (2, 1, 8))}
GROUP = 128  # weights per BF16 scale of the W4A16 GEMM
DEVICES = {"h200": "h200", "h100": "h100", "a100": "a100", "rtx 3090": "rtx3090"}


def device_key(kind: str) -> str:
    """lutcore.gpu's name of a device kind ("NVIDIA H200" -> "h200"); the kind itself if none."""
    lowered = kind.lower()
    return next((key for name, key in DEVICES.items() if name in lowered), lowered)


def nvidia_smi() -> dict:
    """Driver, clocks and power limit from nvidia-smi (empty without it)."""
    fields = "name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit"
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    return dict(zip(fields.split(","), (v.strip() for v in out.splitlines()[0].split(","))))


def seconds(fn, *args, repeats: int) -> float:
    """Median host seconds of ``fn(*args)`` to completion, after two warm-up calls."""
    for _ in range(2):
        jax.block_until_ready(fn(*args))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def operands(fmt: str, m: int, n: int, k: int, key):
    ka, kw = jax.random.split(key)
    a = jax.random.normal(ka, (m, k), jnp.float32)
    w = jax.random.normal(kw, (n, k), jnp.float32)
    if fmt == "int8":
        return (jnp.clip(a * 32, -127, 127).astype(jnp.int8),
                jnp.clip(w * 32, -127, 127).astype(jnp.int8))
    dtype = {"fp16": jnp.float16, "bf16": jnp.bfloat16, "fp8": jnp.float8_e4m3fn}[fmt]
    return a.astype(dtype), w.astype(dtype)


def gemm_fn(fmt: str):
    out = {"int8": jnp.int32, "fp8": jnp.bfloat16}.get(fmt)
    return jax.jit(lambda a, w: jax.lax.dot_general(
        a, w, (((1,), (1,)), ((), ())), preferred_element_type=out))


@jax.jit
def w4a16(a, packed, scales):
    """Unpack two INT4 weights per byte, scale per group, BF16 GEMM."""
    low = (packed & 0xF).astype(jnp.int8) - 8
    high = (packed >> 4).astype(jnp.int8) - 8
    w = jnp.stack([low, high], axis=-1).reshape(packed.shape[0], -1).astype(jnp.bfloat16)
    w = (w.reshape(w.shape[0], -1, GROUP) * scales[..., None]).reshape(w.shape)
    return jax.lax.dot_general(a, w, (((1,), (1,)), ((), ())))


def rope(x, positions):
    half = x.shape[-1] // 2
    freq = 1.0 / 10000 ** (jnp.arange(half) / half)
    angle = positions[:, None] * freq[None, :]
    cos, sin = jnp.cos(angle)[:, None, :], jnp.sin(angle)[:, None, :]
    x1, x2 = x[..., :half], x[..., half:]
    return jnp.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1).astype(x.dtype)


def rms_norm(x, weight):
    x32 = x.astype(jnp.float32)
    return (x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True) + 1e-5)
            * weight).astype(x.dtype)


@functools.partial(jax.jit, static_argnames=("heads",))
def decoder_layer(x, cache_k, cache_v, params, *, heads: int):
    """One pre-norm LLaMA layer: x [batch, tokens, hidden], cache [batch, context - tokens,
    heads, head_dim] (the tokens before the new ones)."""
    batch, tokens, hidden = x.shape
    head_dim = hidden // heads
    h = rms_norm(x, params["norm1"])
    qkv = (h @ params["wqkv"]).reshape(batch, tokens, 3, heads, head_dim)
    positions = cache_k.shape[1] + jnp.arange(tokens, dtype=jnp.float32)
    q, k, v = rope(qkv[:, :, 0], positions), rope(qkv[:, :, 1], positions), qkv[:, :, 2]
    k = jnp.concatenate([cache_k, k], axis=1)
    v = jnp.concatenate([cache_v, v], axis=1)
    attention = jax.nn.dot_product_attention(q, k, v, is_causal=tokens > 1)
    x = x + attention.reshape(batch, tokens, hidden) @ params["wo"]
    h = rms_norm(x, params["norm2"])
    gate, up = jnp.split(h @ params["wup"], 2, axis=-1)
    return x + (jax.nn.silu(gate) * up) @ params["wdown"]


def layer_params(shape: dict, key):
    hidden, ffn = shape["hidden"], shape["ffn"]
    keys = jax.random.split(key, 4)

    def weight(k, rows, cols):
        return (jax.random.normal(k, (rows, cols), jnp.float32) / np.sqrt(rows)).astype(
            jnp.bfloat16)
    return {"norm1": jnp.ones(hidden, jnp.bfloat16), "norm2": jnp.ones(hidden, jnp.bfloat16),
            "wqkv": weight(keys[0], hidden, 3 * hidden), "wo": weight(keys[1], hidden, hidden),
            "wup": weight(keys[2], hidden, 2 * ffn), "wdown": weight(keys[3], ffn, hidden)}


def measure(dry_run: bool, repeats: int, log=print) -> dict:
    """Every measurement, as a dict in the measured/ schema."""
    device = jax.devices()[0]
    fmts = FORMATS if device.platform == "gpu" else ("bf16", "int8")
    sizes_m, sizes_nk = (DRY["m"], DRY["nk"]) if dry_run else (GEMM_M, GEMM_NK)
    key = jax.random.PRNGKey(0)
    dispatch = seconds(jax.jit(lambda x: x + 1), jnp.zeros(()), repeats=repeats)
    sets = []
    for fmt in fmts:
        fn, points = gemm_fn(fmt), []
        for (n, k), m in ((nk, m) for nk in sizes_nk for m in sizes_m):
            try:
                points.append([m, n, k, seconds(fn, *operands(fmt, m, n, k, key),
                                                repeats=repeats)])
            except Exception as error:  # a format this device's XLA cannot run
                log(f"skip {fmt} {m}x{n}x{k}: {type(error).__name__}")
                break
        if points:
            sets.append({"name": f"JAX {fmt.upper()} GEMM", "kind": "gemm", "act": fmt,
                         "host_overhead": "dispatch", "columns": ["m", "n", "k", "seconds"],
                         "points": points})
            log(f"{fmt}: {len(points)} GEMMs")
    points = []
    for (n, k), m in ((nk, m) for nk in sizes_nk for m in sizes_m):
        a = jax.random.normal(key, (m, k), jnp.float32).astype(jnp.bfloat16)
        packed = jax.random.randint(key, (n, k // 2), 0, 256, jnp.int32).astype(jnp.uint8)
        scales = jnp.ones((n, k // GROUP), jnp.bfloat16)
        points.append([m, n, k, seconds(w4a16, a, packed, scales, repeats=repeats)])
    sets.append({"name": "JAX W4A16 dequantize-then-GEMM", "kind": "gemm", "kernel": "dequant",
                 "act": "bf16", "weight_bits": 4, "host_overhead": "dispatch",
                 "columns": ["m", "n", "k", "seconds"], "points": points})
    shape = DRY["layer"] if dry_run else LAYER
    params = layer_params(shape, key)
    head_dim = shape["hidden"] // shape["heads"]
    points = []
    for batch, tokens, context in (DRY["phases"] if dry_run else PHASES):
        x = jnp.zeros((batch, tokens, shape["hidden"]), jnp.bfloat16)
        cache = jnp.zeros((batch, context - tokens, shape["heads"], head_dim), jnp.bfloat16)
        points.append([batch, tokens, context, seconds(
            functools.partial(decoder_layer, heads=shape["heads"]), x, cache, cache, params,
            repeats=repeats)])
    sets.append({"name": "JAX LLaMA-2-7B layer", "kind": "layer", "model": shape,
                 "deployment": {"activation": "bf16", "weight_bits": 16},
                 "host_overhead": "dispatch", "columns": ["batch", "tokens", "context",
                                                          "seconds"], "points": points})
    smi = nvidia_smi()
    return {
        "source": f"benchmarks/measure_gpu.py@{git_commit()}",
        "citation": "lutcore benchmarks/measure_gpu.py (JAX), run on this device",
        "role": "validation",
        "device": device_key(device.device_kind),
        "form_factor": smi.get("name", device.device_kind),
        "protocol": {"timing": "host",
                     "method": "median of host-timed calls of a jitted function to completion "
                               "(jax.block_until_ready) after 2 warm-up calls; host cost of one "
                               "dispatch measured on a trivial jitted function",
                     "dtype": ", ".join(fmts) + ", W4A16, bf16 layer",
                     "library": f"JAX {jax.__version__} / XLA ({device.platform})",
                     "driver": smi.get("driver_version", "n/a"),
                     "clocks": (f"SM {smi['clocks.sm']} (max {smi['clocks.max.sm']}), memory "
                                f"{smi['clocks.mem']}, power limit {smi['power.limit']}"
                                if smi else "n/a"),
                     "dry_run": dry_run},
        "host_overhead_s": {"dispatch": dispatch},
        "sets": sets}


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True, cwd=pathlib.Path(__file__).parent).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--dry-run", action="store_true",
                        help="CPU, tiny shapes: checks the harness and its output schema")
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args(argv)
    if args.dry_run:
        jax.config.update("jax_platforms", "cpu")
    elif jax.devices()[0].platform != "gpu":
        print("no GPU visible to JAX; use --dry-run on a CPU", file=sys.stderr)
        return 2
    data = measure(args.dry_run, args.repeats or (3 if args.dry_run else 20))
    args.out.write_text("# Written by benchmarks/measure_gpu.py; see its docstring.\n"
                        + yaml.safe_dump(data, sort_keys=False, width=100,
                                         default_flow_style=None))
    print(f"wrote {args.out}: {sum(len(s['points']) for s in data['sets'])} measurements")
    return 0


if __name__ == "__main__":
    sys.exit(main())
