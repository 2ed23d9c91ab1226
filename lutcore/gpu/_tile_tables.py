"""The candidate tiles each library ships (sources T1, T2, T4, T6-T9 of ``lutcore.gpu._tiles``):
the tile lists, one table builder per library, and ``candidate_table``, which ``Work.tiles``
names. Every table is a dict of float arrays tm, tn, tk, stages (0: as many as fit), wm, wn
(MMA group tile), warps (per CTA), group (warps per MMA), split, streamk, multistage (1: the
main loop is CUTLASS's sm80 multistage loop, whose cp.async waits floor a k-tile, T14),
cuda_core (1: a plugin's CUDA kernel, no tensor-core work: T8's and T9's GEMVs)."""

from __future__ import annotations

import functools
import itertools

import numpy as np

STAGES = 3  # CUTLASS sm80 multistage default (cutlass/gemm/device/default_gemm_configuration.h)
SPLITS = (1, 2, 4, 8, 16)
# T1: (tm, tn, tk, stages, warps along M, warps along N) of the SM80 tensor-core library tiles
SM80_TILES = ((256, 128, 32, 3, 4, 2), (128, 256, 32, 3, 2, 4), (256, 64, 32, 4, 4, 1),
              (64, 256, 32, 4, 1, 4), (128, 128, 32, 4, 2, 2), (128, 64, 32, 6, 2, 2),
              (64, 128, 32, 6, 2, 2), (64, 64, 32, 10, 2, 2), (256, 128, 64, 3, 4, 2),
              (128, 256, 64, 3, 2, 4), (256, 64, 64, 4, 4, 1), (64, 256, 64, 4, 1, 4),
              (128, 128, 64, 4, 2, 2), (128, 64, 64, 3, 2, 2), (64, 128, 64, 3, 2, 2),
              (64, 64, 64, 5, 2, 2),
              # small-M (GEMV-class) tiles
              (16, 64, 64, 4, 1, 1), (16, 128, 64, 4, 1, 2), (16, 256, 64, 4, 1, 4))
# T2: (tm, tn) of the SM90 warpgroup tiles, k-slab 64
SM90_TILES = ((64, 64), (64, 128), (64, 256), (128, 64), (128, 128), (128, 256), (256, 128))
SM90_TK = 64
# rows of one wgmma (m64nNk16, S9): a consumer warpgroup's share of an SM90 tile
WGMMA_M = 64
# T6: fpA_intB's CTA rows (x 128 columns x k-slab 64, warps 1 x 4) and stages, in the order
# its heuristic visits them (cutlass_heuristic.cc, get_candidate_configs)
FPA_INTB_ROWS, FPA_INTB_STAGES = (32, 64, 128), (2, 3, 4)
# T7: Marlin's (tm, tn, tk, warp tile columns): the M <= 16 tile, then 1-4 blocks of 16 rows
MARLIN_TILES = ((16, 128, 128, 64), *((16 * b, 256, 64, 64) for b in (1, 2, 3, 4)))
# T8: TensorRT-LLM weight-only (tm, tn) tiles, stages, split-K factors, and the M below which
# the plugin runs its GEMV kernel
TRTLLM_WO_TILES = ((16, 128), (16, 256), (32, 128), (64, 128), (128, 128))
TRTLLM_WO_STAGES, TRTLLM_WO_SPLITS = (2, 3, 4), tuple(range(1, 8))
# T8's GEMV: its (tm, tn) tiles, 8 columns x the layout's interleave (1, 2 or 4; _gemv)
TRTLLM_WO_GEMV_TILES = ((16, 8), (16, 16), (16, 32))
# T8 on sm90: token rows (M) x weight rows (N) of the swapped mixed-input wgmma tiles, and the
# weight rows whose tiles run under CUTLASS's stream-K scheduler (the others: persistent)
TRTLLM_WO_SM90_M, TRTLLM_WO_SM90_N = (16, 32, 64, 128, 256), (64, 128)
TRTLLM_WO_SM90_STREAMK_N = 128
# T9: TensorRT-LLM INT8 (tm, tn, tk, wm, wn) tiles and stages
TRTLLM_INT8_TILES = ((32, 128, 64, 32, 32), (64, 128, 64, 64, 32), (128, 128, 64, 64, 32),
                     (64, 64, 128, 32, 64), (128, 256, 64, 64, 64), (256, 128, 64, 64, 64))
TRTLLM_INT8_STAGES = (3, 4, 5, 6)
# T9's CUDA kernel (weightOnlyBatchedGemv/int8SQ.cu@3585984, algo_tactic_dispatcher): CtaM = M
# token rows (1-4), CtaN = 2 weight rows, 128 threads each taking 16 INT8 (an int4 load) a
# step, so a CTA's k-slab is 16 x 128; the plugin runs it for every M <= 4
TRTLLM_SQ_GEMV_TILE = (4, 2, 16 * 128)
TRTLLM_SQ_GEMV_MAX_M = 4



def _table(rows) -> dict[str, np.ndarray]:
    names = ("tm", "tn", "tk", "stages", "wm", "wn", "warps", "group", "split", "streamk",
             "multistage", "cuda_core")
    rows = [row if len(row) == len(names) else (*row, 0) for row in rows]  # tensor-core rows
    return dict(zip(names, np.array(rows, dtype=float).T))


@functools.cache
def library_candidates(cutlass: bool = False) -> dict[str, np.ndarray]:
    """T1 + T2 tiles of the MAC tensor-core kernels, each with its split-K factors: arrays tm,
    tn, tk, stages (0: as many as fit), wm, wn (MMA group tile), warps (per CTA), group (warps
    per MMA: 1 SM80, 4 SM90), split; ``cutlass``: CUTLASS's own kernels, whose SM80 tiles run
    its multistage loop (T14; cuBLAS's waits are not public)."""
    rows = []
    for (tm, tn, tk, stages, wy, wx), split in itertools.product(SM80_TILES, SPLITS):
        rows.append((tm, tn, tk, stages, tm / wy, tn / wx, wy * wx, 1, split, 0, float(cutlass)))
    for (tm, tn), split in itertools.product(SM90_TILES, SPLITS):
        groups = tm // WGMMA_M  # consumer warpgroups, plus one producer warpgroup
        rows.append((tm, tn, SM90_TK, 0, WGMMA_M, tn, 4 * (groups + 1), 4, split, 0, 0))
    for tm, tn in SM90_TILES:  # T4: persistent stream-K
        rows.append((tm, tn, SM90_TK, 0, WGMMA_M, tn, 4 * (tm // WGMMA_M + 1), 4, 1, 1, 0))
    return _table(rows)


@functools.cache
def custom_candidates(warp_m: tuple, warp_n: tuple) -> dict[str, np.ndarray]:
    """Kernel-specific tiles (LUT kernels): warp tiles warp_m x warp_n in layouts of up to 8
    warps, k-slabs 32 / 64, ``STAGES`` stages, one warp per MMA, every split."""
    layouts = ((1, 1), (1, 2), (2, 1), (2, 2), (1, 4), (4, 1), (2, 4), (4, 2))
    rows = [(wm * ly, wn * lx, tk, STAGES, wm, wn, ly * lx, 0, split, 0, 0)
            for wm, wn, (ly, lx), tk, split in itertools.product(
                warp_m, warp_n, layouts, (32, 64), SPLITS)]
    return _table(rows)


@functools.cache
def fpa_intb_candidates() -> dict[str, np.ndarray]:
    """T6 tiles, in the heuristic's order (group 0: mma.sync code runs on SM80 and SM90)."""
    return _table([(tm, 128, 64, stages, tm, 32, 4, 0, 1, 0, 1)
                   for tm, stages in itertools.product(FPA_INTB_ROWS, FPA_INTB_STAGES)])


@functools.cache
def marlin_candidates() -> dict[str, np.ndarray]:
    """T7 tiles, in ``marlin_tile``'s order: stream-K-like stripes, 8 warps, 4 stages, its
    loop's waits T14's (marlin_cuda_kernel.cu ``wait_for_stage``: cp_async_wait<stages - 2>
    right after issuing the stage Stages - 1 ahead)."""
    return _table([(tm, tn, tk, 4, tm, wn, 8, 0, 1, 1, 1) for tm, tn, tk, wn in MARLIN_TILES])


@functools.cache
def trtllm_weight_only_candidates() -> dict[str, np.ndarray]:
    """T8 tactics: the GEMV's tiles (group 0: every architecture; 4 warps splitting K, 2
    stages), the sm80 tiles at each stage count and serial split-K factor (warps 1 x 4; group
    1: SM80 only), the sm90 tiles (group 4: the MMA group tile is a consumer warpgroup's 64
    weight rows x the CTA's tokens; three warpgroups; auto stages; stream-K for 128 weight
    rows where the scheduler's heuristic decomposes so, ``_tiles.streamk_units``)."""
    gemv = [(tm, tn, 64, 2, tm, tn, 4, 0, 1, 0, 0, 1) for tm, tn in TRTLLM_WO_GEMV_TILES]
    sm80 = [(tm, tn, 64, stages, tm, tn / 4, 4, 1, split, 0, 1)
            for (tm, tn), stages, split in itertools.product(
                TRTLLM_WO_TILES, TRTLLM_WO_STAGES, TRTLLM_WO_SPLITS)]
    sm90 = [(tm, tn, SM90_TK, 0, tm, 64, 12, 4, 1, float(tn == TRTLLM_WO_SM90_STREAMK_N), 0)
            for tm, tn in itertools.product(TRTLLM_WO_SM90_M, TRTLLM_WO_SM90_N)]
    return _table(gemv + sm80 + sm90)


@functools.cache
def trtllm_int8_candidates() -> dict[str, np.ndarray]:
    """T9 tactics: each tile (as dispatched) at each stage count, K unsplit; then its CUDA
    kernel (4 warps, registers only: 2 stages as T8's GEMV)."""
    rows, cols, slab = TRTLLM_SQ_GEMV_TILE
    return _table([(tm, tn, tk, stages, wm, wn, (tm // wm) * (tn // wn), 0, 1, 0, 1)
                   for (tm, tn, tk, wm, wn), stages in itertools.product(
                       TRTLLM_INT8_TILES, TRTLLM_INT8_STAGES)]
                  + [(rows, cols, slab, 2, rows, cols, 4, 0, 1, 0, 0, 1)])


# ``Work.tiles[0]`` -> the builder of its candidate table, given the rest of ``Work.tiles``
CANDIDATE_TABLES = {"library": library_candidates, "fpa_intb": fpa_intb_candidates,
                    "marlin": marlin_candidates, "custom": custom_candidates,
                    "trtllm_weight_only": trtllm_weight_only_candidates,
                    "trtllm_int8": trtllm_int8_candidates}


def candidate_table(tiles: tuple) -> dict[str, np.ndarray]:
    """The candidate table of a ``Work.tiles`` description."""
    return CANDIDATE_TABLES[tiles[0]](*tiles[1:])
