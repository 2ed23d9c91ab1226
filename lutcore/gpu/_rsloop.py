"""TensorRT-LLM's sm90 interleaved mixed-input main loop (``_tiles`` T12): what a consumer
warpgroup converts per register buffer, the dependence cycles of its waits, and the SM's
wgmma chain, which together set a k-tile's time. Used by ``lutcore.gpu._tiles``.

The waits alone (Luo et al.'s 128-clock interval as the latency a wait exposes) give the
H200 rows 173 (INT8) and 204 (INT4) clocks a k-tile; the rows spend about 350, the same for
both widths, and twice that where a CTA's tile holds 128 weight rows (``tools/mixed_input_gap
.py``). TensorRT-LLM's H100 plugin tables (``_specs`` C8, calibration) show the same on the
GPU whose SM the H200 shares: a k-tile costs a fixed time per m64 wgmma an SM issues, whatever
the weight width and the tokens (N <= 128, where no wgmma is rate-bound). So the loop also
takes ``wgmma_chain`` clocks per register-sourced wgmma of the CTA (its k16 blocks x its
64-row weight blocks), calibrated there; which hardware step serializes them (the tensor
pipe's occupancy at small N, the accumulator's dependence, the fence after fresh registers)
no public source says: ``tools/device`` times chains of such wgmmas on one and two
warpgroups. What else a k-tile could cost was checked against the source and adds nothing
(``tools/rs_ktile_candidates.py``): the TMA stages (CUTLASS's mixed-input builder fills shared
memory, no cap: 4-52 stages, a DRAM round trip over them 15-261 clocks), the per-channel
scales (a 128 B row a stage, one LDS a k-tile beside the weights' LDS) and the barriers (a
try_wait a k-tile early, a release without a wait)."""

from __future__ import annotations

import functools

import jax.numpy as jnp

from ._tile_tables import SM90_TK, WGMMA_M

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


def rs_ktile(hw, work, weight_rows=WGMMA_M):
    """SM clocks a k-tile of T12's main loop takes at least: its waits' longest dependence
    cycle, or its CTA's wgmmas (``RS_K_BLOCKS`` x ``weight_rows`` / ``WGMMA_M``) at ``wgmma_chain``
    each, whichever is longer."""
    parts = (hw.wgmma_latency, hw.smem_latency, rs_convert(hw, work))

    def longest(bits):
        per_load = RS_ACT_BITS // bits // 2  # kNumKIterationsPerWarpBLoad = type_factor / 2
        return functools.reduce(jnp.maximum, [sum(n * x for n, x in zip(cycle, parts))
                                              for cycle in rs_cycles(RS_K_BLOCKS, per_load)])
    waits = jnp.where(hw.weight_bits == 4, longest(4), longest(8))
    return jnp.maximum(waits, weight_rows / WGMMA_M * RS_K_BLOCKS * hw.wgmma_chain)
