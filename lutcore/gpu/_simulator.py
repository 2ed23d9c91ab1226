"""Tile-based end-to-end LLM latency simulator (LUT Tensor Core §4.4): prices the operator
graph of ``lutcore.gpu._operators`` on a GPU.

- projection GEMMs and the FP16 GEMMs (attention, LM head): the tile model
  (``_tiles.tile_model``) of the deployment's kernel / of the FP16 cuBLAS-like kernel, with
  the fixed device time of a kernel (``kernel_latency``); the attention GEMMs, whose instances
  the tile model sees stacked along M (one shared K or V), are bounded below by their own DRAM
  traffic as a GEMM-class kernel moves it (``gemm_class_floor``: C2's form for cuBLAS's
  DRAM-bound GEMMs, fixed time + a tile's fill and epilogue + bytes at the GEMM-class rate);
  the fused attention kernel (FMHA) keeps its scores on chip, so it takes its tiles' tensor
  and shared-memory pipe time (not the score tiles' stores the tile model would charge a GEMM
  with that output) at the framework's rate, plus one kernel's fixed time, a tile's fill and
  the framework's costs (``Framework``: per call, per sequence, per round of query tiles; on a
  static grid, TensorRT-LLM 0.8's, the pipe time stretched to its busiest CTA's,
  ``_flash.static_grid_stretch``); a
  framework running FlashAttention-2 (``Framework.flash``) pays its CTAs' chains of KV
  iterations and rounds of CTAs instead of the pipes and the tile's fill (``_flash``);
- memory-bound operators: max(DRAM bytes / streaming bandwidth, CUDA-core FLOPs / CUDA-core
  throughput) plus the fixed device time of a kernel, the DRAM bytes without the reads the L2
  serves (``Operator.fresh_bytes`` when they fit in the L2), an eager module kernel by kernel
  (``Operator.parts``); scalar row kernels
  (``Deployment.row_kernels``) take at least their rounds of rows (one row per SM at a time)
  times the dependent DRAM round trips of a row (``dram_latency`` of the spec);
- all-reduces (tensor parallelism): a ring all-reduce moves 2 (p - 1) / p of the bytes over
  each GPU's NVLink (Patarasuk & Yuan 2009; NCCL's "bus bandwidth"), at the measured fraction
  of the link bandwidth, in 2 (p - 1) dependent steps, each with a step latency, plus a fixed
  latency (``allreduce_*`` of the spec);
- the host: every kernel launch costs ``launch_overhead`` of host time (one launch per forward
  pass with ``cuda_graphs``); the host runs ahead of the GPU, so a forward pass takes the
  longer of the device time and the host time (``host_stall`` = the difference, when
  positive), plus the deployment's per-step framework time (``step_overhead``).

Every operator is a pure jnp function of the model shape and workload arrays (batch, new
tokens per sequence, attended context), and the GPU enters as a ``Machine`` of arrays, so one
``jax.jit`` compilation per operator graph serves every GPU variant, weight width, model and
workload, and ``latency_sweep`` vmaps over GPU variants.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ._flash import (
    iteration_costs,
    iteration_seconds,
    rounds,
    schedule_iterations,
    static_grid_stretch,
)
from ._frameworks import BARE
from ._kernels import (
    Hardware,
    check_kernel,
    hardware,
    is_lut_kernel,
    kernel_work,
    memory_seconds,
)
from ._library import DEQUANT_GROUP, KERNELS, WIDTH_DEPENDENT_KERNELS, WORK, Quant
from ._operators import (
    KV_BYTES,
    Deployment,
    Shapes,
    Workload,
    edge_operators,
    layer_operators,
    shapes,
)
from ._tiles import tile_model

FP16_KERNEL = "cublas"  # attention and the LM head: FP16 tensor-core GEMMs
FMHA = "attention"  # the fused attention operator (``attention_operators``, flash)
# The projection kernels a deployment may run (static activation scales: no quantize step)
SIMULATED_KERNELS = tuple(k for k in KERNELS if k != "cublas_quantize")


class Machine(NamedTuple):
    """What pricing needs of a GPU for one deployment, as arrays (a pytree, so one compiled
    simulator serves every GPU variant and weight width, and ``jax.vmap`` sweeps them): the
    tile-model ``Hardware`` of the projection kernel and of the FP16 kernel (attention, LM
    head), streaming DRAM bandwidth (B/s), CUDA-core FLOP/s, host seconds per kernel launch,
    device seconds per kernel, NVLink bytes/s per direction x the all-reduce efficiency, the
    all-reduce latency, and the deployment's numbers that need no graph of their own (tensor-
    parallel degree, KV-cache bytes per element, per-step framework seconds, the DRAM round
    trip of a scalar row kernel: 0 for vectorized kernels), and the framework's costs
    (``Framework``, as on the GPU's architecture: its kernels' fixed time and host times replace
    the spec's; its attention operator's per-call, per-sequence and per-round-of-CTAs times and
    rate; its FlashAttention-2 kernel, ``flash`` 1, where it runs one: the tile and the
    ``_flash.iteration_costs`` and the time of a round of its CTAs; ``fmha_static`` 1 where its
    FMHA runs on a static grid, ``Framework.fmha_grid``)."""

    projection: Hardware
    fp16: Hardware
    dram_bandwidth: jnp.ndarray
    cuda_core_flops: jnp.ndarray
    launch_overhead: jnp.ndarray
    kernel_latency: jnp.ndarray
    strided_latency: jnp.ndarray
    link_bandwidth: jnp.ndarray
    allreduce_latency: jnp.ndarray
    allreduce_hop_latency: jnp.ndarray
    tensor_parallel: jnp.ndarray
    kv_bytes: jnp.ndarray
    step_overhead: jnp.ndarray
    row_latency: jnp.ndarray
    attention_call: jnp.ndarray
    attention_sequence: jnp.ndarray
    attention_rate: jnp.ndarray
    attention_tile: jnp.ndarray
    decode_call: jnp.ndarray
    decode_sequence: jnp.ndarray
    decode_wave: jnp.ndarray
    flash: jnp.ndarray
    flash_block_m: jnp.ndarray
    flash_block_n: jnp.ndarray
    flash_mac: jnp.ndarray
    flash_score: jnp.ndarray
    flash_round: jnp.ndarray
    fmha_static: jnp.ndarray
    tie_margin: jnp.ndarray  # the Deployment's near-ties what-if (reporting only)
    tie_side: jnp.ndarray


def machine(gpu, deployment: Deployment) -> Machine:
    """The ``Machine`` of ``gpu`` (a ``GPUSpec``) for ``deployment``; ValueError (from
    ``gemm_latency``'s checks) if the GPU cannot run the deployment's kernel and formats, or
    if it is split over GPUs without NVLink."""
    check_kernel(gpu, deployment.kernel, deployment.activation, deployment.weight_bits, "fused")
    if deployment.kernel not in SIMULATED_KERNELS:
        raise ValueError(f"kernel {deployment.kernel!r} is not simulated (its quantize step is "
                         f"not an operator of the graph); allowed values: "
                         f"{', '.join(SIMULATED_KERNELS)}")
    selection = kernel_work(deployment.kernel, deployment.weight_bits).selection
    if deployment.gemm_tuned_rows and selection != "fastest":
        raise ValueError(f"gemm_tuned_rows: kernel {deployment.kernel!r} picks its own tactic "
                         f"({selection!r}); a TensorRT engine's tuned tactic (gemm_tuned_rows "
                         f"> 0) applies to a kernel TensorRT times itself, e.g. cublas or "
                         f"trtllm_gemm; use gemm_tuned_rows=0")
    if deployment.tensor_parallel > 1 and not gpu.nvlink_bandwidth:
        raise ValueError(f"{gpu.name} has no NVLink: tensor_parallel must be 1")
    link = gpu.allreduce_efficiency * gpu.nvlink_bandwidth or 1.0  # unused on one GPU
    frame = deployment.framework.on(gpu.architecture)
    flash = frame.flash
    block = flash.tile(gpu.compute_capability) if flash else (1, 1)
    costs = iteration_costs(gpu) if flash else (0.0, 0.0)
    values = dict(flash=flash is not None, flash_block_m=block[0], flash_block_n=block[1],
                  flash_mac=costs[0], flash_score=costs[1],
                  flash_round=flash.round_time(gpu.architecture) if flash else 0.0,
                  fmha_static=frame.fmha_grid == "static",
                  dram_bandwidth=gpu.achievable_dram_bandwidth,
                  cuda_core_flops=gpu.vector_flops,
                  launch_overhead=_either(frame.launch_overhead, gpu.launch_overhead),
                  kernel_latency=_either(frame.kernel_latency, gpu.kernel_latency),
                  strided_latency=_either(frame.strided_latency,
                                          _either(frame.kernel_latency, gpu.kernel_latency)),
                  attention_call=frame.attention_call,
                  attention_sequence=frame.attention_sequence,
                  attention_rate=frame.attention_rate,
                  attention_tile=frame.attention_tile,
                  decode_call=frame.on_decode()[0],
                  decode_sequence=frame.on_decode()[1],
                  decode_wave=frame.decode_wave,
                  link_bandwidth=link,
                  allreduce_latency=gpu.allreduce_latency,
                  allreduce_hop_latency=gpu.allreduce_hop_latency,
                  tensor_parallel=deployment.tensor_parallel,
                  kv_bytes=KV_BYTES[deployment.kv_cache],
                  step_overhead=deployment.step_overhead + frame.step_overhead,
                  row_latency=gpu.dram_latency * (deployment.row_kernels == "scalar"),
                  tie_margin=deployment.tie_margin or 0.0, tie_side=deployment.tie_side)
    return Machine(
        projection=hardware(gpu, deployment.kernel, deployment.activation,
                            Quant(weight_bits=deployment.weight_bits,
                                  group_size=deployment.group_size,
                                  zero_points=deployment.zero_points,
                                  table_bits=deployment.table_bits)),
        fp16=hardware(gpu, FP16_KERNEL, "fp16", 16),
        **{name: np.asarray(v, float) for name, v in values.items()})


def projection_work(deployment: Deployment):
    """The tile model's ``Work`` of the deployment's projection GEMMs: its kernel's, or, in a
    TensorRT engine without a GEMM plugin (``gemm_tuned_rows``), the tactic its builder timed
    at the profile's optimum (T13)."""
    work = kernel_work(deployment.kernel, deployment.weight_bits, deployment.group_size)
    if not deployment.gemm_tuned_rows:
        return work
    return work._replace(selection="engine", tuned_at=float(deployment.gemm_tuned_rows))


def _either(value, default):
    return default if value is None else value


def ring_all_reduce(nbytes, gpus, link_bandwidth, latency, hop_latency=0.0):
    """Seconds of a ring all-reduce of ``nbytes`` over ``gpus``: 2 (p - 1) steps (reduce-
    scatter, then all-gather), each crossing one link with 1 / p of the bytes (Patarasuk & Yuan
    2009) and waiting ``hop_latency``, plus a fixed ``latency``."""
    steps = 2 * (gpus - 1)
    return latency + steps * hop_latency + steps / gpus * nbytes / link_bandwidth


def all_reduce_seconds(gpu, gpus, nbytes):
    """Seconds of an all-reduce of ``nbytes`` over ``gpus`` GPUs of ``gpu`` (a ``GPUSpec``)
    connected by NVLink, at the spec's measured all-reduce efficiency and latency."""
    return ring_all_reduce(jnp.asarray(nbytes, float), jnp.asarray(gpus, float),
                           gpu.allreduce_efficiency * gpu.nvlink_bandwidth,
                           gpu.allreduce_latency, gpu.allreduce_hop_latency)


def gemm_class_floor(hw, dram_bytes):
    """Seconds a GEMM-class kernel (cuBLAS batched GEMM, FlashAttention) takes at least to move
    ``dram_bytes``: the form C2 calibrates on cuBLAS's DRAM-bound M = 1 GEMMs, the fixed device
    time of a kernel plus a tile's fill and epilogue plus the bytes at the GEMM-class DRAM rate
    (``hw``: a tile-model ``Hardware``; ``kernel_latency``, ``tile_prologue``,
    ``dram_bandwidth`` = ``GPUSpec.gemm_dram_bandwidth``)."""
    return hw.kernel_latency + hw.tile_prologue + dram_bytes / hw.dram_bandwidth


def _stacked(values, shape):
    return jnp.stack([jnp.broadcast_to(jnp.asarray(v, float), shape) for v in values])


def price(mach: Machine, deployment: Deployment, ops: list) -> dict:
    """{name: device seconds} of ``ops`` on ``mach``: the projections in one tile-model
    evaluation of the deployment's kernel, attention and LM head in one FP16 evaluation
    (``count`` instances stacked along M: one kernel's waves and tile efficiency), each bounded
    below by its own DRAM traffic (attention: ``gemm_class_floor``); memory operators as a
    roofline plus a kernel's fixed device time per launch (``memory_seconds``); all-reduces
    over NVLink. The host is priced by ``host_seconds``."""
    shape = jnp.broadcast_shapes(*(jnp.shape(x) for op in ops for x in op.sizes))
    tie = None if deployment.tie_margin is None else (mach.tie_margin, mach.tie_side)
    tp = mach.tensor_parallel
    seconds = {}
    for op in ops:
        if op.kind == "collective":  # op.launches: 0 on one GPU
            seconds[op.name] = op.launches * ring_all_reduce(
                op.dram_bytes, tp, mach.link_bandwidth, mach.allreduce_latency,
                mach.allreduce_hop_latency)
        elif op.kind == "attention":  # the floor of a GEMM-class kernel (module doc)
            seconds[op.name] = gemm_class_floor(mach.fp16, op.dram_bytes) + _framework(mach, op)
        else:
            seconds[op.name] = sum(_memory_seconds(mach, part) for part in op.parts or (op,))
    for kind in ("gemm", "attention"):
        group = [op for op in ops if op.kind == kind]
        if not group:
            continue
        n, k = (_stacked([getattr(op, f) for op in group], shape) for f in "nk")
        if kind == "gemm":
            m = _stacked([op.m for op in group], shape)
            tiles = tile_model(mach.projection, m, n, k, work=projection_work(deployment),
                               tie=tie).seconds
            tiles = tiles * _stacked([op.count for op in group], shape)
        else:
            m = _stacked([op.m * op.count for op in group], shape)
            fp16 = tile_model(mach.fp16, m, n, k, work=WORK[FP16_KERNEL], tie=tie)
            tiles, pipes = fp16.seconds, jnp.maximum(fp16.compute, fp16.smem)
        for row, op in enumerate(group):
            own = tiles[row]
            if op.name == FMHA:  # its scores stay on chip: the tiles' pipes, not their stores
                stretch = jnp.where(mach.fmha_static > 0, static_grid_stretch(
                    op.m, op.count / 2.0, op.k, mach.fp16.sms, mach.fp16.l2), 1.0)
                piped = (pipes[row] * stretch / mach.attention_rate + mach.fp16.kernel_latency
                         + mach.fp16.tile_prologue + _framework(mach, op))
                chain = flash_chain(mach, op) + mach.fp16.kernel_latency + _framework(mach, op)
                own = jnp.where(mach.flash > 0, chain, piped)
            seconds[op.name] = jnp.maximum(own, seconds[op.name])
    return {op.name: seconds[op.name] for op in ops}


def _memory_seconds(mach: Machine, op) -> jnp.ndarray:
    """Seconds of a memory operator (or of a module's part): ``memory_seconds`` of its DRAM
    bytes, less the reads the L2 serves (``fresh_bytes`` when its footprint fits), at the
    strided or the contiguous kernels' fixed time; a row kernel's rounds as its floor."""
    rows = jnp.ceil(op.rows / mach.fp16.sms) * op.row_trips * mach.row_latency
    fits = jnp.maximum(op.fresh_bytes, op.footprint) <= mach.fp16.l2
    return memory_seconds(
        op.dram_bytes - jnp.where(fits, op.fresh_bytes, 0.0), op.cuda_flops,
        op.launches * (op.kind == "memory"), dram_bandwidth=mach.dram_bandwidth,
        cuda_core_flops=mach.cuda_core_flops,
        kernel_latency=mach.strided_latency if op.strided else mach.kernel_latency, floor=rows)


def flash_chain(mach: Machine, op) -> jnp.ndarray:
    """Seconds of a FlashAttention-2 kernel's KV iterations (``_flash``) for the FMHA operator
    ``op`` (m: new tokens, n: the mean attended context, k: head dim, count: 2 x sequences x
    heads): the busiest SM's iterations, one KV block of one CTA at a time, and its rounds of
    CTAs."""
    context, instances = op.n + (op.m - 1.0) / 2.0, op.count / 2.0
    iterations = schedule_iterations(op.m, context, instances, mach.flash_block_m,
                                     mach.flash_block_n, mach.fp16.sms)
    return (iterations * iteration_seconds(mach.flash_block_m, mach.flash_block_n, op.k,
                                           mach.flash_mac, mach.flash_score)
            + rounds(op.m, instances, mach.flash_block_m, mach.fp16.sms) * mach.flash_round)


def _framework(mach: Machine, op) -> jnp.ndarray:
    """Device seconds the framework's attention operator adds to its FMHA kernel (``FMHA``):
    per call, per sequence and, on a prefill, per round of its CTAs (``op.rows``, one per SM at
    a time) (``Framework``); its decode costs at one new token a sequence (``op.m``), a grouped
    decode's per wave of its XQA grid (``op.rows``: sequences x KV heads; ``xqa_ctas``); 0 for
    other operators."""
    if op.name != FMHA:
        return 0.0
    decode = op.m <= 1
    rounds = jnp.ceil(op.rows / mach.fp16.sms) * (~decode)
    waves = xqa_ctas(op.rows, op.n - 1, mach.fp16.sms) / mach.fp16.sms * decode
    return (jnp.where(decode, mach.decode_call, mach.attention_call)
            + jnp.where(decode, mach.decode_sequence, mach.attention_sequence) * op.sequences
            + mach.attention_tile * rounds + mach.decode_wave * waves)


# TensorRT-LLM's XQA multi-block split (NVIDIA/TensorRT-LLM, cpp/tensorrt_llm/kernels/
# decoderMaskedMultiheadAttention/: decoderXQAImplCommon.h@b35ac1b computeMultiBlockCount,
# decoderXQAConstants.h@1245321 kMinHistoryTokensPerBlock, kTargetWaveFactor; the releases the
# tables ran not checked): a sub-sequence per 128 cached tokens, at most round(sqrt(8 x that)),
# cut to 8 waves of CTAs (its workspace cap, 6000 / batch, never binds after that cut)
XQA_MIN_HISTORY, XQA_TARGET_WAVES = 128, 8


def xqa_ctas(heads_rows, history, sms):
    """CTAs of TensorRT-LLM's XQA decode kernel: ``heads_rows`` (sequences x KV heads) x its
    sub-sequences of a ``history``-token cache on ``sms`` SMs (0 rows: 0)."""
    blocks = jnp.maximum(jnp.floor(history / XQA_MIN_HISTORY), 1.0)
    blocks = jnp.maximum(jnp.minimum(blocks, jnp.round(jnp.sqrt(8.0 * blocks))), 1.0)
    excess = heads_rows * blocks / sms / XQA_TARGET_WAVES
    blocks = jnp.where(excess > 1, jnp.maximum(jnp.floor(blocks / excess), 1.0), blocks)
    return heads_rows * blocks


def host_seconds(ops: list, deployment: Deployment, launch) -> jnp.ndarray:
    """Host time to issue ``ops``: ``launch`` seconds per kernel launch, or one launch for the
    whole graph with ``cuda_graphs``."""
    if deployment.cuda_graphs:
        return jnp.asarray(launch, float)
    return sum(op.launches for op in ops) * launch


def _graph(deployment: Deployment) -> Deployment:
    """The deployment as the operator graph sees it: the weight width and its quantization
    groups, the tensor-parallel degree, the KV-cache format, the step overhead, the near-ties
    what-if's margin and side (not whether it is asked for), the row
    kernels and (but for LUT kernels, whose tables it sizes) the activation format only enter
    the ``Machine``, so one compilation serves them all; the library kernels whose instruction
    mix follows the width and groups (``WIDTH_DEPENDENT_KERNELS``) keep them."""
    activation = deployment.activation if is_lut_kernel(deployment.kernel) else "fp16"
    keep = deployment.kernel in WIDTH_DEPENDENT_KERNELS
    return dataclasses.replace(deployment, weight_bits=deployment.weight_bits if keep else 16,
                               tensor_parallel=1, kv_cache="fp16", step_overhead=0.0,
                               framework=BARE, tie_side=1,
                               tie_margin=None if deployment.tie_margin is None else 0.0,
                               activation=activation,
                               row_kernels="eager" if deployment.row_kernels == "eager"
                               else "vectorized",
                               group_size=deployment.group_size if keep else DEQUANT_GROUP,
                               zero_points=False)


@functools.partial(jax.jit, static_argnames=("deployment", "layer_only"))
def _seconds(mach: Machine, llm: Shapes, work: Workload, launch, *, deployment: Deployment,
             layer_only: bool) -> dict:
    """{name: seconds} of one layer (``layer_only``) or one forward pass: device time per
    operator (layer operators x layers, then the edges), ``host_stall`` (host time beyond the
    device time) and, for a forward pass, ``framework`` (the per-step overhead)."""
    ops = layer_operators(llm, deployment, work, is_lut=is_lut_kernel(deployment.kernel),
                          split=mach.tensor_parallel, kv_bytes=mach.kv_bytes)
    layers = 1.0 if layer_only else llm.layers
    edges = [] if layer_only else edge_operators(llm, deployment, work,
                                                 split=mach.tensor_parallel)
    device = price(mach, deployment, ops + edges)
    seconds = {name: value * layers if i < len(ops) else value
               for i, (name, value) in enumerate(device.items())}
    host = host_seconds(ops, deployment, launch) * layers + host_seconds(edges, deployment,
                                                                         launch) * (not layer_only)
    if deployment.cuda_graphs:
        host = jnp.asarray(launch, float)
    seconds["host_stall"] = jnp.maximum(host - sum(seconds.values()), 0.0)
    if not layer_only:
        seconds["framework"] = mach.step_overhead + 0 * host
    return seconds


def _shown(seconds: dict, deployment: Deployment) -> dict:
    """The breakdown without the all-reduces of a single-GPU deployment (in its graph, free)."""
    if deployment.tensor_parallel > 1:
        return seconds
    return {name: value for name, value in seconds.items() if not name.endswith("_all_reduce")}


def _as_shapes(llm) -> Shapes:
    if isinstance(llm, Shapes):
        return Shapes(**{f: jnp.asarray(x, float) for f, x in llm._asdict().items()})
    return Shapes(**{f: x[0] for f, x in shapes(llm)._asdict().items()})


def layer_breakdown(gpu, llm, deployment: Deployment, work: Workload, *,
                    launch: float | None = None) -> dict:
    """{operator name: seconds} of one decoder layer of ``llm`` (an ``LLMShape`` or ``Shapes``)
    on ``gpu`` (a ``GPUSpec``), plus ``host_stall``; arrays broadcast from ``llm`` and
    ``work``. ``launch``: host seconds per kernel launch, default the spec's (0: device time
    only)."""
    mach = machine(gpu, deployment)
    launch = mach.launch_overhead if launch is None else jnp.asarray(launch, float)
    return _shown(_seconds(mach, _as_shapes(llm), work, launch, deployment=_graph(deployment),
                           layer_only=True), deployment)


def model_breakdown(gpu, llm, deployment: Deployment, work: Workload) -> dict:
    """{operator name: seconds} of one forward pass of the whole model: ``layers`` x each layer
    operator, then the embedding, final norm and LM head (``edge_operators``), ``host_stall``
    and ``framework``."""
    mach = machine(gpu, deployment)
    return _shown(_seconds(mach, _as_shapes(llm), work, mach.launch_overhead,
                           deployment=_graph(deployment), layer_only=False), deployment)


def model_latency(gpu, llm, deployment: Deployment, work: Workload) -> jnp.ndarray:
    """Seconds of one forward pass (the prefill of the prompts, or one decode step)."""
    return sum(model_breakdown(gpu, llm, deployment, work).values())


def layer_latency(gpu, llm, deployment: Deployment, work: Workload) -> jnp.ndarray:
    """Seconds of one decoder layer."""
    return sum(layer_breakdown(gpu, llm, deployment, work).values())


@functools.partial(jax.jit, static_argnames=("deployment",))
def _swept(machines: Machine, llm: Shapes, work: Workload, *, deployment: Deployment):
    def one(mach):
        seconds = _seconds(mach, llm, work, mach.launch_overhead, deployment=deployment,
                           layer_only=False)
        return sum(seconds.values())
    return jax.vmap(one)(machines)


def latency_sweep(configs, llms, work: Workload) -> jnp.ndarray:
    """Seconds of one forward pass, [config, model, *work.shape], for ``configs`` = [(GPUSpec,
    Deployment)] x ``llms`` (LLMShapes) x the workload arrays. Configs whose operator graphs
    agree (same kernel, fusion, precompute, ...) are stacked and vmapped in one compiled call,
    whatever their GPU variant and weight width."""
    models = shapes(llms)
    models = Shapes(**{f: x.reshape((-1,) + (1,) * jnp.ndim(work.batch))
                       for f, x in models._asdict().items()})
    groups: dict = {}
    for index, (gpu, deployment) in enumerate(configs):
        groups.setdefault(_graph(deployment), []).append((index, machine(gpu, deployment)))
    # numpy stacks and orders the arrays: no small program to compile for each group's size
    stacked = {graph: jax.tree_util.tree_map(lambda *xs: np.stack(xs), *(m for _, m in members))
               for graph, members in groups.items()}
    # Tracing holds the GIL, XLA's compilation does not: the graphs are traced one after the
    # other here, each compiling on a thread while the next is traced (threads tracing at once
    # only slowed each other); the jit calls below then find them compiled.
    with concurrent.futures.ThreadPoolExecutor(max(1, len(groups))) as pool:
        compiling = [pool.submit(_swept.trace(stacked[graph], models, work, deployment=graph)
                                 .lower().compile) for graph in groups]
        for done in compiling:
            done.result()
    rows = np.concatenate([_swept(stacked[graph], models, work, deployment=graph)
                           for graph in groups])
    order = [index for members in groups.values() for index, _ in members]
    return jax.device_put(rows[np.argsort(order)])
