"""TensorRT-LLM's plugins' CUDA kernels (``_tiles`` T8's and T9's), priced from their source.

T8's batched weight-only GEMV:
NVIDIA/TensorRT-LLM cpp/tensorrt_llm/kernels/weightOnlyBatchedGemv/ (kernel.h@0875817,
utility.h@1488f3f, details.h and kernelDispatcher.h@16d2467, kernelLauncher.h@1a63c05,
converter.h@3585984).

A CTA of 128 threads holds all M (<= 15) token rows and 8 weight columns of the interleaved
layout (8 x its interleave: on sm80 ``ColumnMajorInterleaved``, 128 x 8 / (64 x bits) columns
side by side, so 32 for INT4 and 16 for INT8; on sm90 ``ColumnMajorInterleavedForHopper``,
interleave 1), and walks the whole K. Per weight a thread converts it once (the interleaved
converter, ``FastInterleavedAndBiasedNumericArrayConverter``, and one HFMA2 per 2 weights for
the scale: the counts of ``_library.RS_DEQUANT``), packs two columns' weights into a half2
(``pack_to_vec2``: one PRMT per half2) and, for every token row, accumulates in half2: one
HFMA2 per weight pair and row (``mma``; the activation's broadcast folds into the HFMA2's
operand selector). No tensor-core work: the SM's issue slots and FP16 lanes run at the maximum
boost clock (``GPUSpec.boost_clock``, as ``vector_flops``). After the loop every thread's
rows x 8 accumulators are reduced across the warp by shuffles (``warp_reduce_sum``: xor 16, 8, 1,
and 4 / 2 unless the interleave covers them), then across the 4 warps through shared memory.

T9's SmoothQuant kernel (weightOnlyBatchedGemv/int8SQ.cu@3585984, ``int8_sq``), which the
plugin runs for every M <= 4: a CTA of 128 threads holds all M token rows and 2 weight rows;
each thread loads 16 INT8 of both weight rows and of every token row a step (int4 loads) and
accumulates them with one DP4A per 4 products, walking K in steps of 16 x 128; then five xor
shuffles per accumulator and a shared-memory sum over the 4 warps (``sq_gemv_clocks``).

Both load the activations with plain global loads (int8SQ.cu: ``act + i * k + idx_k``
through an ``int4``; the weight-only kernel: ``GMemIterator::load``, utility.h), whose
default cache operator caches them in L1 too (PTX ISA, "Cache Operators": ``ld.ca``, "the
default load instruction cache operation"); the co-resident CTAs of an SM walk K in the same
order from the same start, so they read each activation line from the L2 once
(``_tiles.traffic``), not once per CTA.
"""

from __future__ import annotations

import jax.numpy as jnp

GEMV_CTA_N = 8  # kernelDispatcher.h: CtaN = 8 columns per interleave without zero points
GEMV_THREADS = 128  # kernelDispatcher.h: 128 threads per CTA for every M
GEMV_TILE_K = 64  # kernelLauncher.h: KernelDetails<..., 64>, the layout's k tile (TileSizeK)
GEMV_PACK_OPS = 0.5  # pack_to_vec2: one PRMT builds a half2 of two columns' weights
# Issue slots per SM per clock: four SM sub-partitions, each one warp instruction a clock
# (A100 and H100 whitepapers, "SM architecture")
ISSUE_LANES = 4 * 32
# Warp shuffle results per SM per clock (CUDA C++ Programming Guide, "Arithmetic
# Instructions" throughput table: 32 for compute capability 8.x and 9.0)
SHUFFLE_LANES = 32
WARP_XOR_STEPS = 5  # a sum across a warp's 32 lanes: xor 16, 8, 4, 2, 1


def gemv_interleave(hw):
    """Weight columns side by side in the GEMV's layout: 1 on Hopper (a warpgroup MMA), else
    128 x 8 / (``GEMV_TILE_K`` x weight bits) (details.h)."""
    return jnp.where(hw.mma_warps == 4, 1.0, 128 * 8 / (GEMV_TILE_K * hw.weight_bits))


def gemv_columns(hw):
    """Weight columns (N) of one GEMV CTA: ``GEMV_CTA_N`` x its interleave."""
    return GEMV_CTA_N * gemv_interleave(hw)


def gemv_clocks(hw, c: dict, k_pad, m, dequant_ops: tuple):
    """Clocks of the SM clock ``hw.clock`` one GEMV CTA of ``c["tn"]`` columns x ``k_pad``
    takes on the CUDA cores for min(m, ``c["tm"]``) token rows (module doc): the main loop's
    issue slots, FP16 and INT32 lanes (the busiest), then the warp reduction's shuffles, at the
    boost clock. ``dequant_ops``: (INT32, FP16 lanes) per weight converted."""
    rows = jnp.minimum(m, c["tm"])
    weights = c["tn"] * k_pad
    int_ops, fp_lanes = dequant_ops
    fp16 = weights * (rows + fp_lanes)  # one HFMA2 per weight pair and row = a lane per weight
    int32 = weights * (int_ops + GEMV_PACK_OPS)
    issue = weights * (rows + fp_lanes) / 2 + int32
    main = jnp.maximum(jnp.maximum(issue / ISSUE_LANES, fp16 / hw.fp16_lanes),
                       int32 / hw.int32_lanes)
    interleave = gemv_interleave(hw)
    shuffles = WARP_XOR_STEPS - (interleave >= 2) - (interleave == 4)  # less the interleave's
    reduce = GEMV_THREADS * rows * GEMV_CTA_N * shuffles / SHUFFLE_LANES
    return (main + reduce) * hw.clock / hw.boost_clock


SQ_STEP_K = 16  # int8SQ.cu: kStepK, the INT8 a thread loads per operand row a step (an int4)
DP4A_MACS = 4  # products one DP4A accumulates


def sq_gemv_clocks(hw, c: dict, k_pad, m):
    """Clocks of the SM clock ``hw.clock`` one ``int8_sq`` CTA of ``c["tn"]`` weight rows x
    ``k_pad`` takes on the CUDA cores for min(m, ``c["tm"]``) token rows (module doc): its
    loads and DP4As on the issue slots, the DP4As on the INT32 lanes (the busier), then the
    warp reduction's shuffles, at the boost clock."""
    rows = jnp.minimum(m, c["tm"])
    dp4a = rows * c["tn"] * k_pad / DP4A_MACS
    loads = (rows + c["tn"]) * k_pad / SQ_STEP_K
    main = jnp.maximum((dp4a + loads) / ISSUE_LANES, dp4a / hw.int32_lanes)
    reduce = GEMV_THREADS * rows * c["tn"] * WARP_XOR_STEPS / SHUFFLE_LANES
    return (main + reduce) * hw.clock / hw.boost_clock


# ``Work.tiles[0]`` -> the clocks of its plugin's CUDA kernel (its ``cuda_core`` candidates)
CUDA_KERNEL_CLOCKS = {
    "trtllm_weight_only": lambda hw, c, k_pad, m, work: gemv_clocks(hw, c, k_pad, m,
                                                                     work.rs_dequant_ops),
    "trtllm_int8": lambda hw, c, k_pad, m, work: sq_gemv_clocks(hw, c, k_pad, m),
}
