"""CUTLASS's sm80 multistage main loop (``_tiles`` T14): the time its cp.async waits give a
CTA's k-tiles. Used by ``lutcore.gpu._tiles``.

The loop (cutlass@7107b05 include/cutlass/gemm/threadblock/mma_multistage.h; TensorRT-LLM's
fpA_intB copy, cutlass_extensions/gemm/threadblock/dq_mma_multistage_percol.h@6921f8b and
dq_mma_multistage_finegrained.h@c3589f1, the same waits): the prologue issues Stages - 1
k-tiles' cp.async groups in one burst and waits for the first (``cp_async_wait<Stages - 2>``).
Each main-loop iteration then runs its k-tile's warp MMAs and, after each but the last, issues
a share of the k-tile Stages - 1 ahead (``kAccessesPerGroup``: the group is spread over the
iteration, its last share issued at the second-to-last MMA step), commits it, and waits with
Stages - 2 groups pending: for the group issued Stages - 2 iterations before, whose last loads
left just before that iteration's wait; the groups past the last k-tile are masked
(``clear_mask``: no global load). With e the clocks from one wait to the next (the k-tile's own
work) and L a load's round trip, the wait after iteration j returns no earlier than the one
after iteration j - (Stages - 1) plus e (to issue the group) plus L, where group j + 1 is a real
k-tile's. Over a long loop a k-tile takes max(e, (L + e) / (Stages - 1)): the round trip binds
exactly where L / (Stages - 2) > e (2 stages: every k-tile after the first exposes it). The
first round trip is the prologue's (``GPUSpec.gemm_prologue``); co-resident CTAs wait side by
side.
"""

from __future__ import annotations

import jax.numpy as jnp


def multistage_clocks(hw, stages, k_tiles, ktile_clocks):
    """SM clocks of one CTA's main loop (T14) after its prologue's wait: ``k_tiles`` k-tiles of
    ``ktile_clocks`` work e each, plus L - (stages - 2) e (where positive) for each whole
    Stages - 1 k-tiles a wait spans before the last k-tile's (the loop's longest path: a wait
    on a group issued in the loop costs e + L over Stages - 1 iterations; L a DRAM round trip,
    ``GPUSpec.dram_latency``, at the SM clock)."""
    exposed = jnp.maximum(hw.dram_latency * hw.clock - (stages - 2) * ktile_clocks, 0.0)
    return k_tiles * ktile_clocks + jnp.floor((k_tiles - 1) / (stages - 1)) * exposed
