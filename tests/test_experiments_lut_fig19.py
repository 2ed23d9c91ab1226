"""lut-fig19, the roofline of Sec. 5: the DRAM traffic it prices (against hand-worked bytes), the
roofs and points it draws, and claims that follow the data."""

import numpy as np
import pytest

import lutcore.gpu as gpu
from experiments import get, make_config

FIG19 = get("lut-fig19")


@pytest.fixture(scope="module")
def fig19():
    return FIG19.run(make_config(FIG19, {}))


def test_dram_traffic_by_hand():
    """256 x 256 x 64 FP16 on 128 x 128 x 32 tiles: 4 tiles each reading 64 x (128 + 128) x 2 B,
    plus the 256 x 256 FP16 output; fits L2, so with L2 reuse each operand is read once."""
    args = (gpu.A100, "cublas", 256, 256, 64, (128, 128, 32), (64, 64))
    assert gpu.dram_traffic(*args, l2_reuse=False) == 4 * 64 * 256 * 2 + 256 * 256 * 2
    assert gpu.dram_traffic(*args) == (256 * 64 + 256 * 64) * 2 + 256 * 256 * 2


def test_lut_tables_halve_with_symmetry():
    """K = 4 tables of FP16 entries: 16 entries (bit-serial) or 8 (symmetric) per 4 activations."""
    assert gpu.lut_table_bytes(16, "bitserial") == 8.0 == 2 * gpu.lut_table_bytes(16)
    lut = gpu.with_lut_tensor_core(gpu.A100, 2)
    tile = ((128, 128, 32), (64, 64))
    naive, halved = (gpu.dram_traffic(lut, "lut_tensor_core", 4096, 4096, 4096, *tile,
                                      weight_bits=1, table=t, l2_reuse=False)
                     for t in ("bitserial", "symmetric"))
    # A: 32 N-tiles each read the M x K tables; W: 32 M-tiles each read N x K bits; output once
    a_reads, w_reads, out = 32 * 4096 * 4096, 32 * 4096 * 4096 / 8, 4096 * 4096 * 2
    assert naive == a_reads * 8 + w_reads + out and halved == a_reads * 4 + w_reads + out


def test_lut_scale_gives_the_flops_ratio():
    assert FIG19.module.lut_scale(gpu.A100, 4) == 2  # 4 x 1024 FP16 MACs = 2 x 512 x 4 tensor cores
    lut = gpu.with_lut_tensor_core(gpu.A100, 2)
    assert lut.lut_peak(1) == pytest.approx(4 * gpu.A100.tensor_peak("fp16"))
    with pytest.raises(ValueError, match="LUT scale 1.5"):
        FIG19.module.lut_scale(gpu.A100, 3)


def test_roofs_points_and_steps(fig19):
    bandwidth = gpu.A100.dram_bandwidth
    np.testing.assert_allclose(fig19.ridge * bandwidth / 1e12, fig19.peak)
    peak = fig19.peak.sel(roof=fig19.point_roof).values
    np.testing.assert_allclose(fig19.attainable,
                               np.minimum(peak, fig19.intensity * bandwidth / 1e12))
    m, n, k = 2048, 27648, 5120  # Sec. 4.3's LLAMA2-13B FFN shape
    np.testing.assert_allclose(fig19.intensity * fig19.dram_bytes * 1e6, 2.0 * m * n * k)
    # every co-optimization of Sec. 5 raises the intensity, and the naive point uses the FP16
    # kernel's tile
    path = fig19.intensity.sel(point=["naive_lut", "halved_tables", "elongated_tiles",
                                      "optimized"]).values
    assert (np.diff(path) > 0).all()
    np.testing.assert_array_equal(fig19.tile.sel(point="naive_lut"),
                                  fig19.tile.sel(point="fp16_mac"))
    assert "| naive_lut | lut_int1 |" in FIG19.table(fig19)
    FIG19.plot(fig19)


def test_claims_follow_the_data(fig19):
    claims = {c.claim: c for c in FIG19.claims(fig19)}
    assert list(claims) == list(FIG19.claim_keys)
    assert claims["fp16_compute_bound"].holds and claims["naive_lut_memory_bound"].holds
    ridge = float(fig19.ridge.sel(roof="lut_int1"))
    moved = fig19.copy(deep=True)
    moved["intensity"].loc[dict(point="optimized")] = 1.5 * ridge
    moved["intensity"].loc[dict(point="naive_lut")] = 1.2 * ridge
    flipped = {c.claim: c for c in FIG19.claims(moved)}
    assert flipped["optimized_near_ridge"].holds
    assert not flipped["naive_lut_memory_bound"].holds
    moved["intensity"].loc[dict(point="optimized")] = 2.5 * ridge
    assert not {c.claim: c for c in FIG19.claims(moved)}["optimized_near_ridge"].holds
