"""GEMM and mpGEMM kernels on a ``GPUSpec``: the ``Hardware`` each kernel feeds the tile model
(``lutcore.gpu._tiles``), the steps before it (activation quantization, table precompute), and
``gemm_latency``, the entry point. Each kernel is a ``Kernel`` record of ``_library`` (with its
structure, constants and sources); the weights a ``Quant``, the run a ``Setup``.

Kernels (``KERNELS``):
- ``cublas``: W and A in one tensor-core format (fp16, bf16, int8, fp8), the cuBLAS/CUTLASS
  baseline, on the library tiles (T1 Ampere mma.sync, T2 Hopper wgmma);
- ``cublas_quantize``: ``cublas`` after quantizing its BF16 activations to ``act`` (fp8, int8)
  with one dynamic per-tensor scale, as TensorRT-LLM's FP8 ``Linear`` without an input scale
  does (NVIDIA/TensorRT-LLM cpp/tensorrt_llm/common/cudaFp8Utils.cu,
  ``invokeComputeScalesAndQuantizeMatrix``, PER_TENSOR: a scale memset, an absolute-max kernel
  reading the activations, a quantize kernel reading them again and writing 8-bit ones, then
  the Linear's cast of the BF16 scale to FP32; ``QUANTIZE_STEP``), four device operations
  before the GEMM;
- ``trtllm_smoothquant``: TensorRT-LLM's SmoothQuant INT8 x INT8 GEMM plugin: its CUTLASS sm80
  tactics, the fastest as its profiler picks (``_tiles`` T9);
- ``trtllm_gemm``: ``cublas`` at TensorRT-LLM's own measured rates (its engines' GEMMs with
  static scales; ``GPUSpec.library_efficiency``);
- ``dequant``: ``weight_bits``-bit weights (plus one FP16 scale, and with ``zero_points`` one
  zero point, per group of ``DEQUANT_GROUP`` weights, or of ``group_size``; 0: per output channel)
  read from DRAM and converted to ``act`` in registers by every MMA group that reads them
  (CUTLASS mixed-input GEMM, Marlin), then tensor-core MMA on the same library tiles;
- ``fpa_intb``: FasterTransformer's / TensorRT-LLM's weight-only CUTLASS kernel (fpA_intB, as
  TVM builds it): INT4 / INT8 weights with one FP16 scale per output channel (or group),
  converted and scaled in registers in the main loop, on its own tiles, picked by its own
  heuristic (``_tiles`` T6; ``_library.FPA_INTB_DEQUANT``);
- ``trtllm_weight_only``: TensorRT-LLM's weight-only plugin: the same fpA_intB conversions on
  its own sm80 tactics (five tiles, 2-4 stages, serial split-K 1-7), on Hopper its sm90 wgmma
  tactics (each weight converted once, stream-K for 128 weight rows; ``_tiles`` T8, T12), the
  fastest of them as its build-time profiler picks, its GEMV one more tactic below M = 16;
- ``marlin``: Marlin (Frantar et al. 2024): INT4 weights converted in registers once per CTA
  tile, the per-channel scale applied to the outputs, on its own tiles chosen by M, one
  persistent CTA per SM (``_tiles`` T7; ``_library.MARLIN_DEQUANT``);
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

import jax
import jax.numpy as jnp
import numpy as np

from lutcore import _checks as check
from lutcore.lut import make_scheme, op_counts

from ._library import (
    DEQUANT_GROUP,
    LUT_GROUP,
    OUTPUT_BYTES,
    QUANTIZE_ROUND,
    QUANTIZE_STEP,
    TENSOR_CORE_KERNELS,
    TIMING_OVERHEAD,
    Kernel,
    Quant,
    Setup,
    kernel_record,
    records,
)
from ._specs import (
    ACCUMULATE,
    GPU_FORMATS,
    INPUT_RATE,
    TENSOR_DTYPES,
    GPUSpec,
    check_accumulate,
)
from ._ties import TIE_SIDES
from ._tile_tables import STAGES, candidate_table
from ._tiles import (
    MAX_THREADS_PER_SM,
    GemmLatency,
    Hardware,
    Occupancy,
    Work,
    occupancy,
    tile_model,
    traffic,
)

# TF32 is a tensor-core mode of FP32 words (19 of their bits read), not a storage format
ACT_BYTES = {d: GPU_FORMATS[d].nbytes for d in TENSOR_DTYPES if d != "tf32"}
# Bytes per tensor-core accumulator (``ACCUMULATE``): FP32 (INT32 for integer MMAs, as wide), or
# FP16 (PTX mma .f16 C/D fragments pack two FP16 accumulators per 32-bit register).
ACCUMULATOR_BYTES = {a: GPU_FORMATS[a].nbytes for a in ACCUMULATE}


def kernel_work(kernel, weight_bits: int, group_size: int = DEQUANT_GROUP) -> Work:
    """The tile model's ``Work`` of ``kernel`` for ``weight_bits``-bit weights in groups of
    ``group_size`` (0: per channel; ``Kernel.work_for``)."""
    return kernel_record(kernel).work_for(Quant(weight_bits=weight_bits, group_size=group_size))


def candidates(kernel: str) -> dict[str, np.ndarray]:
    """The tile configurations an autotuner would try for ``kernel``: arrays tm, tn, tk,
    stages, wm, wn, warps, group, split (one entry per candidate; ``_tiles``)."""
    return candidate_table(kernel_record(kernel).work.tiles)


def default_lut_bits(act: str) -> int:
    """Table entry width for ``act`` activations: 16 bits for 2-byte activations, 8 for 1-byte
    ones (INT8 table quantization, §3.1.3)."""
    return 16 if ACT_BYTES[act] == 2 else 8


def lut_table_bytes(lut_bits: int, scheme: str = "symmetric") -> float:
    """Bytes of K = 4 tables per activation (``lutcore.lut.op_counts``): ``"symmetric"`` 8 entries
    of ``lut_bits`` per 4 activations, ``"bitserial"`` the 16 of an unhalved 1-bit table."""
    counts = op_counts(1, 1, LUT_GROUP, scheme=make_scheme(scheme, k=LUT_GROUP),
                       lut_bits=lut_bits)
    return counts.table_bits / 8 / LUT_GROUP


def lut_precompute_adds() -> float:
    """CUDA-core additions per activation to build its symmetric K = 4 tables."""
    counts = op_counts(1, 1, LUT_GROUP, scheme=make_scheme("symmetric", k=LUT_GROUP))
    return counts.precompute_adds / LUT_GROUP


def check_kernel_accumulate(kernel, act: str, accumulate: str):
    """ValueError unless ``accumulate`` (``ACCUMULATE``) fits ``act`` and ``kernel``: "fp16"
    needs act fp16 and a MAC tensor-core kernel (``TENSOR_CORE_KERNELS``)."""
    check_accumulate(act, accumulate)
    record = kernel_record(kernel)
    if accumulate != "fp32" and record.unit != "tensor_core":
        raise ValueError(f"accumulate {accumulate!r} needs a tensor-core kernel; allowed kernels: "
                         f"{', '.join(TENSOR_CORE_KERNELS)}, got {record.name!r}")


def check_kernel(gpu: GPUSpec, kernel, act: str, weight_bits: int, precompute: str,
                 accumulate: str = "fp32"):
    """ValueError naming the bad argument and its allowed values (the checks of ``checked``
    on loose arguments)."""
    checked(gpu, kernel, act, Quant(weight_bits=weight_bits),
            Setup(precompute=precompute, accumulate=accumulate))


def checked(gpu: GPUSpec, kernel, act: str, quant: Quant, setup: Setup) -> Kernel:
    """The ``Kernel`` record of ``kernel`` after checking that ``gpu`` runs it on ``act`` and
    ``quant`` weights with ``setup`` (``Kernel.check``; ValueError naming the argument)."""
    check_gpu(gpu)
    record = kernel_record(kernel)
    if act not in ACT_BYTES:
        raise ValueError(f"unknown activation {act!r}; allowed values: {', '.join(ACT_BYTES)}")
    record.check(act, quant)
    if record.unit == "lut_array" and not gpu.lut_scale:
        raise ValueError(f"{gpu.name} has no LUT Tensor Core: use with_lut_tensor_core(spec)")
    check_kernel_accumulate(record, act, setup.accumulate)
    if record.unit == "tensor_core":
        gpu.tensor_macs(act)  # raises if this GPU lacks the format
    return record


def check_gpu(gpu) -> GPUSpec:
    """``gpu`` is a ``GPUSpec`` (a name is not: ``gpu_spec`` resolves one)."""
    return check.instance("gpu", gpu, GPUSpec, "a GPUSpec such as lutcore.gpu.A100, or "
                          "gpu_spec(name) of a name of lutcore.gpu.GPUS")


def group_bytes(group_size: int = DEQUANT_GROUP, zero_points: bool = False) -> float:
    """DRAM bytes per weight of a dequantization kernel's group scales (``Quant.scale_bytes``)."""
    return Quant(group_size=group_size, zero_points=zero_points).scale_bytes


def hardware(gpu: GPUSpec, kernel, act: str, quant: Quant | int | None = None, *,
             setup: Setup | None = None, **keywords) -> Hardware:
    """The ``Hardware`` of ``kernel`` on ``gpu`` for ``act`` activations and ``quant`` weights
    (a ``Quant``, or the weight width as before; ``gemm_latency``'s loose keywords work too)
    under ``setup``: its ``inputs`` set the power-limited SM clock (``INPUT_RATE``), its
    ``accumulate`` the tensor-core accumulators' rate (``GPUSpec.tensor_macs``) and size
    (``ACCUMULATOR_BYTES``; the achievable fraction is the format's either way), its ``output``
    and ``reads_c`` the bytes per output written and read (``OUTPUT_BYTES``); a kernel reading
    quantized weights also reads their group scales (``Quant.scale_bytes``). The LUT arrays are
    assumed to reach the fraction of their peak that the MAC tensor cores reach on the same
    activation format (same SM operand delivery and clock behaviour; no LUT hardware to
    measure)."""
    check_gpu(gpu)
    if isinstance(quant, int):
        keywords["weight_bits"] = quant
        quant = None
    quant, setup = records(quant, setup, keywords)
    check_accumulate(act, setup.accumulate)
    record = kernel_record(kernel)
    w_bytes = quant.weight_bits / 8
    if record.tables:
        a_bytes = lut_table_bytes(quant.table_bits or default_lut_bits(act))
        macs = gpu.lut_macs(quant.weight_bits) * gpu.efficiency(act)
    elif record.unit == "cuda_core":
        a_bytes, macs = ACT_BYTES[act], 0.0
    else:
        a_bytes = ACT_BYTES[act]
        rate = gpu.sync_efficiency if record.mma_sync else gpu.efficiency
        macs = gpu.tensor_macs(act, setup.accumulate) * rate(act, record.rates)
        if record.weights == "quantized":
            w_bytes += quant.scale_bytes
    values = dict(
        sms=gpu.sms, clock=gpu.sm_clock * INPUT_RATE[setup.inputs], boost_clock=gpu.boost_clock,
        registers=gpu.registers,
        max_registers_per_thread=gpu.max_registers_per_thread, smem=gpu.smem,
        smem_bytes_per_clock=gpu.smem_bytes_per_clock, fp16_lanes=gpu.fp16_lanes,
        int32_lanes=gpu.int32_lanes, l2=gpu.l2, l2_bandwidth=gpu.l2_bandwidth,
        dram_bandwidth=gpu.gemm_dram_bandwidth, cuda_core_flops=gpu.cuda_core_flops,
        kernel_latency=gpu.kernel_latency, tile_prologue=gpu.gemm_prologue,
        dram_latency=gpu.dram_latency, wgmma_latency=gpu.wgmma_latency,
        wgmma_chain=gpu.wgmma_chain,
        smem_latency=gpu.smem_latency,
        mma_warps=gpu.mma_warps,
        a_bytes=a_bytes,
        w_bytes=w_bytes, weight_bits=quant.weight_bits, macs=macs,
        accumulator_bytes=ACCUMULATOR_BYTES[setup.accumulate],
        out_bytes=OUTPUT_BYTES[setup.output], c_bytes=OUTPUT_BYTES[setup.output] * setup.reads_c)
    return Hardware(**{name: np.asarray(v, float) for name, v in values.items()})


def memory_seconds(dram_bytes, cuda_flops, launches, *, dram_bandwidth, cuda_core_flops,
                   kernel_latency, floor=0.0):
    """Seconds of a memory-bound kernel (or ``launches`` of them): the longest of its DRAM
    bytes at ``dram_bandwidth``, its CUDA-core FLOPs at ``cuda_core_flops`` and ``floor`` (a row
    kernel's round trips), plus a kernel's fixed device time per launch. The one roofline of
    the table precompute, the activation quantize step and the simulator's memory operators
    (``_simulator.price``); jit-able."""
    return (jnp.maximum(jnp.maximum(dram_bytes / dram_bandwidth, cuda_flops / cuda_core_flops),
                        floor) + launches * kernel_latency)


# The precompute's additions, as FLOPs of ``cuda_core_flops`` (which counts an FMA as 2): an
# add takes a lane's issue slot as an FMA does, so it costs 2 of those FLOPs.
ADD_FLOPS = 2.0


def precompute_work(rows, width, lut_bits: int, separate: bool) -> tuple:
    """(DRAM bytes, CUDA-core FLOPs, launches) of the table precompute of rows x width FP16
    activations: a kernel of its own (``separate``: reads the activations, writes the tables)
    or the producer writing the tables instead of its FP16 output (launches 0)."""
    activations = rows * width
    tables = lut_table_bytes(lut_bits)
    dram = activations * (2.0 + tables if separate else tables - 2.0)
    return dram, activations * lut_precompute_adds() * ADD_FLOPS, 1.0 * separate


def _gpu_memory(gpu: GPUSpec) -> dict:
    return dict(dram_bandwidth=gpu.achievable_dram_bandwidth,
                cuda_core_flops=gpu.vector_flops, kernel_latency=gpu.kernel_latency)


def precompute_seconds(gpu: GPUSpec, m, k, lut_bits: int):
    """The separate table-precompute kernel of an m x k activation (``precompute_work``)."""
    m, k = np.asarray(m, float), np.asarray(k, float)
    return np.asarray(memory_seconds(*precompute_work(m, k, lut_bits, True), **_gpu_memory(gpu)))


def quantize_seconds(gpu: GPUSpec, m, k):
    """The dynamic per-tensor activation quantization of an m x k activation before a
    ``cublas_quantize`` GEMM (``QUANTIZE_STEP``; no CUDA-core bound: a compare or a multiply
    per element): each pass is a memory-bound kernel whose floor is its threads' dependent
    loads (``scalar_loads``: a thread issues its next load only after the last one returns,
    as a scalar row kernel does, ``GPUSpec.dram_latency``); the other operations are
    kernels of no work; plus the absolute-max blocks' rounds (``QUANTIZE_ROUND``)."""
    activations = np.asarray(m, float) * np.asarray(k, float)
    passes = QUANTIZE_STEP["passes"]
    seconds = sum(memory_seconds(activations * moved, 0.0, 1.0,
                                 floor=scalar_loads(gpu, activations, blocks, threads)
                                 * gpu.dram_latency, **_gpu_memory(gpu))
                  for moved, blocks, threads in passes)
    seconds += (QUANTIZE_STEP["operations"] - len(passes)) * gpu.kernel_latency
    return np.asarray(seconds + scale_rounds(gpu) * QUANTIZE_ROUND)


def _rounds(gpu: GPUSpec, blocks: int, threads: int) -> int:
    """Rounds of resident blocks of a grid of ``blocks`` x ``threads`` (2048 threads per SM)."""
    return -(-blocks // (gpu.sms * (MAX_THREADS_PER_SM // threads)))


def scalar_loads(gpu: GPUSpec, elements, blocks: int, threads: int):
    """Dependent loads the busiest thread of a grid-stride loop over ``elements`` waits for,
    one element an iteration: its rounds of resident blocks x its iterations."""
    return _rounds(gpu, blocks, threads) * np.ceil(elements / (blocks * threads))


def scale_rounds(gpu: GPUSpec) -> int:
    """Rounds of resident blocks of the quantize step's absolute-max grid on ``gpu``
    (``QUANTIZE_STEP``: 1024 blocks of 1024 threads, 2048 threads per SM)."""
    _, blocks, threads = QUANTIZE_STEP["passes"][0]
    return _rounds(gpu, blocks, threads)


def _bucketed(hw: Hardware, m, n, k, work: Work, tie=None) -> GemmLatency:
    """``tile_model`` on the broadcast m, n, k flattened and padded to a power-of-two length of
    at least 32, so calls of similar sizes share one compilation per kernel (the experiments'
    calls price 1-32 shapes each: 12 compilations of the full preset's became 8; each point
    is priced alone, so padding changes no bit). Concrete inputs; traced ones go straight
    through, their shapes fixed by the caller's trace."""
    if any(isinstance(x, jax.core.Tracer) for x in (m, n, k)):
        return tile_model(hw, m, n, k, work=work, tie=tie)
    m, n, k = np.broadcast_arrays(*(np.asarray(x, float) for x in (m, n, k)))
    shape, size = m.shape, m.size
    bucket = max(32, 1 << (size - 1).bit_length())
    flat = [np.pad(x.reshape(-1), (0, bucket - size), constant_values=1.0) for x in (m, n, k)]
    result = tile_model(hw, *flat, work=work, tie=tie)
    return GemmLatency(**{name: np.asarray(x)[:size].reshape(shape)
                          for name, x in result._asdict().items()})


@check.entry
def gemm_latency(gpu: GPUSpec, kernel, m, n, k, *, act: str = "fp16",
                 quant: Quant | None = None, setup: Setup | None = None,
                 tie_margin: float | None = None, tie_side: int = 1,
                 **keywords) -> GemmLatency:
    """Latency of C[m, n] = A[m, k] W[n, k]^T by ``kernel`` (a name of ``KERNELS`` or a
    ``Kernel``) on ``gpu``.

    m, n, k: scalars or arrays (broadcast; jit/vmap-able). act: activation format (fp16, bf16,
    int8, fp8); quant: the weights (``Quant``: weight_bits 16/8 for a dense kernel, = the
    activation format; 1-4 or 8 for the mixed-precision kernels; group scales; table width);
    setup: how it runs (``Setup``: the operands' data, persistent stream-K candidates, a serial
    SM90 epilogue, the accumulators, the LUT table precompute fused or separate, the timing
    method's own fixed cost, the output's format and whether C is read). The loose keywords of
    earlier versions (weight_bits, group_size, zero_points, lut_bits, precompute, inputs,
    persistent, serial_epilogue, accumulate; and timing, output, reads_c) fill the records
    (``records``). tie_margin, tie_side: a what-if for reporting near-ties (``lut-fig16``),
    never the model's value: where a kernel's tactic is timed (its library's autotuner, a
    plugin's profile, a TensorRT engine's build), of the tactics slower than the fastest by
    less than the fraction ``tie_margin`` at the M where they are timed, the slowest
    (``tie_side`` 1) or the fastest (-1) at m runs (``_ties.timed_choice``; None: the model's
    choice, compiled without the what-if; 0: the same values, compiled with it).

    Before the GEMM, a ``cublas_quantize`` kernel's activation quantization
    (``quantize_seconds``) or a separate table precompute (``precompute_seconds``) is added.
    A plain function: the tile model (``_tiles.tile_model``) is compiled once per kernel, and
    the spec's numbers enter as arrays (``hardware``), so GPU variants share one compilation.
    """
    quant, setup = records(quant, setup, keywords)
    record = checked(gpu, kernel, act, quant, setup)
    for name, size in (("m", m), ("n", n), ("k", k)):  # real: the simulator's mean sizes
        check.finite(name, size, min=1)
    if tie_margin is not None:
        check.finite("tie_margin", tie_margin, min=0.0, max=1.0)
    check.one_of("tie_side", tie_side, TIE_SIDES)
    hw = hardware(gpu, record, act, quant, setup=setup)
    work = record.work_for(quant)._replace(persistent=setup.persistent,
                                           serial_store=setup.serial_epilogue)
    result = _bucketed(hw, m, n, k, work, None if tie_margin is None else (tie_margin, tie_side))
    if setup.timing != "events":
        result = result._replace(seconds=result.seconds + TIMING_OVERHEAD[setup.timing])
    if record.pre == "quantize":
        rows = np.broadcast_to(m, np.shape(result.seconds))
        return result._replace(seconds=result.seconds + quantize_seconds(gpu, rows, k))
    if not record.tables or setup.precompute == "fused":
        return result
    rows = np.broadcast_to(m, np.shape(result.seconds))
    pre = precompute_seconds(gpu, rows, k, quant.table_bits or default_lut_bits(act))
    return result._replace(seconds=result.seconds + pre, precompute=pre + 0 * result.seconds)


@check.entry
def tile_occupancy(gpu: GPUSpec, kernel, tile: tuple, warp: tuple, *, act: str = "fp16",
                   quant: Quant | None = None, setup: Setup | None = None,
                   stages: int = STAGES, **keywords) -> Occupancy:
    """Registers per thread (and of them accumulators), threads, shared memory per CTA, resident
    CTAs per SM and feasibility of one CTA tile ``tile`` = (tm, tn, tk) of ``kernel`` on ``gpu``,
    cut into MMA group tiles ``warp`` = (wm, wn) of one warp each, ``stages`` k-slabs deep: the
    tile model's ``occupancy`` of a tile it may not offer itself (e.g. a paper's), for ``act``,
    ``quant`` and ``setup`` as ``gemm_latency`` takes them. Scalars."""
    quant, setup = records(quant, setup, keywords)
    record = checked(gpu, kernel, act, quant, setup)
    (tm, tn, tk), (wm, wn) = tile, warp
    if min(tm, tn, tk, wm, wn, stages) < 1 or tm % wm or tn % wn:
        raise ValueError(f"tile {tile} must be positive and cut into whole warp tiles {warp}")
    candidate = {"tm": tm, "tn": tn, "tk": tk, "stages": stages, "wm": wm, "wn": wn,
                 "warps": (tm // wm) * (tn // wn), "group": 0}  # group 0: any architecture
    hw = hardware(gpu, record, act, quant, setup=setup)
    occ = occupancy(hw, {name: np.array([value], float) for name, value in candidate.items()},
                    record.work)
    return Occupancy(**{name: np.asarray(value)[0] for name, value in occ._asdict().items()})


@check.entry
def dram_traffic(gpu: GPUSpec, kernel: str, m, n, k, tile: tuple, warp: tuple, *,
                 act: str = "fp16", weight_bits: int = 16, lut_bits: int | None = None,
                 table: str = "symmetric", l2_reuse: bool = True) -> float:
    """DRAM bytes of C[m, n] = A[m, k] W[n, k]^T by ``kernel`` on CTA tile ``tile`` = (tm, tn, tk)
    cut into warp tiles ``warp`` (the tile model's ``traffic``: one launch, no split-K).
    ``table``: a ``lut_tensor_core`` kernel's operand A, ``"symmetric"`` or ``"bitserial"``
    tables (``lut_table_bytes``); ``l2_reuse`` False: thread blocks share no operand panel
    through L2 (no swizzled rasterization), so every tile's reads reach DRAM (the L2 bytes)."""
    quant = Quant(weight_bits=weight_bits, table_bits=lut_bits)
    record = checked(gpu, kernel, act, quant, Setup())
    for name, size in (("m", m), ("n", n), ("k", k)):
        check.finite(name, size, min=1)
    hw = hardware(gpu, record, act, quant)
    if record.tables:
        hw = hw._replace(a_bytes=np.asarray(
            lut_table_bytes(lut_bits or default_lut_bits(act), table), float))
    (tm, tn, tk), (wm, wn) = tile, warp
    c = {name: np.array([value], float) for name, value in dict(
        tm=tm, tn=tn, tk=tk, stages=STAGES, wm=wm, wn=wn, warps=(tm // wm) * (tn // wn),
        group=0, split=1, streamk=0, cuda_core=0).items()}
    moved = traffic(hw, c, float(m), float(n), float(k), occupancy(hw, c, record.work))
    return float(np.asarray(moved.dram_bytes if l2_reuse else moved.l2_bytes)[0])


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


def is_lut_kernel(kernel) -> bool:
    """True for kernels whose operand A is a precomputed table (the LUT Tensor Core)."""
    return kernel_record(kernel).tables
