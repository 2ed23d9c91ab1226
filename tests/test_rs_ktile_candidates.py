"""tools/rs_ktile_candidates.py: CUTLASS's mixed-input stage count (hand-worked) and the wgmma
latency each reading of TensorRT-LLM's sm90 main loop needs for a k-tile time (issue 30)."""

import pathlib
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
import rs_ktile_candidates as cand  # noqa: E402

from lutcore.gpu import _rsloop  # noqa: E402


def test_builder_stages_by_hand():
    """64 weight rows x 16 tokens x 64 deep, INT8: 4096 B of weights + 2048 of FP16 activations
    + 128 of scales = 6272 (49 x 128), + 16 of barriers = 6288 a stage; an 8192 B carveout
    leaves 224256 B: 35 stages (36 without it). INT4: 2048 + 2048 + 128 = 4224 (33 x 128) + 16
    = 4240: 52. 128 x 256, INT8: 8192 + 32768 + 256 + 16 = 41232: 4 with 32 KB carved out."""
    assert cand.builder_stages(64, 16, 8, 8192) == 35
    assert cand.builder_stages(64, 16, 8, 0) == 36
    assert cand.builder_stages(64, 16, 4, 8192) == 52
    assert cand.builder_stages(128, 256, 8, 32768) == 4
    assert cand.epilogue_bound(128, 256) == 32768 and cand.epilogue_bound(64, 16) == 8192
    # a carveout off the 128 B alignment rounds up first: 8193 B carves 8320
    assert cand.builder_stages(64, 16, 8, 8193) == (cand.SMEM_CAPACITY - 8320) // 6288


def test_implied_latency_by_hand():
    """The model's own loop on the H200 (LDS 29, a buffer 16 clocks for INT8, 36 for INT4, a
    latency of 128) takes 173 and 613 / 3 clocks a k-tile: the source reading gives back 128;
    the serial chain (4 latencies, the LDS and every conversion) needs (173 - 29 - 64) / 4 = 20
    and (613 / 3 - 29 - 72) / 4."""
    source, serial = cand.implied_latency(173.0, (29.0, 16.0), 1)
    assert source == pytest.approx(128.0) and serial == pytest.approx(20.0)
    source, serial = cand.implied_latency(613 / 3, (29.0, 36.0), 2)
    assert source == pytest.approx(128.0) and serial == pytest.approx((613 / 3 - 101) / 4)


@given(st.floats(0.0, 200.0), st.floats(0.0, 60.0), st.floats(0.0, 40.0), st.sampled_from([1, 2]))
def test_implied_latency_inverts_the_loop(extra, lds, conv, per_load):
    """Where a cycle through a wgmma binds (a latency above the LDS and 3 conversions: INT8's
    L + LDS + conv then exceeds LDS + 4 conv, INT4's (4 L + LDS + 2 conv) / 3 exceeds LDS + 2
    conv), the source reading returns the latency that made the k-tile."""
    latency = lds + 3 * conv + extra + 1.0
    clocks = max(a * latency + b * lds + c * conv
                 for a, b, c in _rsloop.rs_cycles(_rsloop.RS_K_BLOCKS, per_load))
    assert cand.implied_latency(clocks, (lds, conv), per_load)[0] == pytest.approx(latency,
                                                                                   rel=1e-9)
