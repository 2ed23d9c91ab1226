"""Where TensorRT-LLM's weight-only rows leave the model: an analysis, nothing here sets a
constant (issue 30).

Per weight-only set of aiconfigurator's tables (A100 and H100 calibration, H200 validation),
two readings of the measured times:

- the main loop's time per k-tile: at M = 16-128 (powers of two) the measured time less the
  profiler's fixed cost, a kernel's fixed device time and one tile prologue, over the k-tiles
  one CTA walks (K / 64 / the split-K the model picks: 1 for the sm90 mixed-input kernels,
  which have none), is the time one CTA spends per 64-deep k-tile (in ns and SM clocks),
  beside the model's own (on the A100 a reading through the model's split-K pick);
- the rows at an M that is not a power of two over the row at the power of two above it: the
  plugin runs that row's tactic there (``_tiles`` T11), on less work, so a ratio above 1 is
  something the profiler's pick cannot produce; and how many rows exceed both bounds a
  rounding rule allows: the time at the power above, and twice the time at the power below
  (a tactic profiled there covers at most twice its tiles along M, with the same weights);
- the model's error on the rows at powers of two and on the others, apart;
- per width and M = 16-128, the slope and intercept of the time over K at N = 4096 between
  its two smallest K (1024, 4096): the time one more k-tile adds to a CTA's chain and the
  fixed time, measured without assuming the model's fixed costs, beside the model's own;
- per width at M = 16, N = 4096, the measured time at every K beside a data-parallel tiling's
  at that slope;
- on Hopper, the rows off a power of two over the row at the power above, apart by whether a
  stream-K tactic's decomposition changes between the two (``streamk_switch_lines``);
- per width, at M >= 2048, the weight-only rows' speed over the same table's BF16 Linear on
  the same shapes (measured against measured: a rate the 16-bit fraction the model prices
  the kernel at must allow).

Which flow timed these rows (issue 30 asked whether the 1.2.0rc5 rows are the PyTorch flow's,
whose autotuner would round M down): aiconfigurator@13669a1 ("add new data from 1.2.0rc5")
collected them with collector/trtllm/collect_gemm_trt.py (collect.py runs it beside the
PyTorch-flow collect_gemm.py, which times only float16 / fp8 / fp8_block): one TensorRT
engine per row, input shape fixed at (M, K), three FP16 Linear layers (K -> 12288 -> 12288 ->
K) before the WeightOnlyQuantMatmul / SmoothQuantGemm plugin layer, TensorRT's per-layer
profiler; with a static shape the plugin profiles only the power of two at or above M
(profileTactics: from nextPowerOfTwo(minM) to nextPowerOfTwo(maxM)); the parquet's
kernel_source says trt_flow_/weight_only_quant_matmul_L257/PLUGIN_V2_WeightOnlyQuantMatmul_0
on every H200 int8_wo / int4_wo row (the A100 1.0.0 rows alike). The plugin's getBestConfig
(gemmPluginProfiler.cpp at 027cd51 and c85e872) takes the power of two at or above M. Its
tactic map is shared by every engine a collector worker builds (gemmPluginProfiler.h,
GemmPluginProfilerManager; collect.py's GEMM workers are long-lived, their cases in
descending M), keyed by GemmIdCore (weightOnlyQuantMatmulPlugin.cpp@46d548b: the INT8 weight
tensor's columns, K, dtype), so an INT8 row of N and an INT4 row of 2N can run each other's
profiled tactic; the rounding of M stays the same.

The model's sm90 k-tile (``_tiles`` T12) is the longest dependence cycle of TensorRT-LLM's
interleaved main loop, which the release runs (CollectiveBuilderInterleaved in its sm90
launcher at 2a9abd9 and after, and in onnxruntime's 2025 port, contrib_ops/cuda/llm/fpA_intB_gemm):
with 3 wgmmas in flight (INT8) a wgmma's latency, the shared-memory load at the k-tile's start
and a buffer's conversion a k-tile, with 2 (INT4) 4 latencies, that load and 2 conversions
every 3 k-tiles (Luo et al.'s 128 + 29 clocks, a buffer 16 for INT8 and 36 for INT4 on the
H200: 173 and 204 clocks). The H200 rows spend about 350 clocks, the same for INT4 and INT8,
where the loop's waits make INT4 the slower by a third of a latency; the H100's 1.0.0rc3 rows
(calibration) spend the same, so the model adds the CTA's wgmmas at an interval calibrated
there (``wgmma_chain``, 387 clocks a 64-row k-tile); Luo et al.'s 128 clocks is
the issue interval of back-to-back m64n256k16 wgmmas (its peak-rate time), not the latency a
wait exposes, and no published source gives that latency (``tools/rs_ktile_candidates.py``
checks the loop's other width-independent costs against the source: stages, scales, barriers).
The same launchers run the 128-row tiles under CUTLASS's stream-K scheduler (``_tiles`` T8):
the N = 4096 rows at K = 12288 and 16384 take less than a data-parallel tiling could at the
slope the rows at K = 1024-4096 give (``dp_bound_lines``: 64 tiles of 64 weight rows on 132
SMs, each walking K / 64 k-tiles at that slope), so they spread K over more SMs, as the
scheduler's heuristic does there. CUTLASS's own register-sourced example shows the same loss
at small M (NVIDIA/cutlass pull request 1134, f16 x s8 on Hopper, 64 x 16 x 64 tiles: M = 16,
N = 11008, K = 4096 only 1.08x faster than f16 x f16, for half the weight bytes), which the
author of CUTLASS's main loop reads as the conversions' latency left exposed when the wgmma is
small (NVIDIA/cutlass issue 1549, "I don't have data supporting" it); neither gives a latency.
The rows at M off a power of two that take longer than the row at the power above are the
sm90 weight-only kernels' own: the H200's SmoothQuant rows (sm80 kernels through the same
plugin profiler, collector and rounding of M) and the A100's weight-only rows take at most
about as long (medians of T(M) / T(M') 0.95-1.00 and 0.80-0.99 per M), and on the H200 the
excess sits where a 128-row tactic runs data-parallel at M' (full waves, or a tail of at least
half a wave, for power-of-two N) and stream-K at M (``streamk_switch_lines``). It is not the
stream-K fixup as CUTLASS's source runs it (sm90_tile_scheduler_stream_k.hpp ``fixup_helper``,
deterministic; separate reduction disabled in tile_scheduler_params.h): the model prices its
turns (lock waits) and its FP32 partials on the chain (``_tiles.serial_fixup``) and the
workspace memset, and with them its T(M) - T(M') on those rows stays at most 0 (median -0.4
us) where the rows measure a median +1.6 us and up to +82.5; no source read gives the rest, and
the model keeps the scheduler's decomposition at its own cost.
aiconfigurator's h100_sxm MoE rows of w4a16_mxfp4 (gpt-oss shapes) do not time this main loop:
on Hopper its collector runs TensorRT-LLM's Triton MoE backend
(collector/trtllm/collect_moe_v3.py at aiconfigurator@e79937c9b^, moe_backend "triton" for
86 < sm < 100; kernel_source moe_torch_flow, not the CUTLASS flows).

Usage: PYTHONPATH=. python tools/mixed_input_gap.py
"""

from __future__ import annotations

import numpy as np

import lutcore.gpu as gpu
from experiments.lut_tensor_core import _measured
from lutcore.gpu import _library, _tile_tables, _tiles

SETS = ("aiconfigurator_a100_sxm.yaml", "aiconfigurator_h100_sxm_trtllm_rc3.yaml",
        "aiconfigurator_h200_sxm.yaml", "aiconfigurator_h200_sxm_trtllm_rc3.yaml")
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


def beyond_rounding(entry: dict) -> tuple[int, int]:
    """(rows off a power of two above both rounding bounds, rows off a power of two with both
    neighbours): above the time at the power above and twice the time at the power below."""
    times = {int(p[0]): p[3] for p in entry["points"]}
    beyond = total = 0
    for m, t in times.items():
        up, low = 1 << (m - 1).bit_length(), 1 << (m.bit_length() - 1)
        if up != m and up in times and low in times:
            total += 1
            beyond += t > max(times[up], 2 * times[low])
    return beyond, total


def power_split(data: dict, entry: dict) -> str:
    """The model's MAPE / bias (%) on the set's rows at powers of two and on the others."""
    _, _, measured, modeled = _measured.gemm_points(data, entry)
    m = np.array([p[0] for p in entry["points"]], dtype=int)
    error = 100 * (modeled / measured - 1)
    out = []
    for name, pick in (("powers of two", (m & (m - 1)) == 0), ("others", (m & (m - 1)) != 0)):
        e = error[pick]
        out.append(f"{name} {abs(e).mean():.1f} / {e.mean():+.1f} ({pick.sum()} rows)")
    return ", ".join(out)


def k_slope(entries: list, m: float, n: float = 4096) -> tuple[float, float, float, float]:
    """(measured, modeled) seconds per 64-deep k-tile and fixed seconds at M = ``m``, N = ``n``:
    the line through the rows of the two smallest K of ``entries`` (one width's sets)."""
    rows = sorted((p for e in entries for p in e["points"] if p[0] == m and p[1] == n),
                  key=lambda p: p[2])[:2]
    (_, _, k0, t0), (_, _, k1, t1) = rows
    modeled = np.asarray(gpu.gemm_latency(
        gpu.gpu_spec(entries[0]["device"]), "trtllm_weight_only", float(m), float(n),
        np.array([k0, k1], float), weight_bits=entries[0]["weight_bits"], group_size=0,
        timing="trt_layer_profiler").seconds)
    tiles = np.array([k0, k1]) / K_TILE
    out = []
    for a, b in ((t0 * 1e-3, t1 * 1e-3), tuple(modeled)):
        slope = (b - a) / (tiles[1] - tiles[0])
        out += [slope, a - slope * tiles[0]]
    return tuple(out)


def slope_lines(data: dict, spec) -> list[str]:
    """One line per width: ``k_slope`` at each ``LOOP_M``."""
    lines = []
    for bits in (8, 4):
        entries = [dict(e, device=data["device"]) for e in data["sets"]
                   if e.get("kernel") == "trtllm_weight_only" and e["weight_bits"] == bits]
        cells = []
        for m in LOOP_M:
            s, f, ms, mf = k_slope(entries, m)
            cells.append(f"M {m}: {s * 1e9:.0f} ns ({s * spec.sm_clock:.0f} clk) + "
                         f"{f * 1e6:.1f} us / model {ms * 1e9:.0f} ns + {mf * 1e6:.1f} us")
        lines.append(f"  INT{bits} per k-tile + fixed, N 4096, K 1024 -> 4096: " + "; ".join(cells))
    return lines


def dp_bound_lines(data: dict, m: float = 16, n: float = 4096) -> list[str]:
    """Per width, at M = ``m``, N = ``n``: the measured time at each K beside a data-parallel
    tiling's (every 64-row tile walking all K / 64 k-tiles at ``k_slope``'s measured slope and
    intercept from the two smallest K)."""
    lines = []
    for bits in (8, 4):
        entries = [dict(e, device=data["device"]) for e in data["sets"]
                   if e.get("kernel") == "trtllm_weight_only" and e["weight_bits"] == bits]
        slope, fixed, _, _ = k_slope(entries, m, n)
        rows = sorted((p for e in entries for p in e["points"] if p[0] == m and p[1] == n),
                      key=lambda p: p[2])
        cells = [f"K {int(p[2])}: {p[3] * 1e3:.1f} / {(fixed + slope * p[2] / K_TILE) * 1e6:.1f} us"
                 for p in rows]
        lines.append(f"  INT{bits} M {int(m)}, N {int(n)}, measured / data-parallel at the slope: "
                     + "; ".join(cells))
    return lines


def _streamk(spec, m, tokens, n, k) -> bool:
    """Whether a 128-row sm90 weight-only tactic of ``tokens`` tokens runs stream-K at m x n x k."""
    tiles = np.ceil(m / tokens) * np.ceil(n / _tile_tables.TRTLLM_WO_SM90_STREAMK_N)
    return float(_tiles.streamk_units(spec, tiles, k / K_TILE)[0]) > 0


def streamk_switch_lines(data: dict, spec) -> list[str]:
    """On Hopper: the weight-only rows at M off a power of two over the row at the power above
    (M'), apart by whether some 128-row tactic (``_tile_tables.TRTLLM_WO_SM90_M`` tokens) runs
    data-parallel at M' and stream-K at M under the scheduler's heuristic
    (``_tiles.streamk_units``); where one does, the measured T(M) - T(M') beside the model's
    (its fixup chain, ``_tiles.serial_fixup``, and workspace memset included)."""
    if spec.architecture != "hopper":
        return []
    groups, excess = {True: [], False: []}, []
    for e in data["sets"]:
        if e.get("kernel") != "trtllm_weight_only":
            continue
        modeled = dict(zip((int(p[0]) for p in e["points"]),
                           _measured.gemm_points(data, e)[3]))
        times = {int(p[0]): p for p in e["points"]}
        for m, (_, n, k, ms) in times.items():
            up = 1 << (m - 1).bit_length()
            if up == m or up not in times or m < 16:
                continue
            switch = any(_streamk(spec, m, t, n, k) and not _streamk(spec, up, t, n, k)
                         for t in _tile_tables.TRTLLM_WO_SM90_M)
            groups[switch].append(ms / times[up][3])
            if switch:
                excess.append(((ms - times[up][3]) * 1e3, (modeled[m] - modeled[up]) * 1e6))
    lines = [f"  off-power M / M', {'a' if key else 'no'} 128-row tactic data-parallel at M' and "
             f"stream-K at M: {len(v)} rows, median {np.median(v):.2f}, mean {np.mean(v):.2f}, "
             f"{sum(r > 1.2 for r in v)} above 1.2" for key, v in groups.items() if v]
    if excess:
        measured, model = np.array(excess).T
        lines.append(f"  those rows' T(M) - T(M'), us: measured median {np.median(measured):+.1f} "
                     f"(max {measured.max():+.1f}), model median {np.median(model):+.1f} "
                     f"(max {model.max():+.1f})")
    return lines


def over_bf16(data: dict, m_min: int = 2048) -> list[str]:
    """Per width: min / median / max of the BF16 Linear's time over the weight-only time, at
    each shape and M >= ``m_min`` both sets of ``data`` time (none where it has no BF16 rows)."""
    bf16 = {tuple(p[:3]): p[3] for e in data["sets"] if e.get("act") == "bf16"
            and e.get("kernel") == "trtllm_gemm" for p in e["points"] if p[0] >= m_min}
    lines = []
    if not bf16:
        return lines
    for bits in (8, 4):
        ratio = np.array([bf16[tuple(p[:3])] / p[3] for e in data["sets"]
                          if e.get("kernel") == "trtllm_weight_only" and e["weight_bits"] == bits
                          for p in e["points"] if tuple(p[:3]) in bf16])
        lines.append(f"  INT{bits} speed over the BF16 Linear at M >= {m_min} ({ratio.size} "
                     f"shapes): {ratio.min():.2f} / {np.median(ratio):.2f} / {ratio.max():.2f}")
    return lines


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
            beyond, total = beyond_rounding(entry)
            print(f"  {'':22s} beyond either rounding: {beyond} of {total}; model MAPE / bias "
                  f"at {power_split(data, entry)}")
        print("\n".join(slope_lines(data, spec) + dp_bound_lines(data)
                        + streamk_switch_lines(data, spec) + over_bf16(data)))


if __name__ == "__main__":
    main()
