"""GPU specifications from datasheets and whitepapers, and the LUT Tensor Core / DRM variants.

Sources (S1-S8), cited per field below:
S1 NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 1/3 and "L2 cache" section.
S2 NVIDIA A100 datasheet (80GB SXM4: 2,039 GB/s HBM2e).
S3 NVIDIA Ampere GA102 GPU Architecture whitepaper (2020), Appendix A Table 9 (RTX 3090).
S4 NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Table 2/3.
S5 NVIDIA H100 datasheet (SXM: 3.35 TB/s HBM3, 989 TFLOPS FP16 dense = half the sparse value).
S6 NVIDIA H200 datasheet (SXM: 141 GB HBM3e, 4.8 TB/s; same GH100 compute as H100 SXM).
S7 CUDA C++ Programming Guide, "Compute Capabilities" table: 64 K 32-bit registers per SM,
   255 registers per thread, max shared memory per SM 164 KB (8.0), 100 KB (8.6), 228 KB (9.0).
S8 Shared memory / L1 return bandwidth 128 B per clock per SM (32 banks x 4 B; NVIDIA
   developer forum, "Unexpected shared memory bank conflict", answer by NVIDIA staff), the
   bandwidth Jia et al. also measure ("Dissecting the NVIDIA Volta GPU architecture via
   microbenchmarking", 2018, shared memory section).

Achievable fractions of the peaks (E1-E4), public measurements, none of them the LLMCompass
data ``lut-fig16`` validates against:
E1 S. Bekman, "Machine Learning Engineering", github.com/stas00/ml-engineering,
   compute/accelerator/README.md, "Maximum Achievable Matmul FLOPS comparison table": best BF16
   torch.matmul over a brute-force shape search (mamf-finder.py), CUDA 12.1: A100 SXM 267.9 of
   312 TFLOPS (85.9 %, best shape 6912x16384x2048), H100 SXM 792.1 of 989 TFLOPS (80.1 %,
   6144x17920x2816).
E2 NVIDIA developer forum, "Trouble to Reach Peak Bandwidth of A100"
   (forums.developer.nvidia.com/t/trouble-to-reach-peak-bandwidth-of-a100/339083): a tuned DRAM
   read kernel on an A100 80GB SXM reaches 1.80 of 2.039 TB/s, Nsight Compute 88 % of peak
   (the thread notes the best kernel of a GTC talk also stays near 90 %).
E3 M. Mirai, "GPU Memory Bandwidth: What Your Profiler Isn't Telling You" (mikamirai.com/blog/
   gpu-memory-bandwidth, 2026), Nsight Compute on H100 SXM5: coalesced matrix loads 2.8 of
   3.35 TB/s (84 %).
E4 alpaka-group/alpaka issue #1874 "Optimize Babelstream for GPU": BabelStream 4.0 (double,
   268 MB arrays) on a GeForce RTX 2060 (GDDR6, 336 GB/s): triad 304.1 GB/s (90.5 %).

All values are dense (no 2:4 sparsity). Throughputs are stored per SM per clock so that the
LUT-array and frequency variants follow from first principles. The peaks (``tensor_peak``,
``lut_peak``, ``dram_bandwidth``) stay the datasheet values; the kernel models run at
``tensor_efficiency`` / ``dram_efficiency`` of them.
"""

from __future__ import annotations

import dataclasses

TENSOR_DTYPES = ("fp16", "bf16", "int8", "fp8")
LUT_SCALES = (1, 2, 4, 8)
LUT_ACTIVATIONS = ("fp16", "int8", "fp8")
# 1x LUT array = M x N x K = 512 lookups-with-K per tensor core per clock, the size of the A100
# INT8 tensor core (M, N, K = 8, 4, 16) (LUT Tensor Core §4.2.2 and Fig. 15 caption).
LUT_ARRAY_1X = 512
TENSOR_CORES_PER_SM = 4  # S1, S3, S4: four tensor cores per SM (one per SM sub-partition)


@dataclasses.dataclass(frozen=True)
class GPUSpec:
    """One GPU. Throughputs per SM per clock (dense MAC = 2 ops); sizes in bytes; clock in GHz;
    bandwidths in bytes per second. ``lut_scale`` 0: no LUT Tensor Core; 1/2/4/8: LUT arrays of
    that many times ``LUT_ARRAY_1X`` per tensor core. ``register_scale`` 2: doubled registers
    (the paper's "Double Register Modeling", DRM)."""

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
    launch_overhead: float  # seconds per kernel launch (back-to-back, in a stream)
    tensor_efficiency: float  # achievable fraction of the tensor-core / LUT-array peak (E1)
    dram_efficiency: float  # achievable fraction of dram_bandwidth (E2-E4)
    lut_scale: int = 0
    lut_activation: str = ""
    register_scale: int = 1

    def __post_init__(self):
        dtypes = [d for d, _ in self.tc_macs]
        if any(d not in TENSOR_DTYPES for d in dtypes):
            raise ValueError(f"{self.name}: tensor dtypes {dtypes} not in {TENSOR_DTYPES}")
        if self.lut_scale not in (0,) + LUT_SCALES:
            raise ValueError(f"lut_scale {self.lut_scale!r} unknown; allowed values: "
                             f"{', '.join(map(str, LUT_SCALES))}")
        if self.lut_scale and self.lut_activation not in LUT_ACTIVATIONS:
            raise ValueError(f"LUT activation {self.lut_activation!r} unknown; allowed values: "
                             f"{', '.join(LUT_ACTIVATIONS)}")
        if self.register_scale not in (1, 2):
            raise ValueError(f"register_scale must be 1 or 2, got {self.register_scale!r}")
        for field in ("tensor_efficiency", "dram_efficiency"):
            if not 0 < getattr(self, field) <= 1:
                raise ValueError(f"{self.name}: {field} must be in (0, 1], "
                                 f"got {getattr(self, field)!r}")

    @property
    def clock(self) -> float:
        """Clock in Hz."""
        return self.clock_ghz * 1e9

    def tensor_macs(self, dtype: str) -> int:
        """Dense tensor-core MACs per SM per clock for ``dtype`` (ValueError if absent)."""
        for name, macs in self.tc_macs:
            if name == dtype:
                return macs
        raise ValueError(f"{self.name} has no {dtype} tensor cores; allowed values: "
                         f"{', '.join(d for d, _ in self.tc_macs)}")

    def tensor_peak(self, dtype: str) -> float:
        """Dense tensor-core peak, ops per second (2 per MAC)."""
        return 2.0 * self.tensor_macs(dtype) * self.sms * self.clock

    def lut_macs(self, weight_bits: int) -> float:
        """LUT Tensor Core MAC-equivalents per SM per clock for ``weight_bits``-bit weights:
        bit-serial, one pass per weight bit (§3.2.2); 0 without LUT arrays."""
        return self.lut_scale * LUT_ARRAY_1X * TENSOR_CORES_PER_SM / weight_bits

    def lut_peak(self, weight_bits: int) -> float:
        """LUT Tensor Core peak, ops per second (2 per MAC-equivalent)."""
        return 2.0 * self.lut_macs(weight_bits) * self.sms * self.clock

    @property
    def cuda_core_flops(self) -> float:
        """FP32 CUDA-core FLOP/s (2 per FMA)."""
        return 2.0 * self.fp32_lanes * self.sms * self.clock

    @property
    def l2_bandwidth(self) -> float:
        return self.l2_bytes_per_clock * self.clock

    @property
    def achievable_dram_bandwidth(self) -> float:
        """DRAM bytes per second a streaming kernel reaches: ``dram_efficiency`` x the peak."""
        return self.dram_efficiency * self.dram_bandwidth


KIB, MIB, GIB = 1024, 1024 ** 2, 1024 ** 3

A100 = GPUSpec(
    name="a100",  # A100 SXM4 80GB
    sms=108, clock_ghz=1.41,  # S1 Table 3: 108 SMs, boost 1410 MHz
    # S1 Table 1: 312 TFLOPS FP16/BF16, 624 TOPS INT8 dense = 1024 / 2048 MACs/SM/clk;
    # no FP8 on Ampere.
    tc_macs=(("fp16", 1024), ("bf16", 1024), ("int8", 2048)),
    fp32_lanes=64, fp16_lanes=256, int32_lanes=64,  # S1: 19.5 TF FP32, 78 TF FP16, 19.5 TOPS INT32
    registers=256 * KIB, max_registers_per_thread=255,  # S1, S7
    smem=164 * KIB, smem_bytes_per_clock=128,  # S7 (8.0), S8
    l2=40 * MIB, l2_bytes_per_clock=5120,  # S1: 40 MB L2, 5120 B/clk read bandwidth
    dram_bandwidth=2039e9, dram=80 * GIB,  # S2
    # ~3 us per launch: CUDA launch latency measured back-to-back on Ampere (Jia et al.-style
    # microbenchmarks report 2-5 us; NVIDIA CUDA Best Practices: "a few microseconds").
    launch_overhead=3e-6,
    tensor_efficiency=267.9 / 312,  # E1: A100 SXM MAMF, 85.9 %
    dram_efficiency=1.80 / 2.039)  # E2: A100 80GB SXM read kernel, 88.3 %

RTX3090 = GPUSpec(
    name="rtx3090",
    sms=82, clock_ghz=1.695,  # S3 Table 9: 82 SMs, boost 1695 MHz
    # S3 Table 9: FP16 tensor 71 TFLOPS with FP32 accumulate (the cuBLAS default; 142 with
    # FP16 accumulate), INT8 284 TOPS dense: 256 / 1024 MACs/SM/clk.
    tc_macs=(("fp16", 256), ("bf16", 256), ("int8", 1024)),
    fp32_lanes=128, fp16_lanes=128, int32_lanes=64,  # S3: 35.6 TF FP32 = FP16 (1:1), INT32 half
    registers=256 * KIB, max_registers_per_thread=255,  # S3, S7
    smem=100 * KIB, smem_bytes_per_clock=128,  # S7 (8.6), S8
    # S3: 6 MB L2 in 48 slices of 128 KB (512 KB per 32-bit controller); 64 B/clk per slice as
    # on GA100 (S1: 80 slices, 5120 B/clk) gives 3072 B/clk (derived, no datasheet figure).
    l2=6 * MIB, l2_bytes_per_clock=3072,
    dram_bandwidth=936e9, dram=24 * GIB,  # S3: 19.5 Gbps GDDR6X x 384 bit
    launch_overhead=3e-6,
    # No RTX 3090 measurement found: assumed the A100's measured fraction (E1; same Ampere
    # third-generation tensor core) and the GDDR6 RTX 2060's BabelStream triad fraction (E4).
    tensor_efficiency=267.9 / 312, dram_efficiency=304.1 / 336)

H100 = GPUSpec(
    name="h100",  # H100 SXM5 80GB
    sms=132, clock_ghz=1.83,  # S4/S5: 132 SMs; 989.4 TF / (132 x 4 x 512 x 2) = 1.83 GHz boost
    # S5: 989 TFLOPS FP16/BF16, 1979 TFLOPS FP8, 1979 TOPS INT8 dense.
    tc_macs=(("fp16", 2048), ("bf16", 2048), ("int8", 4096), ("fp8", 4096)),
    # S4: 128 FP32 / 64 INT32 lanes per SM; its 67 TF FP32 is at the 1.98 GHz max boost, at the
    # 1.83 GHz of the tensor-core figures the lanes give 61.8 TF.
    fp32_lanes=128, fp16_lanes=256, int32_lanes=64,
    registers=256 * KIB, max_registers_per_thread=255,  # S4, S7
    smem=228 * KIB, smem_bytes_per_clock=128,  # S7 (9.0), S8
    # S4: 50 MB L2; no bandwidth figure published. GA100's 5120 B/clk is assumed (Chips and
    # Cheese, "Nvidia's H100: Funny L2, and Tons of Bandwidth", 2023, measures H100 PCIe L2
    # bandwidth in the same range as A100's).
    l2=50 * MIB, l2_bytes_per_clock=5120,
    dram_bandwidth=3.35e12, dram=80 * GIB,  # S5
    launch_overhead=3e-6,
    tensor_efficiency=792.1 / 989,  # E1: H100 SXM MAMF, 80.1 %
    dram_efficiency=2.8 / 3.35)  # E3: H100 SXM5 coalesced loads, 83.6 %

# No H200 measurement found: the H100's measured fractions (E1, E3) are kept (same GH100 compute
# and HBM memory controllers).
H200 = dataclasses.replace(
    H100, name="h200",  # S6: same GH100 compute, L2 and SM as H100 SXM
    dram_bandwidth=4.8e12, dram=141 * 10 ** 9)  # S6: 4.8 TB/s, 141 GB HBM3e

GPUS = {spec.name: spec for spec in (A100, RTX3090, H100, H200)}


def gpu_spec(name: str) -> GPUSpec:
    """The registered spec ``name`` (``GPUS``), or ValueError listing the allowed names."""
    if name not in GPUS:
        raise ValueError(f"unknown GPU {name!r}; allowed values: {', '.join(GPUS)}")
    return GPUS[name]


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


def dram_bandwidth(spec: GPUSpec) -> float:
    """Datasheet peak DRAM bytes per second."""
    return spec.dram_bandwidth


def achievable_dram_bandwidth(spec: GPUSpec) -> float:
    """DRAM bytes per second the kernel models use: ``dram_efficiency`` x the peak."""
    return spec.achievable_dram_bandwidth


def cuda_core_flops(spec: GPUSpec) -> float:
    """FP32 CUDA-core FLOP/s."""
    return spec.cuda_core_flops


def launch_overhead(spec: GPUSpec) -> float:
    """Seconds per kernel launch."""
    return spec.launch_overhead

