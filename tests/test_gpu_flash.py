"""FlashAttention-2's forward kernel (lutcore.gpu._flash): its tiles as PyTorch's launcher picks
them, its KV iterations against a brute-force walk of the kernel's loop bound, its schedule
against an in-order list schedule, the price of one iteration worked by hand, and the Hopper
round time is the calibration tool's fit."""

import dataclasses
import heapq
import math
import pathlib
import sys

import numpy as np
import pytest

import lutcore.gpu as gpu
from experiments.lut_tensor_core import _measured
from lutcore.gpu._flash import (
    FLASH_ATTENTION_2,
    iteration_costs,
    iterations_per_instance,
    schedule_iterations,
)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
import calibrate_gpu  # noqa: E402


def _loop(tokens, context, block_m, block_n):
    """KV iterations per m-block: flash_fwd_kernel.h's n_block_max, one block at a time."""
    return [min(math.ceil(context / block_n),
                math.ceil(((i + 1) * block_m + context - tokens) / block_n))
            for i in range(math.ceil(tokens / block_m))]


def _list_schedule(tokens, context, instances, block_m, block_n, sms):
    """Makespan in iterations of the grid's CTAs dispatched in order to the first free SM."""
    free, end = [0] * sms, 0
    for _ in range(instances):
        for chain in _loop(tokens, context, block_m, block_n):
            done = heapq.heappop(free) + chain
            end = max(end, done)
            heapq.heappush(free, done)
    return end


@pytest.mark.parametrize("capability, tile", [(80, (128, 64)), (86, (64, 64)), (89, (64, 64)),
                                              (90, (128, 64))])
def test_tiles_are_the_launchers(capability, tile):
    """run_mha_fwd_hdim128: 64 x 64 on sm86 / sm89 (causal), 128 x 64 on sm80 and sm90."""
    assert FLASH_ATTENTION_2.tile(capability) == tile


def test_the_gpus_compute_capabilities():
    assert (gpu.A100.compute_capability, gpu.RTX3090.compute_capability,
            gpu.H100.compute_capability, gpu.H200.compute_capability) == (80, 86, 90, 90)


@pytest.mark.parametrize("tokens", [1, 2, 64, 100, 128, 300, 512, 2048])
@pytest.mark.parametrize("cached", [0, 100, 1024])
@pytest.mark.parametrize("block_m", [64, 128])
def test_iterations_per_instance_walk_the_kernels_loop(tokens, cached, block_m):
    expected = sum(_loop(tokens, tokens + cached, block_m, 64))
    assert float(iterations_per_instance(tokens, tokens + cached, block_m, 64)) == expected


def test_iterations_hand_worked():
    """512 tokens in 128 x 64 tiles: m-blocks of 2, 4, 6, 8 KV blocks."""
    assert float(iterations_per_instance(512, 512, 128, 64)) == 20


def test_one_wave_runs_the_longest_chain():
    """32 heads x 4 m-blocks on 132 SMs: one CTA each, the last m-block's 8 iterations."""
    assert float(schedule_iterations(512, 512, 32, 128, 64, 132)) == 8


@pytest.mark.parametrize("sms", [82, 132])
@pytest.mark.parametrize("block_m", [64, 128])
def test_schedule_is_near_the_in_order_list_schedule(sms, block_m):
    """Within 10 % of the in-order list schedule over 1-4096 tokens, 0-1024 cached, 8-256
    instances, and unbiased within 2 % (the closed form misses most near one or two waves)."""
    errors = [float(schedule_iterations(t, t + c, n, block_m, 64, sms))
              / _list_schedule(t, t + c, n, block_m, 64, sms) - 1
              for t in (1, 64, 300, 768, 2048, 4096) for c in (0, 1024) for n in (8, 32, 256)]
    assert max(abs(e) for e in errors) < 0.10
    assert abs(np.mean(errors)) < 0.02


def test_iteration_price_hand_worked():
    """H100, 128 x 64 scores, head dim 128: 2 x 8192 x 128 MACs at mma.sync's 2048 x 0.5693 (S10)
    MACs a clock, then 8192 x (5 / 128 + 1 / 16) softmax clocks; at 1.83 GHz."""
    mac, score = iteration_costs(gpu.H100)
    sync = dict(gpu.H100.mma_sync_fraction)["fp16"]
    assert sync == pytest.approx(494.4 / 756.5 / 1.1479, rel=1e-4)
    clocks = 2 * 8192 * 128 / (2048 * sync) + 8192 * (5 / 128 + 1 / 16)
    assert 8192 * (2 * 128 * mac + score) == pytest.approx(clocks / 1.83e9, rel=1e-9)


def test_hopper_round_time_is_the_fit():
    """At the recorded Hopper round time the FlashAttention-2 calibration rows are unbiased."""
    recorded = FLASH_ATTENTION_2.round_time("hopper")
    assert recorded > 0
    assert abs(np.mean(calibrate_gpu.flash_errors("hopper", recorded))) < 2e-3


def test_flash_set_is_calibration_and_llmservingsim_h100_validation():
    assert _measured.load("fa3_paper_h100.yaml")["role"] == "calibration"
    assert _measured.load("llmservingsim_h100.yaml")["role"] == "validation"


def test_flash_chain_prices_the_prefill_attention():
    """The flash_attn deployment's 2048-token attention on an H100: a kernel's fixed time plus
    the busiest SM's iterations and the rounds of CTAs, each as priced above."""
    shape = gpu.llm_shape("llama2-7b")  # 32 heads of 128
    work = gpu.workload(1, 2048)
    seconds = float(gpu.layer_breakdown(gpu.H100, shape, gpu.DEPLOYMENTS["flash_attn"], work,
                                        launch=0.0)["attention"])
    mac, score = iteration_costs(gpu.H100)
    iterations = float(schedule_iterations(2048, 2048, 32, 128, 64, 132))
    expected = (gpu.H100.kernel_latency + iterations * 8192 * (256 * mac + score)
                + 4 * FLASH_ATTENTION_2.round_time("hopper"))  # 512 CTAs: 4 rounds
    assert seconds == pytest.approx(expected, rel=1e-6)


def test_a_framework_flash_must_be_a_record():
    with pytest.raises(ValueError, match="flash must be a FlashKernel record"):
        gpu.Framework("t", "test", flash="flash_attention_2")


def test_other_frameworks_keep_the_tile_pipes():
    """TensorRT-LLM runs its own FMHA: no FlashAttention-2 chain."""
    assert gpu.FRAMEWORKS["tensorrt_llm"].on("hopper").flash is None
    assert dataclasses.replace(gpu.FRAMEWORKS["hf_eager"]).flash is FLASH_ATTENTION_2


def test_a_flash_framework_has_no_tile_constants():
    with pytest.raises(ValueError, match="attention_tile must be 0 and attention_rate 1"):
        gpu.Framework("t", "test", flash=FLASH_ATTENTION_2, attention_rate=0.5)
