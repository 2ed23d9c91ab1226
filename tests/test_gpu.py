"""lutcore.gpu specs, LLM shapes and kernel models: datasheet peaks recomputed from the per-SM
numbers, shapes against the public configs, roofline limits at the achievable fractions x peak,
monotonicity, hand-computed latencies (GEMV, fixed kernel cost, the tandem-line overlap), the
library tile sets (Hopper warpgroups, split-K, stream-K), exact bank-conflict expectations,
and clear errors."""

import dataclasses
import fractions
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import lutcore.gpu as gpu
from lutcore.gpu import _specs, _tiles
from lutcore.gpu._tiles import overlapped

A100_LUT4 = gpu.with_lut_tensor_core(gpu.A100, 4, "fp16")
# (spec, kernel, act, weight_bits) of every kernel family
CASES = [(gpu.A100, "cublas", "fp16", 16), (gpu.A100, "cublas", "int8", 8),
         (gpu.H100, "cublas", "fp8", 8), (gpu.RTX3090, "dequant", "fp16", 4),
         (gpu.A100, "dequant", "int8", 2), (gpu.A100, "lut_gemm", "fp16", 2),
         (A100_LUT4, "lut_tensor_core", "fp16", 1), (A100_LUT4, "lut_tensor_core", "fp16", 4),
         (gpu.with_lut_tensor_core(gpu.H200, 8, "int8"), "lut_tensor_core", "int8", 2)]
SIZES = np.array([1, 3, 16, 100, 1024, 2048, 8192], float)


def grid():
    m, n, k = np.meshgrid(SIZES, SIZES[2:], SIZES[2:], indexing="ij")
    return m.ravel(), n.ravel(), k.ravel()


@pytest.mark.parametrize("spec,dtype,datasheet", [
    (gpu.A100, "fp16", 312e12), (gpu.A100, "int8", 624e12),  # A100 whitepaper Table 1
    (gpu.RTX3090, "fp16", 71e12), (gpu.RTX3090, "int8", 284e12),  # GA102 whitepaper
    (gpu.H100, "fp16", 989.4e12), (gpu.H100, "fp8", 1979e12), (gpu.H200, "int8", 1979e12)])
def test_tensor_peaks_match_the_datasheets(spec, dtype, datasheet):
    assert spec.tensor_peak(dtype) == pytest.approx(datasheet, rel=0.005)


def test_cuda_core_and_memory_numbers():
    assert gpu.A100.cuda_core_flops == pytest.approx(19.5e12, rel=0.005)
    # 67 TF datasheet FP32 is at the 1.98 GHz max boost, the clock of a kernel without tensor-core
    # work; inside a tensor-core kernel the lanes run at the tensor peaks' 1.83 GHz
    assert gpu.H100.vector_flops == gpu.H200.vector_flops == pytest.approx(67e12, rel=0.005)
    assert gpu.H100.cuda_core_flops == pytest.approx(67e12 * 1.83 / 1.98, rel=0.01)
    assert gpu.RTX3090.cuda_core_flops == gpu.RTX3090.vector_flops == pytest.approx(35.6e12,
                                                                                    rel=0.005)
    # the PCIe A100's power limit holds back its tensor-core clock, not its boost (19.5 TF)
    assert gpu.A100_PCIE.vector_flops == gpu.A100.vector_flops == gpu.A100.cuda_core_flops
    assert gpu.A100_PCIE.cuda_core_flops < gpu.A100.cuda_core_flops
    assert gpu.A100.l2_bandwidth == pytest.approx(5120 * 1.41e9)
    assert (gpu.H200.dram_bandwidth, gpu.H200.sms) == (4.8e12, gpu.H100.sms)
    assert gpu.A100.achievable_dram_bandwidth == pytest.approx(1.80e12)  # E2
    assert gpu.A100.gemm_dram_bandwidth == pytest.approx(0.7702 * 2039e9)  # C6, the module's
    assert gpu.A100_PCIE.gemm_dram_bandwidth == pytest.approx(0.8314 * 1935e9)  # C2, the card's
    # a sustained clock moves the SM rates, not the datasheet peaks
    fast = dataclasses.replace(gpu.RTX3090, sustained_clock_ghz=1.9)
    assert fast.tensor_peak("fp16") == gpu.RTX3090.tensor_peak("fp16")
    assert fast.cuda_core_flops == pytest.approx(gpu.RTX3090.cuda_core_flops * 1.9 / 1.695)


def test_lut_variants_scale_the_bit_serial_peak():
    # 1x = 512 MAC-equivalents per tensor core, 4 per SM, one pass per weight bit
    for scale, bits in itertools.product(gpu.LUT_SCALES, (1, 2, 4)):
        spec = gpu.with_lut_tensor_core(gpu.A100, scale, "int8")
        assert spec.lut_peak(bits) == pytest.approx(
            2 * scale * 512 * 4 * 108 * 1.41e9 / bits)
    assert gpu.with_lut_tensor_core(gpu.A100, 4, "int8").lut_peak(2) == pytest.approx(
        1247.5e12, rel=1e-3)
    drm = gpu.with_double_registers(gpu.A100)
    assert (drm.registers, drm.max_registers_per_thread) == (512 * 1024, 510)
    assert gpu.A100.lut_peak(1) == 0


def test_llama2_70b_and_layer_gemms_match_the_config():
    shape = gpu.llm_shape("llama2-70b")
    assert (shape.hidden, shape.ffn, shape.layers, shape.heads, shape.kv_heads, shape.vocab,
            shape.gated) == (8192, 28672, 80, 64, 8, 32000, True)
    gemms = {g.name: (g.m, g.n, g.k) for g in gpu.layer_gemms(shape, 7)}
    assert gemms == {"qkv": (7, 8192 + 2 * 8 * 128, 8192), "output": (7, 8192, 8192),
                     "ffn_up": (7, 2 * 28672, 8192), "ffn_down": (7, 8192, 28672),
                     "lm_head": (7, 32000, 8192)}
    # LLAMA2-13B's fused up+gate projection is the paper's Fig. 15 N = 27648
    assert gpu.layer_gemms(gpu.llm_shape("llama2-13b"), 1)[2].n == 27648
    opt = gpu.llm_shape("opt-175b")
    assert (opt.hidden, opt.ffn, opt.layers, opt.heads, opt.gated) == (12288, 49152, 96, 96,
                                                                       False)
    bloom = gpu.llm_shape("bloom-176b")
    assert (bloom.hidden, bloom.layers, bloom.heads, bloom.vocab) == (14336, 70, 112, 250880)


@pytest.mark.parametrize("spec,kernel,act,bits", CASES)
def test_no_kernel_beats_the_achievable_compute_or_dram_rate(spec, kernel, act, bits):
    """Achieved ops/s <= the act's achievable fraction x datasheet peak (tensor cores and LUT
    arrays; LUT-GEMM's CUDA cores at 1.0), achieved DRAM bytes/s <= the GEMM-kernel fraction x
    datasheet bandwidth, and every kernel takes at least its fixed device time."""
    m, n, k = grid()
    result = gpu.gemm_latency(spec, kernel, m, n, k, act=act, weight_bits=bits)
    seconds = np.asarray(result.seconds)
    efficiency = 1.0 if kernel == "lut_gemm" else spec.efficiency(act)
    achievable = efficiency * gpu.peak_ops(spec, kernel, act=act, weight_bits=bits)
    a_bytes = (gpu.lut_table_bytes(gpu.default_lut_bits(act)) if kernel == "lut_tensor_core"
               else gpu.ACT_BYTES[act])
    compulsory = m * k * a_bytes + n * k * bits / 8 + m * n * 2
    assert np.all(np.isfinite(seconds))
    assert np.all(2 * m * n * k / seconds <= achievable * (1 + 1e-9))
    assert np.all(compulsory / seconds <= spec.gemm_dram_bandwidth * (1 + 1e-9))
    assert np.all(seconds >= np.asarray(result.compute) - 1e-15)
    assert np.all(seconds >= spec.kernel_latency + spec.gemm_prologue)


@pytest.mark.parametrize("spec,fp16,eight_bit", [
    (gpu.A100, _specs.FP16_A100, _specs.INT8_A100),
    (gpu.RTX3090, _specs.FP16_A100, _specs.INT8_A100),
    (gpu.H100, _specs.FP16_H100, _specs.MAMF_FP8_H100),
    (gpu.H200, _specs.FP16_H100, _specs.MAMF_FP8_H200)])
def test_efficiencies_are_per_format_and_kept_by_the_variants(spec, fp16, eight_bit):
    assert spec.efficiency("fp16") == spec.efficiency("bf16") == fp16
    assert spec.efficiency("int8") == pytest.approx(eight_bit)
    # the LUT and DRM variants keep the fractions; the peaks stay the datasheet values
    variant = gpu.with_double_registers(gpu.with_lut_tensor_core(spec, 2))
    assert variant.efficiency("int8") == spec.efficiency("int8")
    assert (variant.tensor_efficiency, variant.dram_efficiency) == (spec.tensor_efficiency,
                                                                    spec.dram_efficiency)


@pytest.mark.parametrize("field", ["tensor_efficiency", "dram_efficiency",
                                   "gemv_dram_efficiency", "allreduce_efficiency"])
@pytest.mark.parametrize("value", [-0.1, 1.2])
def test_efficiency_outside_zero_one_is_rejected(field, value):
    with pytest.raises(ValueError, match=field):
        dataclasses.replace(gpu.A100, **{field: value})
    with pytest.raises(ValueError, match=r"dtype_efficiency\[int8\]"):
        dataclasses.replace(gpu.A100, dtype_efficiency=(("int8", value),))
    with pytest.raises(ValueError, match=r"mma_sync_fraction\[int8\]"):
        dataclasses.replace(gpu.H100, mma_sync_fraction=(("int8", value),))


@pytest.mark.parametrize("spec,kernel,act,bits", CASES)
def test_latency_grows_with_batch(spec, kernel, act, bits):
    m = np.arange(1, 2200, 9.0)
    for n, k in ((10240, 8192), (27648, 5120), (8192, 28672)):
        seconds = np.asarray(gpu.gemm_latency(spec, kernel, m, n, k, act=act,
                                              weight_bits=bits).seconds)
        assert np.all(np.diff(seconds) >= -1e-12 * seconds[1:])


@pytest.mark.parametrize("act,bits", [("fp16", 1), ("fp16", 4), ("int8", 2)])
def test_larger_lut_arrays_and_drm_never_slow_down(act, bits):
    m, n, k = grid()
    previous = None
    for scale in gpu.LUT_SCALES:
        spec = gpu.with_lut_tensor_core(gpu.A100, scale, act)
        plain = np.asarray(gpu.gemm_latency(spec, "lut_tensor_core", m, n, k, act=act,
                                            weight_bits=bits).seconds)
        drm = np.asarray(gpu.gemm_latency(gpu.with_double_registers(spec), "lut_tensor_core",
                                          m, n, k, act=act, weight_bits=bits).seconds)
        assert np.all(drm <= plain * (1 + 1e-12))
        if previous is not None:
            assert np.all(plain <= previous * (1 + 1e-12))
        previous = plain


def test_overlap_is_the_finite_buffer_tandem_line():
    """Buzacott & Shanthikumar: throughput (1 - rho^(B+1)) / (1 - rho^(B+2)) of the slower."""
    assert float(overlapped(2.0, 1.0, 2.0)) == pytest.approx(2.0 / ((1 - 0.5 ** 3)
                                                                    / (1 - 0.5 ** 4)))
    assert float(overlapped(1.0, 1.0, 2.0)) == pytest.approx(4 / 3, rel=1e-4)  # (B+2)/(B+1)
    assert float(overlapped(1.0, 1e-9, 3.0)) == pytest.approx(1.0)  # unbalanced: the max
    assert float(overlapped(1.0, 3.0, 2.0)) == float(overlapped(3.0, 1.0, 2.0))


def test_hand_computed_gemv_streams_at_the_gemv_rate_plus_the_fixed_cost():
    # FP16 GEMV 1 x 28672 x 8192 on A100 (470 MB, past the 40 MB L2): A, W and C once at the
    # SXM4 module's GEMV-class 77.02 % of 2039 GB/s (C6); the SM pipes of a 16-row tile are
    # nearly idle, so the tandem-line overlap adds next to nothing; plus 2.0 + 2.22 us of fixed
    # device time
    bytes_moved = 8192 * 2 + 28672 * 8192 * 2 + 28672 * 2
    result = gpu.gemm_latency(gpu.A100, "cublas", 1, 28672, 8192)
    stream = bytes_moved / (0.7702 * 2039e9)
    fixed = gpu.A100.kernel_latency + gpu.A100.gemm_prologue
    assert float(result.dram) == pytest.approx(stream, rel=1e-4)
    assert stream + fixed <= float(result.seconds) <= 1.02 * stream + fixed


def test_a_tiny_gemm_costs_its_fixed_device_time():
    for spec in (gpu.A100, gpu.H100):
        seconds = float(gpu.gemm_latency(spec, "cublas", 1, 64, 64).seconds)
        assert seconds == pytest.approx(spec.kernel_latency + spec.gemm_prologue, rel=0.05)


def test_every_round_of_single_cta_tiles_waits_for_its_prologue():
    """Hand counts: 10 tiles on 4 SMs, one CTA per SM: 3 rounds, each exposing the prologue;
    two co-resident CTAs cover each other's (only the first fill shows); a persistent
    stream-K kernel fills once."""
    hw = gpu.hardware(gpu.A100, "cublas", "fp16", 16)
    tiles_per_sm = np.array([np.ceil(10 / 4)] * 3)
    c = {"streamk": np.array([0.0, 0.0, 1.0])}
    occ = _tiles.Occupancy(registers=0, accumulators=0, threads=0, stages=0, smem=0,
                           ctas=np.array([1.0, 2.0, 1.0]), feasible=True)
    got = np.asarray(_tiles.prologues(hw, c, tiles_per_sm, occ))
    assert got == pytest.approx(gpu.A100.gemm_prologue * np.array([3.0, 1.0, 1.0]))


def test_integer_and_zero_inputs_clock_up_compute_bound_gemms_only():
    """C3: the power-limited SM clock rises by the measured ratio on integer / zero inputs;
    a compute-bound GEMM's SM time falls by it, a DRAM-bound GEMV does not move."""
    random = gpu.gemm_latency(gpu.H100, "cublas", 8192, 8192, 8192)
    for inputs, rate in (("integer", 288 / 257), ("zeros", 295 / 257)):
        faster = gpu.gemm_latency(gpu.H100, "cublas", 8192, 8192, 8192, inputs=inputs)
        assert float(faster.compute) == pytest.approx(float(random.compute) / rate, rel=1e-3)
        assert float(faster.seconds) < float(random.seconds)
        gemv = [float(gpu.gemm_latency(gpu.A100, "cublas", 1, 28672, 8192, inputs=i).seconds)
                for i in ("random", inputs)]
        assert gemv[1] == pytest.approx(gemv[0], rel=0.01)


def test_the_pcie_a100_is_the_sxm_module_at_its_clock_and_bandwidth():
    """S2, C1: the 300 W card runs the SXM4 module's tensor fractions at its power-limited
    clock (compute-bound time x boost / sustained clock) and streams its 1,935 GB/s at its own
    GEMV-class fraction (C2, 0.8314; the module's C6, 0.7702): GEMV x (0.7702 x 2039) /
    (0.8314 x 1935)."""
    pcie, sxm = gpu.A100_PCIE, gpu.A100
    big = [gpu.gemm_latency(spec, "cublas", 8192, 8192, 8192) for spec in (sxm, pcie)]
    assert float(big[1].compute) == pytest.approx(float(big[0].compute) * 1.41
                                                  / _specs.A100_PCIE_CLOCK, rel=1e-6)
    gemv = [gpu.gemm_latency(spec, "cublas", 1, 28672, 8192) for spec in (sxm, pcie)]
    assert float(gemv[1].dram) == pytest.approx(
        float(gemv[0].dram) * 0.7702 * 2039 / (0.8314 * 1935), rel=1e-4)  # tile may differ
    assert pcie.tensor_peak("fp16") == sxm.tensor_peak("fp16")


def test_compute_bound_lut_gemm_runs_at_its_achievable_peak():
    # 2048 x 27648 x 5120, W_INT1 A_FP16 on 1x LUT arrays: the busiest SM's compute equals
    # tiles x tile MACs / (512 x 4 x fraction) clocks, and the kernel takes at least that
    spec = gpu.with_lut_tensor_core(gpu.A100, 1, "fp16")
    result = gpu.gemm_latency(spec, "lut_tensor_core", 2048, 27648, 5120, weight_bits=1)
    tiles = np.ceil(2048 / result.tile_m) * np.ceil(27648 / result.tile_n) * result.split_k
    k_pad = np.ceil(np.ceil(5120 / result.split_k) / result.tile_k) * result.tile_k
    clocks = (np.ceil(tiles / 108) * result.tile_m * result.tile_n * k_pad
              / (2048 * _specs.FP16_A100))
    assert float(result.compute) == pytest.approx(float(clocks) / 1.41e9, rel=1e-6)
    assert float(result.seconds) >= float(result.compute)
    ideal = 2048 * 27648 * 5120 / (2048 * 108 * 1.41e9 * _specs.FP16_A100)
    assert float(result.seconds) <= 1.3 * ideal


def test_separate_precompute_adds_its_own_kernel():
    spec = gpu.with_lut_tensor_core(gpu.A100, 2, "fp16")
    fused = gpu.gemm_latency(spec, "lut_tensor_core", 1024, 8192, 8192, weight_bits=2)
    separate = gpu.gemm_latency(spec, "lut_tensor_core", 1024, 8192, 8192, weight_bits=2,
                                precompute="separate")
    # reads FP16 activations, writes 8 FP16 entries per 4 activations, at the streaming
    # 1.80 TB/s, plus one kernel's fixed device time
    table_kernel = 1024 * 8192 * (2 + 4) / 1.80e12 + gpu.A100.kernel_latency
    assert float(separate.precompute) == pytest.approx(table_kernel, rel=1e-9)
    assert float(separate.seconds) == pytest.approx(float(fused.seconds) + table_kernel)


def test_hopper_runs_warpgroup_tiles_off_the_shared_memory_bound():
    """S9: wgmma reads its operands from shared memory once per warpgroup, so a large H100
    GEMM is compute-bound; the A100 runs mma.sync warp tiles."""
    hopper = gpu.gemm_latency(gpu.H100, "cublas", 8192, 8192, 8192)
    assert float(hopper.smem) < float(hopper.compute)
    table = gpu.candidates("cublas")
    for spec in (gpu.A100, gpu.H100):
        hw = gpu.hardware(spec, "cublas", "fp16", 16)
        occupancy = _tiles.occupancy(hw, {k: jnp.asarray(v) for k, v in table.items()},
                                     gpu.WORK["cublas"])
        groups = set(table["group"][np.asarray(occupancy.feasible)])
        assert groups == {float(spec.mma_warps)}


def test_split_k_only_where_tiles_leave_sms_idle_and_stream_k_fills_the_last_wave():
    big = gpu.gemm_latency(gpu.A100, "cublas", 4096, 8192, 8192)
    assert float(big.split_k) == 1.0
    skinny = gpu.gemm_latency(gpu.A100, "cublas", 128, 1024, 28672)
    assert float(skinny.split_k) > 1.0  # 32 output tiles of 64 x 64 for 108 SMs
    hopper = gpu.gemm_latency(gpu.H100, "cublas", 1280, 4096, 12032, act="fp8", weight_bits=8)
    assert float(hopper.waves) != np.ceil(float(hopper.waves))  # T4: no partial last wave


def test_stream_k_only_from_one_full_wave_of_tiles():
    """T4: below one wave of output tiles a Hopper GEMM splits K (T3, and a second kernel, T10)
    instead of streaming. N 1024 x K 4096 at M 16 (8 MB of weights, 8 tiles of 64 x 128 for 132
    SMs) picks split-K on a whole wave and pays one more kernel's fixed cost than the same bytes
    as N 4096 x K 1024 (64 tiles of 16 x 64, unsplit), as the H100 calibration rows do (7.6 vs
    6.0 us); a stream-K kernel would price the two alike. 2048 x 12288 x 4096 (768 tiles of
    128 x 256, 5.8 waves) streams its partial last wave."""
    deep = gpu.gemm_latency(gpu.H100, "cublas", 16, 1024, 4096, act="bf16")
    shallow = gpu.gemm_latency(gpu.H100, "cublas", 16, 4096, 1024, act="bf16")
    assert float(deep.waves) == float(shallow.waves) == 1.0
    assert float(deep.split_k) > 1.0 == float(shallow.split_k)
    extra = float(deep.seconds - shallow.seconds)
    assert 0.8 * gpu.H100.kernel_latency < extra < 1.2 * gpu.H100.kernel_latency
    many = gpu.gemm_latency(gpu.H100, "cublas", 2048, 12288, 4096, act="bf16")
    assert float(many.waves) == pytest.approx(768 / 132)
    # Marlin's persistent walk (T7) is not the library's stream-K: its M = 1 tile (64 tiles of
    # 16 x 128 for 108 SMs, under a wave) still runs
    marlin = gpu.gemm_latency(gpu.A100, "marlin", 1, 8192, 8192, weight_bits=4, group_size=0)
    assert np.isfinite(float(marlin.seconds)) and float(marlin.tile_n) == 128


def test_low_bit_weights_help_small_m_and_never_large_m():
    """W4A16 moves a quarter of the weight bytes (GEMV faster than FP16) but converts every
    weight in every MMA group that reads it, in the MMA's instruction stream (slower than FP16
    when compute-bound)."""
    m = jnp.array([1.0, 8192.0])
    fp16 = np.asarray(gpu.gemm_latency(gpu.A100, "cublas", m, 8192, 8192).seconds)
    w4 = np.asarray(gpu.gemm_latency(gpu.A100, "dequant", m, 8192, 8192, weight_bits=4).seconds)
    assert w4[0] < 0.5 * fp16[0]
    assert w4[1] >= fp16[1] * (1 - 1e-9)


def test_jit_and_vmap_agree_with_broadcasting():
    m = jnp.array([1.0, 64.0, 4096.0])
    direct = gpu.gemm_latency(gpu.A100, "dequant", m, 8192, 8192, weight_bits=4).seconds
    mapped = jax.jit(jax.vmap(lambda x: gpu.gemm_latency(gpu.A100, "dequant", x, 8192, 8192,
                                                         weight_bits=4).seconds))(m)
    np.testing.assert_allclose(mapped, direct, rtol=1e-12)


@pytest.mark.parametrize("kernel, bits", [("cublas", 16), ("dequant", 4)])
def test_a_shape_prices_to_the_last_bit_alone_or_in_any_batch(kernel, bits):
    # gemm_latency pads a call's shapes to a power-of-two batch (one compilation for calls of
    # similar sizes): 40 shapes run in a batch of 64, one shape alone in a batch of 32
    m = np.random.default_rng(5).integers(1, 8192, 40).astype(float)
    together = gpu.gemm_latency(gpu.A100, kernel, m, 4096, 11008, weight_bits=bits).seconds
    alone = [gpu.gemm_latency(gpu.A100, kernel, x, 4096, 11008, weight_bits=bits).seconds
             for x in m[:4]]
    np.testing.assert_array_equal(together[:4], alone)


def test_dequant_beats_lut_gemm_and_lut_gemm_collapses_with_batch():
    dequant = gpu.gemm_latency(gpu.A100, "dequant", jnp.array([1.0, 4096.0]), 8192, 8192,
                               weight_bits=4).seconds
    lut = gpu.gemm_latency(gpu.A100, "lut_gemm", jnp.array([1.0, 4096.0]), 8192, 8192,
                           weight_bits=4).seconds
    assert np.all(lut > dequant)
    assert float(lut[1] / dequant[1]) > 10 * float(lut[0] / dequant[0])


@pytest.mark.parametrize("lanes,banks", [(2, 2), (3, 2), (4, 3), (5, 4), (6, 3)])
def test_bank_conflict_expectation_is_exact(lanes, banks):
    # every placement of the lanes' words on the banks, equally likely: the exact mean of the
    # largest bank load, rounded once
    loads = [max(np.bincount(p, minlength=banks)) for p in
             itertools.product(range(banks), repeat=lanes)]
    assert gpu.expected_bank_conflict(lanes, banks) == float(fractions.Fraction(sum(loads),
                                                                                len(loads)))


def test_bank_conflict_of_a_warp_matches_sampling():
    assert gpu.expected_bank_conflict(2, 2) == 1.5  # both lanes collide w.p. 1/2
    draws = np.random.default_rng(0).integers(0, 32, size=(20000, 32))
    simulated = np.mean([np.bincount(row, minlength=32).max() for row in draws])
    assert gpu.BANK_CONFLICT == pytest.approx(simulated, abs=0.03)


@pytest.mark.parametrize("call,match", [
    (lambda: gpu.gpu_spec("a200"), "unknown GPU 'a200'; allowed values: a100, rtx3090"),
    (lambda: gpu.llm_shape("gpt-5"), "unknown LLM 'gpt-5'; allowed values: opt-175b"),
    (lambda: gpu.with_lut_tensor_core(gpu.A100, 3), "lut_scale 3 unknown; allowed values"),
    (lambda: gpu.with_lut_tensor_core(gpu.A100, 2, "int4"), "LUT activation 'int4' unknown"),
    (lambda: gpu.gemm_latency(gpu.A100, "magic", 1, 8, 8), "unknown kernel 'magic'"),
    (lambda: gpu.gemm_latency(gpu.A100, "lut_tensor_core", 1, 8, 8, weight_bits=2),
     "has no LUT Tensor Core"),
    (lambda: gpu.gemm_latency(gpu.A100, "cublas", 1, 8, 8, act="fp8", weight_bits=8),
     "a100 has no fp8 tensor cores"),
    (lambda: gpu.gemm_latency(gpu.A100, "cublas", 1, 8, 8, weight_bits=4),
     "cublas needs weights in the activation format"),
    (lambda: gpu.gemm_latency(gpu.A100, "dequant", 1, 8, 8, weight_bits=4,
                              precompute="inline"), "precompute 'inline' unknown"),
    (lambda: gpu.gemm_latency(gpu.A100, "cublas", 1, 8, 8, inputs="ones"),
     "inputs 'ones' unknown; allowed values: random, integer, zeros"),
])
def test_bad_names_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_a_grid_of_tiles_pays_a_prologue_per_round_where_stream_k_fills_once():
    """8192 x 8192 x 256 on H100 (2048 output tiles of 128 x 256 over 132 SMs): without the
    persistent stream-K candidates each round of single-CTA tiles waits for its own fill and
    epilogue, so the grid-of-tiles kernel is slower by about the rounds' prologues."""
    persistent = gpu.gemm_latency(gpu.H100, "cublas", 8192, 8192, 256)
    grid_only = gpu.gemm_latency(gpu.H100, "cublas", 8192, 8192, 256, persistent=False)
    assert float(grid_only.seconds) > float(persistent.seconds)
    rounds = np.ceil(np.ceil(8192 / grid_only.tile_m) * np.ceil(8192 / grid_only.tile_n) / 132)
    assert float(grid_only.seconds) <= (float(persistent.seconds)
                                        + float(rounds) * gpu.H100.gemm_prologue * 1.01)


def test_mma_sync_tiles_and_serial_sm90_tiles_store_after_the_mainloop():
    """T5 by hand: an mma.sync tile (group 1) always, and a wgmma tile (group 4) with
    ``serial_store``, takes its output bytes out of the mainloop's L2 and DRAM traffic and
    stores them after it at the DRAM rate; a wgmma tile without it keeps them in the mainloop."""
    hw = _tiles.Hardware(**{f: np.asarray(1.0) for f in _tiles.Hardware._fields})._replace(
        l2_bandwidth=np.asarray(2.0), dram_bandwidth=np.asarray(4.0))
    c = {"group": np.array([1.0, 4.0])}
    moved = _tiles.Traffic(tiles=np.ones(2), waves=np.ones(2), l2_bytes=np.array([10.0, 10.0]),
                           dram_bytes=np.array([8.0, 8.0]), out_bytes=np.array([2.0, 2.0]))
    l2, dram, store = _tiles.epilogue_store(hw, c, moved, _tiles.Work(serial_store=True))
    np.testing.assert_allclose([l2, dram, store], [[4.0, 4.0], [1.5, 1.5], [0.5, 0.5]])
    l2, dram, store = _tiles.epilogue_store(hw, c, moved, _tiles.Work())
    np.testing.assert_allclose([l2, dram, store], [[4.0, 5.0], [1.5, 2.0], [0.5, 0.0]])


def test_a_serial_epilogue_adds_the_store_on_hopper_and_nothing_on_ampere():
    """4096 x 32768 x 512 FP8 (a 268 MB BF16-sized output): a serial store costs the busiest SM's
    MMAs plus the whole output at the GEMM DRAM rate; the A100's mma.sync tiles store so either
    way (T5), the flag changes nothing there."""
    shape = (4096, 32768, 512)
    overlapped_store = gpu.gemm_latency(gpu.H100, "cublas", *shape, act="fp8", weight_bits=8)
    serial = gpu.gemm_latency(gpu.H100, "cublas", *shape, act="fp8", weight_bits=8,
                              serial_epilogue=True)
    store = 4096 * 32768 * 2.0 / gpu.H100.gemm_dram_bandwidth
    assert float(serial.seconds) >= float(serial.compute) + store
    assert float(serial.seconds) > 1.3 * float(overlapped_store.seconds)
    ampere = [gpu.gemm_latency(gpu.A100, "cublas", *shape, serial_epilogue=flag)
              for flag in (False, True)]
    assert float(ampere[0].seconds) == float(ampere[1].seconds)
    assert float(ampere[0].seconds) >= (float(ampere[0].compute)
                                        + 4096 * 32768 * 2.0 / gpu.A100.gemm_dram_bandwidth)


def test_tile_occupancy_counts_a_hand_worked_tile():
    """W_INT1 A_INT8 on LUT arrays: tables of 2 bytes per activation (8 INT8 entries per 4),
    weights of 1/8 byte. A 128 x 512 x 32 CTA tile of 64 x 256 warp tiles: 64 x 256 x 4 B of
    accumulators over 32 threads = 512 registers, double-buffered k16 fragments
    2 x 16 x (64 x 2 + 256 / 8) B / 4 B / 32 = 40, plus 32 base = 584 per thread, 4 warps,
    above 255 (and DRM's 510): it does not fit."""
    spec = gpu.with_lut_tensor_core(gpu.A100, 1, "int8")
    for variant in (spec, gpu.with_double_registers(spec)):
        occ = gpu.tile_occupancy(variant, "lut_tensor_core", (128, 512, 32), (64, 256),
                                 act="int8", weight_bits=1)
        assert (float(occ.accumulators), float(occ.registers), float(occ.threads)) == \
            (512, 584, 128)
        assert not occ.feasible
    small = gpu.tile_occupancy(spec, "lut_tensor_core", (32, 512, 32), (8, 256), act="int8",
                               weight_bits=1)
    assert float(small.registers) == 64 + 2 * 16 * (8 * 2 + 256 / 8) / 4 / 32 + 32
    assert small.feasible and float(small.smem) == 3 * 32 * (32 * 2 + 512 / 8)  # 3 stages
    with pytest.raises(ValueError, match="whole warp tiles"):
        gpu.tile_occupancy(spec, "lut_tensor_core", (96, 512, 32), (64, 256), act="int8",
                           weight_bits=1)


@pytest.mark.parametrize("spec,kernel,act,bits", CASES[:2] + CASES[-3:])
def test_the_chosen_tile_is_what_tile_occupancy_counts(spec, kernel, act, bits):
    result = gpu.gemm_latency(spec, kernel, 2048, 8192, 4096, act=act, weight_bits=bits)
    tile = tuple(int(x) for x in (result.tile_m, result.tile_n, result.tile_k))
    warp = (int(result.warp_m), int(result.warp_n))
    assert tile[0] % warp[0] == 0 and tile[1] % warp[1] == 0
    if kernel == "lut_tensor_core":  # its own tiles: the stages tile_occupancy assumes
        occ = gpu.tile_occupancy(spec, kernel, tile, warp, act=act, weight_bits=bits)
        assert occ.feasible and float(occ.registers) == float(result.registers)


def test_dequant_group_scales_and_zero_points_are_read_with_the_weights():
    """Per weight: one 16-bit scale per group (and a zero point when asymmetric): 2/128 B for
    GPTQ-style groups of 128, 4/32 B for tinygemm's bfloat16 scale-and-zero pairs of 32 (gpt-fast
    G=32), none per output channel (group 0). A DRAM-bound GEMV pays for them: the extra time
    is at most their streaming time and most of it."""
    assert gpu.group_bytes() == 2 / 128 and gpu.group_bytes(32, True) == 4 / 32
    assert gpu.group_bytes(0, True) == 0.0
    hw = gpu.hardware(gpu.A100, "dequant", "bf16", 4, group_size=32, zero_points=True)
    assert float(hw.w_bytes) == 0.5 + 4 / 32
    assert float(gpu.hardware(gpu.A100, "cublas", "bf16", 16, group_size=32).w_bytes) == 2.0

    def gemv(**groups):
        return float(gpu.gemm_latency(gpu.A100, "dequant", 1, 16384, 16384, act="bf16",
                                      weight_bits=4, **groups).seconds)

    extra = 16384 * 16384 * (4 / 32) / gpu.A100.gemm_dram_bandwidth
    assert 0.8 * extra < gemv(group_size=32, zero_points=True) - gemv(group_size=0) <= extra
    with pytest.raises(ValueError, match="group_size"):
        gpu.group_bytes(-1)
    with pytest.raises(ValueError, match="group_size"):
        gpu.Deployment(kernel="dequant", weight_bits=4, group_size=-32)
