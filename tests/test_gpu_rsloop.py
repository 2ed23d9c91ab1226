"""T12: TensorRT-LLM's sm90 interleaved mixed-input main loop (``lutcore.gpu._rsloop``): its
waits' dependence cycles against the loop run step by step, and the SM's wgmma chain."""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lutcore.gpu as gpu
from lutcore.gpu import _kernels, _rsloop


def _interleaved_main_loop_period(latency, lds, conv, k_blocks, per_load, tiles=360):
    """Oracle for T12: the interleaved main loop step by step (issue k-block j, wait until
    j - (k_blocks - per_load) has retired ``latency`` after its issue, then the next tile's
    LDS after a tile's last block and a conversion before every ``per_load``-th block), its
    issue times' growth per k-tile over the last 60 tiles."""
    depth, issue, t = k_blocks - per_load, [], 0.0
    for j in range(tiles * k_blocks):
        issue.append(t)
        b = j % k_blocks
        t = max(t, issue[j - depth] + latency) if j >= depth else t
        t += lds * (b == k_blocks - 1) + conv * ((b + 1) % per_load == 0)
    return (issue[-1] - issue[-1 - 60 * k_blocks]) / 60


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 400), st.integers(0, 100), st.integers(0, 150), st.sampled_from([1, 2]))
def test_rs_cycles_match_the_main_loop_step_by_step(latency, lds, conv, per_load):
    """T12: the longest dependence cycle of ``rs_cycles`` is the loop's period per k-tile."""
    cycles = _rsloop.rs_cycles(4, per_load)
    longest = max(a * latency + b * lds + c * conv for a, b, c in cycles)
    assert longest == pytest.approx(
        _interleaved_main_loop_period(latency, lds, conv, 4, per_load), rel=1e-9, abs=1e-9)


def _sm90_loop(spec, bits):
    record = gpu.KERNEL_LIBRARY["trtllm_weight_only"]
    return (_kernels.hardware(spec, record, "fp16", bits),
            record.work_for(gpu.Quant(weight_bits=bits, group_size=0)))


@pytest.mark.parametrize("bits", [4, 8])
def test_sm90_k_tile_takes_the_cta_s_wgmmas_at_the_chain_interval(bits):
    """T12, C8: a k-tile issues 4 k16 wgmmas per 64 weight rows of its CTA; at 1000 clocks each
    (longer than every wait cycle) it takes 4000 clocks on a 64-row tile and 8000 on a 128-row
    one, INT4 and INT8 alike; without a chain (0, the A100's) it takes the waits' longest
    cycle, here the H200's: INT8 128 + 29 + 16 = 173 (a buffer: 64 rows x 16 INT8 weights at
    1 INT32 op on 64 lanes + 2 FP16 lane-ops on 256 lanes), INT4 (4 x 128 + 29 + 2 x 36) / 3."""
    hw, work = _sm90_loop(dataclasses.replace(gpu.H200, wgmma_chain=1000.0), bits)
    assert float(_rsloop.rs_ktile(hw, work)) == pytest.approx(4000.0)
    assert float(_rsloop.rs_ktile(hw, work, 128)) == pytest.approx(8000.0)
    hw, work = _sm90_loop(dataclasses.replace(gpu.H200, wgmma_chain=0.0), bits)
    waits = {8: 173.0, 4: (4 * 128 + 29 + 2 * 36) / 3}[bits]
    assert float(_rsloop.rs_ktile(hw, work, 128)) == pytest.approx(waits)


def test_rs_cycles_by_hand():
    """T12: INT8 (type_factor 2) keeps 3 wgmmas in flight: a latency, the LDS and one
    conversion per k-tile, or the tile's LDS and 4 conversions in series; INT4 (4) keeps 2:
    besides those, 4 latencies, the LDS and 2 conversions every 3 k-tiles."""
    assert set(_rsloop.rs_cycles(4, 1)) == {(1.0, 1.0, 1.0), (1.0, 0.0, 1.0), (0.0, 1.0, 4.0)}
    assert max(_rsloop.rs_cycles(4, 2)) == pytest.approx((4 / 3, 1 / 3, 2 / 3))
    assert (0.0, 1.0, 2.0) in _rsloop.rs_cycles(4, 2)

