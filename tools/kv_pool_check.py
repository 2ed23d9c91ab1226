"""Does the KV pool change what aiconfigurator's generation attention rows time? Its H100 SXM
tables of TensorRT-LLM 1.2.0rc5 were collected on a K-only pool (CacheType.SELFKONLY: each
block's V offset on its K block), those of 1.3.0rc20 on K and V pools apart (CacheType.SELF,
collector/trtllm/collect_attn.py from dec5f4cd2). Prints, per head layout, batch and cached
tokens, both times (us), their ratio and the K+V bytes over the 1.2.0rc5 time (TB/s): the MHA
rows time alike, the grouped-query rows (XQA) of long caches 1.5-1.8x apart (H100 SXM,
calibration GPU; lutcore.gpu._operators._kv_reads).

Usage: python tools/kv_pool_check.py <aiconfigurator git dir> [--commit SHA] (needs pyarrow,
a tool-only dependency)."""

from __future__ import annotations

from snapshot import snapshot_args
from transcribe_aiconfigurator_layers import DATA, HEADS, table

VERSIONS = ("1.2.0rc5", "1.3.0rc20")  # SELFKONLY, SELF
BATCHES, STEPS = (1, 8, 64, 256), (63, 127, 255, 511, 1023, 4095, 8191, 16383)


def times(gitdir: str, commit: str, version: str) -> dict:
    """{(heads, kv_heads, batch, step): seconds} of the BF16, head_dim 128 rows of ``version``."""
    cols = table(gitdir, commit, f"{DATA}/h100_sxm/attention/trtllm/{version}/"
                                 "generation_attention_perf.parquet")
    keys = ("num_heads", "num_key_value_heads", "batch_size", "step")
    return {tuple(r[:4]): r[4] * 1e-3
            for *r, dim, kv, window in zip(*(cols[k] for k in keys), cols["latency"],
                                           cols["head_dim"], cols["kv_cache_dtype"],
                                           cols["window_size"])
            if (dim, kv, window) == (128, "bfloat16", 0)}


def main():
    gitdir, commit = snapshot_args(__doc__.splitlines()[0])
    k_only, apart = (times(gitdir, commit, v) for v in VERSIONS)
    print("heads kv batch step  k_only_us  apart_us  ratio  K+V_TB/s_k_only")
    for heads, kv_heads in HEADS:
        for batch in BATCHES:
            for step in STEPS:
                key = (heads, kv_heads, batch, step)
                if key in k_only and key in apart:
                    kv_bytes = batch * step * kv_heads * 128 * 2 * 2
                    print(f"{heads:5} {kv_heads:2} {batch:5} {step:5} {k_only[key] * 1e6:10.1f}"
                          f" {apart[key] * 1e6:9.1f} {apart[key] / k_only[key]:6.2f}"
                          f" {kv_bytes / k_only[key] / 1e12:8.2f}")


if __name__ == "__main__":
    main()
