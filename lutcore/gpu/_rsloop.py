"""TensorRT-LLM's sm90 interleaved mixed-input main loop (``_tiles`` T12): what a consumer
warpgroup converts per register buffer and the dependence cycles that set a k-tile's time.
Used by ``lutcore.gpu._tiles``.

What else a k-tile could cost was checked against the source (issue 30,
``tools/rs_ktile_candidates.py``) and adds nothing: the TMA stages (CUTLASS's mixed-input
builder fills shared memory, no cap: 4-52 stages, a DRAM round trip over them 15-261 clocks,
above this loop only on tiles whose MACs take longer), the per-channel scales (a 128 B row a
stage, one LDS a k-tile beside the weights' LDS) and the barriers (a try_wait a k-tile early,
a release without a wait). The H200 rows' 311-394 clocks a k-tile would need a wgmma latency of
286-349 clocks for INT8 but 208-251 for INT4 under these waits; a chain that retired each
k-block's wgmma before issuing the next would need 53-75 for both, but the compiled kernel
keeps these waits (no ptxas serialization; SASS waits 0x3 / 0x2 after each k-block: the tool's
candidate 4), and no source gives an RS m64nNk16's latency at N <= 256 beyond m64n256k16's."""

from __future__ import annotations

import functools

import jax.numpy as jnp

from ._tile_tables import SM90_TK

# T12: a register buffer, 64 rows x (a k16 block x type_factor / 2 =) 128 bits of weights
RS_LOAD_BITS, RS_GROUP_ROWS = 128, 64
# T12: k16 wgmma blocks per k-tile (K_BLOCK_MAX; the sm90 tiles' k-slab, wgmma k16 for 16-bit
# inputs, S9) and the activation width its type_factor divides by the weight's
RS_K_BLOCKS, RS_ACT_BITS = SM90_TK // 16, 16


def rs_convert(hw, work):
    """SM clocks a consumer warpgroup (all four SM sub-partitions' lanes) converts one register
    buffer in (T12: ``RS_GROUP_ROWS`` rows x ``RS_LOAD_BITS`` / weight_bits deep)."""
    int_ops, fp_ops = work.rs_dequant_ops
    weights = RS_GROUP_ROWS * RS_LOAD_BITS / hw.weight_bits
    return weights * (int_ops / hw.int32_lanes + fp_ops / hw.fp16_lanes)


@functools.cache
def rs_cycles(k_blocks: int, per_load: int) -> tuple:
    """Per k-tile (wgmma latencies, LDS latencies, buffer conversions) on each simple cycle of
    T12's interleaved main loop. After issuing k-block j a warpgroup waits until
    ``depth = k_blocks - per_load`` wgmmas are in flight (j - depth retired), then, at a tile's
    last block after the next tile's LDS, converts the next buffer (``per_load`` blocks, every
    ``per_load``-th block) and issues j + 1: edges j -> j + 1 (that step) and j - depth -> j + 1
    (a latency and that step) over the k-block phases of a tile."""
    depth = k_blocks - per_load

    def step(b):  # (LDS, conversions) between block b's wait and block b + 1's issue
        return (float(b == k_blocks - 1), float((b + 1) % per_load == 0))

    edges = {p: (((p + 1) % k_blocks, 1, (0.0, *step(p))),
                 ((p + depth + 1) % k_blocks, depth + 1, (1.0, *step((p + depth) % k_blocks))))
             for p in range(k_blocks)}
    cycles = set()

    def walk(start, node, span, weight, seen):
        for nxt, hops, w in edges[node]:
            total = tuple(a + b for a, b in zip(weight, w))
            if nxt == start:
                cycles.add(tuple(x * k_blocks / (span + hops) for x in total))
            elif nxt > start and nxt not in seen:
                walk(start, nxt, span + hops, total, seen | {nxt})

    for p in range(k_blocks):
        walk(p, p, 0, (0.0, 0.0, 0.0), {p})
    return tuple(sorted(cycles))


def rs_ktile(hw, work):
    """SM clocks a k-tile of T12's main loop takes at least: its longest dependence cycle."""
    parts = (hw.wgmma_latency, hw.smem_latency, rs_convert(hw, work))

    def longest(bits):
        per_load = RS_ACT_BITS // bits // 2  # kNumKIterationsPerWarpBLoad = type_factor / 2
        return functools.reduce(jnp.maximum, [sum(n * x for n, x in zip(cycle, parts))
                                              for cycle in rs_cycles(RS_K_BLOCKS, per_load)])
    return jnp.where(hw.weight_bits == 4, longest(4), longest(8))
