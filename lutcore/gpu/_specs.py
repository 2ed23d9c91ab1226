"""GPU specifications from datasheets and whitepapers, and the LUT Tensor Core / DRM variants.

Sources (S1-S9), cited per field below:
S1 NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 1/3, "L2 cache" and
   "NVLink" sections (12 third-generation links, 600 GB/s total bandwidth).
S2 NVIDIA A100 datasheet (80GB SXM4: 2,039 GB/s HBM2e, max TDP 400 W; 80GB PCIe: 1,935 GB/s,
   300 W, the same peaks and 1410 MHz boost; PCIe cards pair over an NVLink bridge, 600 GB/s).
S3 NVIDIA Ampere GA102 GPU Architecture whitepaper (2020), Appendix A Table 9 (RTX 3090;
   NVLink bridge 112.5 GB/s total).
S4 NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 2/3; fourth-generation
   NVLink, 18 links, 900 GB/s total; wgmma: "warpgroup" of four warps issuing asynchronous
   MMA with operands read from shared memory.
S5 NVIDIA H100 datasheet (SXM: 3.35 TB/s HBM3, 989 TFLOPS FP16 dense = half the sparse value,
   67 TFLOPS FP32).
S6 NVIDIA H200 datasheet (SXM: 141 GB HBM3e, 4.8 TB/s; same GH100 compute and NVLink as H100).
S7 CUDA C++ Programming Guide, "Compute Capabilities" table: 64 K 32-bit registers per SM,
   255 registers per thread, max shared memory per SM 164 KB (8.0), 100 KB (8.6), 228 KB (9.0);
   "Arithmetic Instructions" throughput table: 16 results per clock per SM of the 32-bit
   reciprocal, reciprocal square root, base-2 logarithm and exponential (8.x, 9.0).
S8 Shared memory / L1 return bandwidth 128 B per clock per SM (32 banks x 4 B; NVIDIA
   developer forum, "Unexpected shared memory bank conflict", answer by NVIDIA staff), the
   bandwidth Jia et al. also measure ("Dissecting the NVIDIA Volta GPU architecture via
   microbenchmarking", 2018, shared memory section).
S9 PTX ISA 8.x, "wgmma.mma_async": a warpgroup (4 contiguous warps) executes one MMA, matrix B
   (and A unless it is in registers) read from shared memory through matrix descriptors.
S10 W. Luo et al., "Benchmarking and Dissecting the Nvidia Hopper GPU Architecture" (IPDPS 2024,
   arXiv 2402.13499v1), Table VII: Ampere's mma.sync on an H800 PCIe (zero inputs, no power
   throttling) reaches FP16 m16n8k16 494.4 TFLOPS and INT8 m16n8k32 977.9 TOPS of the part's
   dense 756.5 / 1513 (the H100 PCIe datasheet's, half its sparse 1513 / 3026): "mma on Hopper
   reaches only an average 62.9 % of theoretical peak", against > 95 % for wgmma (Table VIII).
   Table IV: a dependent shared-memory load takes 29.0 SM clocks on the H800; Table VIII: a
   dense wgmma m64n256k16 (SS) completes 128.0 clocks after its issue (the extended version,
   arXiv 2501.12084v2: RS latency not above SS's at any N). Values as a public reading note of
   the paper transcribes its tables (the paper's own tables were not reachable here). Its
   benchmark (HPMLL/NVIDIA-Hopper-Benchmark@ded6f57, TensorCores/wgmma/latency/test_wgmma_
   fp16.cu) times 100000 wgmmas issued back to back into one accumulator, one wait at the end:
   the "latency" is their issue interval, and m64n256k16's 128 clocks is exactly its MACs at
   the peak rate (64 x 256 x 16 / 2048 a clock an SM); no issue-to-wait latency is measured.

Achievable rates, from public measurements (none of them a validation set of ``lut-fig16``;
the calibration sets are stored with their source under experiments/reference/measured/):
C1 S. Bekman, github.com/stas00/ml-engineering@744d01e, compute/accelerator/README.md,
   "Maximum Achievable Matmul FLOPS comparison table" (mamf-finder.py, mean of 100 iterations,
   best shape of a brute-force search): BF16 A100 SXM 271.2 of 312 TFLOPS, H100 SXM 794.5 of 989
   ("H200 is the same"), A100 PCIe 252.9 of 312; FP8 H100 SXM 1402.6, H200 SXM 1453.4 of 1979
   TFLOPS (measured/mamf_stas00.yaml, role calibration; the 8-bit fractions below and, with C3
   and C4, the A100's 16-bit fraction are calibrated on it).
C3 H. He, "Strangely, Matrix Multiplications on GPUs Run Faster When Given 'Predictable'
   Data!" (thonking.ai, 2024): 8192^3 FP16 matmuls on an A100 SXM4 (400 W) with random, integer
   and zero inputs (measured/thonking_inputs_a100.yaml, role calibration).
C4 github.com/zzc0721/torch-performance-test-data@9d82827, database.md (test.py: torch.mm of
   torch.randn squares 1024-10240, best rate of the five): A100 80GB SXM4 FP16 258.74, BF16
   264.53; A800 80GB SXM4 (its export variant, NVLink cut) FP16 266.04, BF16 266.48 TFLOPS
   (measured/torchperf_sxm.yaml, role calibration; tools/transcribe_torchperf.py).
Streaming DRAM fractions (E2-E4, dedicated bandwidth measurements; C2's residual adds agree on
the A100, 0.892):
E2 NVIDIA developer forum, "Trouble to Reach Peak Bandwidth of A100"
   (forums.developer.nvidia.com/t/trouble-to-reach-peak-bandwidth-of-a100/339083): a tuned DRAM
   read kernel on an A100 80GB SXM reaches 1.80 of 2.039 TB/s.
E3 M. Mirai, "GPU Memory Bandwidth: What Your Profiler Isn't Telling You" (mikamirai.com/blog/
   gpu-memory-bandwidth, 2026), Nsight Compute on H100 SXM5: coalesced loads 2.8 of 3.35 TB/s.
E4 alpaka-group/alpaka issue #1874 "Optimize Babelstream for GPU": BabelStream 4.0 on a GeForce
   RTX 2060 (GDDR6, 336 GB/s): triad 304.1 GB/s (90.5 %).
C5 NVIDIA aiconfigurator, github.com/ai-dynamo/aiconfigurator@095f58a,
   aic-core/src/aiconfigurator_core/systems/data/h100_sxm/gemm/trtllm/1.2.0rc5/gemm_perf.parquet:
   TensorRT-LLM's BF16 and FP8 Linear on an H100 SXM, CUDA events over a CUDA graph
   (measured/aiconfigurator_h100_sxm.yaml, role calibration; tools/transcribe_aiconfigurator.py;
   the A100 SXM tables, also calibration, and the H200 SXM ones, validation, beside it).
C6 idem, a100_sxm/gemm/trtllm/1.0.0: TensorRT-LLM's BF16, weight-only and SmoothQuant INT8
   GEMMs on an A100 SXM (measured/aiconfigurator_a100_sxm.yaml, role calibration).
C7 NVIDIA aiconfigurator (C5), a100_sxm/comm/nccl/2.27.3 and h100_sxm/comm/nccl/2.29.2:
   nccl-tests all_reduce_perf on one DGX node (2, 4, 8 GPUs, FP16, device time; measured/
   aiconfigurator_nccl.yaml, role calibration; tools/transcribe_aiconfigurator_layers.py):
   ``tools/calibrate_gpu.py`` fits the all-reduce's fixed latency, its latency per ring step
   and the fraction of the NVLink bandwidth it reaches.
C8 NVIDIA aiconfigurator (C5) at its first commit, efcae12: h100_sxm/trtllm/1.0.0rc3/gemm_perf.txt
   (a Git LFS object; the bytes from PyPI's aiconfigurator 0.4.0 wheel, checked against the
   pointer's sha256): TensorRT-LLM's weight-only and SmoothQuant plugin GEMMs on an H100 SXM,
   TensorRT's per-layer profiler (measured/aiconfigurator_h100_sxm_trtllm_rc3.yaml, role
   calibration; tools/transcribe_aiconfigurator_wheel.py; its H200 twin validates).
   ``tools/calibrate_gpu.py`` sets ``wgmma_chain`` on its weight-only rows above the plugin's
   GEMV (M >= 16): the interval leaving them unbiased.
C2 Vidur (A. Agrawal et al., MLSys 2024), github.com/microsoft/vidur@7d47513: per-operator
   device times of LLaMA-family layers on A100 80GB PCIe and H100 SXM (measured/vidur_*.yaml,
   role calibration; the A100 form factor and its evidence: tools/transcribe_vidur.py).
   ``tools/calibrate_gpu.py`` fits, on its M = 1 GEMMs (cuBLAS GEMV-class kernels), the fixed
   device time of a kernel and the DRAM fraction a GEMV-class kernel streams at, on its
   RMSNorms (scalar row kernels) the DRAM round trip, on its compute-bound GEMMs the H100's
   16-bit fraction and the A100 PCIe's sustained clock (its host-timed all-reduces, which
   set the all-reduce constants before C7, are kept as a check).

All values are dense (no 2:4 sparsity). Throughputs are stored per SM per clock so that the
LUT-array and frequency variants follow from first principles. The peaks (``tensor_peak``,
``lut_peak``, ``dram_bandwidth``) stay the datasheet values; the kernel models run at the
measured fractions of them.
"""

from __future__ import annotations

import dataclasses

from lutcore import _checks as check
from lutcore import numerics as nm

# The GPUs' number formats by NVIDIA's names: FP8 is E4M3 (OCP E4M3FN), the FP8 of H100-class
# tensor-core inference (LUT Tensor Core paper); byte widths and fields come from the records.
GPU_FORMATS = nm.FormatSet(("fp32", "fp16", "bf16", "int8", "fp8"), means={"fp8": "fp8_e4m3fn"})
TENSOR_DTYPES = ("fp16", "bf16", "int8", "fp8", "tf32")
# Tensor-core accumulator formats of FP16 MMAs (PTX mma .f32 / .f16 accumulators): "fp32" the
# default (and the 32-bit accumulator, INT32, of the integer formats), "fp16" for FP16 MMAs only.
ACCUMULATE = ("fp32", "fp16")
LUT_SCALES = (1, 2, 4, 8)
LUT_ACTIVATIONS = ("fp16", "int8", "fp8")
# GPU architectures whose library kernels are separate builds (e.g. sm80 / sm90 FMHA kernels),
# and the warps that issue one MMA there and share its shared-memory operands: Ampere's
# mma.sync is a warp's, Hopper's wgmma a warpgroup's (S4, S9)
ARCHITECTURES = {"ampere": 1, "hopper": 4}
# The architecture of each compute capability the specs use (CUDA C++ Programming Guide,
# "Compute Capabilities": 8.x Ampere, 9.0 Hopper)
ARCHITECTURE_OF = {80: "ampere", 86: "ampere", 90: "hopper"}
# 1x LUT array = M x N x K = 512 lookups-with-K per tensor core per clock, the size of the A100
# INT8 tensor core (M, N, K = 8, 4, 16) (LUT Tensor Core §4.2.2 and Fig. 15 caption).
LUT_ARRAY_1X = 512
TENSOR_CORES_PER_SM = 4  # S1, S3, S4: four tensor cores per SM (one per SM sub-partition)
# Achievable fractions of the tensor-core peaks, calibrated by tools/calibrate_gpu.py (each the
# fraction leaving its rows unbiased): A100 16-bit on every 16-bit GEMM of a 400 W SXM4 module
# in C1, C3 and C4 (9 rows, four modules, at the 1410 MHz boost clock; best and large shapes),
# H100 16-bit on the compute-bound projection GEMMs of C2 (applications' shapes), H100 FP8 by
# TensorRT-LLM's kernels on the compute-bound (M >= 1024) FP8 GEMMs of C5 (its FP8 Linear, the
# activation quantization priced, its two passes' dependent scalar loads included:
# applications' shapes too; a library rate, 4.5 % below C1's best-shape MAMF fraction, which the
# FP8 kernels of DeepGEMM and TileLang reach; 0.5878 while those loads were priced at the DRAM
# rate, which left the slow passes inside the GEMM's rate). The
# model's pipe overlap, fixed costs and (the A100's mma.sync kernels) stores after the mainloop
# (_tiles T5) are inside the measured times.
FP16_A100, FP16_H100, FP8_H100 = 0.9255, 0.7698, 0.6914
# The FP8 fractions with which the tile model reproduces C1's FP8 MAMF rows (best shapes)
MAMF_FP8_H100, MAMF_FP8_H200 = 0.7276, 0.7766
# The H200 FP8 fraction: the H100's times the ratio of their MAMF rows (C1, one search each)
FP8_H200 = FP8_H100 * MAMF_FP8_H200 / MAMF_FP8_H100
# The A100's INT8 fraction, calibrated on the compute-bound (M >= 1024) INT8 x INT8 GEMMs of
# C6 (TensorRT-LLM's SmoothQuant CUTLASS kernels on an A100 SXM, applications' shapes; their
# tiles as its runner dispatches them, unsplit, and TensorRT's per-layer profiler's fixed cost
# priced); the RTX 3090
# (the same third-generation tensor core) takes it. (Before these measurements it was the
# 16-bit fraction times C1's Hopper FP8 / BF16 ratio, 0.697.)
INT8_A100 = 0.8724
# TensorRT-LLM's own 16-bit rate (its release's cuBLAS), calibrated on the compute-bound
# (M >= 1024) BF16 GEMMs of C5 (H100) and C6 (A100): the same shapes run 6-11 % faster there
# than in C2's older PyTorch / cuBLAS on an H100 (median 7.5 % at M >= 1024), so the rate is the
# library's, as TensorRT-LLM's FP8 rate (the H200 takes the H100's: same GH100 compute).
TRTLLM_16_A100, TRTLLM_16_H100 = 0.9086, 0.8782
# The 16-bit fractions with which the tile model reproduces C1's BF16 MAMF rows (the best shape
# of a search, each GPU measured alike): the rate of a kernel whose tactic is timed at the
# shape (TensorRT-LLM's weight-only plugin, _tiles T11), as the tile model picks its fastest
# tile; C2's and C5's fractions hold cuBLAS's heuristic pick at applications' shapes. Check
# on C6 (TensorRT-LLM's A100 weight-only GEMMs, M >= 1024): tools/calibrate_gpu.py. The H200
# takes the H100's (no BF16 MAMF row; same GH100 compute).
BEST_16_A100, BEST_16_H100 = 0.9961, 0.9530
# Tensor-core rate by input data, relative to random (normal or uniform real) inputs, the data of
# every measurement the fractions above come from: under the power limit the SM clock falls
# further the more bits the operands toggle. C3 (tools/calibrate_gpu.py, like for like on one
# kernel each): integer-valued inputs 288 / 257, zeros 295 / 257 on an A100 SXM4. Measured on
# the A100 only; the other GPUs, which run dense GEMMs at their power limit too, are assumed
# alike.
INPUT_DATA = ("random", "integer", "zeros")
INPUT_RATE = {"random": 1.0, "integer": 1.1206, "zeros": 1.1479}
# S10: the fractions of the Hopper tensor-core peak mma.sync reaches, measured on zero inputs;
# the fractions here hold for random inputs, whose power-limited clock is 1 / INPUT_RATE["zeros"]
# of the zero inputs' (C3). BF16 (not measured) runs FP16's m16n8k16 at its rate on every
# datasheet.
MMA_SYNC_HOPPER = tuple((d, f / INPUT_RATE["zeros"]) for d, f in (
    ("fp16", 494.4 / 756.5), ("bf16", 494.4 / 756.5), ("int8", 977.9 / 1513)))


def check_accumulate(act: str, accumulate: str) -> None:
    """ValueError unless ``accumulate`` is in ``ACCUMULATE`` and, if "fp16", ``act`` is fp16."""
    check.one_of("accumulate", accumulate, ACCUMULATE)
    if accumulate == "fp16" and act != "fp16":
        raise ValueError(f"accumulate 'fp16' needs act 'fp16', got act {act!r}; allowed "
                         f"accumulate for {act}: fp32")


@dataclasses.dataclass(frozen=True)
class GPUSpec:
    """One GPU. Throughputs per SM per clock (dense MAC = 2 ops); sizes in bytes; clocks in GHz;
    bandwidths in bytes per second; times in seconds. ``lut_scale`` 0: no LUT Tensor Core;
    1/2/4/8: LUT arrays of that many times ``LUT_ARRAY_1X`` per tensor core. ``register_scale``
    2: doubled registers (the paper's "Double Register Modeling", DRM).

    Achievable rates: ``tensor_efficiency`` (16-bit tensor-core GEMMs) and ``dtype_efficiency``
    ((dtype, fraction), ... for the others) of the datasheet tensor peaks; ``dram_efficiency``
    (streaming kernels) and ``gemv_dram_efficiency`` (GEMM/GEMV kernels) of ``dram_bandwidth``.
    ``kernel_latency``: device time every kernel takes on top of its work (launch on the device,
    first loads, drain); ``gemm_prologue``: what a CTA tile of a GEMM kernel adds to it (its
    pipeline fill before the first MMA and its epilogue after the last; exposed once per round
    of tiles when one CTA fills an SM). ``launch_overhead``: host time
    to issue one launch (it only shows when the host, not the GPU, is the bottleneck).
    ``dram_latency``: seconds a thread waits for one DRAM load (a scalar row kernel issues its
    next load only after it).
    ``sustained_clock_ghz``: the SM clock under a sustained tensor-core load (0:
    ``clock_ghz``); ``boost_clock_ghz``: the maximum boost clock (0: ``clock_ghz``), the clock
    of a kernel without tensor-core work (memory-bound, element-wise), which the power limit
    does not hold back (``vector_flops``). ``nvlink_bandwidth`` (per
    direction) and the all-reduce ``allreduce_latency`` (fixed), ``allreduce_hop_latency`` (per
    ring step: 2 (p - 1) of them) and ``allreduce_efficiency`` price tensor-parallel
    all-reduces. ``mma_sync_fraction``: ((dtype, fraction), ...) of the peak that Ampere's
    mma.sync instructions reach where they are not the native MMA (Hopper, S10; empty: no cap).
    ``wgmma_latency`` / ``smem_latency``: SM clocks from a wgmma's issue to its result and of a
    dependent shared-memory load (S10; 0 where unused). ``wgmma_chain``: SM clocks an SM spends
    per register-sourced m64nNk16 wgmma of the sm90 weight-only loop at its token widths (N <=
    128), whatever the weight width and the warpgroup (C8; 0 where unused).
    ``compute_capability``: the target its libraries' kernels are built for (of
    ``ARCHITECTURE_OF``: 80, 86, 90; its ``architecture`` and the warps of one MMA,
    ``mma_warps``, follow); ``sfu_lanes``: special-function results per SM per clock (S7).
    ``fp16_accumulate_macs``: the FP16 tensor-core rate with FP16 accumulators where the part
    runs it faster than with FP32 ones (GeForce GA102)."""

    name: str
    sms: int
    clock_ghz: float
    tc_macs: tuple  # ((dtype, dense MACs per SM per clock), ...) for TENSOR_DTYPES present
    fp32_lanes: int  # FP32 FMA lanes per SM (CUDA cores)
    fp16_lanes: int  # non-tensor FP16 FMA lanes per SM (half2 counted as 2)
    int32_lanes: int  # INT32 ALU lanes per SM
    registers: int  # register file per SM, bytes
    max_registers_per_thread: int
    smem: int  # max shared memory per SM (per thread block), bytes
    smem_bytes_per_clock: int  # shared-memory bandwidth per SM
    l2: int  # L2 bytes
    l2_bytes_per_clock: int  # L2 bandwidth, whole chip
    dram_bandwidth: float  # bytes per second
    dram: int  # DRAM capacity, bytes
    launch_overhead: float  # host seconds per kernel launch
    tensor_efficiency: float  # achievable fraction of the 16-bit tensor-core / LUT-array peak
    dram_efficiency: float  # achievable fraction of dram_bandwidth, streaming kernels
    lut_scale: int = 0
    lut_activation: str = ""
    register_scale: int = 1
    dtype_efficiency: tuple = ()  # ((dtype, fraction), ...) where not tensor_efficiency
    library_efficiency: tuple = ()  # ((library, dtype, fraction), ...): a library's own rate
    gemv_dram_efficiency: float = 0.0  # fraction of dram_bandwidth GEMM kernels stream at
    kernel_latency: float = 0.0  # device seconds per kernel
    gemm_prologue: float = 0.0  # extra device seconds per tiled GEMM kernel (fill, epilogue)
    dram_latency: float = 0.0  # seconds per dependent DRAM round trip of a scalar row kernel
    sustained_clock_ghz: float = 0.0  # 0: clock_ghz
    boost_clock_ghz: float = 0.0  # max boost clock, of the datasheet FP32 figure (0: clock_ghz)
    nvlink_bandwidth: float = 0.0  # bytes per second per direction (0: no NVLink)
    allreduce_latency: float = 0.0  # seconds per all-reduce, independent of its size
    allreduce_hop_latency: float = 0.0  # seconds per ring step (2 (p - 1) steps on p GPUs)
    allreduce_efficiency: float = 1.0  # achieved fraction of nvlink_bandwidth (bus bandwidth)
    fp16_accumulate_macs: int = 0  # dense FP16 MACs/SM/clk, FP16 accumulate (0: as FP32's)
    mma_sync_fraction: tuple = ()  # ((dtype, fraction), ...): mma.sync's ceiling (empty: none)
    wgmma_latency: float = 0.0  # SM clocks, issue to result (0: no wgmma)
    wgmma_chain: float = 0.0  # SM clocks per wgmma an SM issues in the sm90 weight-only loop
    smem_latency: float = 0.0  # SM clocks of a dependent shared-memory load
    compute_capability: int = 80  # S7: the kernels' build target (e.g. FlashAttention-2's tile)
    sfu_lanes: int = 16  # S7: exp2 / rcp / rsqrt results per SM per clock (SFU)

    def __post_init__(self):
        dtypes = list(self.tensor_dtypes)
        if any(d not in TENSOR_DTYPES for d in dtypes):
            raise ValueError(f"{self.name}: tensor dtypes {dtypes} not in {TENSOR_DTYPES}")
        check.one_of("lut_scale", self.lut_scale, (0,) + LUT_SCALES)  # 0: no LUT array
        if self.lut_scale:
            check.one_of("LUT activation", self.lut_activation, LUT_ACTIVATIONS)
        if self.register_scale not in (1, 2):
            raise ValueError(f"register_scale must be 1 or 2, got {self.register_scale!r}")
        check.one_of("compute_capability", self.compute_capability, ARCHITECTURE_OF)
        fractions = [("tensor_efficiency", self.tensor_efficiency),
                     ("dram_efficiency", self.dram_efficiency),
                     ("gemv_dram_efficiency", self.gemv_dram_efficiency or 1.0),
                     ("allreduce_efficiency", self.allreduce_efficiency)]
        fractions += [(f"dtype_efficiency[{d}]", f) for d, f in self.dtype_efficiency]
        fractions += [(f"library_efficiency[{lib}, {d}]", f)
                      for lib, d, f in self.library_efficiency]
        fractions += [(f"mma_sync_fraction[{d}]", f) for d, f in self.mma_sync_fraction]
        for field, value in fractions:
            if not 0 < value <= 1:
                raise ValueError(f"{self.name}: {field} must be in (0, 1], got {value!r}")

    @property
    def clock(self) -> float:
        """Datasheet (boost) clock in Hz, the clock of the datasheet peaks."""
        return self.clock_ghz * 1e9

    @property
    def sm_clock(self) -> float:
        """The SM clock the kernel models run at, Hz (``sustained_clock_ghz`` when set)."""
        return (self.sustained_clock_ghz or self.clock_ghz) * 1e9

    @property
    def boost_clock(self) -> float:
        """The maximum boost clock in Hz (``boost_clock_ghz`` when set, else ``clock_ghz``)."""
        return (self.boost_clock_ghz or self.clock_ghz) * 1e9

    @property
    def architecture(self) -> str:
        """Of ``ARCHITECTURES``: the architecture its libraries' kernels are built for."""
        return ARCHITECTURE_OF[self.compute_capability]

    @property
    def mma_warps(self) -> int:
        """Warps that issue one MMA and share its shared-memory operands (``ARCHITECTURES``:
        1 for Ampere's mma.sync, 4 for a Hopper wgmma warpgroup)."""
        return ARCHITECTURES[self.architecture]

    @property
    def tensor_dtypes(self) -> tuple[str, ...]:
        """The formats its tensor cores take (of ``TENSOR_DTYPES``)."""
        return tuple(d for d, _ in self.tc_macs)

    def tensor_macs(self, dtype: str, accumulate: str = "fp32") -> int:
        """Dense tensor-core MACs per SM per clock for ``dtype`` with ``accumulate``
        accumulators (``ACCUMULATE``; "fp16" for fp16 only) (ValueError if absent)."""
        check_accumulate(dtype, accumulate)
        if accumulate == "fp16" and self.fp16_accumulate_macs:
            return self.fp16_accumulate_macs
        for name, macs in self.tc_macs:
            if name == dtype:
                return macs
        raise ValueError(f"{self.name} has no {dtype} tensor cores; allowed values: "
                         f"{', '.join(d for d, _ in self.tc_macs)}")

    def efficiency(self, dtype: str, library: str = "") -> float:
        """Achievable fraction of the ``dtype`` tensor-core peak (by the kernels of ``library``
        where it has its own measured rate, ``library_efficiency``)."""
        own = {(lib, d): f for lib, d, f in self.library_efficiency}
        return own.get((library, dtype), dict(self.dtype_efficiency).get(dtype,
                                                                          self.tensor_efficiency))

    def sync_efficiency(self, dtype: str, library: str = "") -> float:
        """``efficiency`` of a kernel whose MMAs are mma.sync: never above the fraction of the
        peak that instruction reaches (``mma_sync_fraction``): the tighter of the two bounds,
        the instruction's issue ceiling or what the calibrated kernels reach."""
        ceiling = dict(self.mma_sync_fraction).get(dtype, 1.0)
        return min(self.efficiency(dtype, library), ceiling)

    def tensor_peak(self, dtype: str, accumulate: str = "fp32") -> float:
        """Dense tensor-core peak, ops per second (2 per MAC)."""
        return 2.0 * self.tensor_macs(dtype, accumulate) * self.sms * self.clock

    def lut_macs(self, weight_bits: int) -> float:
        """LUT Tensor Core MAC-equivalents per SM per clock for ``weight_bits``-bit weights:
        bit-serial, one pass per weight bit (§3.2.2); 0 without LUT arrays."""
        return self.lut_scale * LUT_ARRAY_1X * TENSOR_CORES_PER_SM / weight_bits

    def lut_peak(self, weight_bits: int) -> float:
        """LUT Tensor Core peak, ops per second (2 per MAC-equivalent)."""
        return 2.0 * self.lut_macs(weight_bits) * self.sms * self.clock

    @property
    def cuda_core_flops(self) -> float:
        """FP32 CUDA-core FLOP/s (2 per FMA) at the SM clock (inside a tensor-core kernel)."""
        return 2.0 * self.fp32_lanes * self.sms * self.sm_clock

    @property
    def vector_flops(self) -> float:
        """FP32 CUDA-core FLOP/s of a kernel without tensor-core work (memory-bound and
        element-wise kernels), at the maximum boost clock (``boost_clock``)."""
        return 2.0 * self.fp32_lanes * self.sms * self.boost_clock

    @property
    def l2_bandwidth(self) -> float:
        return self.l2_bytes_per_clock * self.sm_clock

    @property
    def achievable_dram_bandwidth(self) -> float:
        """DRAM bytes per second a streaming kernel reaches: ``dram_efficiency`` x the peak."""
        return self.dram_efficiency * self.dram_bandwidth

    @property
    def gemm_dram_bandwidth(self) -> float:
        """DRAM bytes per second a GEMM / GEMV kernel streams at."""
        return (self.gemv_dram_efficiency or self.dram_efficiency) * self.dram_bandwidth


KIB, MIB, GIB = 1024, 1024 ** 2, 1024 ** 3

A100 = GPUSpec(
    name="a100",  # A100 SXM4 80GB
    sms=108, clock_ghz=1.41,  # S1 Table 3: 108 SMs, boost 1410 MHz (its FP32 and tensor peaks')
    # S1 Table 1: 312 TFLOPS FP16/BF16, 624 TOPS INT8 dense = 1024 / 2048 MACs/SM/clk;
    # no FP8 on Ampere. S1 Table 3: 312 with FP16 or FP32 accumulate, so no fp16_accumulate_macs.
    # S1 Table 1: 156 TFLOPS TF32 dense = 512 MACs/SM/clk (no kernel model uses it).
    tc_macs=(("fp16", 1024), ("bf16", 1024), ("int8", 2048), ("tf32", 512)),
    fp32_lanes=64, fp16_lanes=256, int32_lanes=64,  # S1: 19.5 TF FP32, 78 TF FP16, 19.5 TOPS INT32
    registers=256 * KIB, max_registers_per_thread=255,  # S1, S7
    smem=164 * KIB, smem_bytes_per_clock=128,  # S7 (8.0), S8
    compute_capability=80,  # S1, S7: GA100
    l2=40 * MIB, l2_bytes_per_clock=5120,  # S1: 40 MB L2, 5120 B/clk read bandwidth
    dram_bandwidth=2039e9, dram=80 * GIB,  # S2
    # ~3 us of host time per launch (NVIDIA CUDA C++ Best Practices Guide: "a few
    # microseconds"; LLMCompass measured 2.1e-5 s per torch.matmul call incl. synchronize).
    launch_overhead=3e-6,
    tensor_efficiency=FP16_A100,  # C1, C3, C4: SXM4 modules (tools/calibrate_gpu.py)
    dtype_efficiency=(("int8", INT8_A100),),  # C6
    library_efficiency=tuple((lib, d, f) for lib, f in (("tensorrt_llm", TRTLLM_16_A100),
                                                       ("best_shape", BEST_16_A100))
                             for d in ("fp16", "bf16")),
    dram_efficiency=1.80 / 2.039,  # E2: A100 80GB SXM read kernel, 88.3 %
    # C2 (tools/calibrate_gpu.py on vidur_a100.yaml, the PCIe card): 2.0 us per kernel, 2.2 us
    # more per tiled GEMM kernel, a dependent DRAM round trip of a row kernel takes 536 ns
    kernel_latency=2.0e-6, gemm_prologue=2.22e-6, dram_latency=5.36e-7,
    # C6 (tools/calibrate_gpu.py, own_gemv_efficiency): the module's GEMV-class GEMMs (BF16,
    # M <= 16, L2 defeated) stream at 77.0 % of its DRAM peak (the PCIe card's, C2: 83.1 %)
    gemv_dram_efficiency=0.7702,
    nvlink_bandwidth=300e9,  # S1: 600 GB/s total = 300 GB/s per direction
    allreduce_latency=9.789e-6, allreduce_hop_latency=9.775e-7,  # C7 (aiconfigurator_nccl)
    allreduce_efficiency=0.5441)

# A100 80GB PCIe: the SXM4 module's GA100 (same SMs, clocks and peaks) on a 300 W card with
# 1,935 GB/s (S2). Under a sustained tensor-core load its power limit holds the SM clock below
# the 1410 MHz boost of the 400 W module (its kernels without tensor-core work keep the boost);
# the clock is calibrated by tools/calibrate_gpu.py on C2's compute-bound GEMMs (measured on
# this card) with the module's 16-bit fraction. Every measured fraction is the A100's (C2's
# memory fractions were measured on this card). C1's like-for-like pair (PCIe 252.9 vs SXM
# 271.2 TFLOPS) would put it at 1.311 GHz: the 3 % between the two is the card-to-card spread
# of the sources (C2's cards vs C1's).
A100_PCIE_CLOCK = 1.2701
# C2 (tools/calibrate_gpu.py on vidur_a100.yaml): the PCIe card's GEMV-class kernels stream at
# 83.1 % of its DRAM peak
GEMV_A100_PCIE = 0.8314
A100_PCIE = dataclasses.replace(
    A100, name="a100-pcie", dram_bandwidth=1935e9, sustained_clock_ghz=A100_PCIE_CLOCK,
    gemv_dram_efficiency=GEMV_A100_PCIE,
    nvlink_bandwidth=300e9)  # S2: NVLink bridge, 600 GB/s for a pair of cards

RTX3090 = GPUSpec(
    name="rtx3090",
    sms=82, clock_ghz=1.695,  # S3 Table 9: 82 SMs, boost 1695 MHz (its FP32 and tensor peaks')
    # S3 Table 9: FP16 tensor 71 TFLOPS with FP32 accumulate (the cuBLAS default; 142 with
    # FP16 accumulate), INT8 284 TOPS dense: 256 / 1024 MACs/SM/clk.
    tc_macs=(("fp16", 256), ("bf16", 256), ("int8", 1024)),
    fp16_accumulate_macs=512,  # S3 Table 9: FP16 tensor 142 TFLOPS with FP16 accumulate
    fp32_lanes=128, fp16_lanes=128, int32_lanes=64,  # S3: 35.6 TF FP32 = FP16 (1:1), INT32 half
    registers=256 * KIB, max_registers_per_thread=255,  # S3, S7
    smem=100 * KIB, smem_bytes_per_clock=128,  # S7 (8.6), S8
    compute_capability=86,  # S3, S7: GA102
    # S3: 6 MB L2 in 48 slices of 128 KB (512 KB per 32-bit controller); 64 B/clk per slice as
    # on GA100 (S1: 80 slices, 5120 B/clk) gives 3072 B/clk (derived, no datasheet figure).
    l2=6 * MIB, l2_bytes_per_clock=3072,
    dram_bandwidth=936e9, dram=24 * GIB,  # S3: 19.5 Gbps GDDR6X x 384 bit
    launch_overhead=3e-6,
    # No RTX 3090 measurement found: the A100's measured fractions (C1, C3, C4 at the A100's
    # boost clock, same Ampere third-generation tensor core; C2) and the GDDR6 RTX 2060's
    # BabelStream triad fraction (E4).
    # GeForce boards run GPU Boost above the listed 1695 MHz when power and temperature allow;
    # no public measurement of the clock under a sustained tensor-core load was found, so the
    # sustained clock is the listed boost clock.
    tensor_efficiency=FP16_A100, dtype_efficiency=(("int8", INT8_A100),),
    # C2's GEMV-class fraction (no GDDR6X GEMV measurement)
    dram_efficiency=304.1 / 336, gemv_dram_efficiency=GEMV_A100_PCIE,
    kernel_latency=A100.kernel_latency, gemm_prologue=A100.gemm_prologue,
    dram_latency=A100.dram_latency,  # no GDDR6X latency measurement found: the A100's
    nvlink_bandwidth=56.25e9,  # S3: NVLink bridge 112.5 GB/s total, two GPUs
    allreduce_latency=A100.allreduce_latency, allreduce_hop_latency=A100.allreduce_hop_latency,
    allreduce_efficiency=A100.allreduce_efficiency)

H100 = GPUSpec(
    name="h100",  # H100 SXM5 80GB
    sms=132, clock_ghz=1.83,  # S4/S5: 132 SMs; 989.4 TF / (132 x 4 x 512 x 2) = 1.83 GHz boost
    # S5: 989 TFLOPS FP16/BF16, 1979 TFLOPS FP8, 1979 TOPS INT8 dense (S4 Table 2: FP16 with
    # FP16 or FP32 accumulate alike, so no fp16_accumulate_macs; H200 the same, S6).
    tc_macs=(("fp16", 2048), ("bf16", 2048), ("int8", 4096), ("fp8", 4096)),
    # S4: 128 FP32 / 64 INT32 lanes per SM; S5's 67 TF FP32 is at the 1.98 GHz max boost clock
    # (NVIDIA's final H100 SXM5 specifications: GPU boost clock 1.98 GHz; 67e12 / (132 x 128 x 2)
    # = 1.98 GHz), its tensor-core figures at 1.83 GHz: a kernel without tensor-core work runs at
    # the boost clock, a tensor-core one at the clock its peaks are quoted at (the power limit)
    fp32_lanes=128, fp16_lanes=256, int32_lanes=64, boost_clock_ghz=1.98,
    registers=256 * KIB, max_registers_per_thread=255,  # S4, S7
    smem=228 * KIB, smem_bytes_per_clock=128,  # S7 (9.0), S8
    compute_capability=90,  # S4, S7: GH100
    # S4: 50 MB L2; no bandwidth figure published. GA100's 5120 B/clk is assumed (Chips and
    # Cheese, "Nvidia's H100: Funny L2, and Tons of Bandwidth", 2023, measures H100 PCIe L2
    # bandwidth in the same range as A100's).
    l2=50 * MIB, l2_bytes_per_clock=5120,
    dram_bandwidth=3.35e12, dram=80 * GIB,  # S5
    launch_overhead=3e-6,
    tensor_efficiency=FP16_H100,  # C2
    # C1: the FP8 MAMF (cuBLASLt's best shape); INT8 (same MACs per clock) assumed alike; C5:
    # TensorRT-LLM's FP8 GEMMs at applications' shapes, its own rate
    dtype_efficiency=(("fp8", MAMF_FP8_H100), ("int8", MAMF_FP8_H100)),
    library_efficiency=(("tensorrt_llm", "fp8", FP8_H100),
                        *((lib, d, f) for lib, f in (("tensorrt_llm", TRTLLM_16_H100),
                                                     ("best_shape", BEST_16_H100))
                          for d in ("fp16", "bf16"))),
    dram_efficiency=2.8 / 3.35,  # E3: H100 SXM5 coalesced loads, 83.6 %
    # C2 (tools/calibrate_gpu.py on vidur_h100.yaml)
    kernel_latency=1.5e-6, gemm_prologue=1.71e-6, gemv_dram_efficiency=0.862,
    dram_latency=4.20e-7,
    mma_sync_fraction=MMA_SYNC_HOPPER,  # S10
    wgmma_latency=128.0, smem_latency=29.0,  # S10 Tables VIII and IV (H800)
    wgmma_chain=96.83,  # C8 (tools/calibrate_gpu.py on aiconfigurator_h100_sxm_trtllm_rc3.yaml)
    nvlink_bandwidth=450e9,  # S4: 900 GB/s total = 450 GB/s per direction
    allreduce_latency=5.338e-6, allreduce_hop_latency=8.445e-7,  # C7 (aiconfigurator_nccl)
    allreduce_efficiency=0.6380)

# H200: same GH100 compute, L2, SM and NVLink as H100 SXM (S6); its FP8 fraction is the H100's
# scaled by the two GPUs' FP8 MAMF rows (C1, C5); the other fractions are the H100's (same HBM
# memory controllers).
H200 = dataclasses.replace(
    H100, name="h200",
    dtype_efficiency=(("fp8", MAMF_FP8_H200), ("int8", MAMF_FP8_H200)),  # C1
    library_efficiency=(("tensorrt_llm", "fp8", FP8_H200),  # C1, C5
                        *(e for e in H100.library_efficiency if e[1] != "fp8")),
    dram_bandwidth=4.8e12, dram=141 * 10 ** 9)  # S6: 4.8 TB/s, 141 GB HBM3e

GPUS = {spec.name: spec for spec in (A100, RTX3090, H100, H200, A100_PCIE)}


def gpus_with(*dtypes: str) -> tuple[str, ...]:
    """Names of the registered GPUs (``GPUS``) whose tensor cores take every one of ``dtypes``."""
    return tuple(name for name, spec in GPUS.items() if set(dtypes) <= set(spec.tensor_dtypes))


def gpu_spec(name: str | GPUSpec) -> GPUSpec:
    """The registered spec ``name`` (``GPUS``; a ``GPUSpec`` as it is), or ValueError listing
    the allowed names."""
    return check.named(GPUS, name, what="GPU", record=GPUSpec)


def with_lut_tensor_core(spec: GPUSpec, scale: int = 1, act: str = "fp16") -> GPUSpec:
    """``spec`` with LUT Tensor Cores of ``scale`` x ``LUT_ARRAY_1X`` per tensor core (1, 2, 4,
    8) for ``act`` activations; the MAC tensor cores stay for dense FP16 work (attention)."""
    return dataclasses.replace(spec, name=f"{spec.name}-lut-{scale}x", lut_scale=scale,
                               lut_activation=act)


def with_double_registers(spec: GPUSpec) -> GPUSpec:
    """``spec`` with DRM: twice the register file per SM and per thread (the paper's increased
    register capacity, §4.3; the per-thread limit doubles too, else larger warp tiles could not
    use it)."""
    return dataclasses.replace(spec, name=f"{spec.name}-drm", register_scale=2,
                               registers=2 * spec.registers,
                               max_registers_per_thread=2 * spec.max_registers_per_thread)
