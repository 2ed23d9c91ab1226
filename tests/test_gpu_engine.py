"""T13: a TensorRT engine without a GEMM plugin runs the tactic its builder timed at the
optimization profile's optimum (``Work(selection="engine")``, ``Deployment.gemm_tuned_rows``,
``engine_profile_rows``)."""

import dataclasses

import pytest

import lutcore.gpu as gpu
from experiments.lut_tensor_core import _measured
from lutcore.gpu import _kernels, _simulator

TILE_FIELDS = ("tile_m", "tile_n", "tile_k", "warp_m", "warp_n", "split_k")


@pytest.mark.parametrize("build, rows", [
    # packed tokens: max_num_tokens unset -> min(64 x 2048, 4096) = 4096, its middle 2048
    (dict(max_batch_size=64, max_input_len=2048, remove_input_padding=True), 2048),
    # padded batches: middle batch 32 x middle input length 1024
    (dict(max_batch_size=64, max_input_len=2048, remove_input_padding=False), 32 * 1024),
    (dict(max_batch_size=8, max_input_len=128, remove_input_padding=True), 512),  # 1024 / 2
    (dict(max_batch_size=1, max_input_len=5, remove_input_padding=False), 3),  # (5 + 1) // 2
    # an explicit max_num_tokens below max_input_len is raised to it
    (dict(max_batch_size=4, max_input_len=300, remove_input_padding=True,
          max_num_tokens=100), 150),
])
def test_engine_profile_rows_hand_worked(build, rows):
    assert gpu.engine_profile_rows(**build) == rows


def test_engine_profile_rows_refuses_a_zero_batch():
    with pytest.raises(ValueError, match="max_batch_size"):
        gpu.engine_profile_rows(max_batch_size=0, max_input_len=128,
                                remove_input_padding=True)


def _engine(tuned_at: float):
    work = _kernels.kernel_work("cublas", 16)._replace(selection="engine", tuned_at=tuned_at)
    return lambda hw, m, n, k: gpu.blocks.tile_model(hw, m, n, k, work=work)


@pytest.mark.parametrize("spec", [gpu.A100, gpu.H100], ids=["a100", "h100"])
@pytest.mark.parametrize("n, k", [(4096, 4096), (11008, 4096), (4096, 11008)])
def test_engine_tactic_at_its_own_rows_is_the_fastest(spec, n, k):
    """Tuned at the M it runs: the tactic the library's own choice would take, same seconds."""
    hw = _kernels.hardware(spec, "cublas", "fp16", 16)
    fastest = gpu.blocks.tile_model(hw, 2048, n, k, work=_kernels.kernel_work("cublas", 16))
    tuned = _engine(2048.0)(hw, 2048, n, k)
    for field in TILE_FIELDS + ("seconds",):
        assert float(getattr(tuned, field)) == float(getattr(fastest, field)), field


@pytest.mark.parametrize("n, k", [(4096, 4096), (12288, 4096), (4096, 11008)])
def test_engine_runs_at_128_rows_the_tile_chosen_at_2048(n, k):
    """The A100's tile chosen at 2048 rows is the one that runs at 128 rows, and it is slower
    there than the tile chosen for 128 rows (a 128-row GEMM leaves most SMs idle under it)."""
    hw = _kernels.hardware(gpu.A100, "cublas", "fp16", 16)
    own = _kernels.kernel_work("cublas", 16)
    at_2048 = gpu.blocks.tile_model(hw, 2048, n, k, work=own)
    tuned = _engine(2048.0)(hw, 128, n, k)
    for field in TILE_FIELDS:
        assert float(getattr(tuned, field)) == float(getattr(at_2048, field)), field
    assert float(tuned.seconds) > float(gpu.blocks.tile_model(hw, 128, n, k, work=own).seconds)


def test_deployment_tuned_rows_price_the_projections_with_the_engine_tactic():
    shape, work = gpu.llm_shape("llama2-7b"), gpu.workload(1, 128)
    plain = gpu.Deployment()
    engine = dataclasses.replace(plain, gemm_tuned_rows=2048)
    assert _simulator.projection_work(engine) == _kernels.kernel_work("cublas", 16)._replace(
        selection="engine", tuned_at=2048.0)
    assert _simulator.projection_work(plain) == _kernels.kernel_work("cublas", 16)
    slow = float(gpu.model_latency(gpu.A100, shape, engine, work))
    assert slow > float(gpu.model_latency(gpu.A100, shape, plain, work))
    # tuned at the rows it runs: the same time as the per-call tactic
    at_own = dataclasses.replace(plain, gemm_tuned_rows=128)
    assert float(gpu.model_latency(gpu.A100, shape, at_own, work)) == pytest.approx(
        float(gpu.model_latency(gpu.A100, shape, plain, work)), rel=1e-12)


def test_deployment_refuses_tuned_rows_it_cannot_use():
    with pytest.raises(ValueError, match="gemm_tuned_rows"):
        gpu.Deployment(gemm_tuned_rows=-1)
    plugin = gpu.Deployment(kernel="trtllm_smoothquant", activation="int8", weight_bits=8,
                            gemm_tuned_rows=2048)
    with pytest.raises(ValueError, match="gemm_tuned_rows.*trtllm_smoothquant"):
        gpu.model_latency(gpu.A100, gpu.llm_shape("llama2-7b"), plugin, gpu.workload(1, 128))


def test_engine_work_refuses_no_tuned_rows():
    hw = _kernels.hardware(gpu.A100, "cublas", "fp16", 16)
    with pytest.raises(ValueError, match="tuned_at"):
        _engine(0.0)(hw, 128, 4096, 4096)


def test_engine_build_of_a_measured_set():
    build = {"gemm_plugin": False, "remove_input_padding": True, "max_batch_size": 64,
             "max_input_len": 2048}
    data = {"engines": {"a": build, "plugin": {"gemm_plugin": True}}}
    assert _measured.engine_tuned_rows(data, "a") == 2048
    assert _measured.engine_tuned_rows(data, "plugin") == 0
    assert _measured.engine_tuned_rows(data, "unlisted") == 0
    data["engines"]["bad"] = {"gemm_plugin": False, "max_batch_size": 64}
    with pytest.raises(ValueError, match="engines.bad"):
        _measured.engine_tuned_rows(data, "bad")


def test_fp8_linears_bypass_the_gemm_plugin():
    """TensorRT-LLM 0.8's FP8 linears leave their tactics to TensorRT even in an engine built
    with --gemm_plugin (its 96 x 128 single-profile build: min(12288, 4096) -> optimum 2048);
    FP16 linears of the same build run the plugin."""
    build = {"gemm_plugin": True, "remove_input_padding": True, "max_batch_size": 96,
             "max_input_len": 128}
    data = {"engines": {"falcon": build, "short": {"gemm_plugin": True}}}
    assert _measured.engine_tuned_rows(data, "falcon", "fp8") == 2048
    assert _measured.engine_tuned_rows(data, "falcon", "fp16") == 0
    assert _measured.engine_tuned_rows(data, "short", "fp16") == 0
    with pytest.raises(ValueError, match="engines.short.*fp8 linears"):
        _measured.engine_tuned_rows(data, "short", "fp8")
