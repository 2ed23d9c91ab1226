"""Tile-level latency models of GEMM and mpGEMM kernels on a ``GPUSpec``.

C[m, n] = A[m, k] W[n, k]^T is cut into threadblock tiles tm x tn (K split ``split_k`` ways),
each computed by warps of wm x wn outputs, output-stationary, operands staged through shared
memory in ``STAGES`` k-slabs of tk. For every candidate tile (``candidates``) the model prices:

- compute: tensor-core (or LUT-array) MACs of the padded tile at the SM's per-clock rate, scaled
  down when fewer than one warp per tensor core is resident;
- cuda_core: CUDA-core work (dequantization, software table lookups and adds, table builds);
- smem: bytes the tile writes into and its warps read from shared memory (each warp reads its
  wm rows of A and wn columns of W for the whole K; software lookups add bank conflicts);
- l2: bytes every tile pulls from L2 (plus split-K partial sums), at the chip's L2 bandwidth;
- dram: compulsory bytes when A and W fit in L2 together, else each wave of concurrent tiles
  (a near-square block of tiles) reads its own A and W panels once.

Per SM the busiest one runs ceil(tiles / SMs) tiles (wave quantization); its pipes overlap, so
one tile costs the max of its compute, CUDA-core and shared-memory times. The kernel takes the
max of that, the L2 time and the DRAM time; the best feasible candidate (registers per thread
and per SM, shared memory, resident threads) is the kernel's latency, as an autotuner picks.
Tensor-core / LUT-array MACs and DRAM run at the spec's measured achievable fractions of the
datasheet peaks (``tensor_efficiency``, ``dram_efficiency``, sources in ``_specs``); the other
rates (CUDA cores, shared memory, L2) are datasheet peaks.

Kernels (``KERNELS``):
- ``cublas``: W and A in one tensor-core format (fp16, bf16, int8, fp8), the cuBLAS/CUTLASS
  baseline;
- ``dequant``: ``weight_bits``-bit weights read from DRAM, dequantized to ``act`` on CUDA cores
  by every tile that uses them (CUTLASS mixed-input GEMM), then tensor-core MMA;
- ``lut_gemm``: LUT-GEMM (Park et al. 2023): FP16 activations, per group of ``LUT_GEMM_MU``
  activations a table of 2^mu partial sums built in shared memory by every threadblock; each
  weight bit-plane byte is one random shared-memory lookup plus a CUDA-core FMA; no tensor cores;
- ``lut_tensor_core``: LMMA on the LUT arrays of a ``with_lut_tensor_core`` spec: bit-serial,
  ``weight_bits`` passes; operand A is the precomputed symmetric K = 4 tables
  (``lutcore.lut.op_counts``), written by the previous operator (``precompute="fused"``) or by
  a separate precompute kernel (``"separate"``: its roofline time is added).
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lutcore.lut import make_scheme, op_counts

from ._specs import GPUSpec

KERNELS = ("cublas", "dequant", "lut_gemm", "lut_tensor_core")
PRECOMPUTE = ("fused", "separate")
ACT_BYTES = {"fp16": 2, "bf16": 2, "int8": 1, "fp8": 1}
STAGES = 3  # CUTLASS sm80 multistage default (cutlass/gemm/device/default_gemm_configuration.h)
BASE_REGISTERS = 32  # per thread: addresses, loop counters, predicates (first-principles estimate)
FRAGMENT_K = 16  # k elements of A/W fragments held in registers per step (mma k16), double-buffered
ACCUMULATOR_BYTES = 4  # FP32 / INT32 accumulators
MAX_THREADS_PER_SM = 2048  # CUDA Programming Guide, compute capability 8.x / 9.0
MAX_CTAS_PER_SM = 32  # idem (8.0, 9.0)
LUT_GROUP = 4  # activations per LUT Tensor Core table (K = 4, §4.2.1)
LUT_GEMM_MU = 8  # LUT-GEMM sub-vector length mu = 8 (Park et al. 2023, §3: 2^8-entry tables)
# Dequantization per weight element (FasterTransformer's fast INT->FP16 conversion, Kim et al.
# 2022 "Who Says Elephants Can't Run"): one LOP3 bit-extract on the INT32 pipe and one
# HFMA2 (magic-number subtract and scale) on the FP16 pipe.
DEQUANT_INT_OPS, DEQUANT_FP_OPS = 1.0, 1.0
# LUT-GEMM per lookup: one LDS of the table entry and one FP16 FMA (scale alpha, accumulate).
LOOKUP_FP_OPS = 1.0
SMEM_BANKS = 32  # 32 banks x 4 bytes (CUDA C++ Best Practices Guide, "Shared Memory")


class GemmLatency(NamedTuple):
    """Latency (s) and its components (s) of one kernel; ``tile_*``/``split_k`` the chosen tile,
    ``waves`` over the SMs, ``registers`` per thread of the chosen tile. All arrays broadcast
    like m, n, k."""

    seconds: jnp.ndarray
    compute: jnp.ndarray
    cuda_core: jnp.ndarray
    smem: jnp.ndarray
    l2: jnp.ndarray
    dram: jnp.ndarray
    precompute: jnp.ndarray
    waves: jnp.ndarray
    tile_m: jnp.ndarray
    tile_n: jnp.ndarray
    tile_k: jnp.ndarray
    split_k: jnp.ndarray
    registers: jnp.ndarray


@functools.lru_cache(maxsize=None)
def candidates(kernel: str) -> dict[str, np.ndarray]:
    """The tile configurations an autotuner would try for ``kernel``: arrays tm, tn, tk, wm, wn,
    warps, split (one entry per candidate). Tensor-core kernels need wm >= 16 (mma m16n8k16);
    LUT Tensor Core warps take LMMA m2n64k4 steps (wm >= 2, wn >= 64), elongated along N;
    LUT-GEMM threads own single rows (wm >= 1)."""
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}; allowed values: {', '.join(KERNELS)}")
    warp_m = {"lut_tensor_core": (2, 4, 8, 16, 32, 64), "lut_gemm": (1, 2, 4, 8, 16, 32)
              }.get(kernel, (16, 32, 64, 128))
    warp_n = {"lut_tensor_core": (64, 128, 256, 512)}.get(kernel, (32, 64, 128, 256))
    layouts = ((1, 1), (1, 2), (2, 1), (2, 2), (1, 4), (4, 1), (2, 4), (4, 2))
    rows = [(wm * ly, wn * lx, tk, wm, wn, ly * lx, split)
            for wm, wn, (ly, lx), tk, split in itertools.product(
                warp_m, warp_n, layouts, (32, 64), (1, 2, 4, 8, 16))]
    table = np.array(rows, dtype=float)
    return dict(zip(("tm", "tn", "tk", "wm", "wn", "warps", "split"), table.T))


def expected_bank_conflict(lanes: int = 32, banks: int = SMEM_BANKS) -> float:
    """Expected serialization of one warp-wide shared-memory load of ``lanes`` independent
    uniformly random words over ``banks`` banks: E[max bank load] (exact, balls into bins)."""
    # P(max load <= c) by dynamic programming over banks: ways to place `lanes` balls with at
    # most c per bank, divided by banks^lanes.
    expectation = 0.0
    for c in range(lanes):  # E[max] = sum_{c>=0} P(max > c)
        ways = np.zeros(lanes + 1)
        ways[0] = 1.0
        for _ in range(banks):
            new = np.zeros(lanes + 1)
            for used in range(lanes + 1):
                if ways[used]:
                    for put in range(min(c, lanes - used) + 1):
                        new[used + put] += ways[used] * math.comb(lanes - used, put)
            ways = new
        expectation += 1.0 - ways[lanes] / float(banks) ** lanes
    return expectation


BANK_CONFLICT = expected_bank_conflict()


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


def check_kernel(gpu: GPUSpec, kernel: str, act: str, weight_bits: int, precompute: str):
    """ValueError naming the bad argument and its allowed values."""
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
    if kernel != "cublas" and weight_bits not in (1, 2, 3, 4, 8):
        raise ValueError(f"{kernel} weight_bits must be one of 1, 2, 3, 4, 8, got {weight_bits}")
    if kernel == "lut_gemm" and act != "fp16":
        raise ValueError(f"lut_gemm supports act 'fp16' only, got {act!r}")
    if kernel == "lut_tensor_core" and not gpu.lut_scale:
        raise ValueError(f"{gpu.name} has no LUT Tensor Core: use with_lut_tensor_core(spec)")
    if kernel in ("cublas", "dequant"):
        gpu.tensor_macs(act)  # raises if this GPU lacks the format


class Hardware(NamedTuple):
    """The numbers of a ``GPUSpec`` and operand formats the tile model uses, as arrays, so one
    compilation serves every GPU variant (LUT scale, DRM) and weight width."""

    sms: jnp.ndarray
    clock: jnp.ndarray  # Hz
    registers: jnp.ndarray  # bytes per SM
    max_registers_per_thread: jnp.ndarray
    smem: jnp.ndarray  # bytes per SM
    smem_bytes_per_clock: jnp.ndarray
    fp16_lanes: jnp.ndarray
    int32_lanes: jnp.ndarray
    l2: jnp.ndarray  # bytes
    l2_bandwidth: jnp.ndarray  # bytes / s
    dram_bandwidth: jnp.ndarray  # bytes / s, achievable (``dram_efficiency`` x peak)
    cuda_core_flops: jnp.ndarray  # FLOP / s
    a_bytes: jnp.ndarray  # bytes per A element as streamed (tables for the LUT Tensor Core)
    w_bytes: jnp.ndarray  # bytes per weight
    weight_bits: jnp.ndarray
    macs: jnp.ndarray  # MACs (LUT: MAC-equivalents) per SM per clock, x tensor_efficiency


def hardware(gpu: GPUSpec, kernel: str, act: str, weight_bits: int, lut_bits: int) -> Hardware:
    """The ``Hardware`` of ``kernel`` on ``gpu`` for ``act`` x ``weight_bits``-bit weights."""
    if kernel == "lut_tensor_core":
        a_bytes, macs = lut_table_bytes(lut_bits), gpu.lut_macs(weight_bits)
    elif kernel == "lut_gemm":
        a_bytes, macs = ACT_BYTES[act], 0.0
    else:
        a_bytes, macs = ACT_BYTES[act], gpu.tensor_macs(act)
    # The LUT arrays are assumed to reach the same fraction of their peak as the MAC tensor
    # cores (same SM operand delivery and clock behaviour; no LUT hardware to measure).
    values = (gpu.sms, gpu.clock, gpu.registers, gpu.max_registers_per_thread, gpu.smem,
              gpu.smem_bytes_per_clock, gpu.fp16_lanes, gpu.int32_lanes, gpu.l2,
              gpu.l2_bandwidth, gpu.achievable_dram_bandwidth, gpu.cuda_core_flops, a_bytes,
              weight_bits / 8, weight_bits, gpu.tensor_efficiency * macs)
    return Hardware(*(jnp.asarray(v, float) for v in values))


def gemm_latency(gpu: GPUSpec, kernel: str, m, n, k, *, act: str = "fp16",
                 weight_bits: int = 16, precompute: str = "fused",
                 lut_bits: int | None = None) -> GemmLatency:
    """Latency of C[m, n] = A[m, k] W[n, k]^T by ``kernel`` on ``gpu``.

    m, n, k: scalars or arrays (broadcast; jit/vmap-able). act: activation format (fp16, bf16,
    int8, fp8); weight_bits: 16/8 for cublas (= the activation format), 1-4 or 8 for the
    mixed-precision kernels; precompute: LUT Tensor Core tables ``"fused"`` into the producer
    or a ``"separate"`` kernel; lut_bits: table entry width (default: 16 for fp16/bf16
    activations, 8 for int8/fp8, the INT8 table quantization of §3.1.3).

    A plain function: its body ``_tile_model`` is compiled once per kernel, and the spec's
    numbers enter as arrays (``hardware``), so GPU variants share one compilation and callers
    may trace it inside their own jit/vmap (also with a spec-like object of array fields).
    """
    check_kernel(gpu, kernel, act, weight_bits, precompute)
    lut_bits = lut_bits or (16 if ACT_BYTES[act] == 2 else 8)
    return _tile_model(hardware(gpu, kernel, act, weight_bits, lut_bits), m, n, k,
                       kernel=kernel, separate=kernel == "lut_tensor_core"
                       and precompute == "separate")


@functools.partial(jax.jit, static_argnames=("kernel", "separate"))
def _tile_model(gpu: Hardware, m, n, k, *, kernel: str, separate: bool) -> GemmLatency:
    """The tile model (module docstring) of ``kernel`` on ``gpu``; ``separate``: add the table
    precompute kernel."""
    m, n, k = (jnp.asarray(x, dtype=float) for x in (m, n, k))
    shape = jnp.broadcast_shapes(m.shape, n.shape, k.shape)
    m, n, k = (jnp.broadcast_to(x, shape)[..., None] for x in (m, n, k))
    c = {name: jnp.asarray(v, float) for name, v in candidates(kernel).items()}
    a_bytes, w_bytes, macs, weight_bits = gpu.a_bytes, gpu.w_bytes, gpu.macs, gpu.weight_bits
    clock = gpu.clock

    k_part = jnp.ceil(k / c["split"])
    tiles_m, tiles_n = jnp.ceil(m / c["tm"]), jnp.ceil(n / c["tn"])
    tiles = tiles_m * tiles_n * c["split"]
    k_pad = jnp.ceil(k_part / c["tk"]) * c["tk"]

    # Register pressure: accumulators + double-buffered operand fragments of one warp tile.
    frag_k = LUT_GEMM_MU if kernel == "lut_gemm" else FRAGMENT_K
    per_warp = (c["wm"] * c["wn"] * ACCUMULATOR_BYTES
                + 2 * frag_k * (c["wm"] * a_bytes + c["wn"] * w_bytes))
    registers = per_warp / 4 / 32 + BASE_REGISTERS
    threads = 32 * c["warps"]
    if kernel == "lut_gemm":
        # tables of the tile's rows for one k-slab, 2^mu FP16 entries per group of mu
        smem_cta = (c["tm"] * c["tk"] / LUT_GEMM_MU * 2 ** LUT_GEMM_MU * 2
                    + STAGES * c["tn"] * c["tk"] * w_bytes)
    else:
        smem_cta = STAGES * c["tk"] * (c["tm"] * a_bytes + c["tn"] * w_bytes)
    ctas = jnp.minimum(
        jnp.minimum(jnp.floor(gpu.registers / (4 * registers * threads)),
                    jnp.floor(gpu.smem / smem_cta)),
        jnp.minimum(jnp.floor(MAX_THREADS_PER_SM / threads), MAX_CTAS_PER_SM))
    feasible = (registers <= gpu.max_registers_per_thread) & (ctas >= 1)
    ctas = jnp.maximum(ctas, 1.0)

    # Per-tile SM time (clocks) on each pipe.
    tile_macs = c["tm"] * c["tn"] * k_pad
    warp_reads = k_pad * (c["tm"] * a_bytes * c["tn"] / c["wn"]
                          + c["tn"] * w_bytes * c["tm"] / c["wm"])
    smem_fill = k_pad * (c["tm"] * a_bytes + c["tn"] * w_bytes)
    cuda = jnp.zeros_like(tile_macs)
    if kernel == "lut_gemm":
        lookups = tile_macs / LUT_GEMM_MU * weight_bits
        builds = c["tm"] * k_pad / LUT_GEMM_MU * 2 ** LUT_GEMM_MU  # one add per entry
        smem_clocks = (lookups * BANK_CONFLICT / SMEM_BANKS
                       + (builds * 2 + c["tn"] * k_pad * w_bytes) / gpu.smem_bytes_per_clock)
        cuda = (lookups * LOOKUP_FP_OPS + builds) / gpu.fp16_lanes
        compute = jnp.zeros_like(tile_macs)
    else:
        smem_clocks = (warp_reads + smem_fill) / gpu.smem_bytes_per_clock
        utilization = jnp.minimum(1.0, ctas * c["warps"] / 4)  # a warp per tensor core
        compute = tile_macs / (macs * utilization)
        if kernel == "dequant":
            weights = c["tn"] * k_pad
            cuda = jnp.maximum(weights * DEQUANT_INT_OPS / gpu.int32_lanes,
                               weights * DEQUANT_FP_OPS / gpu.fp16_lanes)
    tiles_per_sm = jnp.ceil(tiles / gpu.sms)
    sm_time = tiles_per_sm * jnp.maximum(jnp.maximum(compute, cuda), smem_clocks) / clock

    # Chip-level traffic.
    a_total, w_total = m * k * a_bytes, n * k * w_bytes
    partials = jnp.where(c["split"] > 1, 2 * m * n * ACCUMULATOR_BYTES * c["split"], 0.0)
    out = m * n * 2.0
    l2_bytes = tiles * smem_fill + partials + out  # smem_fill: one tile's K share
    # A wave of concurrent tiles (rasterized as a near-square block of R x C tiles) shares its
    # A and W panels through L2; panels are re-read from DRAM wave after wave unless both
    # operands fit in L2 together.
    waves = jnp.ceil(tiles / (gpu.sms * ctas))
    wave_tiles = jnp.minimum(tiles, gpu.sms * ctas)
    rows = jnp.minimum(tiles_m, jnp.ceil(jnp.sqrt(wave_tiles)))
    cols = jnp.minimum(tiles_n * c["split"], jnp.ceil(wave_tiles / rows))
    wave_bytes = k_part * (rows * c["tm"] * a_bytes + cols * c["tn"] * w_bytes)
    compulsory = a_total + w_total
    dram_bytes = jnp.where(compulsory <= gpu.l2, compulsory,
                           jnp.maximum(compulsory, waves * wave_bytes)) + out
    l2_time = l2_bytes / gpu.l2_bandwidth
    dram_time = dram_bytes / gpu.dram_bandwidth

    total = jnp.maximum(sm_time, jnp.maximum(l2_time, dram_time))
    total = jnp.where(feasible, total, jnp.inf)
    best = jnp.argmin(total, axis=-1)[..., None]

    def pick(x):
        return jnp.take_along_axis(jnp.broadcast_to(x, total.shape), best, axis=-1)[..., 0]

    scale = tiles_per_sm / clock
    pre = jnp.zeros(shape)
    if separate:
        # Own kernel: read FP16 activations, write tables; one add per CUDA-core lane-op.
        activations = m[..., 0] * k[..., 0]
        pre = jnp.maximum(activations * (2.0 + a_bytes) / gpu.dram_bandwidth,
                          activations * lut_precompute_adds() / (gpu.cuda_core_flops / 2))
    return GemmLatency(
        seconds=pick(total) + pre, compute=pick(compute * scale), cuda_core=pick(cuda * scale),
        smem=pick(smem_clocks * scale), l2=pick(l2_time), dram=pick(dram_time), precompute=pre,
        waves=pick(waves), tile_m=pick(c["tm"]),
        tile_n=pick(c["tn"]), tile_k=pick(c["tk"]), split_k=pick(c["split"]),
        registers=pick(registers))


def peak_ops(gpu: GPUSpec, kernel: str, *, act: str = "fp16", weight_bits: int = 16) -> float:
    """Datasheet peak ops per second (2 per MAC) of the unit ``kernel`` multiplies on: the
    tensor cores of ``act``, the LUT arrays for ``weight_bits``, or the FP16 CUDA cores
    (``lut_gemm``); no efficiency factor."""
    if kernel == "lut_tensor_core":
        return gpu.lut_peak(weight_bits)
    if kernel == "lut_gemm":
        return 2.0 * gpu.fp16_lanes * gpu.sms * gpu.clock
    return gpu.tensor_peak(act)


def is_lut_kernel(kernel: str) -> bool:
    """True for kernels whose operand A is a precomputed table (the LUT Tensor Core)."""
    return kernel == "lut_tensor_core"
