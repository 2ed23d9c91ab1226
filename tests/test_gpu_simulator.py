"""The end-to-end simulator (lutcore.gpu._simulator): its sums against hand sums of operators
priced independently, roofline bounds, monotonicity, and the precompute treatments."""

import dataclasses
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lutcore.gpu as gpu

TINY = gpu.LLMShape("tiny", hidden=64, ffn=128, heads=4, kv_heads=2, layers=3, vocab=100,
                    gated=True, rotary=True)
A100 = gpu.A100
LUT = gpu.with_lut_tensor_core(gpu.A100, 2)
LUT_DEPLOYMENT = gpu.Deployment(kernel="lut_tensor_core", weight_bits=2)


def test_model_latency_is_the_hand_sum_of_its_operators():
    """Every operator priced by hand: projections by gemm_latency, norms as a roofline plus a
    kernel's fixed device time; the model = layers x layer + embedding + final norm + LM head,
    plus the host time the device does not cover (3 us per launch, 7 launches per layer)."""
    batch, tokens = 2, 8
    rows, spec = batch * tokens, A100
    # DRAM at the A100's streaming 1.80 TB/s (E2); CUDA cores at peak; 2.0 us per kernel (C2)
    bw, flops, fixed = 1.80e12, spec.vector_flops, spec.kernel_latency

    def gemm(m, n, k):
        return float(gpu.gemm_latency(spec, "cublas", m, n, k).seconds)

    def roofline(elements_moved, flop):
        return max(elements_moved * 2 / bw, flop / flops) + fixed

    # fused residual: reads 2, writes 2; the previous layer's output it reads is in the L2
    norm = roofline(3 * rows * 64, 8 * 2 * rows * 64)
    head_dim, kv = 16, 2
    qkv = gemm(rows, (4 + 2 * kv) * head_dim, 64)
    attended = tokens - (tokens - 1) / 2
    attention_bytes = (2 * batch * kv * tokens * head_dim + 2 * batch * tokens * 4 * head_dim) * 2
    # a GEMM-class kernel's DRAM floor: C2's form, 2.0 us + 2.22 us + bytes at 77.02 % of
    # 2,039 GB/s (the SXM4 module's GEMV-class rate, C6)
    floor = 2.0e-6 + 2.22e-6 + attention_bytes / (0.7702 * 2039e9)
    # the fused attention: its tiles' pipes (scores stay on chip, no store), a kernel's fixed
    # time and one tile prologue (no framework: rate 1, no call cost), or the floor
    fmha = gpu.gemm_latency(spec, "cublas", tokens * 2 * batch * 4, attended, head_dim)
    pipes = max(float(fmha.compute), float(fmha.smem)) + fixed + spec.gemm_prologue
    attention = max(pipes, floor, batch * 4 * tokens * attended * 5 / flops)
    layer = (2 * norm + qkv + attention + gemm(rows, 64, 64) + gemm(rows, 256, 64)
             + gemm(rows, 64, 128))
    edges = (roofline(2 * rows * 64, 0) + roofline(2 * batch * 64, 8 * batch * 64)
             + gemm(batch, 100, 64))
    work = gpu.workload(batch, tokens)
    deployment = gpu.Deployment()
    launch = spec.launch_overhead
    assert float(gpu.layer_latency(spec, TINY, deployment, work)) == pytest.approx(
        max(layer, 7 * launch), rel=1e-6)
    assert float(gpu.model_latency(spec, TINY, deployment, work)) == pytest.approx(
        max(3 * layer + edges, (3 * 7 + 3) * launch), rel=1e-6)
    parts = gpu.model_breakdown(spec, TINY, deployment, work)
    assert float(parts["lm_head"]) == pytest.approx(gemm(batch, 100, 64))
    assert float(parts["host_stall"]) == pytest.approx(max(0.0, 24 * launch - 3 * layer - edges),
                                                       abs=1e-12)
    # one CUDA graph: one launch for the whole pass; a framework step cost adds as it is
    graphs = gpu.model_breakdown(spec, TINY, gpu.Deployment(cuda_graphs=True,
                                                            step_overhead=1e-3), work)
    assert float(graphs["host_stall"]) == 0.0 and float(graphs["framework"]) == 1e-3
    assert float(sum(graphs.values())) == pytest.approx(3 * layer + edges + 1e-3, rel=1e-6)


def test_tensor_parallel_layers_all_reduce_over_nvlink():
    """Megatron-LM: two all-reduces of the layer's activations per layer, each a ring over the
    GPUs at the measured NVLink efficiency and latencies (C7): 6 ring steps on 4 GPUs."""
    llm, work = gpu.LLMS["llama2-70b"], gpu.workload(4, 128)
    one = gpu.layer_breakdown(A100, llm, gpu.Deployment(), work, launch=0.0)
    four = gpu.layer_breakdown(A100, llm, gpu.Deployment(tensor_parallel=4), work, launch=0.0)
    assert "attention_all_reduce" not in one  # in the graph, free and not shown on one GPU
    nbytes = 4 * 128 * 8192 * 2
    ring = 9.789e-6 + 6 * 9.775e-7 + 2 * 3 / 4 * nbytes / (0.5441 * 300e9)
    for name in ("attention_all_reduce", "ffn_all_reduce"):
        assert float(four[name]) == pytest.approx(ring, rel=1e-6)
        assert float(gpu.all_reduce_seconds(A100, 4, nbytes)) == pytest.approx(ring, rel=1e-6)
    assert float(four["ffn_up"]) < 0.5 * float(one["ffn_up"])
    with pytest.raises(ValueError, match="no NVLink"):
        gpu.model_latency(dataclasses.replace(A100, nvlink_bandwidth=0.0), llm,
                          gpu.Deployment(tensor_parallel=2), work)


def test_a_parallel_attention_layer_all_reduces_once():
    """GPT-J / Falcon: attention and FFN partial sums join in one all-reduce after FFN down,
    the same ring as a sequential layer's (hand-worked above); the GEMMs do not change, and
    the host issues one launch fewer per layer."""
    llm, work = gpu.LLMS["llama2-70b"], gpu.workload(4, 128)
    parallel = dataclasses.replace(llm, parallel=True)
    deployment = gpu.Deployment(tensor_parallel=4)
    seq = gpu.layer_breakdown(A100, llm, deployment, work, launch=0.0)
    par = gpu.layer_breakdown(A100, parallel, deployment, work, launch=0.0)
    ring = 9.789e-6 + 6 * 9.775e-7 + 2 * 3 / 4 * (4 * 128 * 8192 * 2) / (0.5441 * 300e9)
    assert float(par["attention_all_reduce"]) == 0.0
    assert float(par["ffn_all_reduce"]) == pytest.approx(ring, rel=1e-6)
    assert float(sum(seq.values()) - sum(par.values())) == pytest.approx(ring, rel=1e-6)
    ops = gpu.layer_operators(gpu.shapes(parallel), deployment, work, is_lut=False)
    launches = {op.name: float(np.squeeze(op.launches)) for op in ops}
    assert launches["attention_all_reduce"] == 0.0 and launches["ffn_all_reduce"] == 1.0
    # on one GPU the flag changes nothing
    one = [float(sum(gpu.layer_breakdown(A100, m, gpu.Deployment(), work).values()))
           for m in (llm, parallel)]
    assert one[0] == one[1]
    # a model description written before the field existed prices as a sequential layer
    fields = {f: getattr(llm, f) for f in ("hidden", "ffn", "heads", "kv_heads", "layers",
                                           "vocab", "gated", "rotary")}
    legacy = gpu.layer_breakdown(A100, types.SimpleNamespace(**fields), deployment, work,
                                 launch=0.0)
    assert float(legacy["attention_all_reduce"]) == float(seq["attention_all_reduce"])


def test_an_fp8_kv_cache_halves_the_decode_attention_traffic():
    """Decode attention is DRAM-bound: the fixed device time of a kernel and a tile's fill and
    epilogue (C2 on the H100: 1.5 + 1.71 us) plus K, V and Q, O at the GEMM-class rate (86.2 %
    of 3.35 TB/s, C2)."""
    llm, work = gpu.LLMS["llama2-7b"], gpu.workload(64, 1, 4096)
    times = {kv: float(gpu.layer_breakdown(gpu.H100, llm, gpu.Deployment(kv_cache=kv), work,
                                           launch=0.0)["attention"]) for kv in ("fp16", "fp8")}
    kv_bytes = 2 * 64 * 32 * 4096 * 128
    qo_bytes = 2 * 64 * 1 * 32 * 128 * 2
    for kv, element in (("fp16", 2), ("fp8", 1)):
        assert times[kv] == pytest.approx(1.5e-6 + 1.71e-6 + (kv_bytes * element + qo_bytes)
                                          / (0.862 * 3.35e12), rel=1e-6)
    with pytest.raises(ValueError, match="kv_cache 'int4' unknown"):
        gpu.Deployment(kv_cache="int4")


def test_unfused_decode_attention_gemms_stream_at_the_gemm_class_rate():
    """Eager decode attention (torch.bmm) of 8 sequences x 24 heads of 128 against 3072 cached
    tokens, hand-worked: Q K^T reads Q (192 x 128), K (192 x 3072 x 128) and writes the scores
    (192 x 3072), P V reads the scores and V and writes O; each is DRAM-bound at C2's form for
    GEMV-class cuBLAS kernels on the A100: 2.0 us + 2.22 us + bytes / (77.02 % of 2,039 GB/s),
    not the streaming rate of an element-wise kernel, and not free of a kernel's fixed time."""
    llm = gpu.LLMShape("gpt3-slice", hidden=3072, ffn=12288, heads=24, kv_heads=24, layers=1,
                       vocab=100, gated=False, rotary=False)
    work = gpu.workload(8, 1, 3072)
    seconds = gpu.layer_breakdown(A100, llm, gpu.Deployment(fusion=False, attention="unfused"),
                                  work, launch=0.0)
    instances = 8 * 24
    qk_bytes = instances * (128 + 3072 * 128 + 3072) * 2
    hand = 2.0e-6 + 2.22e-6 + qk_bytes / (0.7702 * 2039e9)
    assert float(seconds["attention_qk"]) == pytest.approx(hand, rel=1e-6)
    assert float(seconds["attention_pv"]) == pytest.approx(hand, rel=1e-6)  # same bytes


def test_a_tensor_the_kernel_before_wrote_is_read_from_the_l2_when_it_fits():
    """Vidur's residual add after FFN down (unfused graph), hand-worked on the A100 (2.0 us per
    kernel, C2; 1.80 TB/s streaming, E2): it reads the residual and the down projection's
    output and writes the sum, 3 x rows x hidden x 2 bytes; the down projection's output,
    written just before, comes from the 40 MB L2 (S1) while it fits: 1,024 tokens x 4,096 =
    8 MiB of it -> 2 of 3 passes from DRAM; 8,192 tokens x 4,096 = 64 MiB -> all 3."""
    llm = gpu.LLMShape("w4096", hidden=4096, ffn=11008, heads=32, kv_heads=32, layers=1,
                       vocab=100, gated=True, rotary=True)
    deployment = gpu.Deployment(fusion=False)
    for tokens, passes in ((1024, 2), (8192, 3)):
        seconds = gpu.layer_breakdown(A100, llm, deployment, gpu.workload(1, tokens), launch=0.0)
        hand = 2.0e-6 + passes * tokens * 4096 * 2 / (1.80 / 2.039 * 2039e9)
        assert float(seconds["ffn_residual"]) == pytest.approx(hand, rel=1e-6)
    assert 1024 * 4096 * 2 <= A100.l2 < 8192 * 4096 * 2


def test_scalar_row_kernels_wait_for_a_round_trip_per_iteration():
    """Hand count on llama2-7b (hidden 4096, FFN 11008, 32 heads of 128): 1000 token rows on
    108 SMs are 10 rounds of one row per SM; an RMSNorm row is 4096 / 1024 = 4 dependent loads,
    SiLU-and-mul 11 (11008 over 1024 threads), the rotary embedding 4 + 4 (2048 Q and 2048 K
    pairs over 512 threads); each round trip takes the spec's DRAM latency, plus a kernel's
    fixed time. Vectorized kernels stream at the DRAM rate instead."""
    llm, work = gpu.LLMS["llama2-7b"], gpu.workload(1, 1000)
    eager = gpu.Deployment(fusion=False)
    scalar = gpu.layer_breakdown(A100, llm, dataclasses.replace(eager, row_kernels="scalar"),
                                 work, launch=0.0)
    vector = gpu.layer_breakdown(A100, llm, eager, work, launch=0.0)
    latency, fixed = A100.dram_latency, A100.kernel_latency
    for name, trips in (("attention_norm", 4), ("activation", 11), ("rotary_embedding", 8)):
        assert float(scalar[name]) == pytest.approx(10 * trips * latency + fixed, rel=1e-6)
        assert float(vector[name]) < float(scalar[name])
    # reads the previous layer's output (8 MB, from the L2) and writes its own: one pass
    assert float(vector["attention_norm"]) == pytest.approx(
        2 * 1000 * 4096 / A100.achievable_dram_bandwidth + fixed, rel=1e-6)
    assert float(scalar["ffn_residual"]) == float(vector["ffn_residual"])  # PyTorch's add
    with pytest.raises(ValueError, match="row_kernels 'simd' unknown"):
        gpu.Deployment(row_kernels="simd")


def test_unfused_graph_has_the_element_wise_kernels():
    work = gpu.workload(1, 16)
    fused = gpu.layer_breakdown(A100, TINY, gpu.Deployment(), work)
    eager = gpu.layer_breakdown(A100, TINY, gpu.Deployment(fusion=False, attention="unfused",
                                                           fused_qkv=False), work)
    assert set(eager) - set(fused) == {"q_projection", "kv_projection", "rotary_embedding",
                                       "attention_qk", "softmax", "attention_pv",
                                       "attention_residual", "activation", "ffn_residual"}
    assert sum(map(float, eager.values())) > sum(map(float, fused.values()))


@settings(max_examples=8, deadline=None)
@given(batch=st.integers(1, 64), tokens=st.integers(1, 512), model=st.sampled_from(
    ["opt-175b", "llama2-70b", "bitnet-b1.58-3b"]))
def test_fused_precompute_never_slower_than_separate(batch, tokens, model):
    work = gpu.workload(batch, tokens)
    seconds = {p: float(gpu.layer_latency(LUT, gpu.LLMS[model],
                                          dataclasses.replace(LUT_DEPLOYMENT, precompute=p),
                                          work))
               for p in ("none", "fused", "separate")}
    assert seconds["none"] <= seconds["fused"] <= seconds["separate"]


def test_precompute_operators_only_for_lut_kernels():
    work = gpu.workload(4, 4)
    assert not any("precompute" in name for name in
                   gpu.layer_breakdown(A100, TINY, gpu.Deployment(), work))
    separate = gpu.layer_operators(TINY, dataclasses.replace(LUT_DEPLOYMENT,
                                                             precompute="separate"),
                                   work, is_lut=True)
    launches = {op.name: op.launches for op in separate if "precompute" in op.name}
    assert launches == {f"{n}_precompute": 1.0 for n in ("qkv_projection", "output_projection",
                                                          "ffn_up", "ffn_down")}
    fused = gpu.layer_operators(TINY, LUT_DEPLOYMENT, work, is_lut=True)
    assert all(op.launches == 0.0 for op in fused if "precompute" in op.name)


@pytest.mark.parametrize("spec,deployment", [(A100, gpu.Deployment()),
                                             (LUT, LUT_DEPLOYMENT)])
def test_no_operator_beats_the_roofline(spec, deployment):
    """Every operator takes at least its DRAM bytes / achievable bandwidth and its FLOPs /
    achievable peak (dram_efficiency / gemv_dram_efficiency, tensor_efficiency x the
    datasheet values)."""
    llm = gpu.LLMS["llama2-70b"]
    for batch, tokens in ((1, 1), (16, 1), (1, 512)):
        work = gpu.workload(batch, tokens)
        seconds = gpu.layer_breakdown(spec, llm, deployment, work, launch=0.0)
        for op in gpu.layer_operators(llm, deployment, work, is_lut=deployment.kernel != "cublas"):
            if op.kind == "collective":  # one GPU: free, not shown
                continue
            time = float(seconds[op.name])
            bandwidth = spec.dram_efficiency * spec.dram_bandwidth
            fresh = float(op.fresh_bytes)  # what the kernel before wrote: from the L2 if it fits
            from_dram = float(op.dram_bytes) - (fresh if fresh <= spec.l2 else 0.0)
            assert time >= from_dram / bandwidth * (1 - 1e-9)
            if op.kind == "gemm":
                peak = spec.tensor_efficiency * gpu.peak_ops(spec, deployment.kernel,
                                                             weight_bits=deployment.weight_bits)
                flop = 2 * float(op.m * op.n * op.k * op.count)
                weights = float(op.n * op.k * op.count) * deployment.weight_bits / 8
                assert time >= flop / peak * (1 - 1e-6)
                assert time >= weights / spec.gemm_dram_bandwidth * (1 - 1e-6)
            if op.kind == "attention":
                flop = 2 * float(op.m * op.n * op.k * op.count)
                assert time >= flop / (spec.tensor_efficiency * spec.tensor_peak("fp16")) * (
                    1 - 1e-6)


def test_latency_grows_with_batch_and_sequence():
    llm = gpu.LLMS["llama2-7b"]
    sizes = np.array([1, 2, 8, 32, 128, 512, 2048])
    by_batch = np.asarray(gpu.model_latency(A100, llm, gpu.Deployment(),
                                            gpu.workload(sizes, 1)))
    by_tokens = np.asarray(gpu.model_latency(A100, llm, gpu.Deployment(),
                                             gpu.workload(1, sizes)))
    by_context = np.asarray(gpu.model_latency(A100, llm, gpu.Deployment(),
                                              gpu.workload(8, 1, sizes)))
    for series in (by_batch, by_tokens, by_context):
        assert np.all(np.diff(series) >= 0)
    assert by_tokens[-1] > 10 * by_tokens[0]  # prefill of 2048 tokens is compute-bound


def test_sweep_equals_single_evaluations():
    llms = [gpu.LLMS["llama2-7b"], TINY]
    work = gpu.workload(np.array([1, 64]), np.array([128, 1]))
    # two graphs interleaved: the sweep puts each group's rows back in the configs' order
    configs = [(LUT, LUT_DEPLOYMENT), (A100, gpu.Deployment()),
               (gpu.with_double_registers(gpu.with_lut_tensor_core(gpu.RTX3090, 4)),
                dataclasses.replace(LUT_DEPLOYMENT, weight_bits=4))]
    swept = np.asarray(gpu.latency_sweep(configs, llms, work))
    assert swept.shape == (3, 2, 2)
    for i, (spec, deployment) in enumerate(configs):
        for j, llm in enumerate(llms):
            np.testing.assert_allclose(swept[i, j],
                                       gpu.model_latency(spec, llm, deployment, work), rtol=1e-6)


def test_bad_deployment_values_are_named():
    with pytest.raises(ValueError, match="precompute"):
        gpu.Deployment(precompute="sometimes")
    with pytest.raises(ValueError, match="attention"):
        gpu.Deployment(attention="paged")
    with pytest.raises(ValueError, match="no LUT Tensor Core"):
        gpu.model_latency(A100, TINY, LUT_DEPLOYMENT, gpu.workload(1, 1))


def test_a_deployments_quantization_groups_price_its_projections():
    """Deployment(group_size=, zero_points=) reaches the projection kernel's weight bytes and
    only the Machine (one compiled graph serves every grouping); a decode step of a DRAM-bound
    model grows with the scale bytes."""
    coarse = gpu.Deployment(kernel="dequant", activation="bf16", weight_bits=4, group_size=0)
    fine = dataclasses.replace(coarse, group_size=32, zero_points=True)
    assert float(gpu.machine(A100, fine).projection.w_bytes) == 0.5 + 4 / 32
    assert float(gpu.machine(A100, coarse).projection.w_bytes) == 0.5
    llm, work = gpu.LLMS["llama2-7b"], gpu.workload(1, 1, 128)
    times = gpu.latency_sweep([(A100, coarse), (A100, fine)], [llm], work)
    assert float(times[1, 0]) > float(times[0, 0])
    assert float(times[1, 0]) == pytest.approx(float(gpu.model_latency(A100, llm, fine, work)),
                                               rel=1e-6)


def test_an_unfused_gate_runs_two_up_gemms_and_a_swiglu_kernel():
    """gate_fusion=False (TensorRT-LLM 0.8 without --use_fused_mlp, gpt-fast's w1 / w3): a gated
    FFN's up and gate are two GEMMs of ffn outputs each, and SiLU x gate a memory kernel that
    reads both (2 x ffn) and writes ffn FP16 elements, at the streaming DRAM rate plus a kernel's
    fixed time, the second GEMM's output (written just before, 1.4 MB) from the L2; a non-gated
    FFN keeps its GELU in the GEMM epilogue and is unchanged."""
    rows, spec = 64, A100
    llm, work = gpu.LLMS["llama2-7b"], gpu.workload(1, rows)
    split = gpu.layer_breakdown(spec, llm, gpu.Deployment(gate_fusion=False), work, launch=0.0)
    up = float(gpu.gemm_latency(spec, "cublas", rows, 11008, 4096).seconds)
    assert float(split["ffn_up"]) == pytest.approx(2 * up, rel=1e-6)
    swiglu = 2 * rows * 11008 * 2 / (0.883 * 2039e9) + 2.0e-6  # E2 streaming rate, C2 latency
    assert float(split["activation"]) == pytest.approx(swiglu, rel=2e-3)
    opt = gpu.LLMS["opt-175b"]
    same = [gpu.layer_breakdown(spec, opt, gpu.Deployment(gate_fusion=g), work, launch=0.0)
            for g in (True, False)]
    assert float(sum(same[0].values())) == pytest.approx(float(sum(same[1].values())), rel=1e-9)


def test_precompute_priced_in_one_place():
    """A separate table precompute costs the same in gemm_latency and in the simulator (one
    operator, ``precompute_work``, one roofline, ``memory_seconds``); by hand on a
    compute-bound case: an add takes an FMA's issue slot, so adds / (vector_flops / 2)."""
    work = gpu.workload(8, 16)
    deployment = dataclasses.replace(LUT_DEPLOYMENT, precompute="separate")
    parts = gpu.layer_breakdown(LUT, TINY, deployment, work, launch=0.0)
    rows, hidden = 8 * 16, TINY.hidden
    assert float(parts["qkv_projection_precompute"]) == pytest.approx(
        float(gpu.precompute_seconds(LUT, rows, hidden, deployment.table_bits)), rel=1e-6)
    adds = 1e6 * gpu.lut_precompute_adds()
    slow = dataclasses.replace(LUT, dram_bandwidth=1e30)  # no DRAM bound
    assert float(gpu.precompute_seconds(slow, 1e6, 1, 16)) == pytest.approx(
        adds / (LUT.vector_flops / 2) + LUT.kernel_latency, rel=1e-9)
