"""TensorRT-LLM's SmoothQuant plugin below M = 5: its CUDA kernel (``_gemv.sq_gemv_clocks``,
``_tiles`` T9), counted by hand from its source, and the plugin's rule that runs it for every
M <= 4 and its CUTLASS tactics only above."""

import numpy as np
import pytest

import lutcore.gpu as gpu
from lutcore.gpu import _gemv, _kernels, _tile_tables, _tiles


def test_sq_gemv_clocks_by_hand():
    """One ``int8_sq`` CTA on the H200, M = 4 token rows x 2 weight rows x K 4096: 4 x 2 x 4096
    / 4 = 8192 DP4As on 64 INT32 lanes = 128 clocks, above the issue slots' (8192 + (4 + 2) x
    4096 / 16 = 1536 int4 loads) / 128 = 76; then 128 threads x 8 accumulators x 5 shuffles / 32
    = 160: 288 clocks at the 1.98 GHz boost clock, in 1.83 GHz SM clocks."""
    hw = _kernels.hardware(gpu.H200, "trtllm_smoothquant", "int8", 8)
    c = {"tm": np.array([4.0]), "tn": np.array([2.0])}
    clocks = _gemv.sq_gemv_clocks(hw, c, 4096.0, 4.0)
    assert float(clocks[0]) == pytest.approx(288 * 1.83 / 1.98, rel=1e-12)
    # M = 1: 2048 DP4As = 32 clocks on the INT32 lanes (issue (2048 + 768) / 128 = 22), + 40
    assert float(_gemv.sq_gemv_clocks(hw, c, 4096.0, 1.0)[0]) == pytest.approx(
        72 * 1.83 / 1.98, rel=1e-12)


@pytest.mark.parametrize("spec", [gpu.A100, gpu.H200], ids=lambda s: s.name)
def test_the_plugin_runs_its_cuda_kernel_at_every_m_up_to_4_and_cutlass_above(spec):
    """SmoothQuantGemmPlugin::enqueue: ``if (m <= 4)`` the CUDA kernel, unprofiled, else the
    profiled CUTLASS tactic: M 1-4 take the 2-column CTA on the CUDA cores alone (no tensor-core
    time, its time rising with M), M 5-8 a CUTLASS tile on the tensor cores."""
    m = np.arange(1.0, 9.0)
    r = gpu.gemm_latency(spec, "trtllm_smoothquant", m, 4096, 4096, act="int8", weight_bits=8)
    small = m <= _tile_tables.TRTLLM_SQ_GEMV_MAX_M
    assert np.all(r.tile_n[small] == 2) and np.all(r.compute[small] == 0)
    assert np.all(np.diff(r.cuda_core[small]) > 0)
    assert np.all(r.tile_n[~small] >= 64) and np.all(r.compute[~small] > 0)
    assert np.all(r.cuda_core[~small] == 0)


def test_the_cuda_kernel_is_offered_to_no_other_m_nor_kernel():
    """Every candidate's total: the CUDA row finite at M = 4 and infinite at M = 5, the CUTLASS
    rows the other way round; the weight-only plugin's table marks only its GEMV rows."""
    record = gpu.KERNEL_LIBRARY["trtllm_smoothquant"]
    work = record.work_for(gpu.Quant(weight_bits=8, group_size=0))
    hw = _kernels.hardware(gpu.H200, record, "int8", 8)
    c = {name: np.asarray(v, float) for name, v in _tile_tables.candidate_table(work.tiles).items()}
    occ = _tiles.occupancy(hw, c, work)
    cuda = c["cuda_core"] == 1
    assert cuda.sum() == 1
    for m, offered in ((4.0, cuda), (5.0, ~cuda)):
        pipes = _tiles.pipe_times(hw, c, 4096.0, occ, work, m)
        totals = np.asarray(_tiles.candidate_totals(
            hw, c, occ, pipes, *(np.array([[x]]) for x in (m, 4096.0, 4096.0)), work)[0])[0]
        assert np.all(np.isfinite(totals[offered])) and np.all(np.isinf(totals[~offered]))
    weight_only = _tile_tables.trtllm_weight_only_candidates()
    assert np.array_equal(weight_only["cuda_core"] == 1, weight_only["tn"] <= 32)
