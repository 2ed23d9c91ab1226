"""GEMM and mpGEMM kernels on a ``GPUSpec``: what each kernel feeds the tile model
(``lutcore.gpu._tiles``), and ``gemm_latency``, the entry point.

Kernels (``KERNELS``):
- ``cublas``: W and A in one tensor-core format (fp16, bf16, int8, fp8), the cuBLAS/CUTLASS
  baseline, on the library tiles (T1 Ampere mma.sync, T2 Hopper wgmma);
- ``dequant``: ``weight_bits``-bit weights (plus one FP16 scale, and with ``zero_points`` one
  zero point, per group of ``DEQUANT_GROUP`` weights, or of ``group_size``; 0: per output channel)
  read from DRAM and converted to ``act`` in registers by every MMA group that reads them
  (CUTLASS mixed-input GEMM, Marlin), then tensor-core MMA on the same library tiles;
- ``fpa_intb``: FasterTransformer's / TensorRT-LLM's weight-only CUTLASS kernel (fpA_intB, as
  TVM builds it): INT4 / INT8 weights with one FP16 scale per output channel (or group),
  converted and scaled in registers in the main loop, on its own tiles, picked by its own
  heuristic (``_tiles`` T6; ``FPA_INTB_DEQUANT``);
- ``marlin``: Marlin (Frantar et al. 2024): INT4 weights converted in registers once per CTA
  tile, the per-channel scale applied to the outputs, on its own tiles chosen by M, one
  persistent CTA per SM (``_tiles`` T7; ``MARLIN_DEQUANT``);
- ``lut_gemm``: LUT-GEMM (Park et al. 2023): FP16 activations, per group of ``LUT_GEMM_MU``
  activations a table of 2^mu partial sums built in shared memory by every threadblock; each
  weight bit-plane byte is one random shared-memory lookup plus a CUDA-core FMA; no tensor cores;
- ``lut_tensor_core``: LMMA on the LUT arrays of a ``with_lut_tensor_core`` spec: bit-serial,
  ``weight_bits`` passes; operand A is the precomputed symmetric K = 4 tables
  (``lutcore.lut.op_counts``), written by the previous operator (``precompute="fused"``) or by
  a separate precompute kernel (``"separate"``: its roofline time is added).

Rates: tensor-core / LUT-array MACs at the spec's measured fraction of the peak for the
activation format (``GPUSpec.efficiency``), DRAM at the GEMM-kernel fraction
(``gemv_dram_efficiency``), the SM pipes at the SM clock (``sm_clock``), plus the fixed device
time of a kernel (``kernel_latency``); sources in ``_specs``.
"""

from __future__ import annotations

import fractions
import math

import jax
import numpy as np

from lutcore import _checks as check
from lutcore.lut import make_scheme, op_counts

from ._specs import INPUT_DATA, INPUT_RATE, GPUSpec, check_accumulate
from ._tiles import (
    MARLIN_ROWS_PER_LAUNCH,
    SMEM_BANKS,
    STAGES,
    GemmLatency,
    Hardware,
    Occupancy,
    Work,
    candidate_table,
    occupancy,
    tile_model,
)

KERNELS = ("cublas", "dequant", "lut_gemm", "lut_tensor_core", "fpa_intb", "marlin")
PRECOMPUTE = ("fused", "separate")
ACT_BYTES = {"fp16": 2, "bf16": 2, "int8": 1, "fp8": 1}
# Bytes per tensor-core accumulator (``ACCUMULATE``): FP32 / INT32, or FP16 (PTX mma .f16 C/D
# fragments pack two FP16 accumulators per 32-bit register).
ACCUMULATOR_BYTES = {"fp32": 4, "fp16": 2}
# Kernels whose MACs run on the MAC tensor cores, the only ones an accumulator format changes.
TENSOR_CORE_KERNELS = ("cublas", "dequant", "fpa_intb", "marlin")
# Kernels that read quantized weights with group scales (``group_bytes``).
DEQUANT_KERNELS = ("dequant", "fpa_intb", "marlin")
LUT_GROUP = 4  # activations per LUT Tensor Core table (K = 4, §4.2.1)
LUT_GEMM_MU = 8  # LUT-GEMM sub-vector length mu = 8 (Park et al. 2023, §3: 2^8-entry tables)
# Dequantization per weight element (FasterTransformer's fast INT->FP16 conversion, Kim et al.
# 2022 "Who Says Elephants Can't Run"): one LOP3 on the INT32 pipe builds a half2 (two
# elements) from the packed bits, one HFMA2 on the FP16 pipe (half2, counted as 2 lanes in
# ``fp16_lanes``) subtracts the magic number and scales both.
DEQUANT_INT_OPS, DEQUANT_FP_OPS = 0.5, 1.0
# fpA_intB per weight element, (INT32, FP16 lanes), tlc-pack/cutlass_fpA_intB_gemm@390e821
# interleaved_numeric_conversion.h and mma_tensorop_dequantizer.h: INT4 -> FP16 takes a shift
# and 4 LOP3 (INT32) and 2 HSUB2 + 2 HFMA2 (FP16, 2 lanes each) per 8 weights, INT8 -> FP16 2
# PRMT and 2 HSUB2 per 4; the scale one HMUL2 per 2 weights. A thread loads a W fragment 128 /
# bits deep in K (default_mma_tensor_op.h: 32 for INT4) and converts it at each k16 MMA step
# that reads it (dq_mma_multistage.h): INT4 weights twice.
FPA_INTB_DEQUANT = {4: (2 * 5 / 8, 2 * (8 + 8) / 8), 8: (2 / 4, (4 + 4) / 4)}
# Marlin per INT4 weight (marlin_cuda_kernel.cu ``dequant``): a shift and 4 LOP3, 2 HSUB2 + 2
# HFMA2 per 8 weights, once per CTA tile; group scales add 2 HMUL2 per 4 weights (``scale``).
MARLIN_DEQUANT, MARLIN_GROUP_SCALE = (5 / 8, 8 / 8), 4 / 4
# Group-wise quantization: one FP16 scale per 128 weights (the GPTQ / AWQ default group size);
# asymmetric schemes add a 16-bit zero point per group (e.g. tinygemm's scales_and_zeros, a
# bfloat16 pair per group: gpt-fast quantize.py, WeightOnlyInt4Linear).
DEQUANT_GROUP, SCALE_BYTES = 128, 2
# LUT-GEMM per lookup: one LDS of the table entry and one FP16 FMA (scale alpha, accumulate).
LOOKUP_FP_OPS = 1.0


def expected_bank_conflict(lanes: int = 32, banks: int = SMEM_BANKS) -> float:
    """Expected serialization of one warp-wide shared-memory load of ``lanes`` independent
    uniformly random words over ``banks`` banks: E[max bank load] (balls into bins), exact
    rational arithmetic rounded once to float."""
    # E[max] = sum_{c>=0} P(max > c); the placements with at most c balls per bank are counted
    # bank by bank in integers: ways[u] placements of u of the balls so far.
    comb = [[math.comb(n, k) for k in range(lanes + 1)] for n in range(lanes + 1)]
    expectation = fractions.Fraction(0)
    for c in range(lanes):
        ways = [1] + [0] * lanes
        for _ in range(banks):
            new = [0] * (lanes + 1)
            for used, count in enumerate(ways):
                if count:
                    for put in range(min(c, lanes - used) + 1):
                        new[used + put] += count * comb[lanes - used][put]
            ways = new
        expectation += 1 - fractions.Fraction(ways[lanes], banks ** lanes)
    return float(expectation)


BANK_CONFLICT = expected_bank_conflict()
# What each kernel feeds the tile model (``_tiles.Work``): LUT Tensor Core warps take LMMA
# m2n64k4 steps (wm >= 2, wn >= 64), elongated along N; LUT-GEMM threads own single rows.
WORK = {
    "cublas": Work(),
    "dequant": Work(dequant_ops=(DEQUANT_INT_OPS, DEQUANT_FP_OPS)),
    "lut_gemm": Work(tiles=("custom", (1, 2, 4, 8, 16, 32), (32, 64, 128, 256)),
                     lookup_mu=LUT_GEMM_MU, lookup_conflict=BANK_CONFLICT,
                     lookup_fp_ops=LOOKUP_FP_OPS),
    "lut_tensor_core": Work(tiles=("custom", (2, 4, 8, 16, 32, 64), (64, 128, 256, 512))),
    "fpa_intb": Work(tiles=("fpa_intb",), dequant_ops=FPA_INTB_DEQUANT[4],
                     selection="cutlass_heuristic"),
    "marlin": Work(tiles=("marlin",), dequant_ops=MARLIN_DEQUANT, selection="marlin",
                   ctas_per_sm=1, rows_per_launch=MARLIN_ROWS_PER_LAUNCH),
}


# The conversions of the kernels whose ``Work`` follows the weight width or the scales' groups:
# kernel -> (weight_bits, group_size) -> (INT32, FP16 lanes) per weight (``kernel_work``).
WIDTH_DEQUANT = {
    "fpa_intb": lambda bits, group: FPA_INTB_DEQUANT[bits],
    "marlin": lambda bits, group: (MARLIN_DEQUANT[0],
                                   MARLIN_DEQUANT[1] + (MARLIN_GROUP_SCALE if group else 0.0)),
}
WIDTH_DEPENDENT_KERNELS = tuple(WIDTH_DEQUANT)


def kernel_work(kernel: str, weight_bits: int, group_size: int = DEQUANT_GROUP) -> Work:
    """``WORK[kernel]`` for ``weight_bits``-bit weights in groups of ``group_size`` (0: per
    channel): fpA_intB's conversions depend on the width, Marlin's on the scales' place."""
    if kernel not in WIDTH_DEQUANT:
        return WORK[kernel]
    return WORK[kernel]._replace(dequant_ops=WIDTH_DEQUANT[kernel](weight_bits, group_size))


def candidates(kernel: str) -> dict[str, np.ndarray]:
    """The tile configurations an autotuner would try for ``kernel``: arrays tm, tn, tk,
    stages, wm, wn, warps, group, split (one entry per candidate; ``_tiles``)."""
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}; allowed values: {', '.join(KERNELS)}")
    return candidate_table(WORK[kernel].tiles)


def default_lut_bits(act: str) -> int:
    """Table entry width for ``act`` activations: 16 bits for 2-byte activations, 8 for 1-byte
    ones (INT8 table quantization, §3.1.3)."""
    return 16 if ACT_BYTES[act] == 2 else 8


def lut_table_bytes(lut_bits: int) -> float:
    """Bytes of symmetric K = 4 tables per activation (``lutcore.lut.op_counts``: 8 entries of
    ``lut_bits`` per 4 activations)."""
    counts = op_counts(1, 1, LUT_GROUP, scheme=make_scheme("symmetric", k=LUT_GROUP),
                       lut_bits=lut_bits)
    return counts.table_bits / 8 / LUT_GROUP


def lut_precompute_adds() -> float:
    """CUDA-core additions per activation to build its symmetric K = 4 tables."""
    counts = op_counts(1, 1, LUT_GROUP, scheme=make_scheme("symmetric", k=LUT_GROUP))
    return counts.precompute_adds / LUT_GROUP


def check_kernel_accumulate(kernel: str, act: str, accumulate: str):
    """ValueError unless ``accumulate`` (``ACCUMULATE``) fits ``act`` and ``kernel``: "fp16"
    needs act fp16 and a MAC tensor-core kernel (``TENSOR_CORE_KERNELS``)."""
    check_accumulate(act, accumulate)
    if accumulate != "fp32" and kernel not in TENSOR_CORE_KERNELS:
        raise ValueError(f"accumulate {accumulate!r} needs a tensor-core kernel; allowed kernels: "
                         f"{', '.join(TENSOR_CORE_KERNELS)}, got {kernel!r}")


def check_kernel(gpu: GPUSpec, kernel: str, act: str, weight_bits: int, precompute: str,
                 accumulate: str = "fp32"):
    """ValueError naming the bad argument and its allowed values (TypeError for a ``gpu`` that
    is not a ``GPUSpec``)."""
    check_gpu(gpu)
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}; allowed values: {', '.join(KERNELS)}")
    if act not in ACT_BYTES:
        raise ValueError(f"unknown activation {act!r}; allowed values: {', '.join(ACT_BYTES)}")
    if precompute not in PRECOMPUTE:
        raise ValueError(f"precompute {precompute!r} unknown; allowed values: "
                         f"{', '.join(PRECOMPUTE)}")
    if kernel == "cublas" and weight_bits != 8 * ACT_BYTES[act]:
        raise ValueError(f"cublas needs weights in the activation format ({act}: weight_bits "
                         f"{8 * ACT_BYTES[act]}), got weight_bits={weight_bits}")
    if kernel == "fpa_intb" and weight_bits not in FPA_INTB_DEQUANT:
        raise ValueError(f"fpa_intb weight_bits must be one of 4, 8, got {weight_bits}")
    if kernel == "marlin" and weight_bits != 4:
        raise ValueError(f"marlin weight_bits must be 4, got {weight_bits}")
    if kernel != "cublas" and weight_bits not in (1, 2, 3, 4, 8):
        raise ValueError(f"{kernel} weight_bits must be one of 1, 2, 3, 4, 8, got {weight_bits}")
    if kernel == "lut_gemm" and act != "fp16":
        raise ValueError(f"lut_gemm supports act 'fp16' only, got {act!r}")
    if kernel == "lut_tensor_core" and not gpu.lut_scale:
        raise ValueError(f"{gpu.name} has no LUT Tensor Core: use with_lut_tensor_core(spec)")
    check_kernel_accumulate(kernel, act, accumulate)
    if kernel in TENSOR_CORE_KERNELS:
        gpu.tensor_macs(act)  # raises if this GPU lacks the format


def check_gpu(gpu) -> GPUSpec:
    """``gpu`` is a ``GPUSpec`` (a name is not: ``gpu_spec`` resolves one)."""
    return check.instance("gpu", gpu, GPUSpec, "a GPUSpec such as lutcore.gpu.A100, or "
                          "gpu_spec(name) of a name of lutcore.gpu.GPUS")


def group_bytes(group_size: int = DEQUANT_GROUP, zero_points: bool = False) -> float:
    """DRAM bytes per weight of a dequantization kernel's group scales (and zero points):
    ``SCALE_BYTES`` each per ``group_size`` weights; 0 for ``group_size`` 0 (one scale per output
    channel: under 0.05 % of the weight bytes at K >= 4096, not counted). ValueError for a
    negative size."""
    check.integers("group_size", group_size, min=0, note=" (0: per output channel)")
    return SCALE_BYTES * (1 + bool(zero_points)) / group_size if group_size else 0.0


def hardware(gpu: GPUSpec, kernel: str, act: str, weight_bits: int,
             lut_bits: int | None = None, inputs: str = "random", *,
             group_size: int = DEQUANT_GROUP, zero_points: bool = False,
             accumulate: str = "fp32") -> Hardware:
    """The ``Hardware`` of ``kernel`` on ``gpu`` for ``act`` x ``weight_bits``-bit weights and
    ``inputs`` data (``INPUT_DATA``: the power-limited SM clock depends on it, ``INPUT_RATE``);
    a ``dequant`` kernel also reads its group scales (``group_bytes``). ``accumulate``
    (``ACCUMULATE``): the tensor-core accumulators, their rate (``GPUSpec.tensor_macs``) and
    size (``ACCUMULATOR_BYTES``); the achievable fraction is the format's either way.
    The LUT arrays are assumed to reach the fraction of their peak that the MAC tensor cores
    reach on the same activation format (same SM operand delivery and clock behaviour; no LUT
    hardware to measure)."""
    check_gpu(gpu)
    if inputs not in INPUT_DATA:
        raise ValueError(f"inputs {inputs!r} unknown; allowed values: {', '.join(INPUT_DATA)}")
    check_accumulate(act, accumulate)
    w_bytes = weight_bits / 8
    if kernel == "lut_tensor_core":
        a_bytes = lut_table_bytes(lut_bits or default_lut_bits(act))
        macs = gpu.lut_macs(weight_bits) * gpu.efficiency(act)
    elif kernel == "lut_gemm":
        a_bytes, macs = ACT_BYTES[act], 0.0
    else:
        a_bytes = ACT_BYTES[act]
        macs = gpu.tensor_macs(act, accumulate) * gpu.efficiency(act)
        if kernel in DEQUANT_KERNELS:
            w_bytes += group_bytes(group_size, zero_points)
    values = dict(
        sms=gpu.sms, clock=gpu.sm_clock * INPUT_RATE[inputs], registers=gpu.registers,
        max_registers_per_thread=gpu.max_registers_per_thread, smem=gpu.smem,
        smem_bytes_per_clock=gpu.smem_bytes_per_clock, fp16_lanes=gpu.fp16_lanes,
        int32_lanes=gpu.int32_lanes, l2=gpu.l2, l2_bandwidth=gpu.l2_bandwidth,
        dram_bandwidth=gpu.gemm_dram_bandwidth, cuda_core_flops=gpu.cuda_core_flops,
        kernel_latency=gpu.kernel_latency, tile_prologue=gpu.gemm_prologue,
        mma_warps=gpu.mma_warps,
        a_bytes=a_bytes,
        w_bytes=w_bytes, weight_bits=weight_bits, macs=macs,
        accumulator_bytes=ACCUMULATOR_BYTES[accumulate])
    return Hardware(**{name: np.asarray(v, float) for name, v in values.items()})


def precompute_seconds(gpu: GPUSpec, m, k, lut_bits: int):
    """The separate table-precompute kernel of an m x k activation: reads FP16 activations,
    writes tables (streaming DRAM rate), one add per CUDA-core lane-op; plus a kernel's fixed
    device time."""
    activations = np.asarray(m, float) * np.asarray(k, float)
    return np.maximum(activations * (2.0 + lut_table_bytes(lut_bits))
                      / gpu.achievable_dram_bandwidth,
                      activations * lut_precompute_adds() / (gpu.cuda_core_flops / 2)
                      ) + gpu.kernel_latency


def _bucketed(hw: Hardware, m, n, k, work: Work) -> GemmLatency:
    """``tile_model`` on the broadcast m, n, k flattened and padded to a power-of-two length of
    at least 32, so calls of similar sizes share one compilation per kernel (the experiments'
    calls price 1-32 shapes each: 12 compilations of the full preset's became 8; each point
    is priced alone, so padding changes no bit). Concrete inputs; traced ones go straight
    through, their shapes fixed by the caller's trace."""
    if any(isinstance(x, jax.core.Tracer) for x in (m, n, k)):
        return tile_model(hw, m, n, k, work=work)
    m, n, k = np.broadcast_arrays(*(np.asarray(x, float) for x in (m, n, k)))
    shape, size = m.shape, m.size
    bucket = max(32, 1 << (size - 1).bit_length())
    flat = [np.pad(x.reshape(-1), (0, bucket - size), constant_values=1.0) for x in (m, n, k)]
    result = tile_model(hw, *flat, work=work)
    return GemmLatency(**{name: np.asarray(x)[:size].reshape(shape)
                          for name, x in result._asdict().items()})


@check.entry
def gemm_latency(gpu: GPUSpec, kernel: str, m, n, k, *, act: str = "fp16",
                 weight_bits: int = 16, precompute: str = "fused",
                 lut_bits: int | None = None, inputs: str = "random",
                 persistent: bool = True, group_size: int = DEQUANT_GROUP,
                 zero_points: bool = False, serial_epilogue: bool = False,
                 accumulate: str = "fp32") -> GemmLatency:
    """Latency of C[m, n] = A[m, k] W[n, k]^T by ``kernel`` on ``gpu``.

    m, n, k: scalars or arrays (broadcast; jit/vmap-able). act: activation format (fp16, bf16,
    int8, fp8); weight_bits: 16/8 for cublas (= the activation format), 1-4 or 8 for the
    mixed-precision kernels; precompute: LUT Tensor Core tables ``"fused"`` into the producer
    or a ``"separate"`` kernel; lut_bits: table entry width (default ``default_lut_bits``);
    inputs: the operands' data, ``"random"`` (trained weights, activations), ``"integer"`` or
    ``"zeros"`` (synthetic benchmarks; a power-limited GPU clocks higher on them);
    persistent: persistent stream-K kernels are candidates (False: a grid of one CTA per output
    tile, each paying its own pipeline fill and epilogue); group_size, zero_points: the
    quantization groups of the ``DEQUANT_KERNELS`` (``group_bytes``); serial_epilogue: the Hopper
    (SM90) tiles store their output after their mainloop at the DRAM rate instead of under it
    (a kernel that does not overlap its epilogue, e.g. DeepGEMM's; ``_tiles`` T5);
    accumulate: the tensor-core accumulators of a ``cublas`` / ``dequant`` kernel, ``"fp32"``
    (FP32, INT32 for int8) or ``"fp16"`` (act fp16 only: cuBLAS compute type CUDA_R_16F,
    CUTLASS ``--accum=f16``; ``GPUSpec.fp16_accumulate_macs`` where that rate differs).

    A plain function: the tile model (``_tiles.tile_model``) is compiled once per kernel, and
    the spec's numbers enter as arrays (``hardware``), so GPU variants share one compilation.
    """
    check_kernel(gpu, kernel, act, weight_bits, precompute, accumulate)
    for name, size in (("m", m), ("n", n), ("k", k)):  # real: the simulator's mean sizes
        check.finite(name, size, min=1)
    if lut_bits is not None:
        check.positive_int("lut_bits", lut_bits)
    lut_bits = lut_bits or default_lut_bits(act)
    hw = hardware(gpu, kernel, act, weight_bits, lut_bits, inputs, group_size=group_size,
                  zero_points=zero_points, accumulate=accumulate)
    result = _bucketed(hw, m, n, k,
                       kernel_work(kernel, weight_bits, group_size)._replace(persistent=persistent,
                                                                 serial_store=serial_epilogue))
    if kernel != "lut_tensor_core" or precompute == "fused":
        return result
    pre = precompute_seconds(gpu, np.broadcast_to(m, np.shape(result.seconds)), k, lut_bits)
    return result._replace(seconds=result.seconds + pre, precompute=pre + 0 * result.seconds)


@check.entry
def tile_occupancy(gpu: GPUSpec, kernel: str, tile: tuple, warp: tuple, *, act: str = "fp16",
                   weight_bits: int = 16, stages: int = STAGES,
                   lut_bits: int | None = None, accumulate: str = "fp32") -> Occupancy:
    """Registers per thread (and of them accumulators), threads, shared memory per CTA, resident
    CTAs per SM and feasibility of one CTA tile ``tile`` = (tm, tn, tk) of ``kernel`` on ``gpu``,
    cut into MMA group tiles ``warp`` = (wm, wn) of one warp each, ``stages`` k-slabs deep: the
    tile model's ``occupancy`` of a tile it may not offer itself (e.g. a paper's), with
    ``accumulate`` accumulators (``gemm_latency``). Scalars."""
    check_kernel(gpu, kernel, act, weight_bits, PRECOMPUTE[0], accumulate)
    (tm, tn, tk), (wm, wn) = tile, warp
    if min(tm, tn, tk, wm, wn, stages) < 1 or tm % wm or tn % wn:
        raise ValueError(f"tile {tile} must be positive and cut into whole warp tiles {warp}")
    candidate = {"tm": tm, "tn": tn, "tk": tk, "stages": stages, "wm": wm, "wn": wn,
                 "warps": (tm // wm) * (tn // wn), "group": 0}  # group 0: any architecture
    hw = hardware(gpu, kernel, act, weight_bits, lut_bits or default_lut_bits(act),
                  accumulate=accumulate)
    occ = occupancy(hw, {name: np.array([value], float) for name, value in candidate.items()},
                    WORK[kernel])
    return Occupancy(**{name: np.asarray(value)[0] for name, value in occ._asdict().items()})


@check.entry
def peak_ops(gpu: GPUSpec, kernel: str, *, act: str = "fp16", weight_bits: int = 16) -> float:
    """Datasheet peak ops per second (2 per MAC) of the unit ``kernel`` multiplies on: the
    tensor cores of ``act``, the LUT arrays for ``weight_bits``, or the FP16 CUDA cores
    (``lut_gemm``); no efficiency factor."""
    check_gpu(gpu)
    if kernel == "lut_tensor_core":
        return gpu.lut_peak(weight_bits)
    if kernel == "lut_gemm":
        return 2.0 * gpu.fp16_lanes * gpu.sms * gpu.clock
    return gpu.tensor_peak(act)


def is_lut_kernel(kernel: str) -> bool:
    """True for kernels whose operand A is a precomputed table (the LUT Tensor Core)."""
    return kernel == "lut_tensor_core"
