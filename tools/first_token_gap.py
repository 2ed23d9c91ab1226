"""Where TensorRT-LLM 0.8's first-token rows (trtllm_first_token.yaml, validation) leave the
model, part by part: an analysis, nothing here sets a constant.

Per 128-token row: measured and modeled time, the gap per decoder layer, the modeled GEMM and
all-reduce time, and what each candidate cause would have to be to close the gap:

- a per-layer host cost (gptSessionBenchmark runs the engine without CUDA graphs): the host
  time per kernel launch that would make the run host-bound (measured / layers / the model's
  launches per layer);
- aiconfigurator's own element-wise constant (systems/<gpu>.yaml
  ``mem_empirical_constant_latency``: 3 us, "nonofficial correction", not a measurement),
  on the 3 element-wise ops per layer its Llama model has (add_norm_1, add_norm_2, act_gate):
  the share of the gap 9 us a layer would explain;
- TensorRT's GEMM tactics, beyond what the model now prices (an engine without a GEMM plugin
  runs the tactic its builder timed at the context profile's optimum: the set's ``engines``,
  ``_tiles`` T13): how much slower still the modeled GEMMs would have to run (gap / modeled
  GEMM time);
- per 2048-token row, the two forms a per-layer cost could take, sized by the same model's
  128-token gap: a fixed device time (it adds at 2048 tokens too) or a host time the device
  waits for only when the host is the longer (a host-bound run);
- across the GPUs, per model at 128 tokens: the gap per layer on each GPU, and the measured
  H100 - H200 difference beside the modeled one. The benchmark times the host
  (NVIDIA/TensorRT-LLM@3c44cb9 benchmarks/cpp/gptSessionBenchmark.cpp, the 0.8-era version:
  steady_clock around ``session.generate`` and a stream synchronize; CUDA graphs only with
  ``--enable_cuda_graph``, which the document's commands do not pass).
  A host that runs ahead and waits (``Framework.launch_overhead``, the simulator's
  ``host_stall``) would make a host-bound run take the same time on both Hopper GPUs and hide
  behind the A100's longer device time; a cost added to every layer (synchronous host work, or
  device time no faster on the faster GPU) leaves the difference at the modeled one (the FP8
  weights read at 3.35 vs 4.8 TB/s) and shows on the A100 too;
- per Hopper row, what T13 would add if TensorRT 9's FP8 tactics had no persistent stream-K
  kernel: the layer's projection GEMMs at the engine's tactic chosen without them, less the
  model's (``Work.persistent``; a what-if: no source says which tactics TensorRT 9.2 offers);
- per Hopper row, what one data-parallel tactic of each SM90 CTA tile (T2; no split-K, no
  stream-K) would add to the layer's projection GEMMs over the model's. The only FP8 GEMM
  kernels on sm90 whose names are public run cuBLAS's 128 x 128 x 128 tile with stream-K off:
  ``sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n_tilesize128x128x128_warpgroupsize2x1x1_algo2_
  execute_segment_k_off_kernel__5x_cublas`` in a decode step of a later TensorRT-LLM FP8 engine
  on an H100 (NVIDIA/TensorRT-LLM#2013, July 2024) and the same tile with warpgroupsize1x1x1
  under Transformer Engine (NVIDIA/TransformerEngine#1391). Neither is TensorRT 9.2's tactic
  list, and the kernel names are "confidential information" (NVIDIA/TensorRT-LLM#1541), so
  this is a what-if that sets nothing;
- per Hopper 2048-token row, the context FMHA of one layer as the set prices it (0.8's static
  grid, ``_flash.static_grid_stretch``) beside 1.x's dynamic scheduler (the ``tensorrt_llm``
  record the 0.8 one takes its constants from): what the grid adds. At 128 tokens each head is
  one tile on either, so the 128-token gap is not the FMHA's;
- per 128-token row, the row modeled at batch 64, the batch the document's first-token
  commands pass (``in_out_sizes=("64:128,1" ...)``, docs/source/performance.md at the set's
  commit) where its tables say batch 1: 11-29x the measured time, so the tables' times are
  batch-1 runs, as the set has them;
- per LLaMA-class Hopper row at 128 tokens, the FP8 path's kernels beyond the model's
  (``EXTRA_FP8_KERNELS``, counted from 0.8's LLaMA layer: RMSNorm, ``FP8Linear`` with its
  ``quantize``, ``GatedMLP``, the residual adds; TensorRT's pointwise fusion assumed, Q fused
  into nothing) at the model's small-kernel time, and the fixed time a kernel they would need
  to close the gap alone (against the GPU spec's ``kernel_latency``, C2);
- per model on the Hopper sets, 0.8's FP8 weight quantize / dequantize pair run every pass:
  ``FP8Linear`` / ``FP8RowLinear`` keep FP16 weights (``assert x.dtype ==
  self.weight.value.dtype`` under ``strongly_typed``) and put ``quantize`` then ``dequantize``
  on them (NVIDIA/TensorRT-LLM@2340c77 tensorrt_llm/quantization/layers.py), which TensorRT
  quantizes at build time as constants. Were it run every pass instead (an FP16 read and an FP8
  write of every weight), it would add 151-297 us a layer and 1.8-7.2 ms to the H100 - H200
  difference, against gaps of 66-94 us and a measured difference at most 0.26 ms above the
  modeled one: ruled out.

The 2048-token lines end with the rows' MAPE as modeled, with the fixed device time and
host-bound: on the current model a fixed time per layer sized by the 128-token gap lowers the
Hopper 2048-token MAPE (H200 10.0 -> 5.2 %, H100 7.5 -> 5.6 %; A100 1.9 -> 2.1 %), except
Falcon-180B (+9.6 / +10.3 %), whose 128-token gap cannot all be a time added at every length.
The attention plugin's context path (``enqueueContext``: ``invokeBuildDecoderInfo``,
``invokeApplyBiasRopeUpdateKVCache``, the FMHA; NVIDIA/TensorRT-LLM@035b99e, a stored copy
later than 0.8) holds no host synchronization and no workspace memset with context FMHA on.

What the benchmark runs besides the engine's context pass at output length 1 (GptSession::
generate, NVIDIA/TensorRT-LLM@027cd51 cpp/tensorrt_llm/runtime/gptSession.cpp, the stored
0.x session, earlier than 0.8; its generate loop): the decoder's new batch and one step (top-k
1 sampling: gptSessionBenchmark's SamplingConfig, benchmarks/cpp/gptSessionBenchmark.cpp at the
same commit), a host sync on the finished flags, the output ids' finalize and a stream sync,
once per row. The model prices none of it: no calibration set times it; a handful of small
kernels and syncs once per row against 128-token gaps of 2.5-2.7 ms (the 7B rows), 5.3-5.5
(LLaMA 70B) and 18.5-18.7 (Falcon-180B) a row.

Usage: PYTHONPATH=. python tools/first_token_gap.py
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp

import lutcore.gpu as gpu
from experiments.lut_tensor_core import _measured
from lutcore.gpu import _operators, _simulator, _tile_tables, _tiles

SET = "trtllm_first_token.yaml"
GEMMS = ("qkv_projection", "q_projection", "kv_projection", "output_projection", "ffn_up",
         "ffn_down", "lm_head")
AICONFIGURATOR_ELEMENTWISE = 3 * 3e-6  # 3 ops a layer x mem_empirical_constant_latency
DOCUMENT_BATCH = 64  # the document's first-token commands: --batch_size 64 ("64:128,1")
# Kernels a 0.8 LLaMA-class FP8 layer runs beyond the model's, with TensorRT's pointwise fusion
# and nothing more (module doc): each RMSNorm a reduction and a pointwise kernel (+2), a
# quantize before each of the five FP8 GEMMs (+5), two residual adds (+2)
EXTRA_FP8_KERNELS = 2 + 5 + 2


def row_parts(spec, model: dict, name: str, deployment, work) -> tuple:
    """(modeled seconds, GEMM seconds, all-reduce seconds, launches per layer) of one row."""
    shape = _measured._shape(name, model, model["layers"])
    parts = {k: float(v) for k, v in gpu.model_breakdown(spec, shape, deployment,
                                                        work).items()}
    layer = gpu.layer_breakdown(spec, shape, deployment, work, launch=1.0)
    device = sum(float(v) for k, v in layer.items() if k != "host_stall")
    launches = round(float(layer["host_stall"]) + device)  # 1 s a launch: the launch count
    return (sum(parts.values()), sum(parts.get(g, 0.0) for g in GEMMS),
            sum(v for k, v in parts.items() if k.endswith("_all_reduce")), launches)


def short_rows(data: dict, entry: dict, spec) -> dict:
    """{model: (measured s, modeled s, layers)} of the set's rows at ``tokens`` 128, printing
    each with its parts and candidate causes (module doc)."""
    out = {}
    for row in (dict(zip(entry["columns"], p)) for p in entry["points"]):
        if row["tokens"] != 128:
            continue
        model = data["models"][row["model"]]
        deployment = _measured.row_deployment(data, entry, row)
        modeled, gemms, reduce, launches = row_parts(
            spec, model, row["model"], deployment, gpu.workload(1, 128))
        measured, n = row["ms"] * 1e-3, model["layers"]
        gap = measured - modeled
        out[row["model"]] = (measured, modeled, n)
        print(f"  {row['model']:12s} TP{row['tensor_parallel']} measured {measured * 1e3:5.1f}"
              f" ms, modeled {modeled * 1e3:5.1f} (GEMMs {gemms * 1e3:5.1f}, all-reduce "
              f"{reduce * 1e3:4.1f}); gap {gap / n * 1e6:5.0f} us/layer; host-bound at "
              f"{measured / n / launches * 1e6:4.1f} us/launch ({launches} a layer); "
              f"aiconfigurator's constant {AICONFIGURATOR_ELEMENTWISE * n / gap:4.0%}; "
              f"GEMMs {gap / gemms:+4.0%}")
    return out


def long_rows(data: dict, entry: dict, spec, short: dict) -> None:
    """The 2048-token rows under the two forms a per-layer cost can take, each sized by the
    same model's 128-token gap: a fixed device time per layer (adds at every length) or a host
    time per layer the device waits for only when it is longer than the layer's device time
    (the run host-bound: measured / layers at 128 tokens); then the rows' MAPE under each."""
    errors = []
    for row in (dict(zip(entry["columns"], p)) for p in entry["points"]):
        if row["tokens"] != 2048 or row["model"] not in short:
            continue
        measured128, modeled128, n = short[row["model"]]
        deployment = _measured.row_deployment(data, entry, row)
        modeled = row_parts(spec, data["models"][row["model"]], row["model"], deployment,
                            gpu.workload(1, 2048))[0]
        measured = row["ms"] * 1e-3
        device = modeled + (measured128 - modeled128)
        host = max(modeled, measured128)  # the host time of the whole pass, every layer
        errors.append([abs(t / measured - 1) for t in (modeled, device, host)])
        print(f"  {row['model']:12s} 2048 tokens: measured {measured * 1e3:6.1f} ms; model "
              f"{modeled / measured - 1:+6.1%} (gap {(measured - modeled) / n * 1e6:4.0f} us/layer"
              f" against {(measured128 - modeled128) / n * 1e6:4.0f} at 128), + fixed device "
              f"time {device / measured - 1:+6.1%}, host-bound {host / measured - 1:+6.1%}")
    mape = [sum(e[i] for e in errors) / len(errors) for i in range(3)]
    print(f"  2048-token MAPE: model {mape[0]:5.1%}, + fixed device time {mape[1]:5.1%}, "
          f"host-bound {mape[2]:5.1%}")


def across_gpus(short: dict) -> None:
    """Per model at 128 tokens (``short``: {device: short_rows' output}): the gap per layer on
    each GPU and the measured H100 - H200 difference beside the modeled one (module doc)."""
    print("Across GPUs, 128 tokens: gap per layer; H100 - H200 measured vs modeled")
    for name in short["h100"]:
        gaps = "  ".join(f"{device} {(m - mod) / n * 1e6:4.0f} us" for device, rows in
                         short.items() for m, mod, n in [rows[name]])
        (m100, mod100, _), (m200, mod200, _) = short["h100"][name], short["h200"][name]
        print(f"  {name:12s} {gaps};  measured {(m100 - m200) * 1e3:4.2f} ms, modeled "
              f"{(mod100 - mod200) * 1e3:4.2f} ms")


def streamk_whatif(data: dict, entry: dict, spec) -> None:
    """Per 128-token row of a Hopper set: the projection GEMMs of one layer at the engine's
    tactic chosen without persistent stream-K kernels, less the model's (module doc)."""
    for row in (dict(zip(entry["columns"], p)) for p in entry["points"]):
        deployment = _measured.row_deployment(data, entry, row)
        if row["tokens"] != 128 or not deployment.gemm_tuned_rows:
            continue
        model = data["models"][row["model"]]
        shape = _simulator._as_shapes(_measured._shape(row["model"], model, model["layers"]))
        ops = _operators.layer_operators(shape, deployment, gpu.workload(1, 128),
                                         is_lut=False)
        hw, work = (_simulator.machine(spec, deployment).projection,
                    _simulator.projection_work(deployment))
        extra = sum(float(op.count * (
            _tiles.tile_model(hw, op.m, op.n, op.k, work=work._replace(persistent=False))
            .seconds - _tiles.tile_model(hw, op.m, op.n, op.k, work=work).seconds))
            for op in ops if op.kind == "gemm")
        measured, modeled = row["ms"] * 1e-3, row_parts(spec, model, row["model"],
                                                        deployment, gpu.workload(1, 128))[0]
        print(f"  {row['model']:12s} no stream-K in the engine's tactics: {extra * 1e6:+5.0f} "
              f"us/layer against a gap of {(measured - modeled) / model['layers'] * 1e6:4.0f}")


def layer_gemms(data: dict, entry: dict, row: dict, spec):
    """(projection Hardware, Work, the GEMM operators of one layer) of a row."""
    deployment = _measured.row_deployment(data, entry, row)
    model = data["models"][row["model"]]
    shape = _simulator._as_shapes(_measured._shape(row["model"], model, model["layers"]))
    ops = _operators.layer_operators(shape, deployment, gpu.workload(1, row["tokens"]),
                                     is_lut=False)
    return (_simulator.machine(spec, deployment).projection,
            _simulator.projection_work(deployment), [op for op in ops if op.kind == "gemm"])


def data_parallel_seconds(hw, work, op, tile: tuple) -> float:
    """Seconds of ``op`` on the one data-parallel SM90 tactic of CTA tile ``tile`` (no split,
    no stream-K), run as chosen elsewhere (``candidate_totals(choosing=False)``, T13)."""
    table = _tile_tables.candidate_table(work.tiles)
    keep = ((table["group"] == 4) & (table["tm"] == tile[0]) & (table["tn"] == tile[1])
            & (table["split"] == 1) & (table["streamk"] == 0))
    c = {name: jnp.asarray(v[keep], float) for name, v in table.items()}
    m, n, k = (jnp.full((1, 1), float(x)) for x in (op.m, op.n, op.k))
    occ = _tiles.occupancy(hw, c, work)
    pipes = _tiles.pipe_times(hw, c, k, occ, work, m)
    total = _tiles.candidate_totals(hw, c, occ, pipes, m, n, k, work, choosing=False)[0]
    return float(op.count * jnp.min(total))


def data_parallel_whatif(data: dict, entry: dict, spec) -> None:
    """Per 128-token row of a Hopper set: one layer's projection GEMMs if TensorRT's tactic
    were one data-parallel SM90 tile (module doc: NVIDIA/TensorRT-LLM#2013's 128 x 128 x 128
    ``execute_segment_k_off`` kernel), less the model's, per tile of T2."""
    for row in (dict(zip(entry["columns"], p)) for p in entry["points"]):
        if row["tokens"] != 128:
            continue
        hw, work, ops = layer_gemms(data, entry, row, spec)
        modeled = sum(float(op.count * _tiles.tile_model(hw, op.m, op.n, op.k, work=work)
                            .seconds) for op in ops)
        added = {tile: sum(data_parallel_seconds(hw, work, op, tile) for op in ops) - modeled
                 for tile in _tile_tables.SM90_TILES}
        extra = "  ".join(f"{tm}x{tn} {s * 1e6:+4.0f}" for (tm, tn), s in added.items())
        print(f"  {row['model']:12s} data-parallel tile, us/layer: {extra}")


def document_batch(data: dict, entry: dict, spec) -> None:
    """Per 128-token row: the row modeled at the batch of the document's first-token
    commands (``DOCUMENT_BATCH``) against the measured time, which the tables give at batch
    1 (module doc)."""
    for row in (dict(zip(entry["columns"], p)) for p in entry["points"]):
        if row["tokens"] != 128:
            continue
        model = data["models"][row["model"]]
        deployment = _measured.row_deployment(data, entry, row)
        batched = row_parts(spec, model, row["model"], deployment,
                            gpu.workload(DOCUMENT_BATCH, 128))[0]
        print(f"  {row['model']:12s} at batch {DOCUMENT_BATCH}: modeled {batched * 1e3:6.1f} ms, "
              f"{batched / (row['ms'] * 1e-3):4.1f}x the measured {row['ms']:.1f} ms")


def extra_kernels_bound(data: dict, entry: dict, spec) -> None:
    """Per LLaMA-class (gated) 128-token row of a Hopper set: ``EXTRA_FP8_KERNELS`` at the
    model's small-kernel time (its RMSNorm), and the fixed time per kernel they would need
    to close the gap (module doc)."""
    for row in (dict(zip(entry["columns"], p)) for p in entry["points"]):
        model = data["models"][row["model"]]
        if row["tokens"] != 128 or not model["gated"]:
            continue
        shape = _measured._shape(row["model"], model, model["layers"])
        deployment = _measured.row_deployment(data, entry, row)
        norm = float(gpu.layer_breakdown(spec, shape, deployment, gpu.workload(1, 128),
                                         launch=0.0)["attention_norm"])
        gap = (row["ms"] * 1e-3 - row_parts(spec, model, row["model"], deployment,
                                            gpu.workload(1, 128))[0]) / model["layers"]
        extra = EXTRA_FP8_KERNELS
        print(f"  {row['model']:12s} {extra} extra FP8-path kernels at {norm * 1e6:3.1f} us: "
              f"{extra * norm * 1e6:3.0f} us/layer of a gap of {gap * 1e6:3.0f}; closing it "
              f"needs {gap / extra * 1e6:4.1f} us a kernel (kernel_latency "
              f"{spec.kernel_latency * 1e6:.1f})")


def fmha_grid_part(data: dict, entry: dict, spec) -> None:
    """Per 2048-token row of a Hopper set: one layer's FMHA on the set's deployment and on
    the same with 1.x's ``tensorrt_llm`` record (module doc)."""
    for row in (dict(zip(entry["columns"], p)) for p in entry["points"]):
        if row["tokens"] != 2048:
            continue
        model = data["models"][row["model"]]
        shape = _measured._shape(row["model"], model, model["layers"])
        deployment = _measured.row_deployment(data, entry, row)
        one_x = dataclasses.replace(deployment, framework=gpu.FRAMEWORKS["tensorrt_llm"])
        static, dynamic = (float(gpu.layer_breakdown(spec, shape, d, gpu.workload(1, 2048),
                                                     launch=0.0)["attention"])
                           for d in (deployment, one_x))
        print(f"  {row['model']:12s} 2048 tokens: FMHA {static * 1e6:5.1f} us/layer on 0.8's "
              f"grid, {dynamic * 1e6:5.1f} on 1.x's scheduler ({(static - dynamic) * 1e6:+5.1f})")


def unfolded_weight_qdq(data: dict, entries: dict) -> None:
    """Per model at 128 tokens on the Hopper sets (``entries``: {device: (entry, spec)}): what
    0.8's weight quantize / dequantize pair would cost a layer if TensorRT ran it every pass
    instead of quantizing the FP16 weight constants at build time (module doc): each weight
    read in FP16 and written in FP8 at the streaming DRAM rate, and what that would add to the
    H100 - H200 difference."""
    per_gpu = {}
    for device, (entry, spec) in entries.items():
        rate = spec.dram_bandwidth * spec.dram_efficiency
        for row in (dict(zip(entry["columns"], p)) for p in entry["points"]):
            if row["tokens"] == 128:
                weights = sum(op.count * op.n * op.k for op in layer_gemms(data, entry, row,
                                                                           spec)[2])
                layers = data["models"][row["model"]]["layers"]
                per_gpu.setdefault(row["model"], {})[device] = (3 * weights / rate, layers)
    for name, seconds in per_gpu.items():
        (h100, layers), (h200, _) = seconds["h100"], seconds["h200"]
        print(f"  {name:12s} unfolded weight Q/DQ: +{h100 * 1e6:4.0f} us/layer (H100), "
              f"+{h200 * 1e6:4.0f} (H200); the H100 - H200 difference "
              f"+{(h100 - h200) * layers * 1e3:4.2f} ms")


def main():
    data = _measured.load(SET)
    short, hopper = {}, {}
    for entry in data["sets"]:
        device = _measured._device(data, entry)
        spec = gpu.gpu_spec(device)
        if spec.architecture == "hopper":
            hopper[device] = (entry, spec)
        print(entry["name"])
        short[device] = short_rows(data, entry, spec)
        long_rows(data, entry, spec, short[device])
        document_batch(data, entry, spec)
        if spec.architecture == "hopper":
            streamk_whatif(data, entry, spec)
            data_parallel_whatif(data, entry, spec)
            extra_kernels_bound(data, entry, spec)
            fmha_grid_part(data, entry, spec)
    across_gpus(short)
    unfolded_weight_qdq(data, hopper)


if __name__ == "__main__":
    main()
