"""CUTLASS's sm90 stream-K scheduler as TensorRT-LLM's weight-only tactics run it (``_tiles`` T4,
T8, T10): how its default heuristic decomposes a problem into units, and the fixup turns of the
units that share an output tile. Re-exported by ``lutcore.gpu._tiles``."""

from __future__ import annotations

import jax
import jax.numpy as jnp

# T8: the fewest k-tiles of a stream-K unit (tile_scheduler_params.h min_iters_per_sk_unit_)
MIN_ITERS_PER_SK_UNIT = 8


def streamk_units(hw, tiles, k_tiles):
    """(units, their output tiles, the most units sharing one) of CUTLASS's sm90 stream-K
    scheduler (T8), its default heuristic (tile_scheduler_params.h get_num_sk_tiles,
    get_num_sk_units): 0 units (data-parallel) where the last wave of one CTA an SM is at least
    half full or a tile has at most ``MIN_ITERS_PER_SK_UNIT`` k-tiles; else the last two waves'
    tiles over min(SMs, their k-tiles / ``MIN_ITERS_PER_SK_UNIT``) units, a tile shared by
    units / tiles where whole (its split-K decomposition), else by the most units that the
    linear split puts on one tile (``most_units_on_a_tile``)."""
    full = jnp.floor(tiles / hw.sms)
    tail = tiles - full * hw.sms
    sk_tiles = tiles - jnp.maximum(full - 1, 0) * hw.sms
    units = jnp.minimum(hw.sms, jnp.floor(sk_tiles * k_tiles / MIN_ITERS_PER_SK_UNIT))
    data_parallel = (tail == 0) | (k_tiles <= MIN_ITERS_PER_SK_UNIT) | (2 * tail >= hw.sms)
    ratio = units / sk_tiles
    peers = jnp.where(ratio == jnp.floor(ratio), ratio,
                      most_units_on_a_tile(units, sk_tiles, k_tiles))
    return jnp.where(data_parallel, 0.0, units), sk_tiles, peers


def most_units_on_a_tile(units, sk_tiles, k_tiles):
    """The most of ``units`` that share one of ``sk_tiles`` tiles of ``k_tiles`` k-tiles when
    the units split all their k-tiles in order, the remainder one k-tile more each to the first
    units (tile_scheduler_params.h: ``big_units_``, whose k-tile count is one above the
    others'): per tile, the unit holding its last k-tile minus the one holding its first, plus
    one; the largest over the tiles (a loop over them: the count depends on where each tile's
    first k-tile falls in its unit)."""
    units = jnp.maximum(units, 1.0)
    base = jnp.floor(sk_tiles * k_tiles / units)
    big = sk_tiles * k_tiles - base * units
    start = jnp.zeros(jnp.broadcast_shapes(jnp.shape(units), jnp.shape(sk_tiles),
                                           jnp.shape(k_tiles)))
    state = (start, *(jnp.asarray(x, start.dtype) for x in (k_tiles, sk_tiles, base, big)))
    return jax.lax.fori_loop(0, jnp.max(sk_tiles).astype(jnp.int32), _count_tile, state)[0]


def _count_tile(t, state):
    """``most_units_on_a_tile``'s loop step over tile ``t`` (module level, its operands in the
    state: one compilation serves every call)."""
    most, k_tiles, sk_tiles, base, big = state
    edge = big * (base + 1)  # the big units' k-tiles come first

    def unit_of(k_tile):
        return jnp.where(k_tile < edge, jnp.floor(k_tile / (base + 1)),
                         big + jnp.floor((k_tile - edge) / jnp.maximum(base, 1.0)))

    first = t * k_tiles
    count = unit_of(first + k_tiles - 1) - unit_of(first) + 1
    return jnp.where(t < sk_tiles, jnp.maximum(most, count), most), k_tiles, sk_tiles, base, big


def serial_fixup(hw, c: dict, work, peers=1.0):
    """Seconds of a serial split-K kernel's fixup chain (T10): the split-k CTAs of one output
    tile take turns in the epilogue (CUTLASS kernel/gemm.h: wait on the tile's semaphore, load
    the partial sums, add, store, release), each turn a semaphore read and a partial-sum load
    that depend on the previous store: 2 dependent DRAM round trips per later split; a
    stream-K tile's ``peers`` alike (T8: deterministic reduction, sm90_tile_scheduler_stream_k.hpp
    ``fixup_helper``), whose turns also move the tile's FP32 partials through the workspace: the
    first peer stores them, each middle peer reads and writes them back (``reduce``), the last
    reads them (``load_add``) before its epilogue; all but the first store wait on the chain,
    (2 peers - 3) tiles of partials, each unit at an SM's share of the L2 bandwidth (the units
    reach their fixups together, each with its share of the work)."""
    if work.tiles[0] != "trtllm_weight_only":
        return 0.0
    turns = c["split"] - 1 + c["streamk"] * (peers - 1)
    tile = c["tm"] * c["tn"] * hw.accumulator_bytes
    partials = c["streamk"] * jnp.maximum(2 * peers - 3, 0) * tile
    return turns * 2 * hw.dram_latency + partials * hw.sms / hw.l2_bandwidth
