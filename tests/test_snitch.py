"""lutcore.snitch: the cycle model against hand counts, the functional kernels against an exact
rational oracle applied in the kernels' order, scratchpad fit and FLOP counts."""

import numpy as np
import pytest

import lutcore.numerics as nm
import lutcore.snitch as snitch

import fp_oracle as ref


def test_fp64_one_block_hand_count():
    """One row per core, one block of 8 outputs, K = 8 (FP64 FMA), counted by hand:
    56 integer setup instructions (call 8, SSR parameters 6, 3-D loop 15, repeat 2, 4-D loop 21,
    2 pointers, enable at cycle 54, n_frep) take cycles 0-55; the FP zero move is pushed at 56
    and issues at 57. Row: 5 integer (57-61). Block: lw 62, beqz waits for the load until 64,
    4 integer 65-68, 8 fmv.d pushed 69-76 and issued 70-77, frep.o 77, body pushed 78-85,
    first body issue 79 (offload register), 64 body issues 79-142 (no stall: 8 accumulators,
    latency 4), 8 fsd issue 143-150, the last store written at 152."""
    p = snitch.kernel_profile("fp64_fma", 8, 8, 8)
    assert p.cycles == 152
    assert p.compute_cycles == 64 and p.overhead_cycles == 88
    per_core = {"addmul": 64, "sdotp": 0, "cast": 0, "comp": 9, "int": 56 + 5 + 6, "mem": 9}
    assert p.issued == {c: 8 * v for c, v in per_core.items()}
    assert p.flop == 2 * 8 * 8 * 8
    assert p.ssr_words == 8 * (64 + 64 // 8)   # B every instruction, A every 8 (repeat)


@pytest.mark.parametrize("kernel", snitch.KERNELS)
def test_one_more_k_word_costs_one_cycle_per_accumulator(kernel):
    """Steady state: 8 independent accumulators hide the 4-cycle latency, so each extra
    64-bit K word adds exactly 8 issue cycles per block; with a 9-cycle latency each FREP
    iteration stalls once more (9 cycles)."""
    w = snitch.kernel_spec(kernel).values_per_word
    body = snitch.kernel_spec(kernel).body_class
    cycles = lambda k, **c: snitch.kernel_profile(
        kernel, 8, 16, k, cluster=snitch.Cluster(**c)).cycles
    assert cycles(6 * w) - cycles(5 * w) == 2 * 8
    slow = {f"regs_{body}": 8}
    assert cycles(6 * w, **slow) - cycles(5 * w, **slow) == 2 * 9


@pytest.mark.parametrize("kernel", snitch.KERNELS)
def test_flop_and_body_instruction_counts(kernel):
    spec = snitch.kernel_spec(kernel)
    m, n, k = 16, 24, 8 * spec.values_per_word
    p = snitch.kernel_profile(kernel, m, n, k)
    assert p.flop == 2 * m * n * k
    body = m * n * k // (spec.lanes * spec.products_per_lane)   # per-lane steps
    # ExSdotp kernels also run their Vsum/ExVsum reductions on the SDOTP unit
    reductions = m * n * len(spec.reduce) if spec.body_class == "sdotp" else 0
    assert p.issued[spec.body_class] == body + reductions
    assert body * spec.flop_per_body == p.flop
    assert p.compute_cycles * snitch.SNITCH_CLUSTER.cores == body


def test_peaks_per_core_are_the_papers():
    assert snitch.kernel_spec("fp16_fp32_exsdotp").flop_per_body == 8
    assert snitch.kernel_spec("fp8_fp16_exsdotp").flop_per_body == 16
    assert snitch.kernel_spec("fp64_fma").flop_per_body == 2


def test_exsdotp_tail_is_shorter_than_fp16_fma():
    """Same FREP body length; the ExSdotp kernel reduces 2 lanes (1 stage) instead of 4 (2
    stages: 16 more FP instructions per block)."""
    fma = snitch.kernel_profile("fp16_simd_fma", 8, 8, 64)
    ex = snitch.kernel_profile("fp16_fp32_exsdotp", 8, 8, 64)
    assert fma.compute_cycles == ex.compute_cycles
    fp = lambda p: sum(p.issued[c] for c in snitch.FPU_CLASSES)
    assert fp(fma) - fp(ex) == 8 * 16
    assert ex.cycles < fma.cycles


def test_footprint_and_fit_limits():
    assert snitch.footprint_bytes("fp64_fma", 64, 64, 64) == 3 * 64 * 64 * 8
    assert snitch.kernel_profile("fp64_fma", 64, 64, 64).fits
    assert not snitch.kernel_profile("fp64_fma", 64, 64, 128).fits      # 160 KiB
    assert snitch.kernel_profile("fp16_simd_fma", 128, 128, 128).fits   # 96 KiB
    assert not snitch.kernel_profile("fp16_fp32_exsdotp", 128, 128, 256).fits
    assert snitch.kernel_profile("fp8_fp16_exsdotp", 128, 128, 256).footprint_bytes == 80 * 1024


def test_bad_kernel_and_shapes_name_what_is_allowed():
    with pytest.raises(ValueError, match="allowed values: fp64_fma, fp32_simd_fma"):
        snitch.kernel_profile("fp4_fma", 8, 8, 8)
    with pytest.raises(ValueError, match="multiple of the 8 cores"):
        snitch.kernel_profile("fp64_fma", 12, 8, 8)
    with pytest.raises(ValueError, match="unroll factor 8"):
        snitch.kernel_profile("fp64_fma", 8, 12, 8)
    with pytest.raises(ValueError, match="multiple of 8 values per 64-bit word"):
        snitch.kernel_profile("fp8_fp16_exsdotp", 8, 8, 12)
    with pytest.raises(ValueError, match="m: 0 is not allowed; allowed values: integers >= 1"):
        snitch.kernel_profile("fp64_fma", 0, 8, 8)


# --------------------------------------------------------------------------------------------
# Functional kernels vs the exact rational oracle, in the kernels' order

def _oracle_gemm(kernel, a, bt, mode):
    """Per output: lanes accumulated in K order (FMA: element i; ExSdotp: elements 2i, 2i+1
    of each word), the lane-reduction stages into +0, the pack into the input format."""
    spec = snitch.kernel_spec(kernel)
    f = nm.FORMATS
    w, lanes = spec.values_per_word, spec.lanes
    stages = {"vfsumex.h.b": ("fp8", "fp16"), "vfsumex.s.h": ("fp16", "fp32"),
              "vfsum.s": ("fp32", "fp32")}
    out = np.zeros((a.shape[0], bt.shape[0]), np.int64)
    for m in range(a.shape[0]):
        for n in range(bt.shape[0]):
            acc = [0] * lanes
            for j in range(a.shape[1] // w):
                x, y = [int(v) for v in a[m, j * w:(j + 1) * w]], [int(v) for v in
                                                                    bt[n, j * w:(j + 1) * w]]
                for i in range(lanes):
                    if spec.products_per_lane == 2:
                        acc[i] = ref.exsdotp(x[2 * i], y[2 * i], x[2 * i + 1], y[2 * i + 1],
                                             acc[i], f[spec.src], f[spec.acc], mode)
                    else:
                        acc[i] = ref.exfma(x[i], y[i], acc[i], f[spec.src], f[spec.acc], mode)
            fmt = spec.acc
            for op in spec.reduce:
                src, fmt = stages[op]
                acc = [ref.vsum(acc[2 * i], acc[2 * i + 1], 0, f[src], f[fmt], mode)
                       for i in range(len(acc) // 2)]
            out[m, n] = ref.fused_sum([ref.value(acc[0], f[fmt])], f[spec.src], mode)
    return out


@pytest.mark.parametrize("kernel,mode", [("fp8_fp16_exsdotp", "rne"),
                                         ("fp8_fp16_exsdotp", "rtz"),
                                         ("fp16_fp32_exsdotp", "rne"),
                                         ("fp16_simd_fma", "rup"),
                                         ("fp8_simd_fma", "rne"),
                                         ("fp32_simd_fma", "rne"),
                                         ("fp32_simd_fma", "rdn")])
def test_functional_kernel_equals_exact_reduction_in_order(kernel, mode):
    spec = snitch.kernel_spec(kernel)
    rng = np.random.default_rng(7)
    k = 2 * spec.values_per_word * (2 if spec.src == "fp32" else 1)
    a, bt = (nm.from_float64(rng.standard_normal((8, k)) * 4, spec.src) for _ in range(2))
    got = snitch.run_gemm(kernel, a, bt, rounding=mode)
    want = _oracle_gemm(kernel, np.asarray(a), np.asarray(bt), mode)
    np.testing.assert_array_equal(np.asarray(got.c_bits).astype(np.int64), want)


def test_fp64_kernel_and_errors():
    rng = np.random.default_rng(1)
    a, bt = rng.standard_normal((8, 16)), rng.standard_normal((8, 16))
    got = snitch.run_gemm("fp64_fma", a, bt)
    np.testing.assert_allclose(got.c, a @ bt.T, rtol=1e-13)
    # fmadd.d rounds the product, then the sum, in K order, on every machine (XLA would fuse
    # them into one FMA where the CPU has one); numpy never fuses
    acc = np.zeros((8, 8))
    for x, y in zip(a.T, bt.T):
        acc = acc + x[:, None] * y[None, :]
    np.testing.assert_array_equal(np.asarray(got.c), acc)
    with pytest.raises(ValueError, match="allowed: rne"):
        snitch.run_gemm("fp64_fma", a, bt, rounding="rtz")
    with pytest.raises(ValueError, match="bt_bits"):
        snitch.run_gemm("fp8_fp16_exsdotp", np.zeros((8, 8), np.uint8), np.zeros((8, 16),
                                                                                np.uint8))
