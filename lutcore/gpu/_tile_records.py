"""The records of the tile model (``lutcore.gpu._tiles``): the hardware and kernel it prices
(``Hardware``, ``Work``), what it derives per candidate tile (``Occupancy``, ``Pipes``,
``Traffic``) and what it returns (``GemmLatency``). Re-exported by ``_tiles``."""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp


class Hardware(NamedTuple):
    """The numbers of a ``GPUSpec`` and operand formats the tile model uses, as arrays, so one
    compilation serves every GPU variant (LUT scale, DRM) and weight width."""

    sms: jnp.ndarray
    clock: jnp.ndarray  # SM clock, Hz
    boost_clock: jnp.ndarray  # Hz, of work without tensor cores (the GEMV, LUT-GEMM)
    registers: jnp.ndarray  # bytes per SM
    max_registers_per_thread: jnp.ndarray
    smem: jnp.ndarray  # bytes per SM
    smem_bytes_per_clock: jnp.ndarray
    fp16_lanes: jnp.ndarray
    int32_lanes: jnp.ndarray
    l2: jnp.ndarray  # bytes
    l2_bandwidth: jnp.ndarray  # bytes / s
    dram_bandwidth: jnp.ndarray  # bytes / s a GEMM kernel streams at
    cuda_core_flops: jnp.ndarray  # FLOP / s
    kernel_latency: jnp.ndarray  # s, fixed device time of a kernel
    dram_latency: jnp.ndarray  # s, one dependent DRAM round trip
    wgmma_latency: jnp.ndarray  # SM clocks, a wgmma's issue to its result (T12)
    wgmma_chain: jnp.ndarray  # SM clocks per wgmma an SM issues in the sm90 RS loop (T12)
    smem_latency: jnp.ndarray  # SM clocks of a dependent shared-memory load (T12)
    tile_prologue: jnp.ndarray  # s, pipeline fill and epilogue of one CTA tile
    mma_warps: jnp.ndarray  # warps per MMA group of the MAC tensor cores (1 or 4)
    a_bytes: jnp.ndarray  # bytes per A element as streamed (tables for the LUT Tensor Core)
    w_bytes: jnp.ndarray  # bytes per weight as streamed (incl. dequantization scales)
    weight_bits: jnp.ndarray
    macs: jnp.ndarray  # MACs (LUT: MAC-equivalents) per SM per clock, x achievable fraction
    accumulator_bytes: jnp.ndarray  # bytes per accumulator (registers, split-K partial sums)
    out_bytes: jnp.ndarray  # bytes per output element written (D)
    c_bytes: jnp.ndarray  # bytes per output element read before (C, beta != 0; else 0)


class Work(NamedTuple):
    """A kernel as the tile model sees it (hashable: a static argument of ``tile_model``).
    ``tiles``: ``("library",)`` for the T1/T2 tensor-core tiles (``("library", True)``: CUTLASS's
    own kernels, T14), ``("fpa_intb",)`` /
    ``("marlin",)`` for those kernels' own (T6, T7), or ``("custom", warp_m, warp_n)`` for
    kernel-specific warp tiles (``_tile_tables.custom_candidates``;
    ``_tile_tables.CANDIDATE_TABLES``); ``lookup_mu`` > 0 for
    LUT-GEMM's software tables (2^mu FP16 entries per mu activations, each lookup one LDS of
    expected serialization ``lookup_conflict`` and ``lookup_fp_ops`` FMAs); ``dequant_ops``:
    (INT32, FP16) CUDA-core ops per weight converted; ``rs_dequant_ops``: those of its sm90
    register-sourced tiles where their main loop's source was read (T12; (0, 0): as
    ``dequant_ops``, T12's chain without them), also its GEMV's (T8, the same converter);
    ``persistent``: the persistent stream-K
    kernels (T4) are candidates (False: one CTA per output tile, as a grid-of-tiles kernel);
    ``serial_store``: the SM90 tiles store their output after their mainloop (T5);
    ``selection``: ``"fastest"`` (an autotuner's pick), ``"cutlass_heuristic"`` (T6),
    ``"marlin"`` (by M, T7), ``"profiled"`` (the fastest at ``profiled_m``, T11) or
    ``"engine"`` (a TensorRT engine's: the fastest at ``tuned_at`` rows, T13);
    ``profiled_below``: with ``"profiled"``, the M below which the plugin profiled every M
    (the weight-only plugin: ``PROFILED_EVERY_M_BELOW``; 1: powers of two only, T11);
    ``tuned_at``: with ``"engine"``, the rows of its optimization profile's optimum;
    ``ctas_per_sm``: a fixed residency (0: as resources allow);
    ``rows_per_launch``: M beyond it runs as launches of equal rows, one after another (0: one
    launch); ``boost_clock``: no tensor-core work, so the max boost clock (``_library.Kernel``)."""

    tiles: tuple = ("library",)
    lookup_mu: int = 0
    lookup_conflict: float = 1.0
    lookup_fp_ops: float = 0.0
    dequant_ops: tuple = (0.0, 0.0)
    rs_dequant_ops: tuple = (0.0, 0.0)
    persistent: bool = True
    serial_store: bool = False
    selection: str = "fastest"
    profiled_below: int = 1
    tuned_at: float = 0.0
    ctas_per_sm: int = 0
    rows_per_launch: int = 0
    boost_clock: bool = False


class Occupancy(NamedTuple):
    registers: jnp.ndarray  # per thread
    accumulators: jnp.ndarray  # of them, registers per thread holding the MMA group's outputs
    threads: jnp.ndarray  # per CTA
    stages: jnp.ndarray
    smem: jnp.ndarray  # bytes per CTA
    ctas: jnp.ndarray  # resident per SM (>= 1)
    feasible: jnp.ndarray


class Pipes(NamedTuple):
    """SM clocks of one tile on each pipe."""

    compute: jnp.ndarray
    cuda_core: jnp.ndarray
    smem: jnp.ndarray


class Traffic(NamedTuple):
    tiles: jnp.ndarray
    waves: jnp.ndarray
    l2_bytes: jnp.ndarray
    dram_bytes: jnp.ndarray
    out_bytes: jnp.ndarray  # of them, the output's (D written once, C read where beta != 0)


class GemmLatency(NamedTuple):
    """Latency (s) and its components (s) of one kernel; ``tile_*``/``split_k`` the chosen CTA
    tile, ``warp_*`` its MMA group tile, ``waves`` over the SMs, ``registers`` per thread of the
    chosen tile. All arrays broadcast like m, n, k."""

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
    warp_m: jnp.ndarray
    warp_n: jnp.ndarray
    split_k: jnp.ndarray
    registers: jnp.ndarray
