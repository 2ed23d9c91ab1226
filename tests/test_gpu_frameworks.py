"""Serving frameworks' costs (lutcore.gpu._frameworks) and the preset deployments: hand-worked
prices of each mechanism, and the constants are the calibration tool's fits."""

import dataclasses
import pathlib
import sys

import numpy as np
import pytest

import lutcore.gpu as gpu
from experiments.lut_tensor_core import _measured

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
import _fit_attention  # noqa: E402
import calibrate_gpu  # noqa: E402

LLAMA = gpu.llm_shape("llama2-7b")


def _attention(framework, work, spec=gpu.A100):
    deployment = gpu.Deployment(framework=framework)
    return float(gpu.layer_breakdown(spec, LLAMA, deployment, work, launch=0.0)["attention"])


def test_attention_call_and_sequence_costs_add_to_a_memory_bound_decode():
    """One decode step of 4 sequences against 512 cached tokens is bound by its KV-cache read:
    the framework's attention adds exactly its per-call time plus 4 x its per-sequence time."""
    work = gpu.workload(4, 1, 512)
    bare = _attention(gpu.FRAMEWORKS["bare"], work)
    costly = gpu.Framework("t", "test", attention_call=1e-5, attention_sequence=2e-6)
    assert _attention(costly, work) == pytest.approx(bare + 1e-5 + 4 * 2e-6, rel=1e-6)


def test_decode_costs_apply_at_one_new_token_and_prefill_costs_otherwise():
    """A framework with its own decode costs: the 4-sequence decode against 512 cached tokens
    adds 3 us + 4 x 0.5 us, a 2-token step of the same 4 sequences the prefill's 10 us + 4 x 2
    us (the kernel itself as with no costs)."""
    costly = gpu.Framework("t", "test", attention_call=1e-5, attention_sequence=2e-6,
                           decode_call=3e-6, decode_sequence=5e-7)
    for work, added in ((gpu.workload(4, 1, 512), 3e-6 + 4 * 5e-7),
                        (gpu.workload(4, 2, 512), 1e-5 + 4 * 2e-6)):
        bare = _attention(gpu.FRAMEWORKS["bare"], work)
        assert _attention(costly, work) == pytest.approx(bare + added, rel=1e-6)
    assert costly.on_decode() == (3e-6, 5e-7)
    assert gpu.Framework("u", "test", attention_call=1e-5).on_decode() == (1e-5, 0.0)


def test_attention_rate_divides_a_compute_bound_prefills_pipes():
    """A 4096-token prefill is compute-bound: each halving of the rate adds twice what the
    previous one added (the rate divides the FMHA's pipe time P, not its fixed time F: P + F,
    2P + F, 4P + F), and P is most of it."""
    work = gpu.workload(1, 4096)
    full, half, quarter = (_attention(gpu.Framework("t", "test", attention_rate=r), work)
                           for r in (1.0, 0.5, 0.25))
    assert quarter - half == pytest.approx(2 * (half - full), rel=1e-6)
    assert half - full > 0.9 * full


def test_fmha_scores_stay_on_chip():
    """The FMHA of a long compute-bound prefill (8 x 16384 tokens, Llama-2-70B's 64 heads) takes
    the same time on an H100 and an H200 within 2 % (the same GH100 compute; their DRAM, 30 %
    apart, sets only which tile the model picks): its
    score tiles are not stored (as a GEMM with that output, 275 GB, would be, 82 ms at the
    H100's DRAM rate); and its pipe time is within 15 % of the causal FLOPs at the 16-bit
    tile rate (4 x 8 x 64 x 16384 x 8192.5 x 128 FLOPs)."""
    llama70 = gpu.llm_shape("llama2-70b")
    work, bare = gpu.workload(8, 16384), gpu.Deployment()
    h100, h200 = (float(gpu.layer_breakdown(spec, llama70, bare, work, launch=0.0)["attention"])
                  for spec in (gpu.H100, gpu.H200))
    assert h100 == pytest.approx(h200, rel=0.02)  # the picked tile may differ
    flops = 4 * 8 * 64 * 16384 * (16384 - 16383 / 2) * 128
    assert h100 == pytest.approx(flops / (gpu.H100.tensor_peak("fp16")
                                          * gpu.H100.tensor_efficiency), rel=0.15)


def test_attention_tile_is_paid_per_round_of_query_tiles():
    """2 sequences of 1000 new tokens, Llama-2-7B on an A100: ceil(1000 / 64) = 16 query tiles
    x 32 heads x 2 = 1024 CTAs, ceil(1024 / 108) = 10 rounds; a decode step pays none."""
    from lutcore.gpu._operators import FMHA_Q_STEP

    assert FMHA_Q_STEP == 64
    tiled = gpu.Framework("t", "test", attention_tile=1e-6)
    prefill = gpu.workload(2, 1000)
    assert _attention(tiled, prefill) == pytest.approx(
        _attention(gpu.FRAMEWORKS["bare"], prefill) + 10e-6, rel=1e-6)
    decode = gpu.workload(2, 1, 1000)
    assert _attention(tiled, decode) == pytest.approx(_attention(gpu.FRAMEWORKS["bare"], decode),
                                                      rel=1e-9)


def _attention_bytes(shape, work, kv_pool):
    from lutcore.gpu._operators import attention_operators

    (op,) = attention_operators(shape, gpu.Deployment(kv_pool=kv_pool), work)
    return float(op.dram_bytes)


def test_k_only_pool_halves_a_grouped_decode_kv_read():
    """Llama-2-70B (64 query heads on 8 KV heads), one decode step of 64 sequences against 8192
    cached FP16 tokens: on TensorRT-LLM's K-only pool the grouped decode kernel reads K alone,
    64 x 8 x 8192 x 128 x 2 B = 1 GiB less; Llama-2-7B's MHA decode of that cache and the 70B's
    prefill read the same on both pools."""
    llama70 = gpu.llm_shape("llama2-70b")
    decode = gpu.workload(64, 1, 8192)
    assert (_attention_bytes(llama70, decode, "kv") - _attention_bytes(llama70, decode, "k_only")
            == 64 * 8 * 8192 * 128 * 2)
    for shape, work in ((LLAMA, decode), (llama70, gpu.workload(2, 512))):
        assert _attention_bytes(shape, work, "k_only") == _attention_bytes(shape, work, "kv")


def test_k_only_pool_serves_a_short_mha_decodes_v_from_the_l2():
    """Llama-2-7B (32 heads, MHA), 64 sequences: at 256 cached tokens (K_ONLY_MHA_L2_TOKENS) the
    decode reads K alone, 64 x 32 x 256 x 128 x 2 B = 128 MiB less; at 257 it reads both."""
    from lutcore.gpu._operators import K_ONLY_MHA_L2_TOKENS

    assert K_ONLY_MHA_L2_TOKENS == 256
    short, longer = gpu.workload(64, 1, 256), gpu.workload(64, 1, 257)
    assert (_attention_bytes(LLAMA, short, "kv") - _attention_bytes(LLAMA, short, "k_only")
            == 64 * 32 * 256 * 128 * 2)
    assert _attention_bytes(LLAMA, longer, "k_only") == _attention_bytes(LLAMA, longer, "kv")


def test_xqa_grid_follows_tensorrt_llms_multi_block_split():
    """8 KV heads of one sequence against 8192 cached tokens on an A100 (108 SMs): 64 blocks of
    128 tokens, cut to round(sqrt(8 x 64)) = 23 sub-sequences, 184 CTAs; 64 sequences: 512 x 23
    CTAs would be 13.6 x the 8 target waves, so 23 / 13.6 -> 1 sub-sequence, 512 CTAs; a
    64-token cache: 1 sub-sequence."""
    from lutcore.gpu._simulator import xqa_ctas

    assert float(xqa_ctas(8.0, 8192.0, 108)) == 184
    assert float(xqa_ctas(512.0, 8192.0, 108)) == 512
    assert float(xqa_ctas(8.0, 64.0, 108)) == 8
    assert float(xqa_ctas(0.0, 8192.0, 108)) == 0


def test_grouped_decode_pays_per_wave_and_mha_decode_per_sequence():
    """One decode step against 8192 cached tokens (context 8193) on an A100: Llama-2-70B (8 KV
    heads) with 2 sequences pays 2 x 184 / 108 waves of the XQA grid and no per-sequence time;
    Llama-2-7B (MHA) pays 2 sequences and no waves."""
    costly = gpu.Framework("t", "test", decode_call=3e-6, decode_sequence=5e-7,
                           decode_wave=1e-6)
    work = gpu.workload(2, 1, 8193)
    llama70 = gpu.llm_shape("llama2-70b")
    for shape, added in ((llama70, 3e-6 + 2 * 184 / 108 * 1e-6), (LLAMA, 3e-6 + 2 * 5e-7)):
        bare, priced = (float(gpu.layer_breakdown(gpu.A100, shape, gpu.Deployment(framework=f),
                                                  work, launch=0.0)["attention"])
                        for f in (gpu.FRAMEWORKS["bare"], costly))
        assert priced == pytest.approx(bare + added, rel=1e-6)


def test_kv_pool_is_checked():
    with pytest.raises(ValueError, match="kv_pool"):
        gpu.Deployment(kv_pool="paged")


@pytest.mark.parametrize("name", ["aiconfigurator_attention_a100_sxm.yaml",
                                  "aiconfigurator_attention_h100_sxm.yaml",
                                  "aiconfigurator_attention_h200_sxm.yaml"])
def test_aiconfigurator_attention_sets_run_on_the_k_only_pool(name):
    """Every attention table transcribed was collected before aiconfigurator's collector left
    CacheType.SELFKONLY (dec5f4cd2): each set says so."""
    for entry in _measured.load(name)["sets"]:
        assert _measured._deployment(entry).kv_pool == "k_only"


def test_framework_costs_by_architecture():
    """A record's ``by_architecture`` entry prices the GPUs of that architecture: on the H100
    and H200 (Hopper) as the Hopper record, on the A100 as the record itself."""
    hopper = gpu.Framework("h", "test", attention_call=2e-5)
    framework = gpu.Framework("t", "test", attention_call=1e-6,
                              by_architecture=(("hopper", hopper),))
    work = gpu.workload(1, 1, 128)
    for spec, expected in ((gpu.H100, hopper), (gpu.H200, hopper), (gpu.A100, framework)):
        assert _attention(framework, work, spec) == pytest.approx(_attention(expected, work,
                                                                             spec), rel=1e-9)
    trtllm = gpu.FRAMEWORKS["tensorrt_llm"]
    assert trtllm.on("hopper") is gpu.blocks.TENSORRT_LLM_HOPPER
    assert trtllm.on("ampere") is trtllm
    with pytest.raises(ValueError, match="architecture"):
        gpu.Framework("t", "test", by_architecture=(("volta", hopper),))


def test_eager_norm_is_eight_kernels_at_the_framework_kernel_times():
    """transformers' eager RMSNorm of 2048 tokens (4096 wide) on an H100 (50 MiB L2), kernel by
    kernel: to(float32) reads the residual (16.8 MB) from the L2 and writes 33.5 MB; pow reads
    that from the L2 and writes 33.5 MB; mean reads it from the L2; + eps and rsqrt move
    nothing; x rsqrt reads the FP32 copy from DRAM (the copy and pow's output written and read
    since: 101 MB) and writes 33.5 MB, or is issue-bound (broadcast: the strided path);
    to(float16) reads from the L2 and writes 16.8 MB; weight x reads from the L2, writes 16.8
    MB, or is issue-bound. Six contiguous kernels' fixed time, two strided ones'."""
    from lutcore.gpu._operators import EAGER_STRIDED_OPERATIONS

    spec, eager = gpu.H100, gpu.DEPLOYMENTS["hf_eager"]
    seconds = gpu.layer_breakdown(spec, LLAMA, eager, gpu.workload(1, 2048),
                                  launch=0.0)["attention_norm"]
    elements, bw = 2048 * 4096, spec.achievable_dram_bandwidth
    issue = elements * EAGER_STRIDED_OPERATIONS / spec.vector_flops
    framework = gpu.FRAMEWORKS["hf_eager"]
    expected = (6 * framework.kernel_latency + 2 * framework.strided_latency
                + elements * (4 + 4 + 2) / bw + max(elements * 8 / bw, issue)
                + max(elements * 2 / bw, issue))
    assert float(seconds) == pytest.approx(expected, rel=1e-6)
    # on the RTX 3090's 6 MiB L2 the FP32 tensors (33.5 MB) go through DRAM
    slow = gpu.layer_breakdown(gpu.RTX3090, LLAMA, eager, gpu.workload(1, 2048),
                               launch=0.0)["attention_norm"]
    bw = gpu.RTX3090.achievable_dram_bandwidth
    issue = elements * EAGER_STRIDED_OPERATIONS / gpu.RTX3090.vector_flops
    assert float(slow) == pytest.approx(
        6 * framework.kernel_latency + 2 * framework.strided_latency
        + elements * (2 + 4 + 4 + 4 + 4 + 4 + 2) / bw + max(elements * 8 / bw, issue)
        + max(elements * 4 / bw, issue), rel=1e-6)


def test_eager_rotary_is_issue_bound_at_long_prompts():
    """transformers' eager RoPE of 2048 tokens of Llama-2-7B (32 + 32 heads of 128) on an RTX
    3090: 10 strided ATen kernels at HF eager's strided_latency, plus 4.5 elements written per
    Q/K element, each at EAGER_STRIDED_OPERATIONS CUDA-core operations (their strided path):
    2048 x 8192 x 4.5 x 217.0 / 35.58 TFLOPS = 460 us, above the 20 B an element at the DRAM
    rate."""
    from lutcore.gpu._operators import EAGER_STRIDED_OPERATIONS

    spec, eager = gpu.RTX3090, gpu.DEPLOYMENTS["hf_eager"]
    seconds = gpu.layer_breakdown(spec, LLAMA, eager, gpu.workload(1, 2048),
                                  launch=0.0)["rotary_embedding"]
    elements = 2048 * 64 * 128
    issue = elements * 4.5 * EAGER_STRIDED_OPERATIONS / spec.vector_flops
    assert issue > elements * 20 / spec.achievable_dram_bandwidth
    strided = gpu.FRAMEWORKS["hf_eager"].strided_latency
    assert strided > gpu.FRAMEWORKS["hf_eager"].kernel_latency
    assert float(seconds) == pytest.approx(10 * strided + issue, rel=1e-6)
    vectorized = gpu.layer_breakdown(spec, LLAMA, gpu.DEPLOYMENTS["vllm"], gpu.workload(1, 2048),
                                     launch=0.0)["rotary_embedding"]
    assert float(vectorized) < float(seconds) / 4  # the row kernel streams
    # on an H100 these kernels (no tensor-core work) run at the 1.98 GHz boost clock: 67 TF
    h100 = gpu.layer_breakdown(gpu.H100, LLAMA, eager, gpu.workload(1, 2048),
                               launch=0.0)["rotary_embedding"]
    assert float(h100) == pytest.approx(10 * strided + elements * 4.5 * EAGER_STRIDED_OPERATIONS
                                        / 66.9e12, rel=2e-3)


def test_eager_rotary_constants_are_the_fit():
    """The strided kernels' fixed time and issue cost are the tool's pair, and at them the
    model's own rotary rows of the calibration set are unbiased at <= 16 and at >= 512 tokens
    (the model, not the tool's closed form)."""
    from lutcore.gpu._operators import EAGER_STRIDED_OPERATIONS

    latency, operations = calibrate_gpu.eager_rotary()
    assert gpu.FRAMEWORKS["hf_eager"].strided_latency == pytest.approx(latency, rel=2e-3)
    assert EAGER_STRIDED_OPERATIONS == pytest.approx(operations, rel=2e-3)
    points = _measured.points("llmservingsim_rtx3090.yaml")
    rows = [(int(p.label.rsplit("T=", 1)[1].split(":")[0]), p.modeled / p.measured - 1)
            for p in points if p.label.endswith(": rotary_embedding")]
    for keep in (lambda t: t <= 16, lambda t: t >= 512):
        assert abs(np.mean([e for t, e in rows if keep(t)])) < 3e-3


def test_framework_host_costs_replace_the_specs():
    """A framework's step time is added once per forward pass; its launch time replaces the
    spec's in the host model."""
    work, base = gpu.workload(1, 1, 128), gpu.Deployment()
    host = dataclasses.replace(base, framework=gpu.Framework("t", "test", step_overhead=1e-3))
    before = float(gpu.model_latency(gpu.A100, LLAMA, base, work))
    assert float(gpu.model_latency(gpu.A100, LLAMA, host, work)) == pytest.approx(
        before + 1e-3, rel=1e-6)


def test_bare_framework_is_the_default_deployment():
    work = gpu.workload(2, 64)
    assert gpu.Deployment().framework is gpu.FRAMEWORKS["bare"]
    assert float(gpu.model_latency(gpu.H100, LLAMA, gpu.DEPLOYMENTS["llama_cpp"], work)) == \
        pytest.approx(float(gpu.model_latency(gpu.H100, LLAMA,
                                              gpu.Deployment(cuda_graphs=True), work)))


def test_a_framework_must_be_a_record():
    with pytest.raises(ValueError, match="framework must be a Framework record"):
        gpu.Deployment(framework="tensorrt_llm")
    with pytest.raises(ValueError, match="attention_rate must be in"):
        gpu.Framework("t", "test", attention_rate=1.5)


def test_unknown_preset_in_a_measured_set_is_named():
    with pytest.raises(ValueError, match="preset 'tgi' unknown; allowed values: tensorrt_llm"):
        _measured._deployment({"name": "x", "deployment": {"preset": "tgi"}})


def test_eager_kernel_time_is_the_fit():
    """At HF eager's kernel time its calibration rows (LLMServingSim RTX 3090, <= 16 tokens)
    are unbiased (the tool's bisection, one evaluation)."""
    eager = gpu.FRAMEWORKS["hf_eager"]
    errors = calibrate_gpu.eager_errors(eager.kernel_latency)
    assert abs(np.mean(errors)) < 2e-3
    errors = calibrate_gpu.eager_errors(eager.kernel_latency, ("attention",),
                                        attention_call=eager.attention_call)
    assert abs(np.mean(errors)) < 2e-3


@pytest.mark.parametrize("architecture", ["ampere", "hopper"])
def test_tensorrt_llm_attention_constants_are_the_fits(architecture):
    """At TensorRT-LLM's recorded costs on each architecture its calibration set's long context
    rows are unbiased and the fixed costs are their least-squares fit (one round of the tool's
    alternation, which has settled)."""
    record = gpu.FRAMEWORKS["tensorrt_llm"].on(architecture)
    assert abs(_fit_attention.attention_rate_bias(architecture)) < 2e-3
    fields = {f: getattr(record, f) for f in ("attention_rate", "attention_call",
                                              "attention_tile", "decode_call",
                                              "decode_sequence", "decode_wave")}
    for field, value in _fit_attention.attention_fixed_costs(architecture, **fields).items():
        assert getattr(record, field) == pytest.approx(value, rel=5e-3, abs=1e-9), field


@pytest.mark.parametrize("name", ["aiconfigurator_attention_a100_sxm.yaml",
                                  "aiconfigurator_attention_h100_sxm.yaml",
                                  "aiconfigurator_nccl.yaml"])
def test_aiconfigurator_layer_sets_are_calibration(name):
    """Issue 30 lets aiconfigurator's A100 / H100 SXM tables calibrate."""
    data = _measured.load(name)
    assert data["role"] == "calibration"
    assert calibrate_gpu._load(name)["sets"]


def test_ring_all_reduce_pays_a_step_latency_per_ring_step():
    """2 (p - 1) steps: 8 GPUs take 14 step latencies, 2 GPUs take 2 (hand-worked, no bytes)."""
    spec = dataclasses.replace(gpu.A100, allreduce_latency=1e-5, allreduce_hop_latency=1e-6)
    assert float(gpu.all_reduce_seconds(spec, 8, 0.0)) == pytest.approx(1e-5 + 14e-6)
    assert float(gpu.all_reduce_seconds(spec, 2, 0.0)) == pytest.approx(1e-5 + 2e-6)


def test_attention_sets_price_the_attention_operator():
    """An ``attention`` set row is the layer's attention operator under the set's deployment."""
    data = _measured.load("aiconfigurator_attention_a100_sxm.yaml")
    entry = data["sets"][0]
    labels, categories, measured, modeled = _measured.attention_points(data, entry)
    b, t, c, ms = entry["points"][0]
    shape = _measured._shape("x", {"hidden": entry["heads"] * 128, "ffn": 4 * entry["heads"],
                                   "heads": entry["heads"], "kv_heads": entry["kv_heads"]})
    expected = gpu.layer_breakdown(gpu.A100, shape, _measured._deployment(entry),
                                   gpu.workload(b, t, c), launch=0.0)["attention"]
    assert categories[0] == "operator" and measured[0] == pytest.approx(ms * 1e-3)
    assert modeled[0] == pytest.approx(float(expected), rel=1e-6)


def test_trusted_ranges_bin_validation_gemms_by_m():
    """12 validation rows of one kernel at M <= 16 within 8 % count as trusted, 12 at M > 1024
    beyond it; calibration rows and bins under 10 rows are not judged."""
    import xarray as xr

    from experiments import get

    fig16 = get("lut-fig16").module
    rows = ([("validation", 8, 5.0)] * 12 + [("validation", 4096, -20.0)] * 12
            + [("calibration", 8, 50.0)] * 12 + [("validation", 64, 1.0)] * 3)
    ds = xr.Dataset(
        {"error": ("point", [e for _, _, e in rows])},
        coords={"point": [f"s: cuBLAS x: {m}x4096x4096 #{i}" for i, (_, m, _) in
                          enumerate(rows)],
                "role": ("point", [r for r, _, _ in rows]),
                "device": ("point", ["a100"] * len(rows)),
                "set": ("point", ["cuBLAS x"] * len(rows)),
                "category": ("point", ["gemm"] * len(rows))})
    inside, outside = fig16.trusted_ranges(ds)
    assert inside == ["a100 cuBLAS M 1-16 (5.0 %, 12 rows)"]
    assert outside == ["a100 cuBLAS M > 1024 (20.0 %, 12 rows)"]


def test_eager_swiglu_reads_from_the_l2_what_fits_there():
    """SiLU(gate) x up of Llama-3.1-8B (FFN 14336) on an H100: at 128 tokens (3.7 MB a tensor)
    SiLU reads the gate from DRAM (the up GEMM's weights went through the L2 since) and writes
    its output; x up reads that and up (4 tensors since up was written: 14.7 MB) from the L2
    and writes: 3 tensors through DRAM; at 4096 tokens (117 MB a tensor) all 5."""
    spec, eager = gpu.H100, gpu.DEPLOYMENTS["hf_eager"]
    llama3 = gpu.LLMShape("llama-3.1-8b", hidden=4096, ffn=14336, heads=32, kv_heads=8,
                          layers=32, vocab=128256, gated=True, rotary=True)
    fixed = 2 * gpu.FRAMEWORKS["hf_eager"].kernel_latency
    for tokens, tensors in ((128, 3), (4096, 5)):
        seconds = gpu.layer_breakdown(spec, llama3, eager, gpu.workload(1, tokens),
                                      launch=0.0)["activation"]
        moved = tensors * tokens * 14336 * 2.0
        assert float(seconds) == pytest.approx(fixed + moved / spec.achievable_dram_bandwidth,
                                               rel=1e-6)
