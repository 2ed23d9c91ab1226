"""FlashAttention-2's forward kernel as PyTorch's SDPA flash backend runs it (the kernel
transformers' ``sdpa`` attention calls, which LLMServingSim's eager Llama profiles time): a
latency chain of KV-block iterations per CTA, not a GEMM's pipe time.

Source: pytorch/pytorch@04ff5bebd3a737cd53c7858de8998a37a4003c49, aten/src/ATen/native/
transformers/cuda/flash_attn/ (FlashAttention-2, Dao-AILab/flash-attention, vendored):
- ``flash_fwd_launch_template.h`` ``run_mha_fwd_hdim128``: 4 warps; a causal kernel takes
  kBlockM x kBlockN = 64 x 64 on sm86 / sm89 (``is_sm8x``), 128 x 64 elsewhere (sm80, sm90);
  ``run_flash_fwd``: grid (ceil(seqlen_q / kBlockM), batch, heads), one CTA a query tile of
  one head;
- ``flash_fwd_kernel.h`` ``compute_attn_1rowblock``: the CTA loops over its KV blocks one after
  another, ``n_block_max = min(ceil(seqlen_k / kBlockN), ceil(((m_block + 1) kBlockM +
  seqlen_k - seqlen_q) / kBlockN))`` of them; each iteration is QK^T (mma.sync), then the
  online softmax on the scores (row max, exp2 on the SFU, row sum, the output's rescale), then
  PV (mma.sync) on the softmax's output: each step waits for the one before, so one warp's
  MMAs and its exponentials do not overlap (FlashAttention-3, Shah et al. 2024, §3.1: the
  softmax "can take 50 % of the cycle time compared to matmul" on H100 at head dim 128, which
  FlashAttention-2 leaves serial and FlashAttention-3 overlaps by ping-pong scheduling).

An iteration costs its MMAs at the rate mma.sync reaches (``GPUSpec.sync_efficiency``: on
Hopper the S10 cap, FlashAttention-2 has no wgmma path) plus its softmax's issue time
(``SOFTMAX_FP32_OPS`` on the FP32 lanes and one exponential per score on the SFU). CTAs are
dispatched in grid order, one KV iteration at a time per SM (``schedule_iterations``); each
round of CTAs (one per SM) adds what a CTA does outside its loop (``FlashKernel.round_seconds``:
loading its query tile and first KV block, normalizing and storing its output), fitted per
architecture on a calibration set that times the kernel alone.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp

# FP32 operations per score of an iteration of FlashAttention-2's online softmax (softmax.h
# softmax_rescale_o): the row max (1), scale-and-subtract before exp2 (1 FFMA), the row sum (1)
# and the output's rescale, head_dim / kBlockN = 2 multiplies per score at head dim 128 and
# kBlockN 64 (first principles from the source; the exp2 itself is on the SFU)
SOFTMAX_FP32_OPS = 5.0


# The tail of an in-order list schedule of a causal grid (m-blocks of 1 ... q chains, head after
# head, to the first free SM): its makespan exceeds the mean load per SM by 0.61 of the longest
# chain on average (0.06-0.88; the exact schedule over 128-4096 tokens, 0 / 1024 cached, 8-256
# instances, 64 / 128-row tiles, 82 / 132 SMs, more CTAs than SMs: tests/test_gpu_flash.py)
SCHEDULE_TAIL = 0.6


@dataclasses.dataclass(frozen=True)
class FlashKernel:
    """A FlashAttention-2-style forward kernel: its causal query x KV block per compute
    capability (``tiles``: ((capabilities, (block_m, block_n)), ...), the first whose
    capabilities hold the GPU's; ``default``: the others'; head dim 128's, which the other head
    dims take here) and its source."""

    name: str
    source: str
    tiles: tuple
    default: tuple
    round_seconds: tuple = ()  # ((architecture, seconds per round of CTAs), ...); else 0

    def tile(self, compute_capability: int) -> tuple[int, int]:
        """(kBlockM, kBlockN) of the causal forward kernel on a GPU of ``compute_capability``."""
        for capabilities, tile in self.tiles:
            if compute_capability in capabilities:
                return tile
        return self.default

    def round_time(self, architecture: str) -> float:
        """Seconds a round of its CTAs adds on a GPU of ``architecture`` (0 where no
        calibration set times the kernel there)."""
        return dict(self.round_seconds).get(architecture, 0.0)


def iteration_costs(gpu) -> tuple[float, float]:
    """(seconds per MAC, seconds per score) of a FlashAttention-2 KV iteration on ``gpu`` (a
    ``GPUSpec``): its QK^T and PV MACs at mma.sync's rate, then per score the softmax's FP32
    operations on the FP32 lanes and one exponential on the SFU (module doc)."""
    macs = gpu.tensor_macs("fp16") * gpu.sync_efficiency("fp16")
    per_score = SOFTMAX_FP32_OPS / gpu.fp32_lanes + 1.0 / gpu.sfu_lanes
    return 1.0 / (macs * gpu.sm_clock), per_score / gpu.sm_clock


def iteration_seconds(block_m, block_n, head_dim, mac_seconds, score_seconds):
    """Seconds of one CTA's KV iteration: block_m x block_n scores, QK^T and PV of
    2 x scores x ``head_dim`` MACs, then the softmax (``iteration_costs``' two rates)."""
    scores = block_m * block_n
    return scores * (2.0 * head_dim * mac_seconds + score_seconds)


# PyTorch's SDPA flash backend (module doc): head dim 128, its causal tiles; on Hopper the time
# of a round of CTAs fitted on FlashAttention-3's FlashAttention-2 rows (fa3_paper_h100.yaml,
# calibration; tools/calibrate_gpu.py flash_round_seconds); no Ampere set times the kernel
# alone (LLMServingSim's RTX 3090 rows time transformers' call around it)
FLASH_ATTENTION_2 = FlashKernel(
    "flash_attention_2", "pytorch/pytorch@04ff5be flash_fwd_launch_template.h "
    "run_mha_fwd_hdim128 (FlashAttention-2 vendored)",
    tiles=(((86, 89), (64, 64)),), default=(128, 64), round_seconds=(("hopper", 3.777e-6),))


def rounds(tokens, instances, block_m, sms):
    """Rounds of CTAs (one per SM at a time) of the grid: ceil(tokens / block_m) x
    ``instances`` CTAs over ``sms``."""
    return jnp.ceil(jnp.ceil(tokens / block_m) * instances / sms)


def schedule_iterations(tokens, context, instances, block_m, block_n, sms):
    """KV iterations the busiest SM runs for a causal FlashAttention-2 forward over
    ``instances`` (sequences x heads) of ``tokens`` new tokens attending to ``context`` (arrays;
    the tile: ``block_m`` x ``block_n``): the longest CTA's chain while the grid fits the SMs,
    else the mean load per SM plus ``SCHEDULE_TAIL`` of the longest chain (the CTAs dispatched
    last start, in grid order, while the others finish), never more than its rounds of CTAs
    each as long as the longest."""
    q_blocks = jnp.ceil(tokens / block_m)
    longest = jnp.ceil(context / block_n)
    per_instance = iterations_per_instance(tokens, context, block_m, block_n)
    ctas = q_blocks * instances
    tail = jnp.minimum(jnp.ceil(ctas / sms) * longest,
                       per_instance * instances / sms + SCHEDULE_TAIL * longest)
    return jnp.where(ctas <= sms, longest, tail)


def iterations_per_instance(tokens, context, block_m, block_n):
    """KV iterations of the CTAs of one sequence's head (``flash_fwd_kernel.h`` n_block_max,
    module doc): m-block i < q - 1 runs (i + 1) block_m / block_n + ceil(cached / block_n),
    the last ceil(context / block_n) (exact where block_m is a multiple of block_n)."""
    q_blocks = jnp.ceil(tokens / block_m)
    cached = context - tokens
    full = (q_blocks - 1) * (block_m / block_n * q_blocks / 2 + jnp.ceil(cached / block_n))
    return full + jnp.ceil(context / block_n)
