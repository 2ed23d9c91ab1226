"""CUTLASS's sm80 multistage main loop (lutcore.gpu._tiles T14, ``_multistage``): the floor its
cp.async waits put on a k-tile, by hand, against the loop's waits step by step, and on the
kernels whose source runs that loop."""

import dataclasses
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lutcore.gpu as gpu
from lutcore.gpu import _tile_tables
from lutcore.gpu._multistage import multistage_clocks


def multistage_ktile(hw, stages, work):
    """The module doc's long-loop k-tile, max(e, (L + e) / (Stages - 1)), as written there."""
    return max(work, (hw.dram_latency * hw.clock + work) / (stages - 1))


def _waits(latency, work, stages, k_tiles):
    """Oracle for T14: mma_multistage.h's waits step by step. The prologue issues Stages - 1
    groups at t = 0 and waits for group 0 (``latency``); iteration j works ``work`` clocks,
    issuing group j + Stages - 1 (its last share just before the wait), then waits until group
    j + 1 landed, ``latency`` after its issue (a masked group past the last k-tile at once).
    Returns the wait times after the prologue's."""
    issued, t, waits = [0.0] * (stages - 1), latency, []
    for j in range(k_tiles):
        t += work
        issued.append(t)
        if j + 1 < k_tiles:
            t = max(t, issued[j + 1] + latency)
        waits.append(t - latency)
    return waits


def test_multistage_loop_by_hand():
    """A100 (536 ns DRAM round trip at 1.41 GHz: 755.76 clocks), 3 stages, 200 clocks of work
    a k-tile: 10 k-tiles take 10 x 200 + floor(9 / 2) x (755.76 - 200) = 4223.04 clocks after
    the prologue; a long loop (755.76 + 200) / 2 = 477.88 a k-tile; 2 stages expose the whole
    trip after every k-tile: 10 x 200 + 9 x 755.76."""
    hw = types.SimpleNamespace(dram_latency=536e-9, clock=1.41e9)
    assert multistage_clocks(hw, 3, 10, 200.0) == pytest.approx(4223.04, abs=1e-9)
    assert multistage_clocks(hw, 2, 10, 200.0) == pytest.approx(2000 + 9 * 755.76, abs=1e-9)
    assert multistage_ktile(hw, 3, 200.0) == pytest.approx(477.88, abs=1e-9)
    assert _waits(755.76, 200.0, 3, 10)[-1] == pytest.approx(4223.04, rel=1e-12)
    long = _waits(755.76, 200.0, 3, 2000)
    assert (long[-2] - long[-1002]) / 1000 == pytest.approx(477.88, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 2000), st.floats(1, 1000), st.integers(2, 10), st.integers(1, 60))
def test_loop_time_is_its_waits_and_the_floor_binds_exactly_past_its_loads_in_flight(
        latency, work, stages, k_tiles):
    """``multistage_clocks`` is the loop's waits step by step at every length; a long loop's
    k-tile is ``multistage_ktile``, which exceeds the work exactly where the round trip over
    the Stages - 2 whole k-tiles in flight at a wait does; more stages never raise either."""
    hw = types.SimpleNamespace(dram_latency=latency, clock=1.0)
    assert float(multistage_clocks(hw, stages, k_tiles, work)) == pytest.approx(
        _waits(latency, work, stages, k_tiles)[-1], rel=1e-9, abs=1e-9)
    window = 2520  # a whole number of every loop's cycle of Stages - 1 <= 9 k-tiles
    waits = _waits(latency, work, stages, window + 600)
    floor = float(multistage_ktile(hw, stages, work))
    assert floor == pytest.approx((waits[-2] - waits[-2 - window]) / window, rel=1e-9)
    if abs(latency - (stages - 2) * work) > 1e-6 * (latency + work):
        assert (floor > work) == (latency > (stages - 2) * work)
    assert multistage_ktile(hw, stages + 1, work) <= floor
    assert multistage_clocks(hw, stages + 1, k_tiles, work) <= multistage_clocks(
        hw, stages, k_tiles, work)


def test_the_loops_whose_source_waits_so_carry_the_floor():
    """T14 on fpA_intB (T6), Marlin (T7), TensorRT-LLM's sm80 weight-only tactics (T8 group 1),
    its SmoothQuant tactics (T9) and CUTLASS's own kernels on the SM80 library tiles (the
    mixed-input ``dequant``); not on the plugins' CUDA kernels (T8's GEMV, T9's), the sm90
    tiles, the LUT kernels' tiles or cuBLAS's (its waits are not public)."""
    wo = _tile_tables.trtllm_weight_only_candidates()
    assert np.array_equal(wo["multistage"], (wo["group"] == 1).astype(float))
    sq = _tile_tables.trtllm_int8_candidates()
    assert np.array_equal(sq["multistage"], 1 - sq["cuda_core"])
    for table in (_tile_tables.fpa_intb_candidates(), _tile_tables.marlin_candidates()):
        assert (table["multistage"] == 1).all()
    cutlass = _tile_tables.library_candidates(True)
    assert np.array_equal(cutlass["multistage"], (cutlass["group"] == 1).astype(float))
    for table in (_tile_tables.library_candidates(),
                  _tile_tables.custom_candidates((2,), (64,))):
        assert (table["multistage"] == 0).all()
    assert gpu.KERNEL_LIBRARY["dequant"].work.tiles == ("library", True)
    assert gpu.KERNEL_LIBRARY["cublas"].work.tiles == ("library",)


def test_smoothquant_k_tiles_wait_for_the_round_trip_by_hand():
    """T9, T14 by hand on an A100 whose DRAM round trip is 50 or 60 us (the waits bind on every
    tactic): M = 32, N = 128, K = 1408. The 64 x 64 x 128 tactic at 6 stages walks 11 k-tiles,
    one round of them per SM (2 tiles on 108 SMs), 5 in flight: two waits after the prologue's
    expose a round trip each, where the k-slab-64 tactics' 22 k-tiles expose four; 10 us more
    round trip adds 20 us. cuBLAS's time does not move with it."""
    times = []
    for latency in (50e-6, 60e-6):
        spec = dataclasses.replace(gpu.A100, dram_latency=latency)
        r = gpu.gemm_latency(spec, "trtllm_smoothquant", 32, 128, 1408, act="int8",
                             weight_bits=8)
        assert (float(r.tile_m), float(r.tile_n), float(r.tile_k)) == (64.0, 64.0, 128.0)
        times.append(float(r.seconds))
        fixed = spec.kernel_latency + spec.gemm_prologue
        assert 0 < times[-1] - 2 * latency - fixed < float(r.compute)
    assert times[1] - times[0] == pytest.approx(20e-6, rel=1e-6)
    dense = {float(gpu.gemm_latency(dataclasses.replace(gpu.A100, dram_latency=t), "cublas", 16,
                                    4096, 4096).seconds) for t in (536e-9, 50e-6)}
    assert len(dense) == 1
