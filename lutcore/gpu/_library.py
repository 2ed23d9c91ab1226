"""The kernel libraries ``lutcore.gpu`` prices, as records: one ``Kernel`` per library kernel
(where it computes, what it reads, what it converts and where, what runs before it, its tiles
and how its library picks one, and the source of each), ``Quant`` (how the weights are
quantized) and ``Setup`` (how a measurement ran it), each validated once when made.

``gemm_latency(spec, kernel, m, n, k, *, act=..., quant=Quant(...), setup=Setup(...))`` takes
them; the loose keywords of earlier versions (weight_bits, group_size, zero_points, lut_bits;
precompute, inputs, persistent, serial_epilogue, accumulate) still work and become the records
(``records``).
"""

from __future__ import annotations

import dataclasses
import fractions
import math

from lutcore import _checks as check

from ._specs import ACCUMULATE, GPU_FORMATS, INPUT_DATA, TENSOR_DTYPES
from ._tiles import MARLIN_ROWS_PER_LAUNCH, PROFILED_EVERY_M_BELOW, SMEM_BANKS, Work

UNITS = ("tensor_core", "lut_array", "cuda_core")  # where a kernel's MACs run
WEIGHTS = ("activation", "quantized")  # W in the activation format, or low-bit W + scales
PRE_STEPS = ("", "quantize")  # what runs before the GEMM: nothing, or a dynamic act quantization
PRECOMPUTE = ("fused", "separate")
# How a measurement timed the kernel: CUDA events around it (or around a CUDA graph of calls),
# device time; or TensorRT's per-layer profiler (IProfiler, aiconfigurator collect_gemm_trt.py),
# whose layer time also holds a fixed cost per profiled layer beyond the kernels' own (its
# events bracket the plugin's enqueue: tactic lookup, CUTLASS argument set-up and launch).
TIMINGS = ("events", "trt_layer_profiler")
# Bytes per element of the output C / D a kernel writes (cublasGemmEx's Ctype: CUDA_R_16F /
# 16BF, 32F, 32I; CUTLASS's ElementC, e.g. int8 with LinearCombinationClamp; a TileLang kernel's
# C tensor dtype, e.g. float8_e4m3); the default "fp16": the 16-bit output, beta 0, of every
# calibration set's kernel (torch matmuls; aiconfigurator@095f58a collector/{trtllm,vllm,sglang}/
# collect_gemm.py: Linear / RowParallelLinear with bias=False, F.linear(a, b, None))
OUTPUT_BYTES = {"fp16": 2, "bf16": 2, "fp32": 4, "int32": 4, "int8": 1, "fp8": 1}
# Seconds each timing adds: the profiler's fixed cost per layer, calibrated by
# tools/calibrate_gpu.py on the M <= 4 rows of the TensorRT plugins' A100 GEMMs
# (aiconfigurator_a100_sxm.yaml, role calibration: the rows of least work, the plugins' CUDA
# kernels', _gemv);
# taken by every GPU (the profiler is host-side software, the same on each).
TIMING_OVERHEAD = {"events": 0.0, "trt_layer_profiler": 5.334e-6}
QUANT_BITS = (1, 2, 3, 4, 8)  # quantized weight widths the mixed-precision kernels accept
LUT_GROUP = 4  # activations per LUT Tensor Core table (K = 4, §4.2.1)
LUT_GEMM_MU = 8  # LUT-GEMM sub-vector length mu = 8 (Park et al. 2023, §3: 2^8-entry tables)
# Group-wise quantization: one FP16 scale per 128 weights (the GPTQ / AWQ default group size);
# asymmetric schemes add a 16-bit zero point per group (e.g. tinygemm's scales_and_zeros, a
# bfloat16 pair per group: gpt-fast quantize.py, WeightOnlyInt4Linear).
DEQUANT_GROUP, SCALE_BYTES = 128, 2
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
# TensorRT-LLM's sm90 mixed-input main loop (its interleaved copy, cutlass_extensions/gemm/
# collective/sm90_mma_interleaved_tma_gmma_rs_warpspecialized_mixed_input.hpp@1bced69,
# transform_A_kblock; interleaved_numeric_conversion.h) converts each weight once per CTA tile:
# INT4 a shift and 4 LOP3 (INT32), 2 HSUB2 + 2 HFMA2 per 8, INT8 2 PRMT and 2 HSUB2 per 4, then
# the scale, one HMUL2 per 2 weights (``_tiles`` T12; its compiled loop, tools/
# rs_ktile_candidates.py candidate 4, has per thread and k-tile of 32 weights INT8 16 PRMT,
# 16 HADD2, 16 HMUL2 and INT4 4 SHF + 16 LOP3, 8 HADD2 + 8 HFMA2, 16 HMUL2); its GEMV converts alike
# (weightOnlyBatchedGemv/converter.h: the same converter, and one HFMA2 per 2 for the scale)
RS_DEQUANT = {4: (5 / 8, (8 + 8) / 8), 8: (2 / 4, (4 + 4) / 4)}
# Marlin per INT4 weight (marlin_cuda_kernel.cu ``dequant``): a shift and 4 LOP3, 2 HSUB2 + 2
# HFMA2 per 8 weights, once per CTA tile; group scales add 2 HMUL2 per 4 weights (``scale``).
MARLIN_DEQUANT, MARLIN_GROUP_SCALE = (5 / 8, 8 / 8), 4 / 4
# The dynamic per-tensor activation quantization before a ``cublas_quantize`` GEMM
# (NVIDIA/TensorRT-LLM cpp/tensorrt_llm/common/cudaFp8Utils.cu@106ff7c,
# invokeComputeScalesAndQuantizeMatrix, PER_TENSOR): device operations (cudaMemsetAsync of the
# scale, computeFP8QuantizeScale, the quantize kernel; then the Linear's cast of that scale,
# made in the input's BF16 by thop/fp8Op.cpp@6ea1468 e4m3_quantize_helper, to FP32:
# _torch/modules/linear.py FP8QDQLinearMethod.apply, a PyTorch elementwise kernel) and its two
# passes over the activations, each a grid-stride loop of one scalar load per thread and
# iteration: (bytes moved per activation, blocks, threads per block). The absolute-max kernel
# reads the BF16 activations on a fixed grid of 1024 x 1024 threads whatever the size (each
# block reduces its share, then one atomicMax on the single scale), so it takes rounds of
# resident blocks even for one token; the quantize kernel reads them again and writes one 8-bit
# byte each on 1024 x 256 threads (scaleMatrix: the vectorized scaleMatrixPerTensorVec serves
# FP32 scales only, CanUseVecPerTensor, and this scale is BF16).
QUANTIZE_STEP = {"operations": 4, "passes": ((2, 1024, 1024), (2 + 1, 1024, 256))}
# Seconds per round of those blocks beyond their loads (a block reduction and its atomic),
# calibrated by tools/calibrate_gpu.py on the M <= 64 FP8 rows of aiconfigurator_h100_sxm.yaml
# (role calibration), where the step's fixed cost shows; taken by every GPU.
QUANTIZE_ROUND = 0.8387e-6
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


@dataclasses.dataclass(frozen=True)
class Quant:
    """How the weights are stored: ``weight_bits`` (16 or 8 for a dense kernel's weights in the
    activation format; 1-4 or 8 quantized), one FP16 scale per ``group_size`` weights (0: per
    output channel) plus a zero point with ``zero_points``, and the LUT kernels' table entry
    width ``table_bits`` (None: the activation's default, ``default_lut_bits``)."""

    weight_bits: int = 16
    group_size: int = DEQUANT_GROUP
    zero_points: bool = False
    table_bits: int | None = None

    def __post_init__(self):
        check.positive_int("weight_bits", self.weight_bits)
        check.one_of("weight_bits", self.weight_bits, QUANT_BITS + (16,))
        check.integers("group_size", self.group_size, min=0, note=" (0: per output channel)")
        if self.table_bits is not None:  # lut_bits among the loose keywords
            check.positive_int("table_bits", self.table_bits, note=" (lut_bits)")
            check.one_of("table_bits", self.table_bits, (4, 8, 16))

    @property
    def scale_bytes(self) -> float:
        """DRAM bytes per weight of the group scales (and zero points): ``SCALE_BYTES`` each per
        ``group_size`` weights; 0 for per-channel scales (under 0.05 % of the weight bytes at
        K >= 4096, not counted)."""
        if not self.group_size:
            return 0.0
        return SCALE_BYTES * (1 + bool(self.zero_points)) / self.group_size


@dataclasses.dataclass(frozen=True)
class Setup:
    """How a kernel was run: ``inputs`` the operands' data (``INPUT_DATA``: a power-limited GPU
    clocks higher on integer or zero operands), ``persistent`` stream-K kernels allowed (False: a
    grid of one CTA per output tile), ``serial_epilogue`` (the SM90 tiles store their output
    after their mainloop, ``_tiles`` T5), ``accumulate`` (``ACCUMULATE``: the tensor-core
    accumulators; "fp16" for fp16 activations on a tensor-core kernel), ``precompute`` (the LUT
    Tensor Core's tables ``"fused"`` into the producer or a ``"separate"`` kernel), ``timing``
    (``TIMINGS``: what the measured time holds beyond the device time, ``TIMING_OVERHEAD``),
    ``output`` (the format of the C / D it writes, ``OUTPUT_BYTES``) and ``reads_c`` (beta != 0:
    the epilogue reads C in that format before writing D)."""

    inputs: str = "random"
    persistent: bool = True
    serial_epilogue: bool = False
    accumulate: str = "fp32"
    precompute: str = "fused"
    timing: str = "events"
    output: str = "fp16"
    reads_c: bool = False

    def __post_init__(self):
        check.one_of("inputs", self.inputs, INPUT_DATA)
        check.one_of("output", self.output, OUTPUT_BYTES)
        check.one_of("timing", self.timing, TIMINGS)
        check.one_of("accumulate", self.accumulate, ACCUMULATE)
        check.one_of("precompute", self.precompute, PRECOMPUTE)


@dataclasses.dataclass(frozen=True)
class Kernel:
    """One library kernel. ``unit``: where its MACs run (``UNITS``); ``weights``: what it reads
    (``WEIGHTS``: W in the activation format, or quantized W of ``weight_bits`` with group scales);
    ``conversions``: ((weight_bits, (INT32 ops, FP16 lanes) per weight), ...) where they follow
    the width (else the ``work``'s own), plus ``group_scale_ops`` FP16 lanes per weight with
    group scales; ``rs_conversions``: the same for its Hopper register-sourced wgmma tiles where
    their main loop converts differently (``_tiles`` T12); ``acts``: the activation formats it
    takes (empty: every tensor-core format); ``pre``: a step before the GEMM (``PRE_STEPS``);
    ``work``: its tiles, selection and CUDA-core work as the tile model sees them
    (``_tiles.Work``); ``tables``: operand A is precomputed
    tables (the LUT Tensor Core); ``rates``: the library whose own measured tensor-core rates it
    runs at (``GPUSpec.library_efficiency``; "" the GPU's); ``mma_sync``: its tensor-core code is
    Ampere's mma.sync on every GPU (on Hopper capped at ``GPUSpec.mma_sync_fraction``);
    ``source``: where its structure and constants come from."""

    name: str
    library: str
    unit: str
    weights: str
    work: Work
    source: str
    rates: str = ""
    weight_bits: tuple = ()
    conversions: tuple = ()
    rs_conversions: tuple = ()
    group_scale_ops: float = 0.0
    acts: tuple = ()
    pre: str = ""
    tables: bool = False
    mma_sync: bool = False

    def __post_init__(self):
        check.one_of(f"{self.name}: unit", self.unit, UNITS)
        check.one_of(f"{self.name}: weights", self.weights, WEIGHTS)
        check.one_of(f"{self.name}: pre", self.pre, PRE_STEPS)
        # a kernel whose MACs run on CUDA cores alone runs at the boost clock (_tiles.Work)
        object.__setattr__(self, "work", self.work._replace(boost_clock=self.unit == "cuda_core"))
        widths = self.weight_bits if self.weights == "quantized" else ()
        for field in ("conversions", "rs_conversions"):
            if not set(dict(getattr(self, field))) <= set(widths):
                raise ValueError(f"{self.name}: {field} for widths "
                                 f"{dict(getattr(self, field))} outside its weight_bits {widths}")
        if any(a not in TENSOR_DTYPES for a in self.acts):
            raise ValueError(f"{self.name}: acts {self.acts} not in {TENSOR_DTYPES}")

    def work_for(self, quant: Quant) -> Work:
        """The tile model's ``Work`` for weights stored as ``quant``: the conversions of its
        width and the group scales' FP16 ops where the kernel's source has them."""
        if not self.conversions:
            return self.work
        scales = self.group_scale_ops * bool(quant.group_size)
        ops = {"dequant_ops": dict(self.conversions)[quant.weight_bits]}
        if quant.weight_bits in dict(self.rs_conversions):
            ops["rs_dequant_ops"] = dict(self.rs_conversions)[quant.weight_bits]
        return self.work._replace(**{field: (int_ops, fp_ops + scales)
                                     for field, (int_ops, fp_ops) in ops.items()})

    def check(self, act: str, quant: Quant) -> None:
        """ValueError unless this kernel takes ``act`` activations and ``quant`` weights."""
        check.one_of("act", act, self.acts or TENSOR_DTYPES)
        if self.weights == "activation":
            dense = 8 * GPU_FORMATS[act].nbytes
            if quant.weight_bits != dense:
                raise ValueError(f"{self.name} needs weights in the activation format ({act}: "
                                 f"weight_bits {dense}), got weight_bits={quant.weight_bits}")
        elif quant.weight_bits not in self.weight_bits:
            raise ValueError(f"{self.name} weight_bits must be one of "
                             f"{', '.join(map(str, self.weight_bits))}, got {quant.weight_bits}")


_TRTLLM = ("NVIDIA/TensorRT-LLM cpp/tensorrt_llm/plugins/weightOnlyQuantMatmulPlugin (its batched "
           "GEMV, a tactic below M = 16) and kernels/cutlass_kernels/cutlass_heuristic.cpp "
           "(tactics)")
# The table of builders: one record per library kernel the experiments and the data need.
KERNEL_LIBRARY = {k.name: k for k in (
    Kernel("cublas", "cuBLAS / CUTLASS", "tensor_core", "activation", Work(),
           "CUTLASS generator tiles (_tiles T1-T5); fractions calibrated (_specs)"),
    Kernel("cublas_quantize", "TensorRT-LLM FP8 Linear", "tensor_core", "activation", Work(),
           "TensorRT-LLM cudaFp8Utils.cu (dynamic per-tensor quantization), then cuBLASLt",
           rates="tensorrt_llm", acts=("fp8", "int8"), pre="quantize"),
    Kernel("trtllm_gemm", "TensorRT-LLM GEMM plugin", "tensor_core", "activation", Work(),
           "TensorRT-LLM's dense GEMMs (its engines' cuBLASLt GEMMs, static scales; its PyTorch "
           "flow's Linear, the cuBLAS its release ships) at its own rates",
           rates="tensorrt_llm"),
    Kernel("trtllm_smoothquant", "TensorRT-LLM SmoothQuant plugin", "tensor_core", "activation",
           Work(tiles=("trtllm_int8",), selection="profiled"),
           "NVIDIA/TensorRT-LLM plugins/smoothQuantGemmPlugin and cutlass_heuristic.cpp "
           "(_tiles T9)", acts=("int8",), mma_sync=True),
    Kernel("dequant", "CUTLASS mixed-input", "tensor_core", "quantized",
           Work(tiles=("library", True), dequant_ops=(DEQUANT_INT_OPS, DEQUANT_FP_OPS)),
           "Kim et al. 2022 fast INT->FP16 conversion in the MMA stream; library tiles, CUTLASS's "
           "multistage loop (mma_multistage.h: warp_mma_.transform; _tiles T14)",
           weight_bits=QUANT_BITS),
    Kernel("fpa_intb", "FasterTransformer / TensorRT-LLM (TVM build)", "tensor_core",
           "quantized", Work(tiles=("fpa_intb",), dequant_ops=FPA_INTB_DEQUANT[4],
                             selection="cutlass_heuristic"),
           "tlc-pack/cutlass_fpA_intB_gemm@390e821 (_tiles T6)", weight_bits=(4, 8),
           conversions=tuple(FPA_INTB_DEQUANT.items()), mma_sync=True),
    Kernel("trtllm_weight_only", "TensorRT-LLM weight-only plugin", "tensor_core", "quantized",
           Work(tiles=("trtllm_weight_only",), dequant_ops=FPA_INTB_DEQUANT[4],
                selection="profiled", profiled_below=PROFILED_EVERY_M_BELOW),
           _TRTLLM + " (_tiles T8, T12)", rates="best_shape", weight_bits=(4, 8),
           conversions=tuple(FPA_INTB_DEQUANT.items()), rs_conversions=tuple(RS_DEQUANT.items())),
    Kernel("marlin", "Marlin", "tensor_core", "quantized",
           Work(tiles=("marlin",), dequant_ops=MARLIN_DEQUANT, selection="marlin",
                ctas_per_sm=1, rows_per_launch=MARLIN_ROWS_PER_LAUNCH),
           "IST-DASLab/marlin@512f1b1 (_tiles T7)", weight_bits=(4,),
           conversions=((4, MARLIN_DEQUANT),), group_scale_ops=MARLIN_GROUP_SCALE,
           mma_sync=True),
    Kernel("lut_gemm", "LUT-GEMM", "cuda_core", "quantized",
           Work(tiles=("custom", (1, 2, 4, 8, 16, 32), (32, 64, 128, 256)),
                lookup_mu=LUT_GEMM_MU, lookup_conflict=BANK_CONFLICT,
                lookup_fp_ops=LOOKUP_FP_OPS),
           "Park et al. 2023 (2^mu-entry tables in shared memory, one LDS + FMA per lookup)",
           weight_bits=QUANT_BITS, acts=("fp16",)),
    # LMMA m2n64k4 steps (wm >= 2, wn >= 64), elongated along N (the paper's §3.3)
    Kernel("lut_tensor_core", "LUT Tensor Core (LMMA)", "lut_array", "quantized",
           Work(tiles=("custom", (2, 4, 8, 16, 32, 64), (64, 128, 256, 512))),
           "LUT Tensor Core §3.2-3.3, §4.2; tables by lutcore.lut", weight_bits=QUANT_BITS,
           acts=("fp16", "int8", "fp8"), tables=True),
)}
KERNELS = tuple(KERNEL_LIBRARY)
TENSOR_CORE_KERNELS = tuple(k for k, r in KERNEL_LIBRARY.items() if r.unit == "tensor_core")
DENSE_KERNELS = tuple(k for k, r in KERNEL_LIBRARY.items() if r.weights == "activation")
DEQUANT_KERNELS = tuple(k for k, r in KERNEL_LIBRARY.items()
                        if r.weights == "quantized" and r.unit == "tensor_core")
WIDTH_DEPENDENT_KERNELS = tuple(k for k, r in KERNEL_LIBRARY.items() if r.conversions)
WORK = {name: record.work for name, record in KERNEL_LIBRARY.items()}

QUANT_KEYWORDS = {"weight_bits": "weight_bits", "group_size": "group_size",
                  "zero_points": "zero_points", "lut_bits": "table_bits"}
SETUP_KEYWORDS = ("inputs", "persistent", "serial_epilogue", "accumulate", "precompute",
                  "timing", "output", "reads_c")


def kernel_record(kernel) -> Kernel:
    """The ``Kernel`` of a name of ``KERNELS`` (or the record itself)."""
    return check.named(KERNEL_LIBRARY, kernel, what="kernel", record=Kernel)


def records(quant: Quant | None, setup: Setup | None, keywords: dict) -> tuple[Quant, Setup]:
    """(Quant, Setup) from the records and the loose keywords of earlier versions (each goes
    to its record's field; given both ways, TypeError); an unknown keyword is a TypeError
    naming the allowed ones."""
    unknown = set(keywords) - set(QUANT_KEYWORDS) - set(SETUP_KEYWORDS)
    if unknown:
        raise TypeError(f"unknown keyword(s) {', '.join(sorted(unknown))}; allowed: quant, setup, "
                        f"{', '.join(list(QUANT_KEYWORDS) + list(SETUP_KEYWORDS))}")
    loose_quant = {QUANT_KEYWORDS[k]: v for k, v in keywords.items() if k in QUANT_KEYWORDS}
    loose_setup = {k: v for k, v in keywords.items() if k in SETUP_KEYWORDS}
    if (quant is not None and loose_quant) or (setup is not None and loose_setup):
        raise TypeError("give the weights as quant= or as loose keywords, not both (and the "
                        "setup as setup= or loose keywords)")
    quant = quant if quant is not None else Quant(**loose_quant)
    setup = setup if setup is not None else Setup(**loose_setup)
    return quant, setup
