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


# TensorRT-LLM's Hopper context FMHA: the fmha_v2 warp-specialized flash-attention kernels
# (TMA loads, two compute groups of 64 query rows a CTA; a "tile" is a CTA's 2 x 64 rows).
# The 0.7-0.8-era release ships them for sm90 (fmha_v2_flash_attention_{fp16,bf16}_64_128_S_128
# _tma_ws_sm90, _64_64_S_256_, _64_256_S_{32,64}_) and its runner takes them for every FP16 /
# BF16 prefill but head size <= 64 at <= 256 tokens (the fmha_v2 sm90 non-flash kernels there):
# setup sets flash_attention, then warp_specialization on sm90 (microsoft/onnxruntime@60c8bc4,
# onnxruntime/contrib_ops/cuda/bert/tensorrt_llm_fmha/: its port of that release's cubins and
# fmhaRunner; NVIDIA's own runner of 0.8 is not in the index, its launcher is, below). 1.x
# runs the same kernel family (``_operators.FMHA_Q_STEP``); the launch differs
# (``static_grid_stretch``).
WS_Q_STEP, WS_COMPUTE_GROUPS = 64, 2
# (head dim, KV step) of the kernels' sTmaMetaInfo (NVIDIA/TensorRT-LLM@2340c77, cpp/
# tensorrt_llm/kernels/contextFusedMultiHeadAttention/fused_multihead_attention_v2.h)
WS_KV_STEPS = ((32, 256), (64, 256), (128, 128), (256, 64))


def ws_kv_step(head_dim):
    """KV rows per iteration of the Hopper kernel for ``head_dim`` (``WS_KV_STEPS``; a head dim
    between two listed takes the larger's kernel)."""
    step = jnp.full(jnp.shape(head_dim), float(WS_KV_STEPS[-1][1]))
    for dim, kv_step in reversed(WS_KV_STEPS[:-1]):
        step = jnp.where(head_dim <= dim, float(kv_step), step)
    return step


def ws_tile_iterations(tiles, kv_step):
    """KV iterations of the first ``tiles`` tiles of one head under the causal mask: tile j
    (0-based) runs ceil((j + 1) 128 / kv_step) (the kernel's kv_idx_end, SKIP_CAUSAL_MASK_TILES:
    NVIDIA/TensorRT-LLM@d513eea cpp/kernels/fmha_v2/src/fmha/warpspec/dma.h
    compute_kv_tile_idx); in closed form for the listed KV steps (64, 128: an integer 128 /
    kv_step per tile; 256: sum of ceil(i / 2) = floor((n + 1)^2 / 4))."""
    per = WS_Q_STEP * WS_COMPUTE_GROUPS / kv_step
    return jnp.where(per >= 1, per * tiles * (tiles + 1) / 2, jnp.floor((tiles + 1) ** 2 / 4))


def static_grid_stretch(tokens, instances, head_dim, sms, l2_bytes):
    """How much longer TensorRT-LLM 0.8's static grid runs a causal Hopper FMHA prefill
    (``tokens`` new tokens, nothing cached, over ``instances`` sequences x heads) than the
    dynamic, longest-tile-first scheduler of 1.x that the Hopper record is calibrated on: the
    busiest CTA's KV iterations over the balanced schedule's bound (the mean load of
    min(tiles, sms) persistent CTAs, at least the longest tile).

    0.8's launch (fused_multihead_attention_v2.h@2340c77, run): grid.y = min(instances, sms)
    CTAs, each taking the heads y, y + grid.y, ...; grid.x = min(tiles, sms // grid.y) where K
    and V of grid.y heads fit in the L2 (grid.y tokens x head_dim x 4 bytes), else one tile a
    CTA; each CTA the contiguous query steps ceil(ceil(tokens / 64) / grid.x), rounded up to
    even, from grid.x's index (dma.h@d513eea, SCHEDULING_MODE 0: the published kernel source's
    loop for that launch; 0.8 ships its kernels as cubins only). The causal load grows with
    the query step, so the last CTA along x (or the full one before it) is the busiest. Where
    K, V do not fit (more CTAs than SMs, dispatched as SMs free up) it is taken as balanced.
    1.x (fused_multihead_attention_v2.cpp@029c15c, dynamic_scheduler, set for every sm90 ws
    launch by fmhaRunner.cpp@00dbe28): min(tiles x instances, sms) CTAs draw tiles from a
    counter, the longest first where K, V fit (taken at a lower bound of its makespan: the
    stretch errs high by what that schedule's tail adds)."""
    kv_step = ws_kv_step(head_dim)
    steps = jnp.ceil(tokens / WS_Q_STEP)
    tiles = jnp.ceil(steps / WS_COMPUTE_GROUPS)
    grid_y = jnp.minimum(instances, sms)
    fits = grid_y * tokens * head_dim * 4.0 <= l2_bytes
    grid_x = jnp.where(fits, jnp.minimum(tiles, jnp.floor(sms / grid_y)), tiles)
    per_cta = jnp.ceil(steps / grid_x)
    per_cta = (per_cta + per_cta % 2) / WS_COMPUTE_GROUPS  # tiles a CTA along x
    last = jnp.ceil(tiles / per_cta) - 1.0  # the last CTA along x with work

    def load(first, end):
        return ws_tile_iterations(end, kv_step) - ws_tile_iterations(first, kv_step)

    busiest = jnp.maximum(load(last * per_cta, tiles),
                          load(jnp.maximum(last - 1.0, 0.0) * per_cta, last * per_cta))
    static = jnp.ceil(instances / grid_y) * busiest
    total = instances * ws_tile_iterations(tiles, kv_step)
    balanced = jnp.maximum(total / jnp.minimum(tiles * instances, sms),
                           ws_tile_iterations(tiles, kv_step) - ws_tile_iterations(tiles - 1,
                                                                                   kv_step))
    return jnp.where(fits & (tokens > 1), static / balanced, 1.0)
