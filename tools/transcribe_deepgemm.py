"""Transcribe the dense FP8 GEMM table of deepseek-ai/DeepGEMM's README into
experiments/reference/measured/deepgemm_h800.yaml (role calibration).

The README's "Normal GEMMs for dense models" table lists, per (M, N, K) of DeepSeek-V3/R1
inference (M 64, 128, 4096), the rate of DeepGEMM's FP8 kernel (``gemm_fp8_fp8_bf16_nt``) on an
"H800 SXM5 with NVCC 12.8": the GH100 die of lutcore.gpu's ``h100`` (132 SMs, 1979 dense FP8
TFLOPS, 3.35 TB/s HBM3; the export variant's NVLink is narrower). Its kernel, as the same commit
builds it (deep_gemm/include/deep_gemm/fp8_gemm.cuh, jit_kernels/gemm.py, tests/test_core.py):

- FP8 e4m3 operands with fine-grained scales (1 x 128 per token for A, 128 x 128 blocks for B),
  the partial sums promoted to FP32 on the CUDA cores every 128 of K, BF16 output;
- a persistent grid of one CTA per SM walking the output tiles, block_m 64/128/256 and
  block_n 16-160 chosen to fill the last wave; no split-K or stream-K (the README's roadmap:
  "[ ] Split/stream-k optimizations"): ``persistent: false`` (no stream-K candidates; the
  model's non-stream-K kernels also pay a pipeline fill per round of tiles, which a persistent
  kernel's producer warp can hide, so the set's modeled times lean slow);
- the consumer warpgroups write each finished tile to shared memory and TMA-store it before
  the next tile's MMAs: ``serial_epilogue: true`` (lutcore.gpu._tiles T5; the table's rate
  falling with K at M = 4096 selects it).

Grouped (MoE) rows are left out: each group multiplies by its own weight matrix, not a dense
GEMM. The table's "Speedup" column compares with the authors' internal CUTLASS 3.6 kernel, not
published, and is not transcribed.

Usage: python tools/transcribe_deepgemm.py <git dir> [--commit SHA] (the git dir of a clone or
snapshot; nothing is fetched). The README carried the table from the first commit (a6d97a1)
to 327ec92 (2025-04-09); the kernel sped up in between (M = 4096, N = 7168, K = 16384: 1358,
1426, then 1520 TFLOPS), so the set is one commit's table, the last.
"""

from __future__ import annotations

import re

from snapshot import git, snapshot_args, write_measured

TABLE = "### Normal GEMMs for dense models"
PROTOCOL = {
    "timing": "device",
    "method": "tests/test_core.py test_gemm with deep_gemm.bench_kineto: one warm-up pass, then "
              "one profiled pass of 30 calls, each after an 8 GB memset that flushes the L2; "
              "the mean Kineto (CUPTI) time of the fp8_gemm kernel; rate = 2 M N K / time",
    "dtype": "fp8 e4m3 operands (torch.randn BF16 cast with 1 x 128 activation and 128 x 128 "
             "weight scales), FP32 accumulation with CUDA-core promotion, BF16 output",
    "library": "DeepGEMM (JIT-compiled CUDA, NVCC 12.8)",
    "clocks": "default (not stated)",
}



def rows(markdown: str) -> list[list[float]]:
    """[[m, n, k, tflops], ...] of the dense table (its header names the columns)."""
    if TABLE not in markdown:
        raise ValueError(f"README.md has no {TABLE!r} table")
    lines = markdown.split(TABLE, 1)[1].strip().splitlines()
    table = [[c.strip() for c in line.strip().strip("|").split("|")]
             for line in lines[:lines.index("") if "" in lines else None]
             if line.startswith("|")]
    header, out = table[0], []
    for cells in table[2:]:
        row = dict(zip(header, cells))
        rate = re.fullmatch(r"([\d.]+) TFLOPS", row["Computation"])
        if rate is None:
            raise ValueError(f"Computation {row['Computation']!r} is not 'x TFLOPS'")
        out.append([int(row["M"]), int(row["N"]), int(row["K"]), float(rate.group(1))])
    if not out:
        raise ValueError(f"README.md's {TABLE!r} table has no rows")
    return out


def transcribe(gitdir: str, commit: str) -> dict:
    points = rows(git(gitdir, "show", f"{commit}:README.md"))
    return {"source": f"deepseek-ai/DeepGEMM@{commit}",
            "file": "README.md",
            "citation": "DeepSeek-AI, DeepGEMM README, 'Performance: Normal GEMMs for dense "
                        "models' (H800 SXM5, NVCC 12.8)",
            "role": "calibration", "device": "h100",
            "form_factor": "H800 SXM5 (the H100 SXM5's GH100 die, 132 SMs, 80 GB HBM3)",
            "protocol": PROTOCOL,
            "sets": [{"name": "DeepGEMM FP8 dense GEMM", "kind": "gemm", "act": "fp8",
                      "persistent": False, "serial_epilogue": True,
                      "columns": ["m", "n", "k", "tflops"], "points": points}]}


def main():
    gitdir, commit = snapshot_args(__doc__.splitlines()[0])
    header = (f"# Transcribed by tools/transcribe_deepgemm.py from deepseek-ai/DeepGEMM@{commit}\n"
              "# (README.md, dense FP8 GEMM table; kernel and protocol in the tool's docstring);"
              " do not edit by hand.\n")
    write_measured("deepgemm_h800.yaml", header, transcribe(gitdir, commit))


if __name__ == "__main__":
    main()
