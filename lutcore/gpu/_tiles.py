"""The tile-level GEMM model, in named stages: candidate tiles, occupancy, pipe times, traffic,
selection. ``tile_model`` composes them; ``lutcore.gpu._kernels`` says what each kernel feeds it.

C[m, n] = A[m, k] W[n, k]^T is cut into threadblock (CTA) tiles tm x tn (K split ``split``
ways), computed by MMA groups of wm x wn outputs, output-stationary, operands staged through
shared memory in k-slabs of tk. For every candidate tile:

- occupancy: registers per thread (accumulators spread over the MMA group's threads, plus
  operand fragments held in registers), shared memory per CTA (stages x slab), resident CTAs
  per SM and whether the tile fits at all;
- pipe times per tile, in SM clocks: tensor-core (or LUT-array) MACs of the padded tile,
  scaled down when fewer MMA groups than tensor cores are resident; CUDA-core work
  (dequantization, software lookups, table builds); shared-memory bytes written (the slabs) and
  read (each MMA group reads its wm rows of A and wn columns of W for the whole K);
- traffic: bytes every tile pulls from L2 (rows and columns that exist, no padding) plus
  split-K partial sums and the output (D written, C read first where beta != 0, in the
  ``Setup``'s output format), and DRAM bytes: compulsory when A and W fit in L2 together, else each
  wave of concurrent tiles (a near-square block) reads its own A and W panels once;
- selection: the SM busiest with ceil(tiles / SMs) tiles overlaps its pipes (a tile costs the
  max of them); the kernel takes the max of that, the L2 time and the DRAM time, plus the fixed
  device time of a kernel (``kernel_latency``) and the pipeline fill and epilogue of its tiles
  (``tile_prologue``, once per round of tiles when one CTA fills an SM, ``prologues``); the
  fastest feasible candidate is the kernel, as an autotuner (or cuBLAS's heuristics) picks.

Candidate tiles are the ones the libraries ship, not every tile one could write:
T1 CUTLASS library generator (NVIDIA/cutlass, python/cutlass_library/generator.py,
   GenerateSM80_TensorOp_16816): SM80 tensor-core CTA tiles 256x128, 128x256, 256x64, 64x256,
   128x128, 128x64, 64x128, 64x64 with k-slabs of 32 or 64, 3-10 stages, warp tiles 64x64 /
   64x32 / 32x64 / 32x32 (mma.sync, one warp per MMA); cuBLAS adds small-M (GEMV-class) tiles
   of 16 rows, modelled as 16 x {64, 128, 256} with one or two warps per CTA column.
T2 CUTLASS 3 (GenerateSM90_TensorOp_16b_WGMMA_gemm, warp-specialized kernels): SM90 CTA tiles
   {64, 128, 256} x {64, 128, 256} (up to 256 x 128 / 128 x 256), k-slab 64, one producer
   warpgroup plus one consumer warpgroup per 64 rows (wgmma m64nNk16: the group tile is
   64 x tn), as many stages as shared memory holds ("StageCountAutoCarveout").
T3 Split-K (CUTLASS GemmSplitKParallel, cuBLAS heuristics): only where tiles leave SMs idle.
T4 Stream-K (Osama et al., "Stream-K: Work-centric Parallel Decomposition for Dense
   Matrix-Matrix Multiplication on the GPU", PPoPP 2023; CUTLASS 3 sm90 persistent kernels'
   StreamKScheduler): a persistent kernel splits the MAC iterations of all tiles evenly over the
   SMs, so there is no partial last wave; each SM's boundary tile is completed by a partial-sum
   fixup through L2. Offered for the SM90 tiles whose output tiles fill at least one wave of
   resident CTAs: stream-K removes a partial last wave, and below one wave the decomposition is
   split-K (T3) with its second kernel (T10). cuBLAS's choice is not public; this one is read
   off the H100 calibration sets (aiconfigurator_h100_sxm*.yaml: TensorRT-LLM, vLLM and SGLang
   alike): at M <= 256 the 8-16 output tiles of N = 1024, K = 4096 take 1.6-2.5 us more than
   the same bytes as 32-64 tiles of N = 4096, K = 1024, a second kernel's fixed cost, where a
   stream-K kernel would spread either over every SM in one kernel (Vidur's H100 GEMMs 8.2 ->
   6.9 % MAPE, aiconfigurator's TensorRT-LLM BF16 / FP8 5.5 -> 4.7 %, before the refit).
T5 Epilogue: a CTA stores its finished tile (reading C first where beta != 0) after its mainloop.
   Where every tile takes the same time the SMs reach their epilogues together, co-resident CTAs
   of a wave included, and the store runs after the mainloop at the DRAM rate (the output's bytes
   / DRAM bandwidth): the kernels without warp specialization (tiles of group 0 or 1: the
   mma.sync kernels with CUTLASS 2.x epilogues, cuBLAS's and CUTLASS's Ampere kernels,
   TensorRT-LLM's sm80 tactics, fpA_intB, Marlin; the CUDA-core GEMV and LUT-GEMM; the LUT Tensor
   Core's LMMA tiles) and SM90 kernels whose consumer warpgroups store a finished tile before the
   next tile's MMAs (``Work.serial_store``). Other SM90 kernels overlap it (asynchronous TMA
   stores, or a Ping-Pong kernel whose other consumer warpgroup runs its mainloop meanwhile: L.
   Wright, A. Hoque, "Deep Dive on CUTLASS Ping-Pong GEMM Kernel",
   pytorch.org/blog/cutlass-ping-pong-gemm-kernel, 2024): the output is mainloop traffic.
   Measured, not assumed: DeepGEMM's FP8 kernel (measured/deepgemm_h800.yaml: its rate's fall
   with K at M = 4096 follows a DRAM-rate serial store, neither an overlapped nor an L2-rate one)
   stores serially; cuBLAS's H100 kernels (the compute-bound GEMMs of measured/vidur_h100.yaml: a
   serial store biases them from -8 % to +9 % as the output's share grows; overlapped, flat) do
   not; on the A100 calibration sets the serial store of the mma.sync kernels removes most of the
   trend in the output's share (TensorRT-LLM's K = 1024 rows, the largest share, from -31..0 % to
   -24..+11 % in BF16 and -26..-18 % to -14..-3 % in SmoothQuant INT8, the A100 fractions refit:
   its table 11.31 -> 11.02 %, SGLang's 9.01 -> 8.65 %, vLLM's 9.42 -> 8.89 %; LLMServingSim's
   RTX 3090 projections 10.50 -> 10.08 %; Vidur's 5.89 -> 5.90 %; worse: the A100 attention table
   10.65 -> 10.85 %, Vidur's layers 3.30 -> 3.46 %).
T6 fpA_intB (the FasterTransformer / TensorRT-LLM weight-only CUTLASS kernels, as TVM builds
   them: tlc-pack/cutlass_fpA_intB_gemm@390e821 and @74ee6cb, cutlass_heuristic.cc and
   fpA_intB_gemm_template.h): CTA tiles 32 / 64 / 128 x 128 x 64 of four warps side by side
   along N (warp tile = the CTA's rows x 32), 2-4 stages, no split-K (TVM passes no
   workspace); a heuristic, not the fastest tile, picks one (``cutlass_heuristic``).
T8 TensorRT-LLM's weight-only plugin (NVIDIA/TensorRT-LLM, plugins/weightOnlyQuantMatmulPlugin
   and kernels/cutlass_kernels/cutlass_heuristic.cpp@0b53e94, get_candidate_tiles /
   get_candidate_configs): on sm80 the same fpA_intB CUTLASS kernels on tiles 16 x 128, 16 x
   256, 32 x 128, 64 x 128, 128 x 128 (k-slab 64, four warps along N), 2-4 stages, serial
   split-K 1-7 where K / split is a whole number of k-slabs (fpA_intB_gemm_template.h@03cff08:
   the interleaved weight layout; mma.sync: SM80 only); on sm90 (get_candidate_configs_sm90,
   HOPPER flag set by the fpA_intB runner, fpA_intB_gemm_template.h@03cff08 dispatch_to_arch)
   the CUTLASS 3 TMA warp-specialized mixed-input kernels
   (fpA_intB_gemm_template_sm90.h@1020a8d): A and B swapped so the weights are the wgmma's
   register operand, CTA 64 or 128 weight rows (N) x 16, 32, 64, 128 or 256 tokens (M), k-slab
   128 bytes of activations (64 FP16), Ping-Pong for 64 rows and Cooperative for 128 (one
   producer and two consumer warpgroups either way), no split-K; each consumer warpgroup
   converts its 64 weight rows, the next k-block's while its wgmma runs (and T12). The
   64-row tiles run under CUTLASS's persistent scheduler, the 128-row ones under its stream-K
   scheduler (``TileScheduler``, launchers/fpA_intB_launcher_sm90.inl at TensorRT-LLM@2a9abd9,
   of the 1.x cutlass_kernels_oss layout, and its 2026 versions; onnxruntime's port of it,
   contrib_ops/cuda/llm/fpA_intB_gemm, from 2025), whose default heuristic decides per problem
   (``streamk_units``), its workspace zeroed by a memset first. The plugin profiles every
   tactic when the engine is built and runs the fastest at the profiled M (selection
   ``"profiled"``, T11); its batched GEMV CUDA kernel (weightOnlyBatchedGemv/kernelDispatcher.h
   @16d2467: CtaM = M for M = 1-15, CtaN = 8 columns x the layout's interleave, 2 for INT8 and
   4 for INT4, 128 threads, the whole K per CTA) is one more profiled tactic below M = 16
   (``enableCudaKernel``; the 1.x plugin, weightOnlyQuantMatmulPlugin.cpp after the "TensorRT
   LLM" rename and its header at 2a9abd9: checkTactic "stop to profile Cuda kernel for m >=
   16", enqueue runs the profiler's best tactic at every M, no SMALL_M_FAST_PATH left; the
   0.x plugin forced it below M = 5), on either architecture: tiles of
   16 rows x 8 columns x its layout's interleave, no split-K, priced on the CUDA cores alone
   from its source (``_gemv``: a conversion per weight, an HFMA2 per weight pair and row, the
   warp reduction, at the boost clock).
T10 Split-K adds a device operation before or after the GEMM kernel: a serial split-K kernel's
   semaphores are zeroed first (CUTLASS GemmUniversalBase::initialize, cudaMemsetAsync of the
   workspace), a parallel one's partial sums are reduced by a second kernel (CUTLASS
   GemmSplitKParallel, ReduceSplitK); either costs one more kernel's fixed device time. A serial
   split-K kernel's CTAs of one output tile also take turns in the epilogue (``serial_fixup``).
T9 TensorRT-LLM's SmoothQuant INT8 GEMM plugin (plugins/smoothQuantGemmPlugin: profileGemms, the
   fastest tactic; cutlass_heuristic.cpp, the Int8 tiles 32 x 128, 64 x 128, 128 x 64 (k-slab
   64), 64 x 64 (k-slab 128), 128 x 256, 256 x 128 with their warp tiles, 3-6 stages, serial
   split-K 1-7), as its runner runs them (cutlass_kernels/int8_gemm/int8_gemm_template.h@23bc5b7):
   the 128 x 64 tactic dispatches a 128 x 128 CTA tile (warps 64 x 32), the launcher passes a
   batch count of 1 (GemmUniversalMode::kBatched), so no tactic splits K; sm80 mma.sync
   kernels on every GPU (dispatchToArch: Sm80 for sm 80-90; its sm90 tactics would need the
   HOPPER flag, which the INT8 runner does not set). For every M <= 4 the plugin runs its CUDA
   kernel instead, unprofiled (SmoothQuantGemmPlugin::enqueue, ``if (m <= 4)`` ->
   ``smooth_quant::int8_sq_launcher``, in the 1.x plugin, the version of the "TensorRT LLM"
   rename; ``_gemv.sq_gemv_clocks``), and the CUTLASS tactics only above.
T11 TensorRT-LLM's GEMM plugins (weight-only, SmoothQuant) pick their tactic from a profile
   (plugins/common/gemmPluginProfiler.cpp@c85e872): the engine build times every tactic at
   the powers of two up to the next one at or above its largest M (at most MAX_PROFILE_M,
   getMaxProfileM), the weight-only plugin with its CUDA kernel also at every M below 16
   (hasWeightOnlyCudaKernel), and a run at M takes the fastest of M itself where it was
   profiled, else of the power of two at or above M (getBestConfig): a run at M = 80 runs the
   tactic that was fastest at M = 128 (selection ``"profiled"``). aiconfigurator's 1.2.0rc5
   quantized rows (H200) ran this way too, not through the PyTorch flow's autotuner: the
   commit that added them (13669a1) ran collect_gemm_trt.py, a static-shape engine per row,
   and their kernel_source names the plugin layer (tools/mixed_input_gap.py).
T12 sm90 mixed-input main loop (cutlass@044405c, sm90_mma_tma_gmma_rs_warpspecialized_mixed_
   input.hpp ``mma``): a consumer warpgroup waits for a k-tile's first wgmma, then loads and
   converts the next tile's first weights: a k-tile takes >= a wgmma's + an LDS's latency.
   TensorRT-LLM's sm90 weight-only tiles run its interleaved copy (both launchers of T8;
   sm90_mma_interleaved_tma_gmma_rs_warpspecialized_mixed_input.hpp@1bced69 ``mma``): after
   each k16 block's wgmma it waits until K_BLOCK_MAX - type_factor / 2 are in flight (of a
   64-deep tile's 4: INT8 3, INT4 2), then converts the next register buffer (``rs_convert``;
   INT4 two k-blocks at every other block), after the next tile's LDS at a tile's last block:
   a wgmma's latency is exposed once per 4 k-blocks for INT8, once per 3 for INT4, and a k-tile
   takes its loop's longest dependence cycle, or its CTA's wgmmas at the SM's calibrated
   ``wgmma_chain`` each if longer (``_rsloop``; 128-row tiles issue twice as many). Its
   mbarrier wait for the next stage is polled a k-tile early (consumer_try_wait at block 0),
   its release of the last one does not wait: where the loads keep up (the memory pipe, priced
   apart) neither adds to the chain. Stages fill shared memory (sm90_gmma_builder.inl
   compute_stage_count_or_override_single_affine_transformed_input: no cap): one CTA an SM.
T13 A TensorRT engine built without a GEMM plugin runs, at every M of an optimization profile,
   the tactic its builder timed fastest at the profile's optimum dimensions ("The builder
   selects the kernels that result in the lowest runtime for the optimum input tensor
   dimensions, and are valid for all input tensor sizes in the valid range", TensorRT
   ``IOptimizationProfile``): the fastest at ``Work.tuned_at`` (selection ``"engine"``),
   run at M without the library heuristics that only choose tactics (T3, T4).
T14 CUTLASS's sm80 multistage main loop (mma_multistage.h, its mixed-input kernels' too;
   TensorRT-LLM's DqMmaMultistage, fpA_intB's at every stage count on sm80; Marlin's own loop
   alike) waits on its cp.async groups with Stages - 2 pending: over a long loop a k-tile takes
   >= (a DRAM round trip + its work) / (Stages - 1) (``_multistage``): T6-T9 and CUTLASS's own
   kernels on T1's tiles (``("library", True)``); cuBLAS's waits are not public.
T7 Marlin (IST-DASLab/marlin@512f1b1, marlin/marlin_cuda_kernel.cu): 8 warps, 4 stages, one
   CTA per SM (a grid of as many CTAs as SMs, 96 KiB of shared memory each) walking stripes of
   k-tiles (no partial wave; a slice split between CTAs is reduced through L2); the tile follows
   M: 16 x 128 x 128 for M <= 16 (2 warps along N x 4 along K), else (16 x min(ceil(M / 16), 4))
   x 256 x 64 (4 along N x 2 along K); at most 1024 rows per launch (``MARLIN_ROWS_PER_LAUNCH``).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from ._gemv import CUDA_KERNEL_CLOCKS, gemv_columns
from ._multistage import multistage_clocks
from ._rsloop import rs_ktile
from ._streamk import serial_fixup, streamk_units
from ._ties import timed_choice
from ._tile_records import GemmLatency, Hardware, Occupancy, Pipes, Traffic, Work
from ._tile_tables import STAGES, TRTLLM_SQ_GEMV_MAX_M, candidate_table

MAX_STAGES = 8  # T2: auto stage count, capped (CUTLASS 3 sm90 collective builders)
BASE_REGISTERS = 32  # per thread: addresses, loop counters, predicates (first-principles estimate)
FRAGMENT_K = 16  # k elements of A/W fragments held in registers per step (mma k16), double-buffered
MAX_THREADS_PER_SM = 2048  # CUDA Programming Guide, compute capability 8.x / 9.0
MAX_CTAS_PER_SM = 32  # idem (8.0, 9.0)
SMEM_BANKS = 32  # 32 banks x 4 bytes (CUDA C++ Best Practices Guide, "Shared Memory")
# "CUDA reserves 1 KB of shared memory per thread block" (NVIDIA Ampere and Hopper Tuning
# Guides, "Unified Shared Memory/L1/Texture Cache"): an SM of 164 KB holds 2 CTAs of 81 KB
SMEM_RESERVED = 1024
MARLIN_ROWS_PER_LAUNCH = 1024  # 64 rows x max_par 16 (marlin/__init__.py mul's default)
# T11: the largest M a TensorRT-LLM GEMM plugin profiles, and the M below which the weight-only
# plugin profiles every M (gemmPluginProfiler.cpp@c85e872)
MAX_PROFILE_M, PROFILED_EVERY_M_BELOW = 8192, 16
# T8's GEMV: the largest M its plugin profiles it at
TRTLLM_WO_GEMV_MAX_M = 15
BARE_WORK = Work()  # the library's tensor-core tiles, as an autotuner picks them

def marlin_tile(m):
    """Index into ``marlin_candidates`` of the tile Marlin runs for M rows (of one launch)."""
    return jnp.where(m <= 16, 0, jnp.minimum(jnp.ceil(m / 16), 4)).astype(int)


def occupancy(hw: Hardware, c: dict, work: Work) -> Occupancy:
    """Registers, stages, shared memory and resident CTAs of every candidate ``c`` on ``hw``."""
    group = jnp.maximum(c["group"], 1.0)
    frag_k = work.lookup_mu or FRAGMENT_K
    # Accumulators spread over the MMA group's threads; mma.sync also double-buffers operand
    # fragments in registers, wgmma reads them from shared memory (S9).
    fragments = jnp.where(group > 1, 0.0,
                          2 * frag_k * (c["wm"] * hw.a_bytes + c["wn"] * hw.w_bytes))
    accumulators = c["wm"] * c["wn"] * hw.accumulator_bytes / 4 / (32 * group)
    registers = accumulators + fragments / 4 / (32 * group) + BASE_REGISTERS
    threads = 32 * c["warps"]
    if work.lookup_mu:  # tables of the tile's rows for one k-slab, 2^mu FP16 entries per mu
        slab = c["tm"] * c["tk"] / work.lookup_mu * 2 ** work.lookup_mu * 2
        stages = jnp.full_like(c["tm"], STAGES)
        smem = slab + stages * c["tn"] * c["tk"] * hw.w_bytes
    else:
        slab = c["tk"] * (c["tm"] * hw.a_bytes + c["tn"] * hw.w_bytes)
        fit = jnp.floor((hw.smem - SMEM_RESERVED) / slab)
        stages = jnp.where(c["stages"] > 0, c["stages"], jnp.clip(fit, 2, MAX_STAGES))
        if work.rs_dequant_ops != (0.0, 0.0):  # T12: its builder's stages fill the SM
            stages = jnp.where(c["group"] == 4, jnp.maximum(fit, 2), stages)
        smem = stages * slab
    ctas = jnp.minimum(
        jnp.minimum(jnp.floor(hw.registers / (4 * registers * threads)),
                    jnp.floor(hw.smem / (smem + SMEM_RESERVED))),
        jnp.minimum(jnp.floor(MAX_THREADS_PER_SM / threads), MAX_CTAS_PER_SM))
    if work.ctas_per_sm:
        ctas = jnp.minimum(ctas, work.ctas_per_sm)
    arch = (c["group"] == 0) | (c["group"] == hw.mma_warps)
    feasible = arch & (registers <= hw.max_registers_per_thread) & (ctas >= 1)
    return Occupancy(registers=registers, accumulators=accumulators, threads=threads,
                     stages=stages, smem=smem, ctas=jnp.maximum(ctas, 1.0), feasible=feasible)


def conversion_ops(c: dict, work: Work):
    """(INT32, FP16) ops per weight every candidate converts: ``work.rs_dequant_ops`` on its
    sm90 register-sourced tiles where set (T12), else ``work.dequant_ops``."""
    if work.rs_dequant_ops == (0.0, 0.0):
        return work.dequant_ops
    return tuple(jnp.where(c["group"] == 4, rs, ops)
                 for rs, ops in zip(work.rs_dequant_ops, work.dequant_ops))


def pipe_times(hw: Hardware, c: dict, k, occ: Occupancy, work: Work, m=1.0) -> Pipes:
    """SM clocks of one tile (``m`` rows, its split's share of ``k`` in whole k-slabs) on the
    tensor, CUDA-core and shared-memory pipes; T8's and T9's CUDA kernels on the CUDA cores
    alone (``_gemv``)."""
    k_pad = jnp.ceil(jnp.ceil(k / c["split"]) / c["tk"]) * c["tk"]
    tile_macs = c["tm"] * c["tn"] * k_pad
    fill = k_pad * (c["tm"] * hw.a_bytes + c["tn"] * hw.w_bytes)
    if work.lookup_mu:  # LUT-GEMM: a conflicted LDS per lookup, an FMA per lookup, table builds
        mu = work.lookup_mu
        lookups = tile_macs / mu * hw.weight_bits
        builds = c["tm"] * k_pad / mu * 2 ** mu  # one add per entry
        smem = (lookups * work.lookup_conflict / SMEM_BANKS
                + (builds * 2 + c["tn"] * k_pad * hw.w_bytes) / hw.smem_bytes_per_clock)
        cuda = (lookups * work.lookup_fp_ops + builds) / hw.fp16_lanes
        return Pipes(jnp.zeros_like(tile_macs), cuda, smem)
    reads = k_pad * (c["tm"] * hw.a_bytes * c["tn"] / c["wn"]
                     + c["tn"] * hw.w_bytes * c["tm"] / c["wm"])
    smem = (reads + fill) / hw.smem_bytes_per_clock
    utilization = jnp.minimum(1.0, occ.ctas * c["warps"] / 4)  # an MMA warp per tensor core
    compute = tile_macs / (hw.macs * utilization)
    int_ops, fp_ops = conversion_ops(c, work)
    # Mixed-input kernels convert W in registers after each MMA group loads its fragment: every
    # group along M converts the columns it reads (CUTLASS mixed-input GEMM, Marlin).
    converted = c["tn"] * k_pad * c["tm"] / c["wm"]
    cuda = jnp.maximum(converted * int_ops / hw.int32_lanes, converted * fp_ops / hw.fp16_lanes)
    if work.tiles[0] in CUDA_KERNEL_CLOCKS:  # T8, T9: a CUDA kernel, registers only
        gemv = c["cuda_core"] == 1
        clocks = CUDA_KERNEL_CLOCKS[work.tiles[0]](hw, c, k_pad, m, work)
        compute, smem = (jnp.where(gemv, 0.0, x) for x in (compute, smem))
        cuda = jnp.where(gemv, clocks, cuda)
    return Pipes(compute, cuda, smem)


def traffic(hw: Hardware, c: dict, m, n, k, occ: Occupancy) -> Traffic:
    """Tiles, waves, L2 and DRAM bytes of every candidate for C[m, n] += A[m, k] W[n, k]^T."""
    k_part = jnp.ceil(k / c["split"])
    tiles_m, tiles_n = jnp.ceil(m / c["tm"]), jnp.ceil(n / c["tn"])
    tiles = tiles_m * tiles_n * c["split"]
    rows, cols = jnp.minimum(c["tm"], m), jnp.minimum(c["tn"], n)  # no traffic for padding
    # T2: SM90 kernels run in 2 x 1 thread-block clusters; TMA multicasts the W tile to both
    # CTAs of a cluster (H100 whitepaper S4, "Thread Block Clusters", "TMA"), halving its L2 reads
    multicast = jnp.where((c["group"] == 4) & (tiles_m >= 2), 2.0, 1.0)
    # T8, T9: the plugins' CUDA kernels load A with plain global loads (ld.ca, cached in L1):
    # an SM's co-resident CTAs walk K in step and share each A line's L2 read
    a_readers = jnp.where(c["cuda_core"] == 1, occ.ctas, 1.0)
    tile_bytes = k_part * (rows * hw.a_bytes / a_readers + cols * hw.w_bytes / multicast)
    partials = jnp.where(c["split"] > 1, 2 * m * n * hw.accumulator_bytes * c["split"], 0.0)
    partials += c["streamk"] * 2 * hw.sms * c["tm"] * c["tn"] * hw.accumulator_bytes  # T4 fixup
    out = m * n * (hw.out_bytes + hw.c_bytes)
    l2_bytes = tiles * tile_bytes + partials + out
    # A wave of concurrent tiles (rasterized as a near-square block of R x C tiles) shares its
    # A and W panels through L2; panels are re-read from DRAM wave after wave (each tile
    # bringing its share of its block's panels) unless both operands fit in L2 together.
    waves = tiles / (hw.sms * occ.ctas)
    waves = jnp.where(c["streamk"] > 0, waves, jnp.ceil(waves))  # T4: no partial last wave
    wave_tiles = jnp.minimum(tiles, hw.sms * occ.ctas)
    block_rows = jnp.minimum(tiles_m, jnp.ceil(jnp.sqrt(wave_tiles)))
    block_cols = jnp.minimum(tiles_n * c["split"], jnp.ceil(wave_tiles / block_rows))
    block_bytes = k_part * (block_rows * rows * hw.a_bytes + block_cols * cols * hw.w_bytes)
    reread = tiles * block_bytes / (block_rows * block_cols)  # every tile its block's share
    compulsory = m * k * hw.a_bytes + n * k * hw.w_bytes
    dram_bytes = jnp.where(compulsory <= hw.l2, compulsory,
                           jnp.maximum(compulsory, reread)) + out
    return Traffic(tiles=tiles, waves=waves, l2_bytes=l2_bytes, dram_bytes=dram_bytes,
                   out_bytes=out)


def overlapped(consumer, producer, buffers):
    """Time of a producer (memory) feeding a consumer (the SM pipes) through ``buffers``
    slots: the two-station tandem line with a finite buffer and exponential stage times
    (Buzacott & Shanthikumar, "Stochastic Models of Manufacturing Systems", 1993, §3.3):
    throughput = r (1 - rho^(B+1)) / (1 - rho^(B+2)) of the slower rate r, rho the ratio of
    the rates (< 1): equal rates lose (B + 1) / (B + 2); unequal ones approach the max."""
    slow, fast = jnp.maximum(consumer, producer), jnp.minimum(consumer, producer)
    rho = jnp.clip(fast / jnp.maximum(slow, 1e-30), 0.0, 1.0 - 1e-6)
    throughput = (1 - rho ** (buffers + 1)) / (1 - rho ** (buffers + 2))
    return slow / throughput


def issue_clock(hw: Hardware, work: Work):
    """Hz of ``work``'s SM pipes: the boost clock where ``Work.boost_clock``, else the SM's."""
    return hw.boost_clock if work.boost_clock else hw.clock


def prologues(hw: Hardware, c: dict, tiles_per_sm, occ: Occupancy):
    """Seconds of pipeline fill and epilogue the SM pipes wait for: every CTA tile loads its
    first stages before its first MMA and stores its outputs after its last (CUTLASS multistage
    kernels: prologue, mainloop, epilogue); a co-resident CTA's mainloop covers them, so with
    one CTA per SM each round of tiles exposes its own, else only the first round does. A
    persistent stream-K kernel (T4) prefetches the next tile during an epilogue: one fill."""
    rounds = jnp.where(c["streamk"] > 0, 1.0, jnp.ceil(tiles_per_sm / occ.ctas))
    return hw.tile_prologue * jnp.where(occ.ctas > 1, 1.0, rounds)


def epilogue_store(hw: Hardware, c: dict, moved: Traffic, work: Work):
    """(mainloop L2 seconds, mainloop DRAM seconds, serial store seconds) of every candidate:
    the tiles without warp specialization (group 0 or 1), and with ``work.serial_store`` the
    SM90 tiles, store their output after the mainloop at the DRAM rate (T5); the other SM90
    tiles' store is mainloop traffic."""
    store = jnp.where((c["group"] != 4) | work.serial_store, moved.out_bytes, 0.0)
    return ((moved.l2_bytes - store) / hw.l2_bandwidth,
            (moved.dram_bytes - store) / hw.dram_bandwidth, store / hw.dram_bandwidth)


def select(total, values: dict, best) -> dict:
    """The entries of ``values`` (candidate arrays, last axis, broadcast to ``total``'s shape)
    at candidate ``best`` (an index per point)."""
    best = best[..., None]
    return {name: jnp.take_along_axis(jnp.broadcast_to(x, total.shape), best, axis=-1)[..., 0]
            for name, x in values.items()}


def cutlass_heuristic(m, n, c: dict, occ: Occupancy, sms):
    """The candidate index fpA_intB runs (T6: estimate_best_config_from_occupancies, split-K 1):
    visiting the candidates in order, the least wave-quantization score ceil(w) - w of w =
    CTAs / (resident CTAs x SMs), in float32 as the C++; a later candidate with fewer whole
    waves wins within 0.1 of the best score; on a tie, more stages or more rows win; once a
    tile is chosen, taller tiles are skipped for an M below its rows. m, n: [..., 1]."""
    f32 = jnp.float32
    best = jnp.full(jnp.broadcast_shapes(m.shape, n.shape)[:-1], -1)
    score, waves = jnp.ones(best.shape, f32), jnp.full(best.shape, jnp.inf, f32)
    rows, stages = jnp.zeros(best.shape), jnp.zeros(best.shape)
    for i in range(len(c["tm"])):
        tm, ctas = c["tm"][i], (jnp.ceil(m[..., 0] / c["tm"][i])
                                * jnp.ceil(n[..., 0] / c["tn"][i])).astype(f32)
        per_wave = (occ.ctas[..., i] * sms).astype(f32)
        whole = jnp.ceil(ctas / per_wave)
        s = whole - ctas / per_wave
        chosen = best >= 0
        visit = occ.feasible[..., i] & ~(chosen & (m[..., 0] < rows) & (rows < tm))
        better = (s < score) | ((waves > whole) & (s < score + f32(0.1)))
        tie = (s == score) & ((stages < c["stages"][i]) | (rows < tm))
        take = visit & (better | tie)
        score = jnp.where(visit & better, s, score)
        waves = jnp.where(take, whole, waves)
        best, rows = jnp.where(take, i, best), jnp.where(take, tm, rows)
        stages = jnp.where(take, c["stages"][i], stages)
    return jnp.maximum(best, 0)  # none resident: candidate 0, whose total is inf


def candidate_totals(hw: Hardware, c: dict, occ: Occupancy, pipes: Pipes, m, n, k,
                     work: Work, *, choosing: bool = True):
    """(seconds, traffic, tiles per SM) of every candidate ``c`` for m x n x k (m, n, k:
    [..., 1]); infeasible or unoffered candidates take infinite seconds. ``choosing``: the
    library's heuristics choose among them at this M (T3, T4); False: a tactic chosen
    elsewhere runs here (T13)."""
    k_tiles = jnp.ceil(jnp.ceil(k / c["split"]) / c["tk"])
    tiles = jnp.ceil(m / c["tm"]) * jnp.ceil(n / c["tn"]) * c["split"]
    units, sk_tiles, peers, trtllm = hw.sms, tiles, 1.0, work.tiles[0] == "trtllm_weight_only"
    if trtllm:  # T8: the stream-K scheduler decomposes its tactics per problem
        units, sk_tiles, peers = streamk_units(hw, tiles, k_tiles)
        c = dict(c, streamk=c["streamk"] * (units > 0))
        units = jnp.maximum(units, 1.0)
    moved = traffic(hw, c, m, n, k, occ)
    useful_split = work.persistent | (c["streamk"] == 0)
    if choosing:  # T3: split-K only where the output tiles leave SMs idle
        useful_split &= (c["split"] == 1) | (moved.tiles / c["split"] < hw.sms)
    if choosing and work.tiles[0] == "library":  # T4: a full wave (Marlin's walk is T7's)
        useful_split &= (c["streamk"] == 0) | (moved.tiles >= hw.sms * occ.ctas)
    if work.tiles[0] == "trtllm_int8":  # T9: its CUDA kernel at every M <= 4, never above
        useful_split &= (c["cuda_core"] == 1) == (m <= TRTLLM_SQ_GEMV_MAX_M)
    if trtllm:  # T8: the GEMV one more tactic below M = 16
        gemv = c["cuda_core"] == 1
        useful_split &= ~gemv | (m <= TRTLLM_WO_GEMV_MAX_M)
        useful_split &= ~gemv | (c["tn"] == gemv_columns(hw))  # its layout's CTA width
        # its interleaved weight layout needs each split's K a whole number of k-slabs
        # (fpA_intB_gemm_template.h, "k must be multiple of threadblockK": the launcher throws
        # for k / split_k_factor % 64, and the profiler drops a tactic that throws)
        useful_split &= (c["split"] == 1) | (jnp.floor(k / c["split"]) % c["tk"] == 0)
    # T4, T8: stream-K units share their tiles' k-tiles (data-parallel waves before them whole)
    tiles_per_sm = jnp.where(c["streamk"] > 0, (tiles - sk_tiles) / hw.sms + sk_tiles / units,
                             jnp.ceil(tiles / hw.sms))
    # A mixed-input kernel's conversions issue from the warps that issue its MMAs, between
    # the fragment load and the MMA that consumes it: with mma.sync they add to the tensor
    # pipe's time instead of hiding under it; an asynchronous wgmma (group 4, T8) runs while
    # its warpgroup converts the next k-block (LUT-GEMM's CUDA-core work is its only compute).
    overlap = jnp.maximum(jnp.maximum(pipes.compute, pipes.cuda_core), pipes.smem)
    tile_clocks = overlap
    if work.dequant_ops != (0.0, 0.0):
        tile_clocks = jnp.where(c["group"] == 4, overlap,
                                jnp.maximum(pipes.compute + pipes.cuda_core, pipes.smem))
    # T12, T14: an SM runs its tiles' chains in rounds of co-resident CTAs (stream-K: one CTA)
    rounds = jnp.where(c["streamk"] > 0, tiles_per_sm, jnp.ceil(tiles_per_sm / occ.ctas))
    loop = multistage_clocks(hw, occ.stages, k_tiles, tile_clocks / k_tiles)
    chain = jnp.where(c["multistage"] > 0, rounds * loop, 0.0)
    if work.dequant_ops != (0.0, 0.0):
        chain = jnp.where(c["group"] == 4, rounds * k_tiles * rs_ktile(hw, work, c["tn"]), chain)
    sm_time = jnp.maximum(tiles_per_sm * tile_clocks, chain) / issue_clock(hw, work)
    l2_time, dram_time, store_time = epilogue_store(hw, c, moved, work)
    # T10: split-K's memset or reduction kernel; T8: stream-K's workspace memset (CUTLASS
    # workspace.h zero_workspace, cudaMemsetAsync, from the scheduler's initialize_workspace)
    launches_per_gemm = 1.0 + (c["split"] > 1) + (c["streamk"] > 0) * trtllm
    total = (overlapped(sm_time, jnp.maximum(l2_time, dram_time), occ.stages - 1) + store_time
             + launches_per_gemm * hw.kernel_latency + prologues(hw, c, tiles_per_sm, occ)
             + serial_fixup(hw, c, work, peers))
    return jnp.where(occ.feasible & useful_split, total, jnp.inf), moved, tiles_per_sm


def profiled_m(m, every_below: int = 1):
    """The M whose profile picks the tactic of a TensorRT-LLM GEMM plugin run at M (T11): M
    itself below ``every_below`` (the weight-only plugin: ``PROFILED_EVERY_M_BELOW``), else
    the power of two at or above M, at most ``MAX_PROFILE_M`` (from the float's exponent,
    exact: no logarithm whose rounding could move a power of two)."""
    m = jnp.ceil(jnp.maximum(m, 1.0))
    mantissa, exponent = jnp.frexp(m)
    power = jnp.where(mantissa == 0.5, m, jnp.ldexp(jnp.ones_like(m), exponent))
    return jnp.where(m < every_below, m, jnp.minimum(power, MAX_PROFILE_M))


@functools.partial(jax.jit, static_argnames=("work",))
def tile_model(hw: Hardware, m, n, k, *, work: Work = BARE_WORK, tie=None) -> GemmLatency:
    """The tile model of the kernel ``work`` on ``hw`` for m x n x k (arrays, broadcast; jit- and
    vmap-able). Returns ``GemmLatency`` (``precompute`` zero). ``tie``: None, or (margin, side)
    of the timed selections' near-ties what-if (``timed_choice``; traced: one compilation serves
    every margin and side, and None compiles without it)."""
    if work.selection == "engine" and not work.tuned_at >= 1:
        raise ValueError(f"Work.tuned_at must be >= 1 rows with selection 'engine' (the rows "
                         f"its tactic was timed at), got {work.tuned_at!r}")
    m, n, k = (jnp.asarray(x, dtype=float) for x in (m, n, k))
    shape = jnp.broadcast_shapes(m.shape, n.shape, k.shape)
    m, n, k = (jnp.broadcast_to(x, shape)[..., None] for x in (m, n, k))
    launches = jnp.ceil(m / work.rows_per_launch) if work.rows_per_launch else 1.0
    m = m / launches
    c = {name: jnp.asarray(v, float) for name, v in candidate_table(work.tiles).items()}
    occ = occupancy(hw, c, work)
    pipes = pipe_times(hw, c, k, occ, work, m)
    engine = work.selection == "engine"
    total, moved, tiles_per_sm = candidate_totals(hw, c, occ, pipes, m, n, k, work,
                                                  choosing=not engine)
    scale = tiles_per_sm / issue_clock(hw, work) * launches

    def fastest_at(rows):
        return timed_choice(candidate_totals(hw, c, occ, pipes, rows, n, k, work)[0], total,
                            tie)

    best = {"fastest": lambda: timed_choice(total, total, tie),
            "marlin": lambda: marlin_tile(m[..., 0]),
            "cutlass_heuristic": lambda: cutlass_heuristic(m, n, c, occ, hw.sms),
            "profiled": lambda: fastest_at(profiled_m(m, work.profiled_below)),
            "engine": lambda: fastest_at(jnp.full_like(m, work.tuned_at))}[work.selection]()
    picked = select(total * launches, {
        "seconds": total * launches, "compute": pipes.compute * scale,
        "cuda_core": pipes.cuda_core * scale, "smem": pipes.smem * scale,
        "l2": moved.l2_bytes / hw.l2_bandwidth * launches,
        "dram": moved.dram_bytes / hw.dram_bandwidth * launches, "waves": moved.waves * launches,
        "tile_m": c["tm"], "tile_n": c["tn"], "tile_k": c["tk"], "warp_m": c["wm"],
        "warp_n": c["wn"], "split_k": c["split"],
        "registers": occ.registers}, best)
    return GemmLatency(precompute=jnp.zeros(shape), **picked)
