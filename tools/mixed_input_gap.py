"""Where TensorRT-LLM's weight-only rows leave the model: an analysis, nothing here sets a
constant (issue 30).

Per weight-only set of aiconfigurator's tables (A100 calibration, H200 validation), two
readings of the measured times:

- the main loop's time per k-tile: at M = 16-128 (powers of two) the measured time less the
  profiler's fixed cost, a kernel's fixed device time and one tile prologue, over the k-tiles
  one CTA walks (K / 64 / the split-K the model picks: 1 for the sm90 mixed-input kernels,
  which have none), is the time one CTA spends per 64-deep k-tile (in ns and SM clocks),
  beside the model's own (on the A100 a reading through the model's split-K pick);
- the rows at an M that is not a power of two over the row at the power of two above it: the
  plugin runs that row's tactic there (``_tiles`` T11), on less work, so a ratio above 1 is
  something the profiler's pick cannot produce.

The model's sm90 k-tile holds at least a wgmma's and a shared-memory load's latency (``_tiles``
T12, 157 clocks from Luo et al.'s microbenchmarks); what the H200 rows spend beyond it (about
200 more clocks) has no published number. TensorRT-LLM's sm90 launcher
(fpA_intB_launcher_sm90.inl@03cff08) builds CUTLASS's own collective; its later interleaved copy
(cutlass_extensions, sm90_mma_interleaved_tma_gmma_rs_warpspecialized_mixed_input.hpp
@1bced69)
waits after every wgmma (warpgroup_wait<K_BLOCK_MAX - type_factor / 2>: INT4 keeps 2 in flight,
INT8 3), which would lengthen the INT4 chain; which one the measured release runs is not
established, so the model keeps the bound both share. aiconfigurator's h100_sxm MoE rows of
w4a16_mxfp4 (gpt-oss shapes) do not time this main loop: on Hopper its collector runs
TensorRT-LLM's Triton MoE backend (collector/trtllm/collect_moe_v3.py at aiconfigurator
@e79937c9b^, moe_backend "triton" for 86 < sm < 100; kernel_source moe_torch_flow, not the
CUTLASS flows).

Usage: PYTHONPATH=. python tools/mixed_input_gap.py
"""

from __future__ import annotations

import numpy as np

import lutcore.gpu as gpu
from experiments.lut_tensor_core import _measured
from lutcore.gpu import _library

SETS = ("aiconfigurator_a100_sxm.yaml", "aiconfigurator_h200_sxm.yaml")
K_TILE = 64  # k-slab of the fpA_intB tiles and of the sm90 tiles' FP16 activations (_tiles T8)
LOOP_M = (16, 32, 64, 128)


def per_k_tile(spec, entry: dict) -> tuple[np.ndarray, np.ndarray]:
    """(measured, modeled) seconds per k-tile of one CTA at the ``LOOP_M`` rows of ``entry``."""
    rows = np.array([p for p in entry["points"] if p[0] in LOOP_M], float)
    m, n, k, ms = rows.T
    fixed = (_library.TIMING_OVERHEAD["trt_layer_profiler"] + spec.kernel_latency
             + spec.gemm_prologue)
    modeled = gpu.gemm_latency(spec, "trtllm_weight_only", m, n, k,
                               weight_bits=entry["weight_bits"], group_size=0,
                               timing="trt_layer_profiler")
    k_tiles = k / modeled.split_k / K_TILE
    return ((ms * 1e-3 - fixed) / k_tiles,
            (np.asarray(modeled.seconds) - fixed) / k_tiles)


def off_power_ratios(entry: dict) -> list[str]:
    """'M: ratio' of each row at a non-power-of-two M over the row at the power of two above."""
    times = {int(p[0]): p[3] for p in entry["points"]}
    out = []
    for m, t in sorted(times.items()):
        up = 1 << (m - 1).bit_length()
        if up != m and up in times:
            out.append(f"{m}: {t / times[up]:.2f}")
    return out


def main():
    for name in SETS:
        data = _measured.load(name)
        spec = gpu.gpu_spec(data["device"])
        print(f"{name} ({spec.name}, SM clock {spec.sm_clock / 1e9:.2f} GHz)")
        for entry in data["sets"]:
            if entry.get("kernel") != "trtllm_weight_only":
                continue
            measured, modeled = per_k_tile(spec, entry)
            loop = ", ".join(f"{a * 1e9:.0f} ns ({a * spec.sm_clock:.0f} clk) / model "
                             f"{b * 1e9:.0f}" for a, b in zip(measured, modeled))
            print(f"  {entry['name']:22s} per k-tile at M {LOOP_M}: {loop}")
            print(f"  {'':22s} off-power M / next power: {', '.join(off_power_ratios(entry))}")


if __name__ == "__main__":
    main()
