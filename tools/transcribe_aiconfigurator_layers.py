"""Transcribe aiconfigurator's attention and NCCL all-reduce tables into
experiments/reference/measured/.

NVIDIA's aiconfigurator (github.com/ai-dynamo/aiconfigurator) publishes, beside its GEMM tables
(tools/transcribe_aiconfigurator.py), per GPU:

- ``attention/trtllm/<version>/{context,generation}_attention_perf.parquet`` (columns batch_size,
  isl, num_heads, num_key_value_heads, head_dim, step, latency in ms, ...): TensorRT-LLM's
  PyTorch-flow ``Attention`` op (collector/trtllm/collect_attn.py): the fused QKV input
  (BF16, KV cache BF16, head_dim 128), its RoPE and KV-cache append and the FMHA (context:
  ``isl`` new tokens per sequence, nothing cached) or the generation kernel (one new token
  against ``step`` cached ones); ``benchmark_with_power``: warm-up, then the mean of timed runs.
  Its KV cache: ``CacheType.SELFKONLY`` (K-only pool, V's offsets on K's blocks) from the
  collector's first commit until dec5f4cd2 (2026-08-03, TensorRT-LLM 1.3.0rc20), so in every
  table transcribed here (A100 1.0.0, 2025-10; H100 / H200 1.2.0rc5, 2025-12): the sets'
  deployment says ``kv_pool: k_only`` (``lutcore.gpu.KV_POOLS``).
- ``comm/nccl/<version>/nccl_perf.parquet`` (num_gpus, message_size in elements, latency in ms):
  nccl-tests' ``all_reduce_perf`` on one node (collector/network/collect_nccl.py: ``-w 40 -n
  100`` (60 above 16 MiB), ``-c 0``, the out-of-place time, CUDA events around the loop);
  ``half`` rows: bytes = 2 x elements.

Roles fixed by issue 30 before any comparison: the A100 SXM and H100 SXM tables are
calibration, the H200 SXM tables validation. Usage: python
tools/transcribe_aiconfigurator_layers.py <aiconfigurator git dir> [--commit SHA] (nothing is
fetched; needs pyarrow, a tool-only dependency). Writes
aiconfigurator_attention_{a100,h100,h200}_sxm.yaml (BF16, KV cache BF16, head_dim 128, no
window; the head layouts of the models the experiments run: 32/32 (Llama-2-7B), 32/8
(Llama-3-8B), 64/8 (Llama-70B)) and
aiconfigurator_nccl.yaml / aiconfigurator_nccl_h200.yaml (every FP16 all-reduce of 2, 4 and 8
GPUs up to 128 MiB, the sizes a tensor-parallel layer all-reduces).
"""

from __future__ import annotations

import io
import subprocess

import pyarrow.parquet as pq
from snapshot import snapshot_args, write_measured

DATA = "aic-core/src/aiconfigurator_core/systems/data"
HEADS = ((32, 32), (32, 8), (64, 8))  # (num_heads, num_key_value_heads)
# (folder, version, lutcore device, role): roles fixed by issue 30 (H200: validation)
# H100: the release the H200 validation tables ran (1.2.0rc5), so the two Hopper sets differ
# by the GPU alone; chosen by GPU and version before any fit.
ATTENTION = (("a100_sxm", "trtllm/1.0.0", "a100", "calibration"),
             ("h100_sxm", "trtllm/1.2.0rc5", "h100", "calibration"),
             ("h200_sxm", "trtllm/1.2.0rc5", "h200", "validation"))
NCCL = {"calibration": (("a100_sxm", "nccl/2.27.3", "a100"), ("h100_sxm", "nccl/2.29.2", "h100")),
        "validation": (("h200_sxm", "nccl/2.29.2", "h200"),)}
MAX_BYTES = 128 * 2 ** 20
CITATION = "NVIDIA, aiconfigurator (ai-dynamo), per-GPU operator performance tables"


def table(gitdir: str, commit: str, path: str) -> dict:
    """The parquet file ``path`` at ``commit`` as a dict of columns."""
    blob = subprocess.run(["git", "--git-dir", gitdir, "show", f"{commit}:{path}"], check=True,
                          capture_output=True).stdout
    return pq.read_table(io.BytesIO(blob)).to_pydict()


def attention(gitdir: str, commit: str, folder: str, version: str, device: str,
              role: str) -> dict:
    sets = []
    for phase in ("context", "generation"):
        path = f"{DATA}/{folder}/attention/{version}/{phase}_attention_perf.parquet"
        cols = table(gitdir, commit, path)
        # BF16 attention and KV cache, head_dim 128, no sliding window
        rows = [r for r in zip(cols["batch_size"], cols["isl"], cols["step"], cols["num_heads"],
                               cols["num_key_value_heads"], cols["latency"], cols["head_dim"],
                               cols["attn_dtype"], cols["kv_cache_dtype"], cols["window_size"])
                if r[6:] == (128, "bfloat16", "bfloat16", 0)]
        for heads, kv_heads in HEADS:
            # context: isl new tokens attend to themselves; generation: 1 against step cached
            points = sorted({(b, isl, isl + step, round(float(ms), 6))
                             for b, isl, step, h, kv, ms, *_ in rows
                             if (h, kv) == (heads, kv_heads)})
            sets.append({"name": f"{phase} H{heads} KV{kv_heads}", "kind": "attention",
                         "file": path, "heads": heads, "kv_heads": kv_heads, "head_dim": 128,
                         "deployment": {"preset": "tensorrt_llm", "kv_pool": "k_only"},
                         "columns": ["batch", "tokens", "context", "ms"],
                         "points": [list(p) for p in points]})
    return {"source": f"ai-dynamo/aiconfigurator@{commit}", "citation": CITATION,
            "role": role, "device": device,
            "form_factor": f"{device.upper()} SXM (aiconfigurator {folder})",
            "protocol": {"timing": "device",
                         "method": "TensorRT-LLM PyTorch-flow Attention.forward (RoPE, KV-cache "
                                   "append, FMHA / generation kernel), warm-up then the mean of "
                                   "timed runs (collector/trtllm/collect_attn.py)",
                         "dtype": "bf16, KV cache bf16, head_dim 128",
                         "library": f"TensorRT-LLM {version.split('/')[1]}",
                         "clocks": "default application clocks (not stated)"},
            "sets": sets}


def nccl(gitdir: str, commit: str, role: str) -> dict:
    sets = []
    for folder, version, device in NCCL[role]:
        path = f"{DATA}/{folder}/comm/{version}/nccl_perf.parquet"
        cols = table(gitdir, commit, path)
        points = sorted({(g, 2 * size, round(float(ms) * 1e-3, 9))
                         for op, dtype, g, size, ms in zip(cols["op_name"], cols["nccl_dtype"],
                                                           cols["num_gpus"],
                                                           cols["message_size"],
                                                           cols["latency"])
                         if op == "all_reduce" and dtype == "half" and 2 * size <= MAX_BYTES})
        sets.append({"name": f"{device} all-reduce", "kind": "all_reduce", "device": device,
                     "file": path, "columns": ["gpus", "bytes", "seconds"],
                     "points": [list(p) for p in points]})
    return {"source": f"ai-dynamo/aiconfigurator@{commit}", "citation": CITATION,
            "role": role, "device": ", ".join(d for _, _, d in NCCL[role]),
            "form_factor": "one node of 8 SXM GPUs (NVSwitch): "
                           + ", ".join(f for f, _, _ in NCCL[role]),
            "protocol": {"timing": "device",
                         "method": "nccl-tests all_reduce_perf -w 40 -n 100 (60 above 16 MiB) "
                                   "-c 0, out-of-place time (collector/network/collect_nccl.py)",
                         "dtype": "half",
                         "library": "nccl-tests, NCCL " + ", ".join(
                             f"{v.split('/')[1]} ({d})" for _, v, d in NCCL[role]),
                         "clocks": "default application clocks (not stated)"},
            "sets": sets}


def main():
    gitdir, commit = snapshot_args(__doc__.splitlines()[0])
    files = [(f"aiconfigurator_attention_{folder}.yaml",
              attention(gitdir, commit, folder, version, device, role))
             for folder, version, device, role in ATTENTION]
    files += [("aiconfigurator_nccl.yaml", nccl(gitdir, commit, "calibration")),
              ("aiconfigurator_nccl_h200.yaml", nccl(gitdir, commit, "validation"))]
    for name, data in files:
        header = (f"# Transcribed by tools/transcribe_aiconfigurator_layers.py from "
                  f"ai-dynamo/aiconfigurator@{commit}\n# ({DATA}/.../attention, comm/nccl); "
                  "do not edit by hand.\n")
        write_measured(name, header, data)


if __name__ == "__main__":
    main()
