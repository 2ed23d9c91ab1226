"""The weight-only library kernels as their sources build them (lutcore.gpu._tiles T6, T7):
fpA_intB's tile heuristic against a plain transcription of its C++ and hand-worked picks,
Marlin's tile by M and its launches of at most 1024 rows, and the shared memory CUDA keeps
per CTA."""

import dataclasses
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import lutcore.gpu as gpu
from lutcore.gpu import _gemv, _kernels, _library, _rsloop, _tile_records, _tile_tables, _tiles

CANDIDATES = _tile_tables.fpa_intb_candidates()
SMS = 108  # A100


def scalar_heuristic(m: int, n: int, resident: list[int], sms: int = SMS) -> int:
    """estimate_best_config_from_occupancies (cutlass_heuristic.cc), split-K 1, written as the
    C++ reads: one candidate after another, if / else if, float32 arithmetic."""
    f32 = np.float32
    best, score, waves, cur_m, best_stages = -1, f32(1.0), math.inf, 0, -1
    for i, occ in enumerate(resident):
        tile_m, stages = int(CANDIDATES["tm"][i]), int(CANDIDATES["stages"][i])
        if occ == 0:
            continue
        if best != -1 and m < cur_m and cur_m < tile_m:
            continue
        ctas = math.ceil(m / tile_m) * math.ceil(n / 128)
        per_wave = occ * sms
        whole = math.ceil(ctas / per_wave)
        s = f32(whole) - f32(ctas) / f32(per_wave)
        if s < score or (waves > whole and s < score + f32(0.1)):
            best, score, waves, cur_m, best_stages = i, s, whole, tile_m, stages
        elif s == score and (best_stages < stages or cur_m < tile_m):
            best, waves, cur_m, best_stages = i, whole, tile_m, stages
    return best


def vector_heuristic(m, n, resident) -> np.ndarray:
    resident = np.asarray(resident, float)
    occ = _tiles.Occupancy(registers=None, accumulators=None, threads=None, stages=None,
                           smem=None, ctas=jnp.maximum(resident, 1.0), feasible=resident > 0)
    c = {name: jnp.asarray(v) for name, v in CANDIDATES.items()}
    m, n = (jnp.asarray(np.atleast_1d(x), float)[:, None] for x in (m, n))
    return np.asarray(gpu.cutlass_heuristic(m, n, c, occ, SMS))


@pytest.mark.parametrize("m, n, resident, expected", [
    # 8192 x 14336: the 32-row tile at 4 stages, 4 CTAs per SM, leaves 0.63 of a wave idle,
    # less than any other (0.75 for 32 / 64 rows at 6 / 3 CTAs, 0.81 for 128 rows at 2)
    (8192, 14336, [6, 6, 4, 3, 3, 3, 2, 2, 2], 2),
    # with 6 CTAs at 4 stages too, 64 rows tie at 0.75 and win the tie (more rows); 128 rows
    # score 0.81 but need 34 whole waves against 45, within 0.1: the 128-row tile, 4 stages
    (8192, 14336, [6, 6, 6, 3, 3, 3, 2, 2, 2], 8),
    # M = 1: the 32-row tile at the fewest CTAs (4 stages); taller tiles are never visited
    (1, 16384, [9, 6, 4, 6, 4, 3, 3, 2, 2], 2),
])
def test_hand_worked_fpa_intb_picks(m, n, resident, expected):
    assert scalar_heuristic(m, n, resident) == expected
    assert vector_heuristic(m, n, resident)[0] == expected


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 20000), n=st.integers(1, 60000),
       resident=st.lists(st.integers(0, 9), min_size=9, max_size=9))
def test_the_vectorized_heuristic_is_the_cpp_one(m, n, resident):
    expected = scalar_heuristic(m, n, resident)
    assert vector_heuristic(m, n, resident)[0] == max(expected, 0)


def test_a_cta_pays_the_shared_memory_cuda_reserves():
    """fpA_intB 32 x 128 x 64, INT4, 4 stages: 33,280 bytes of slabs and 1 KiB reserved fit 4
    times in the A100's 164 KiB (5 times without the reservation); registers would allow 6."""
    occ = gpu.tile_occupancy(gpu.A100, "fpa_intb", (32, 128, 64), (32, 32), weight_bits=4,
                             stages=4)
    assert float(occ.smem) == 4 * 64 * (32 * 2 + 128 * (0.5 + 2 / 128))
    assert float(occ.ctas) == 4
    assert 164 * 1024 // (float(occ.smem) + 1024) == 4 < 164 * 1024 // float(occ.smem)


@pytest.mark.parametrize("m, rows", [(1, 16), (16, 16), (17, 32), (33, 48), (64, 64),
                                     (1024, 64), (8192, 64)])
def test_marlin_takes_its_tile_by_m(m, rows):
    latency = gpu.gemm_latency(gpu.A100, "marlin", m, 8192, 8192, weight_bits=4)
    assert float(latency.tile_m) == rows
    assert float(latency.tile_n) == (128 if m <= 16 else 256)


def test_marlin_runs_m_beyond_1024_rows_as_launches_of_equal_rows():
    one = gpu.gemm_latency(gpu.A100, "marlin", 1024, 14336, 14336, weight_bits=4)
    eight = gpu.gemm_latency(gpu.A100, "marlin", 8192, 14336, 14336, weight_bits=4)
    assert float(eight.seconds) == pytest.approx(8 * float(one.seconds), rel=1e-12)


@pytest.mark.parametrize("kernel, bits", [("fpa_intb", 2), ("marlin", 8)])
def test_library_kernels_reject_widths_they_lack(kernel, bits):
    with pytest.raises(ValueError, match=f"{kernel} weight_bits must be"):
        gpu.gemm_latency(gpu.A100, kernel, 1, 4096, 4096, weight_bits=bits)


def test_fpa_intb_converts_int4_weights_at_twice_the_int8_cost_on_the_same_tile():
    """INT4 fragments span k32 and are converted at both k16 steps (1.25 INT32 ops and 4 FP16
    lanes a weight); INT8 ones once (0.5 and 2): where both pick the same tile, the CUDA-core
    time is the INT32 pipe's for INT4 (1.25 / 64) and either pipe's for INT8 (0.5 / 64)."""
    m, n, k = 8192, 8192, 8192
    int4 = gpu.gemm_latency(gpu.A100, "fpa_intb", m, n, k, weight_bits=4, group_size=0)
    int8 = gpu.gemm_latency(gpu.A100, "fpa_intb", m, n, k, weight_bits=8, group_size=0)
    assert float(int4.tile_m) == float(int8.tile_m)
    assert float(int4.cuda_core) / float(int8.cuda_core) == pytest.approx(1.25 / 0.5, rel=1e-9)


def test_marlin_scales_groups_in_the_main_loop_and_channels_in_the_epilogue():
    """Per-channel scales multiply Marlin's outputs once; group scales add 2 HMUL2 per 4
    weights to the FP16 pipe (1 lane a weight becomes 2) and their bytes to the stream; the
    conversions stay bound by the INT32 pipe (5/8 of an op a weight on 64 lanes against 2 lanes
    on 256), so only the bytes slow it down."""
    per_channel = gpu.gemm_latency(gpu.A100, "marlin", 4096, 8192, 8192, weight_bits=4,
                                   group_size=0)
    grouped = gpu.gemm_latency(gpu.A100, "marlin", 4096, 8192, 8192, weight_bits=4,
                               group_size=128)
    assert float(grouped.cuda_core) == float(per_channel.cuda_core)
    assert float(grouped.dram) > float(per_channel.dram)
    assert float(grouped.seconds) > float(per_channel.seconds)
    assert gpu.hardware(gpu.A100, "fpa_intb", "fp16", 4, group_size=128).w_bytes == 0.5 + 2 / 128


@pytest.mark.parametrize("kernel, bits, group", [("fpa_intb", 4, 0), ("fpa_intb", 8, 0),
                                                 ("marlin", 4, 0), ("marlin", 4, 128)])
def test_a_layer_prices_its_projections_as_the_library_kernel_of_its_width(kernel, bits, group):
    """The simulator's operator graph keeps the width and groups of the kernels whose instruction
    mix follows them: a projection costs what ``gemm_latency`` gives for that width."""
    rows, llm = 64, gpu.LLMS["llama2-7b"]
    deployment = gpu.Deployment(kernel=kernel, weight_bits=bits, group_size=group)
    parts = gpu.layer_breakdown(gpu.A100, llm, deployment, gpu.workload(1, rows), launch=0.0)
    down = gpu.gemm_latency(gpu.A100, kernel, rows, 4096, 11008, weight_bits=bits,
                            group_size=group)
    assert float(parts["ffn_down"]) == pytest.approx(float(down.seconds), rel=1e-9)


def test_dynamic_quantize_step():
    """cublas_quantize is TensorRT-LLM's GEMM (at its rate) plus its dynamic per-tensor activation
    quantization: four device operations (memset, absolute max, quantize, the scale's cast to
    FP32), the absolute-max kernel's fixed grid of 1024 blocks of 1024 threads in rounds of
    resident blocks, and two scalar grid-stride passes, each the longer of its bytes at the
    streaming DRAM rate and its busiest thread's dependent loads (BF16 read by 1024 x 1024
    threads in 4 rounds on the H100's 132 SMs; BF16 read and one byte written by 1024 x 256
    threads, all resident); 8-bit activations only; not a simulator kernel."""
    h100 = gpu.H100
    m, n, k = np.array([1.0, 4096.0]), 4096, 8192
    plain = gpu.gemm_latency(h100, "trtllm_gemm", m, n, k, act="fp8", weight_bits=8).seconds
    step = gpu.gemm_latency(h100, "cublas_quantize", m, n, k, act="fp8",
                            weight_bits=8).seconds - plain
    # by hand: 8192 and 33,554,432 activations; the absolute max 4 rounds x (1, 32) loads a
    # thread, the quantize pass 1 round x (1, 128) loads; both above their bytes at 4096 rows
    bandwidth, latency = h100.achievable_dram_bandwidth, h100.dram_latency
    scale_pass = np.maximum(m * k * 2 / bandwidth, 4 * np.array([1, 32]) * latency)
    quantize_pass = np.maximum(m * k * 3 / bandwidth, np.array([1, 128]) * latency)
    expected = (4 * h100.kernel_latency + scale_pass + quantize_pass
                + 4 * _library.QUANTIZE_ROUND)
    np.testing.assert_allclose(step, expected, rtol=1e-6)
    assert quantize_pass[1] == pytest.approx(128 * latency)  # the loads, not the 2.8 TB/s
    with pytest.raises(ValueError, match="act 'bf16' unknown; allowed values: fp8, int8"):
        gpu.gemm_latency(gpu.H100, "cublas_quantize", 8, 8, 8, act="bf16", weight_bits=16)
    with pytest.raises(ValueError, match="not simulated"):
        gpu.model_latency(gpu.H100, gpu.LLMS["llama2-7b"],
                          gpu.Deployment(kernel="cublas_quantize", activation="fp8",
                                         weight_bits=8), gpu.workload(1, 1))


def test_trtllm_weight_only_tactics():
    """TensorRT-LLM's weight-only plugin (T8): its GEMV's 3 tile widths, 5 sm80 tiles x 3 stage
    counts x split-K 1-7 (get_candidate_configs for sm80), 5 x 2 sm90 tiles without split-K
    (get_candidate_configs_sm90), the fastest as its profiler picks, never slower than the
    TVM build's heuristic pick on the same conversions; its GEMV one tactic more below M = 16
    (8 columns x the layout's interleave: 32 for INT4 on the A100, no split-K), the fastest
    here below M = 5."""
    table = _tile_tables.trtllm_weight_only_candidates()
    assert len(table["tm"]) == 3 + 5 * 3 * 7 + 5 * 2 and set(table["split"]) == set(range(1, 8))
    assert {float(g): int(np.sum(table["group"] == g)) for g in (0, 1, 4)} == {0: 3, 1: 105, 4: 10}
    assert set(table["split"][table["group"] != 1]) == {1.0}
    m = np.array([1.0, 4.0, 5.0, 64.0, 1024.0, 8192.0])
    profiled = gpu.gemm_latency(gpu.A100, "trtllm_weight_only", m, 4096, 4096, weight_bits=4,
                                group_size=0)
    heuristic = gpu.gemm_latency(gpu.A100, "fpa_intb", m, 4096, 4096, weight_bits=4,
                                 group_size=0)
    assert np.all(profiled.seconds <= heuristic.seconds * (1 + 1e-6))
    small = m < 5
    assert np.all(profiled.tile_m[small] == 16) and np.all(profiled.split_k[small] == 1)
    assert np.all(profiled.tile_n[small] == 32)  # the GEMV's CTA columns, INT4 on sm80



def test_gemv_clocks_by_hand():
    """TensorRT-LLM's GEMV CTA (``_gemv``), counted by hand from its source for H200, INT4, M =
    4, 8 columns (sm90 layout) x K 4096 = 32768 weights: FP16 lanes (4 rows + 2 dequant) x
    32768 / 256 = 768, INT32 (5/8 + 1/2 packing) x 32768 / 64 = 576, issue (3 + 1.125) x 32768 /
    128 = 1056 (the busiest), then 128 threads x 4 rows x 8 x 5 shuffles / 32 = 640: 1696 clocks
    at the 1.98 GHz boost clock, in 1.83 GHz SM clocks."""
    hw = _kernels.hardware(gpu.H200, "trtllm_weight_only", "fp16", 4)
    c = {"tm": np.array([16.0]), "tn": np.array([8.0])}
    clocks = _gemv.gemv_clocks(hw, c, 4096.0, 4.0, _library.RS_DEQUANT[4])
    assert float(clocks[0]) == pytest.approx(1696 * 1.83 / 1.98, rel=1e-12)
    assert float(_gemv.gemv_columns(hw)) == 8
    for bits, columns in ((4, 32), (8, 16)):  # sm80: 8 x the interleave 128 x 8 / (64 x bits)
        ampere = _kernels.hardware(gpu.A100, "trtllm_weight_only", "fp16", bits)
        assert float(_gemv.gemv_columns(ampere)) == columns


@settings(max_examples=10, deadline=None)
@given(st.sampled_from([4, 8]), st.sampled_from([1024, 2048, 4096]))
def test_gemv_time_grows_with_its_rows(bits, size):
    """The GEMV's HFMA2s grow with M (one per weight pair and row): where the H200's plugin
    runs it (a short DRAM stream, M = 1-4), its time rises strictly with M, on the CUDA cores
    alone (no tensor-core time)."""
    m = np.arange(1.0, 5.0)
    result = gpu.gemm_latency(gpu.H200, "trtllm_weight_only", m, size, size, weight_bits=bits,
                              group_size=0)
    assert np.all(np.diff(result.seconds) > 0) and np.all(result.compute == 0)
    assert np.all(result.tile_n == 8) and np.all(result.cuda_core > 0)


def test_gemv_is_a_profiled_tactic_not_a_fixed_path():
    """The 1.x plugin profiles its GEMV like any tactic below M = 16 and runs the fastest
    (weightOnlyQuantMatmulPlugin.cpp: no SMALL_M_FAST_PATH): where a CUTLASS tactic beats it
    (the A100's INT8 16384 x 16384, the CUTLASS kernel's longer DRAM pipeline) even M = 1 runs
    the CUTLASS kernel, never slower than the GEMV; at M = 16 the GEMV is not offered."""
    record = gpu.KERNEL_LIBRARY["trtllm_weight_only"]
    work = record.work_for(gpu.Quant(weight_bits=8, group_size=0))
    hw = _kernels.hardware(gpu.A100, record, "fp16", 8)
    picked = _tiles.tile_model(hw, 1.0, 16384, 16384, work=work)
    assert float(picked.compute) > 0 and float(picked.tile_n) == 256
    c = {name: np.asarray(v, float) for name, v in _tile_tables.candidate_table(work.tiles).items()}
    occ = _tiles.occupancy(hw, c, work)
    for m in (1.0, 16.0):
        pipes = _tiles.pipe_times(hw, c, 16384.0, occ, work, m)
        totals = _tiles.candidate_totals(hw, c, occ, pipes, *(np.array([[x]]) for x in
                                                               (m, 16384.0, 16384.0)), work)[0]
        gemv = np.asarray(totals)[0][c["cuda_core"] == 1]
        if m == 1.0:
            assert float(picked.seconds) <= np.min(gemv) < np.inf
        else:
            assert np.all(np.isinf(gemv))


def _sm90_tile(result) -> np.ndarray:
    """True where ``result`` ran a T8 sm90 tile: a warpgroup's 64 weight rows, 64 or 128 per CTA
    (the sm80 tiles' warps are 32 columns wide, or 64 of a 256-column tile)."""
    return (np.asarray(result.warp_n) == 64) & (np.asarray(result.tile_n) <= 128)


def test_trtllm_weight_only_runs_sm90_mixed_input_kernels_on_hopper_only():
    """On Hopper the plugin's large-M tactic is a CUTLASS 3 mixed-input wgmma tile (T8 sm90),
    whose conversions overlap the asynchronous MMA: the kernel takes less than the MMA and
    conversion times added (the sm80 path's cost); the A100 never runs one. (Without the wgmma
    chain, which would make the 64-token tile's k-tiles the longer and pick a tile whose waves
    cost more than the overlap saves.)"""
    m = np.array([64.0, 1024.0, 8192.0])
    unchained = dataclasses.replace(gpu.H200, wgmma_chain=0.0)
    hopper = gpu.gemm_latency(unchained, "trtllm_weight_only", m, 4096, 4096, weight_bits=4,
                              group_size=0)
    assert np.all(_sm90_tile(hopper)) and np.all(hopper.split_k == 1)
    big = float(hopper.compute[-1]), float(hopper.cuda_core[-1])
    assert max(big) <= float(hopper.seconds[-1]) < sum(big)
    ampere = gpu.gemm_latency(gpu.A100, "trtllm_weight_only", m, 4096, 4096, weight_bits=4,
                              group_size=0)
    assert not np.any(_sm90_tile(ampere))


def test_split_k_adds_one_device_operation():
    """T10: a split-K kernel pays two kernels' fixed device time (its memset or reduction), a
    kernel without split-K one: d seconds / d kernel_latency = 2 or 1 (same tiles picked)."""
    def fixed_cost_slope(m, n, k):
        times = [gpu.gemm_latency(dataclasses.replace(gpu.A100, kernel_latency=t), "cublas",
                                  m, n, k) for t in (2.0e-6, 2.0e-6 + 1e-9)]
        assert float(times[0].split_k) == float(times[1].split_k)
        return (float(times[1].seconds) - float(times[0].seconds)) / 1e-9, float(
            times[0].split_k)

    slope, split = fixed_cost_slope(128, 1024, 28672)
    assert split > 1 and slope == pytest.approx(2.0, rel=1e-3)
    slope, split = fixed_cost_slope(4096, 8192, 8192)
    assert split == 1 and slope == pytest.approx(1.0, rel=1e-3)


def test_trt_layer_profiler_timing_adds_its_fixed_cost():
    """``timing="trt_layer_profiler"`` adds TensorRT's per-layer profiler cost
    (``TIMING_OVERHEAD``) to the kernel's device time, and nothing else; an unknown timing is
    named with the allowed ones."""
    events = gpu.gemm_latency(gpu.A100, "trtllm_smoothquant", 8, 4096, 4096, act="int8",
                              weight_bits=8)
    profiled = gpu.gemm_latency(gpu.A100, "trtllm_smoothquant", 8, 4096, 4096, act="int8",
                                weight_bits=8, timing="trt_layer_profiler")
    assert float(profiled.seconds) - float(events.seconds) == pytest.approx(
        _library.TIMING_OVERHEAD["trt_layer_profiler"], rel=1e-9)
    assert float(profiled.tile_m) == float(events.tile_m)
    with pytest.raises(ValueError, match="timing 'ncu' unknown; allowed values: events, "
                                         "trt_layer_profiler"):
        gpu.gemm_latency(gpu.A100, "cublas", 8, 8, 8, timing="ncu")


def test_smoothquant_tactics_run_as_dispatched():
    """T9: 6 tiles x 4 stage counts and the CUDA kernel's row, K never split (the launcher
    passes a batch count of 1), the 128 x 64 tactic a 128 x 128 CTA tile; at M = 16 with N =
    1024 (8 output tiles of 32 x 128 for 108 SMs) no split factor is picked."""
    table = _tile_tables.trtllm_int8_candidates()
    assert len(table["tm"]) == 6 * 4 + 1 and set(table["split"]) == {1.0}
    tiles = set(zip(table["tm"][table["cuda_core"] == 0], table["tn"][table["cuda_core"] == 0]))
    assert (128.0, 64.0) not in tiles and (128.0, 128.0) in tiles
    skinny = gpu.gemm_latency(gpu.A100, "trtllm_smoothquant", 16, 1024, 4096, act="int8",
                              weight_bits=8)
    assert float(skinny.split_k) == 1.0


def test_mma_sync_kernels_are_capped_on_hopper_only():
    """S10: an mma.sync kernel (SmoothQuant, fpA_intB, Marlin) reaches on Hopper at most
    977.9 / 1513 (INT8) or 494.4 / 756.5 (FP16) of the peak on zero inputs, over 295 / 257 (C3)
    on random ones: INT8 4096 MACs x 0.56308 = 2306.4 per SM per clock on the H200, where
    cuBLAS's wgmma keeps its FP8 MAMF fraction 0.7766 (3180.95); on the A100, whose native MMA
    is mma.sync, SmoothQuant keeps its calibrated INT8 fraction (2048 x INT8_A100)."""
    from lutcore.gpu import _kernels
    from lutcore.gpu._specs import INT8_A100
    zeros = 295 / 257
    sq = _kernels.hardware(gpu.H200, "trtllm_smoothquant", "int8").macs
    assert float(sq) == pytest.approx(4096 * 977.9 / 1513 / zeros, rel=2e-4)
    assert float(_kernels.hardware(gpu.H200, "cublas", "int8").macs) == pytest.approx(
        4096 * 0.7766, rel=1e-4)
    marlin = _kernels.hardware(gpu.H100, "marlin", "fp16", 4).macs
    assert float(marlin) == pytest.approx(2048 * 494.4 / 756.5 / zeros, rel=2e-4)
    assert float(_kernels.hardware(gpu.A100, "trtllm_smoothquant", "int8").macs) == (
        pytest.approx(2048 * INT8_A100, rel=1e-9))
    # the cap shows in a compute-bound SmoothQuant GEMM: on the same tile its MMAs take the
    # rates' ratio longer, and the whole kernel (its store and fixed costs the same) > 15 %
    uncapped = dataclasses.replace(gpu.H200, mma_sync_fraction=())
    runs = [gpu.gemm_latency(spec, "trtllm_smoothquant", 8192, 8192, 8192, act="int8",
                             weight_bits=8) for spec in (gpu.H200, uncapped)]
    assert float(runs[0].tile_n) == float(runs[1].tile_n)
    assert float(runs[0].compute / runs[1].compute) == pytest.approx(
        float(_kernels.hardware(uncapped, "trtllm_smoothquant", "int8").macs / sq), rel=1e-6)
    assert float(runs[0].seconds) > 1.15 * float(runs[1].seconds)


def test_sm90_mixed_input_k_tiles_wait_for_a_wgmma_a_shared_memory_load_and_a_conversion():
    """T8, T12 by hand, INT4 weight-only at M = 16 on the H200 with a wgmma latency of 10000
    clocks, so the chain binds. INT4 keeps 2 wgmmas in flight (warpgroup_wait<4 - 2>): a
    latency every 3 k-blocks, 4 / 3 a k-tile, beside one LDS and two register-buffer
    conversions every 3 k-tiles: a k-tile is (4 x 10000 + 29 + 2 x 36) / 3 clocks (a buffer:
    64 rows x 32 INT4 weights at 5/8 INT32 op on 64 lanes + 2 FP16 lane-ops on 256 lanes).
    N = 16384: the 128-row tiles (128 of them) fill more than half a wave, so the
    stream-K scheduler runs them data-parallel, one round of 64 k-tiles, beside two rounds of
    the 64-row tiles: a kernel's fixed time and one tile prologue beside. N = 4096: its 32 tiles
    of 64 k-tiles go stream-K over min(132, 2048 / 8) = 132 units, 2048 / 132 k-tiles each,
    with the workspace memset (a second fixed time) and a deterministic fixup of at most
    1 + ceil(132 / 32) = 6 peers a tile (5 turns of 2 DRAM round trips, 9 tiles of 16 x 128
    FP32 partials on the chain at an SM's share of the L2). cuBLAS's SS wgmma
    kernels do not wait so: their time does not move with the latency; nor does the A100's
    (mma.sync) weight-only kernel."""
    slow = dataclasses.replace(gpu.H200, wgmma_latency=10000.0)
    turn = (4 * 10000 + 29 + 2 * 36) / 3 / 1.83e9
    fixed = gpu.H200.kernel_latency + gpu.H200.gemm_prologue
    for n, waves, seconds in ((16384, 1.0, 64 * turn + fixed),
                              (4096, 32 / 132, 2048 / 132 * turn + fixed + gpu.H200.kernel_latency
                               + 5 * 2 * gpu.H200.dram_latency
                               + 9 * 16 * 128 * 4 * 132 / (5120 * 1.83e9))):
        r = gpu.gemm_latency(slow, "trtllm_weight_only", 16, n, 4096, weight_bits=4,
                             group_size=0)
        assert (float(r.tile_m), float(r.tile_n), float(r.split_k)) == (16.0, 128.0, 1.0)
        assert float(r.waves) == pytest.approx(waves)
        assert float(r.seconds) == pytest.approx(seconds, rel=5e-3)
    assert float(gpu.gemm_latency(gpu.H200, "trtllm_weight_only", 16, 4096, 4096, weight_bits=4,
                                  group_size=0).seconds) < 0.2 * float(r.seconds)
    for spec, kernel, bits in ((gpu.H200, "cublas", 16), (gpu.A100, "trtllm_weight_only", 4)):
        times = {float(gpu.gemm_latency(dataclasses.replace(spec, wgmma_latency=t), kernel, 16,
                                        4096, 4096, weight_bits=bits).seconds)
                 for t in (128.0, 10000.0)}
        assert len(times) == 1


def test_serial_split_k_fixup_chain():
    """T10: TensorRT-LLM's serial split-K (T8 sm80) passes the output tile from split to split:
    d seconds / d dram_latency = 2 (split - 1) (a semaphore read and a partial-sum load per
    later split), 0 for a tactic without split-K and for cuBLAS's split-K (a reduction kernel)."""
    def slope(kernel, m, n, k, **keywords):
        times = [gpu.gemm_latency(dataclasses.replace(gpu.A100, dram_latency=t), kernel, m, n, k,
                                  **keywords) for t in (5.36e-7, 5.36e-7 + 1e-10)]
        assert float(times[0].split_k) == float(times[1].split_k)
        return (float(times[1].seconds) - float(times[0].seconds)) / 1e-10, float(
            times[0].split_k)

    d, split = slope("trtllm_weight_only", 64, 4096, 16384, weight_bits=4, group_size=0)
    assert split > 1 and d == pytest.approx(2 * (split - 1), rel=1e-3)
    d, split = slope("trtllm_weight_only", 8192, 4096, 4096, weight_bits=4, group_size=0)
    assert split == 1 and d == pytest.approx(0, abs=1e-3)
    d, split = slope("cublas", 128, 1024, 28672)
    assert split > 1 and d == pytest.approx(0, abs=1e-3)


def test_quantize_step_block_rounds():
    """The absolute-max kernel's 1024 blocks of 1024 threads run 2 per SM (2048 threads): rounds
    of 264 on the H100 and H200 (132 SMs) -> 4, of 216 on the A100 -> 5, of 164 on the RTX 3090
    (82 SMs) -> 7."""
    from lutcore.gpu import _kernels

    rounds = {name: _kernels.scale_rounds(gpu.gpu_spec(name))
              for name in ("h100", "h200", "a100", "rtx3090")}
    assert rounds == {"h100": 4, "h200": 4, "a100": 5, "rtx3090": 7}


@pytest.mark.parametrize("k, allowed", [(4096, {1, 2, 4}), (12288, {1, 2, 3, 4, 6}),
                                        (1024, {1, 2, 4})])
def test_trtllm_weight_only_splits_k_into_whole_k_slabs(k, allowed):
    """T8 sm80: the interleaved weight layout needs K / split_k a multiple of the 64-deep k-slab
    (the launcher throws otherwise and the profiler drops the tactic): every pick over M and N
    is an allowed split; K = 4096 (64 slabs) splits 1, 2 or 4, never 3 (1365 rows: the model
    picked it at M = 16, N = 1024 before), 5, 6 or 7."""
    m, n = np.array([[8.0], [16.0], [32.0], [64.0], [256.0]]), np.array([1024.0, 4096.0])
    picked = gpu.gemm_latency(gpu.A100, "trtllm_weight_only", m, n, k, weight_bits=8,
                              group_size=0)
    assert set(np.asarray(picked.split_k).ravel().tolist()) <= allowed
    assert {s for s in range(1, 8) if (k // s) % 64 == 0} == allowed  # the C++ test, by hand


def test_plugins_run_the_tactic_profiled_at_the_next_power_of_two():
    """T11: TensorRT-LLM's GEMM plugins run at M the tactic that was fastest at the power of two
    at or above M (at most 8192; the weight-only plugin profiles every M below 16 itself, so
    there it runs M's own): at M = 80 the weight-only plugin on the A100 (N = K = 4096)
    runs M = 128's tile, which is not the fastest tile at M = 80, so it takes longer than an
    autotuner's pick; at a power of two the two agree to the bit. SmoothQuant likewise."""
    assert np.asarray(_tiles.profiled_m(jnp.array([1.0, 2, 3, 5, 80, 128, 129, 9000]))).tolist() \
        == [1, 2, 4, 8, 128, 128, 256, 8192]
    m = np.arange(1, 10001)  # against integer arithmetic (nextPowerOfTwo), every M to 10000
    oracle = [min(1 << int(x - 1).bit_length(), 8192) for x in m]
    assert np.asarray(_tiles.profiled_m(jnp.asarray(m, float))).tolist() == oracle
    below = np.asarray(_tiles.profiled_m(jnp.asarray(m, float), 16))
    assert below[:15].tolist() == list(range(1, 16)) and below[15:].tolist() == oracle[15:]
    for kernel, act, quant in (("trtllm_weight_only", "fp16", gpu.Quant(4, group_size=0)),
                               ("trtllm_smoothquant", "int8", gpu.Quant(8))):
        record = _library.KERNEL_LIBRARY[kernel]
        fastest = dataclasses.replace(record, work=record.work._replace(selection="fastest"))
        m = np.array([80.0, 128.0])
        run = gpu.gemm_latency(gpu.A100, record, m, 4096, 4096, act=act, quant=quant)
        best = gpu.gemm_latency(gpu.A100, fastest, m, 4096, 4096, act=act, quant=quant)
        assert float(run.tile_m[0]) == float(run.tile_m[1]) != float(best.tile_m[0])
        assert float(run.seconds[0]) > float(best.seconds[0])
        assert float(run.seconds[1]) == float(best.seconds[1])


def scalar_streamk(tiles: int, k_tiles: int, sms: int = 132) -> tuple[int, int]:
    """(units, stream-K tiles) of CUTLASS's get_num_sk_tiles and get_num_sk_units
    (tile_scheduler_params.h; Heuristic decomposition, 1 x 1 clusters, a wave of ``sms`` CTAs)
    as the C++ reads, in integers; 0 units: data-parallel."""
    full_waves, total_waves = tiles // sms, (tiles + sms - 1) // sms
    dp_waves = full_waves - 1 if full_waves > 1 else 0
    sk_tiles = tiles - dp_waves * sms
    if full_waves == total_waves or k_tiles <= 8:
        return 0, sk_tiles
    if 2 * (tiles - full_waves * sms) >= sms:
        return 0, sk_tiles
    return min(sms, sk_tiles * k_tiles // 8), sk_tiles


def units_per_tile(units: int, sk_tiles: int, k_tiles: int) -> int:
    """The most units sharing one tile when ``units`` split the tiles' k-tiles in order, the
    remainder one more each to the first units (CUTLASS's big units)."""
    base, big = divmod(sk_tiles * k_tiles, units)
    counts, start = [0] * sk_tiles, 0
    for unit in range(units):
        end = start + base + (unit < big)
        for tile in range(start // k_tiles, (end - 1) // k_tiles + 1):
            counts[tile] += 1
        start = end
    return max(counts)


# compiled once for the property test's examples (the model calls it inside its own jit)
H200_STREAMK = jax.jit(functools.partial(_tiles.streamk_units,
                                         _kernels.hardware(gpu.H200, "cublas", "fp16")))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 3000), st.integers(1, 600))
@example(5, 274)  # big units end inside tile 2: 29 units share it, one above ceil(26.4) + 1
def test_streamk_decomposition_matches_cutlass(tiles, k_tiles):
    """T8: the stream-K scheduler's heuristic decomposition against the integer transcription;
    the peers a tile waits on: the most units a linear split puts on one tile, or units / tiles
    where that is whole (CUTLASS's split-K decomposition)."""
    units, sk_tiles, peers = H200_STREAMK(float(tiles), float(k_tiles))
    want_units, want_tiles = scalar_streamk(tiles, k_tiles)
    assert float(units) == want_units
    if want_units:
        assert float(sk_tiles) == want_tiles
        if want_units % want_tiles:  # stream-K: a linear split of all the tiles' k-tiles
            assert float(peers) == units_per_tile(want_units, want_tiles, k_tiles)
        else:  # split-K: each tile split into units / tiles parts
            assert float(peers) == want_units // want_tiles


@pytest.mark.parametrize("tiles,k_tiles,units,sk_tiles,peers", [
    (32, 64, 132, 32, 6),  # N 4096, 128-row tiles: under half a wave; 4-5 boundaries a tile
    (8, 64, 64, 8, 8),  # N 1024: 64 units of 8 k-tiles (split-K 8 in CUTLASS's terms)
    (128, 64, 0, 128, None),  # more than half a wave: data-parallel
    (192, 64, 132, 192, 2),  # one wave and 60 tiles: both waves stream-K, a boundary a tile
    (300, 64, 132, 168, 2),  # two waves and 36: the first wave data-parallel
    (32, 8, 0, 32, None)])  # 8 k-tiles: nothing to split
def test_streamk_decomposition_by_hand(tiles, k_tiles, units, sk_tiles, peers):
    got = _tiles.streamk_units(_kernels.hardware(gpu.H200, "cublas", "fp16"), float(tiles),
                               float(k_tiles))
    assert float(got[0]) == units
    if units:
        assert (float(got[1]), float(got[2])) == (sk_tiles, peers)



@pytest.mark.parametrize("peers,tiles_moved", [(1.0, 0), (2.0, 1), (4.0, 5), (6.0, 9)])
def test_streamk_fixup_moves_partials_by_hand(peers, tiles_moved):
    """T8: a stream-K tile of ``peers`` units (CUTLASS fixup_helper, deterministic): peers - 1
    turns of 2 dependent DRAM round trips, and on the chain the last peer's load_add of the FP32
    partials plus a read and a write-back by each middle peer, (2 peers - 3) tiles, at an SM's
    share of the L2: on the H200, a 64 x 128 tile is 32768 B, 132 / (5120 B x 1.83 GHz) s per
    byte. A data-parallel tile and a kernel other than the weight-only plugin's pay none."""
    hw = _kernels.hardware(gpu.H200, "trtllm_weight_only", "fp16", 4)
    work = gpu.KERNEL_LIBRARY["trtllm_weight_only"].work
    c = {"tm": 64.0, "tn": 128.0, "split": 1.0, "streamk": 1.0}
    expected = ((peers - 1) * 2 * gpu.H200.dram_latency
                + tiles_moved * 64 * 128 * 4 * 132 / (5120 * 1.83e9))
    assert float(_tiles.serial_fixup(hw, c, work, peers)) == pytest.approx(expected, rel=1e-12)
    assert float(_tiles.serial_fixup(hw, dict(c, streamk=0.0), work, peers)) == 0.0
    assert _tiles.serial_fixup(hw, c, gpu.KERNEL_LIBRARY["cublas"].work, peers) == 0.0

def test_sm90_weight_only_converts_each_weight_once():
    """T12: TensorRT-LLM's sm90 interleaved main loop converts each weight once (INT4 a shift and
    4 LOP3, 2 HSUB2 + 2 HFMA2 per 8; INT8 2 PRMT and 2 HSUB2 per 4; the scale one HMUL2 per 2),
    its sm80 tactics INT4 twice; one register buffer (64 rows x 128 bits) takes the H200 36 and
    16 clocks. Only the sm90 tiles and the GEMV (the same converter, ``_gemv``) see them: the
    A100's tiled tactics (M >= 16) take the same time without them."""
    record = gpu.KERNEL_LIBRARY["trtllm_weight_only"]
    w4, w8 = (record.work_for(gpu.Quant(weight_bits=b, group_size=0)) for b in (4, 8))
    assert w4.rs_dequant_ops == (5 / 8, 2.0) and w4.dequant_ops == (10 / 8, 4.0)
    assert w8.rs_dequant_ops == w8.dequant_ops == (0.5, 2.0)
    m = np.array([16.0, 100.0, 1024.0])
    for bits, work, clocks in ((4, w4, 36.0), (8, w8, 16.0)):
        hw = _kernels.hardware(gpu.H200, record, "fp16", bits)
        assert float(_rsloop.rs_convert(hw, work)) == clocks
        a100 = _kernels.hardware(gpu.A100, record, "fp16", bits)
        np.testing.assert_array_equal(
            _tiles.tile_model(a100, m, 4096, 4096, work=work).seconds,
            _tiles.tile_model(a100, m, 4096, 4096,
                              work=work._replace(rs_dequant_ops=(0.0, 0.0))).seconds)


def test_plugin_cuda_kernels_share_activation_reads_through_l1():
    """T8, T9: a plugin's CUDA kernel loads A with plain global loads (ld.ca, cached in L1), so
    the 8 co-resident CTAs of an SM read each A line from the L2 once: int8_sq at M = 4, N = K
    = 8192 (4096 CTAs of 2 weight rows) moves 8192 x 8192 INT8 weights + 4096 x 4 x 8192 / 8
    of activations + the FP16 output through the L2; a tensor-core tile (cuda_core 0) reads
    its A per CTA."""
    hw = _kernels.hardware(gpu.H200, gpu.KERNEL_LIBRARY["trtllm_smoothquant"], "int8", 8)
    occ = _tile_records.Occupancy(*(jnp.asarray(x) for x in (32, 8, 128, 1, 0, 8, True)))
    moved = {}
    for cuda_core in (1, 0):
        c = {"split": 1, "tm": 4, "tn": 2, "group": 1, "streamk": 0, "cuda_core": cuda_core}
        moved[cuda_core] = float(_tiles.traffic(hw, c, 4, 8192, 8192, occ).l2_bytes)
    weights, out = 8192 * 8192 * float(hw.w_bytes), 4 * 8192 * 2
    assert moved[1] == pytest.approx(weights + 4096 * 4 * 8192 / 8 + out)
    assert moved[0] == pytest.approx(weights + 4096 * 4 * 8192 + out)
