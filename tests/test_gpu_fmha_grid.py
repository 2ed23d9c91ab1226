"""TensorRT-LLM 0.8's Hopper FMHA grid (lutcore.gpu._flash.static_grid_stretch): its busiest
CTA against a brute-force walk of 0.8's launch and the kernel's loops, hand-worked cases, and
the 0.8 record prices only that grid differently from the 1.x record it takes its constants
from."""

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lutcore.gpu as gpu
from experiments.lut_tensor_core import _measured
from lutcore.gpu import _simulator
from lutcore.gpu._flash import WS_KV_STEPS, static_grid_stretch, ws_tile_iterations
from lutcore.gpu._frameworks import TENSORRT_LLM, TENSORRT_LLM_0_8, TENSORRT_LLM_HOPPER

L2 = 50 * 2**20  # GH100's L2 (cudaDevAttrL2CacheSize)
LLAMA_7B = gpu.llm_shape("llama2-7b")


def _kv_step(head_dim):
    return next((step for dim, step in WS_KV_STEPS if head_dim <= dim), WS_KV_STEPS[-1][1])


def _tile(j, kv_step):
    """KV iterations of tile j: dma.h's kv_idx_end = (q_step_end + STEP_KV - 1) / STEP_KV with
    q_step_end the tile's last row, (j + 1) x 128 - 1."""
    return ((j + 1) * 128 - 1 + kv_step - 1) // kv_step


def _walk(tokens, instances, head_dim, sms, l2=L2):
    """0.8's launch (fused_multihead_attention_v2.h@2340c77) and the kernel's SCHEDULING_MODE 0
    loops (dma.h@d513eea), CTA by CTA: its busiest CTA's iterations over the balanced bound."""
    kv_step, steps = _kv_step(head_dim), math.ceil(tokens / 64)
    tiles = math.ceil(steps / 2)
    grid_y = min(instances, sms)
    if grid_y * tokens * head_dim * 4 > l2:
        return 1.0
    grid_x = min(tiles, sms // grid_y)
    q_steps = math.ceil(steps / grid_x)
    q_steps += q_steps & 1
    busiest = 0
    for x in range(grid_x):
        for y in range(grid_y):
            load = 0
            for _head in range(y, instances, grid_y):  # tile_id += gridDim.y
                if q_steps * x * 64 >= tokens:
                    continue
                for step in range(q_steps * x, min(q_steps * (x + 1), 2 * tiles), 2):
                    load += _tile(step // 2, kv_step)
            busiest = max(busiest, load)
    total = instances * sum(_tile(j, kv_step) for j in range(tiles))
    balanced = max(total / min(tiles * instances, sms), _tile(tiles - 1, kv_step))
    return busiest / balanced


@settings(max_examples=60, deadline=None)
@given(tokens=st.integers(2, 9000), instances=st.integers(1, 300),
       head_dim=st.sampled_from([32, 64, 128, 256]), sms=st.sampled_from([132, 114, 78]))
def test_stretch_walks_the_launch_and_the_kernels_loops(tokens, instances, head_dim, sms):
    assert float(static_grid_stretch(float(tokens), float(instances), float(head_dim), sms,
                                     L2)) == pytest.approx(_walk(tokens, instances, head_dim,
                                                                 sms), rel=1e-6)


@pytest.mark.parametrize("kv_step", [64, 128, 256])
def test_tile_iterations_closed_form(kv_step):
    for tiles in range(40):
        assert float(ws_tile_iterations(float(tiles), float(kv_step))) == sum(
            _tile(j, kv_step) for j in range(tiles))


def test_stretch_hand_worked():
    """LLaMA-7B, 2048 tokens, 32 heads on 132 SMs: grid 4 x 32 (K, V of 32 heads, 33.5 MB, fit
    the 50 MiB L2), each CTA 8 query steps; the last runs tiles 12-15, 13 + 14 + 15 + 16 = 58
    KV iterations, against 32 x 136 / 132 balanced. LLaMA-70B on 8 GPUs (8 heads): 16 x 8 CTAs
    of one tile each, the longest tile bounds both schedules. At 128 tokens one tile a head."""
    assert float(static_grid_stretch(2048.0, 32.0, 128.0, 132, L2)) == pytest.approx(
        58 / (32 * 136 / 132))
    assert float(static_grid_stretch(2048.0, 8.0, 128.0, 132, L2)) == pytest.approx(1.0)
    assert float(static_grid_stretch(128.0, 32.0, 128.0, 132, L2)) == pytest.approx(1.0)


def test_the_0_8_record_differs_from_1x_only_in_its_hopper_grid():
    hopper = TENSORRT_LLM_0_8.on("hopper")
    assert hopper.fmha_grid == "static" and TENSORRT_LLM_HOPPER.fmha_grid == "dynamic"
    assert dataclasses.replace(hopper, name=TENSORRT_LLM_HOPPER.name,
                               fmha_grid="dynamic") == TENSORRT_LLM_HOPPER
    ampere = TENSORRT_LLM_0_8.on("ampere")
    assert dataclasses.replace(ampere, name=TENSORRT_LLM.name, source=TENSORRT_LLM.source,
                               by_architecture=TENSORRT_LLM.by_architecture) == TENSORRT_LLM
    assert gpu.DEPLOYMENTS["tensorrt_llm_0.8"].framework is TENSORRT_LLM_0_8
    with pytest.raises(ValueError, match="fmha_grid 'persistent' unknown; allowed values: "
                                         "dynamic, static"):
        gpu.Framework("t", "test", fmha_grid="persistent")


def _attention(deployment, spec, tokens, shape=LLAMA_7B):
    return float(gpu.layer_breakdown(spec, shape, deployment, gpu.workload(1, tokens),
                                     launch=0.0)["attention"])


def test_static_grid_stretches_the_fmha_pipes_on_hopper_only():
    """The 0.8 deployment's FMHA: on the H100 at 2048 tokens its tiles' pipe time stretched by
    the busiest CTA (the fixed parts, a kernel's time, a tile's fill and the framework's costs,
    as 1.x's); at 128 tokens and on the A100 the 1.x record's price."""
    new, old = gpu.DEPLOYMENTS["tensorrt_llm_0.8"], gpu.DEPLOYMENTS["tensorrt_llm"]
    for spec, tokens in ((gpu.H100, 128), (gpu.A100, 2048), (gpu.A100, 128)):
        assert _attention(new, spec, tokens) == pytest.approx(_attention(old, spec, tokens))
    bare = dataclasses.replace(TENSORRT_LLM_HOPPER, attention_call=0.0, attention_tile=0.0)
    dynamic = gpu.Deployment(framework=bare)
    static = gpu.Deployment(framework=dataclasses.replace(bare, fmha_grid="static"))
    fp16 = _simulator.machine(gpu.H100, dynamic).fp16
    fixed = float(fp16.kernel_latency + fp16.tile_prologue)
    stretch = float(static_grid_stretch(2048.0, 32.0, 128.0, gpu.H100.sms, gpu.H100.l2))
    assert _attention(static, gpu.H100, 2048) - fixed == pytest.approx(
        (_attention(dynamic, gpu.H100, 2048) - fixed) * stretch, rel=1e-5)


def test_first_token_sets_run_tensorrt_llm_0_8():
    data = _measured.load("trtllm_first_token.yaml")
    assert "0.8" in data["protocol"]["library"]
    for entry in data["sets"]:
        assert _measured._deployment(entry).framework is TENSORRT_LLM_0_8
