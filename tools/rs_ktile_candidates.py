"""Which width-independent cost per k-tile TensorRT-LLM's sm90 weight-only main loop could pay:
issue 30's candidates for the H200 rows' 311-394 clocks per 64-deep k-tile (the same for INT4
and INT8, ``tools/mixed_input_gap.py``), each checked against the source with its number. An
analysis: nothing here sets a constant, and no validation row sets anything.

1. A latency-bound TMA pipeline (Little's law: a k-tile costs at least a load's round trip over
   the stages in flight). The launcher (TensorRT-LLM@2a9abd9 fpA_intB_launcher_sm90.inl) passes
   ``StageCountAutoCarveout<sizeof(CollectiveEpilogue::SharedStorage)>`` to
   CollectiveBuilderInterleaved (sm90_gmma_builder_interleaved.inl@e6a656f), which calls
   CUTLASS's ``compute_stage_count_or_override_single_affine_transformed_input``
   (cutlass@7107b05 sm90_gmma_builder.inl): (232448 B - carveout) / (weights + activations +
   one row of scales, rounded up to 128 B, + 16 B of barriers); no cap (the compile of
   candidate 4 gives INT8 / INT4 36 / 53 stages at 64 x 16, 21 / 35 at 128 x 16, 17 / 21 at
   64 x 64, 12 / 17 at 128 x 64: 0-2 above ``builder_stages``, whose epilogue carveout is an
   upper bound, so the floors below are if anything high). The producer
   (``load`` in sm90_mma_interleaved_tma_gmma_rs_warpspecialized_mixed_input.hpp@1bced69)
   acquires a free stage and issues its TMA loads without waiting for earlier ones. The
   collector runs three FP16 Linear layers of 12288 x 12288 before the plugin layer
   (aiconfigurator@13669a1 collect_gemm_trt.py: 302 MB of weights through the 50 MB L2), so
   the quantized weights come from DRAM. Latencies: one TMA load waited on its mbarrier, a
   pointer chase on an H800 at 1755 MHz (HPMLL/NVIDIA-Hopper-Benchmark@ded6f57,
   NewFeatures/TMA/Latency/tma_lat_random/h800_tma.txt): 369 clocks (210 ns) within the L2,
   752 clocks (428 ns) at the largest footprint (DRAM). The A100's sm80 tactics wait on
   cp.async instead; their form of this floor is priced in the model (``_multistage``, T14).
2. Scales: the collector builds ``WeightOnlyQuantLinear`` with per-channel quant modes, so the
   kernel runs with group_size = K (``ReloadFactor`` = K / 64, ``scale_load_k`` 0): one 128 B
   scale row per stage in the same TMA transaction, and one scale LDS per k-tile issued with
   the weights' LDS at k-block 0 (``copy_A_and_extra_info``) -- already the chain's LDS.
3. Barriers and fences per k-tile: ``consumer_try_wait`` at k-block 0 and ``consumer_wait`` at
   the last (blocking only if the stage has not landed), ``consumer_release`` (an arrive, no
   wait), ``warpgroup_arrive`` (wgmma.fence) before every k-block. No published latency for
   any of them was found.
4. The wait depth. Under the source's waits (``warpgroup_wait<K_BLOCK_MAX - type_factor / 2>``,
   ``_rsloop.rs_cycles``) the measured k-tile needs a different wgmma latency per width; if
   each k-block's wgmma retired before the next k-block issued (a serial chain: 4 latencies, the
   LDS and every conversion per k-tile), one latency fits both widths. The binary keeps the
   source's waits: the launcher and collective as flashinfer vendors them (flashinfer-ai/
   flashinfer@fb28d72 csrc/nv_internal, matching TensorRT-LLM@2a9abd9's launcher and @1bced69's
   ``mma``) on CUTLASS b46b16d, compiled for sm_90a (CUDA 12.9 and 13.0 ptxas; FP16 x INT8 /
   INT4, per-column scales, CTAs 64 and 128 weight rows x 16 and 64 tokens, the launcher's own
   schedules) give no ptxas serialization message (C7510-C7517), 168 registers without spills,
   and in SASS one ``WARPGROUP.DEPBAR.LE gsb0`` per source wait, 0x3 (INT8) / 0x2 (INT4) after
   each k-block's HGMMA, never 0x0 in the loop; the four A buffers are distinct registers.
   So the serial chain is not what the compiler made of the loop.

The H100's calibration rows (TensorRT-LLM 1.0.0rc3) pay the same, and the model now prices it
as a calibrated interval per wgmma an SM issues (``GPUSpec.wgmma_chain``, ``_rsloop``); which of
the costs above, or which hardware step, that interval is still needs clocks counted on a Hopper
GPU: ``tools/device/`` (its README) is that check, built here and run in one device call where a
session is lent one.

Usage: PYTHONPATH=. python tools/rs_ktile_candidates.py
"""

from __future__ import annotations

import mixed_input_gap  # tools/: the measured slope per k-tile (run as a script from tools/)
import numpy as np

import lutcore.gpu as gpu
from experiments.lut_tensor_core import _measured
from lutcore.gpu import _kernels, _rsloop, _tile_tables

SMEM_CAPACITY = 232448  # cutlass sm90_common.inl: sm90_smem_capacity_bytes (227 KB)
STAGE_ALIGN, BARRIER_BYTES = 128, 16  # the builder's alignment; PipelineTmaAsync<1> storage
SCALE_BYTES = 2  # one FP16 scale per weight row and stage (scale_zero_k_tile = 1)
# h800_tma.txt (HPMLL@ded6f57): clocks per waited TMA load at 1755 MHz, within L2 and DRAM
TMA_CLOCKS, TMA_CLOCK_HZ = {"L2": 369.0, "DRAM": 752.0}, 1.755e9
ACT_BYTES = 2  # FP16 activations


def builder_stages(rows: int, tokens: int, bits: int, carveout: int) -> int:
    """Stages CUTLASS's mixed-input builder gives a tile of ``rows`` weight rows x ``tokens``
    x 64 deep (candidate 1)."""
    tk = _tile_tables.SM90_TK
    stage = rows * tk * bits // 8 + tokens * tk * ACT_BYTES + rows * SCALE_BYTES
    stage = -(-stage // STAGE_ALIGN) * STAGE_ALIGN + BARRIER_BYTES
    return (SMEM_CAPACITY - -(-carveout // STAGE_ALIGN) * STAGE_ALIGN) // stage


def epilogue_bound(rows: int, tokens: int) -> int:
    """An upper bound on the epilogue's shared storage: two FP32 epilogue tiles of the
    launcher's min(rows, 128) x min(tokens, 32) (its D tile is 16-bit)."""
    return 2 * min(rows, 128) * min(tokens, 32) * 4


def stage_lines(spec) -> list[str]:
    """Candidate 1 per sm90 tile: the stages and the k-tile floor latency / (stages - 1)."""
    lines = []
    for bits in (8, 4):
        cells = []
        for rows in _tile_tables.TRTLLM_WO_SM90_N:
            for tokens in _tile_tables.TRTLLM_WO_SM90_M:
                s = builder_stages(rows, tokens, bits, epilogue_bound(rows, tokens))
                floor = TMA_CLOCKS["DRAM"] / TMA_CLOCK_HZ * spec.sm_clock / (s - 1)
                cells.append(f"{rows}x{tokens}: {s} ({floor:.0f} clk)")
        lines.append(f"  INT{bits} stages (k-tile floor, DRAM TMA latency): " + ", ".join(cells))
    return lines


def implied_latency(measured: float, parts: tuple, per_load: int) -> tuple[float, float]:
    """(wgmma latency under the source's wait depth, under a serial chain) that makes the loop
    take ``measured`` clocks a k-tile; ``parts``: (LDS, one buffer's conversion) clocks."""
    lds, conv = parts
    blocks = _rsloop.RS_K_BLOCKS
    cycles = _rsloop.rs_cycles(blocks, per_load)

    def loop(latency):
        return max(a * latency + b * lds + c * conv for a, b, c in cycles)

    low, high = 0.0, measured
    for _ in range(60):  # bisection: the loop's period grows with the latency
        mid = (low + high) / 2
        low, high = (mid, high) if loop(mid) < measured else (low, mid)
    serial = (measured - lds - conv * blocks / per_load) / blocks
    return low, serial


def latency_lines(data: dict, spec) -> list[str]:
    """Candidate 4 per width and M: the measured k-tile (the slope over K at N = 4096) and the
    wgmma latency each reading needs."""
    lines = []
    record = gpu.KERNEL_LIBRARY["trtllm_weight_only"]
    for bits in (8, 4):
        hw = _kernels.hardware(spec, record, "fp16", bits)
        work = record.work_for(gpu.Quant(weight_bits=bits, group_size=0))
        parts = (spec.smem_latency, float(_rsloop.rs_convert(hw, work)))
        per_load = _rsloop.RS_ACT_BITS // bits // 2
        entries = [dict(e, device=data["device"]) for e in data["sets"]
                   if e.get("kernel") == "trtllm_weight_only" and e["weight_bits"] == bits]
        cells = []
        for m in mixed_input_gap.LOOP_M:
            clocks = mixed_input_gap.k_slope(entries, m)[0] * spec.sm_clock
            source, serial = implied_latency(clocks, parts, per_load)
            cells.append(f"M {m}: {clocks:.0f} clk -> {source:.0f} / {serial:.0f}")
        lines.append(f"  INT{bits} (LDS {parts[0]:.0f}, buffer {parts[1]:.0f} clk) k-tile -> "
                     "wgmma latency, source waits / serial: " + "; ".join(cells))
    return lines


def model_ktile(spec, bits):
    """The model's k-tile clocks of the sm90 loop (``_rsloop.rs_ktile``) for ``bits``."""
    record = gpu.KERNEL_LIBRARY["trtllm_weight_only"]
    hw = _kernels.hardware(spec, record, "fp16", bits)
    return _rsloop.rs_ktile(hw, record.work_for(gpu.Quant(weight_bits=bits, group_size=0)))


def main():
    data = _measured.load("aiconfigurator_h200_sxm.yaml")
    spec = gpu.gpu_spec(data["device"])
    print(f"{spec.name}: SM clock {spec.sm_clock / 1e9:.2f} GHz; TMA round trip "
          + ", ".join(f"{k} {v / TMA_CLOCK_HZ * 1e9:.0f} ns ({v / TMA_CLOCK_HZ * spec.sm_clock:.0f}"
                      f" clk)" for k, v in TMA_CLOCKS.items()))
    print("\n".join(stage_lines(spec) + latency_lines(data, spec)))
    print(f"  model (S10 latency {spec.wgmma_latency:.0f}, wgmma_chain {spec.wgmma_chain:.2f}): "
          + ", ".join(f"INT{b} {float(np.max(model_ktile(spec, b))):.0f} clk" for b in (8, 4)))


if __name__ == "__main__":
    main()
