"""Tile-based end-to-end LLM latency simulator (LUT Tensor Core §4.4).

A decoder layer is a graph of operators, each priced on a ``GPUSpec``:

- projection GEMMs (QKV, output, FFN up/gate, FFN down) and the LM head: ``gemm_latency`` of
  the deployment's kernel (tile model: waves, tiles, DRAM/L2 traffic, tensor-core throughput);
- attention: prefill as one FlashAttention-like kernel or as QK^T GEMM + softmax + PV GEMM
  (``attention="unfused"``); decode reads the KV cache and is memory-bound;
- memory-bound operators (norms, activation, residual add, rotary embedding, softmax,
  embedding, the LUT table precompute) as a roofline over the spec: max(DRAM bytes /
  bandwidth, CUDA-core FLOPs / CUDA-core throughput), plus one kernel launch each.

Kernel fusion (``fusion=True``): the residual add joins the next norm, the activation and the
rotary embedding join the producing GEMM's epilogue. The table precompute of a LUT kernel is
either its own kernel (``precompute="separate"``: reads the activations, writes the tables) or
fused into the operator producing the activations (``"fused"``: that operator writes the
tables instead of the activations, one launch and one activation round trip saved, §3.1.1).

Every operator is a pure jnp function of the model shape and workload arrays (batch, new
tokens per sequence, attended context), and the GPU enters as a ``Machine`` of arrays, so one
``jax.jit`` compilation per operator graph serves every GPU variant, weight width, model and
workload, and ``latency_sweep`` vmaps over GPU variants. Kernel launch overhead: the spec's
``launch_overhead``; DRAM and tensor cores at the spec's achievable fractions of the peaks
(``dram_efficiency``, ``tensor_efficiency``; sources cited in ``_specs``).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp

from ._kernels import (ACT_BYTES, Hardware, _tile_model, check_kernel, hardware, is_lut_kernel,
                       lut_precompute_adds, lut_table_bytes)
from ._specs import achievable_dram_bandwidth, cuda_core_flops, launch_overhead

PRECOMPUTE_TREATMENTS = ("none", "separate", "fused")  # of the table precompute operator
ATTENTION = ("flash", "unfused")
FP16_BYTES = 2.0  # activations between operators, KV cache, scores, FP16 weights
FP16_KERNEL = "cublas"  # attention and the LM head: FP16 tensor-core GEMMs


@dataclasses.dataclass(frozen=True)
class Deployment:
    """How a model runs: the projection GEMM kernel and its formats, fusion, parallelism.

    kernel: a kernel of ``gemm_latency``; weight_bits/activation: formats of the projection
    GEMMs (``gemm_latency``'s); precompute: the LUT table precompute, ``"separate"``,
    ``"fused"`` or ``"none"`` (tables taken as given: the lower bound; LUT kernels only);
    fusion: element-wise epilogues fused into their producers; attention: ``"flash"`` or
    ``"unfused"``; tensor_parallel: the layer's share on one GPU (heads, FFN and vocab
    split ``tensor_parallel`` ways; communication is not modeled); lut_bits: table entry width
    (None: ``gemm_latency``'s default for the activation);
    fused_qkv: Q, K and V as one GEMM (else a Q GEMM and two K/V GEMMs, as eager PyTorch).
    """

    kernel: str = "cublas"
    weight_bits: int = 16
    activation: str = "fp16"
    precompute: str = "fused"
    fusion: bool = True
    attention: str = "flash"
    tensor_parallel: int = 1
    lut_bits: int | None = None
    fused_qkv: bool = True

    def __post_init__(self):
        if self.precompute not in PRECOMPUTE_TREATMENTS:
            raise ValueError(f"precompute {self.precompute!r} unknown; allowed values: "
                             f"{', '.join(PRECOMPUTE_TREATMENTS)}")
        if self.attention not in ATTENTION:
            raise ValueError(f"attention {self.attention!r} unknown; allowed values: "
                             f"{', '.join(ATTENTION)}")
        if self.tensor_parallel < 1:
            raise ValueError(f"tensor_parallel must be >= 1, got {self.tensor_parallel}")


class Workload(NamedTuple):
    """Arrays of one shape: sequences in the batch, new tokens per sequence (prefill: the prompt
    length; decode: 1), and tokens each new token attends to (prefill: the prompt; decode: the
    KV-cache length including the new token)."""

    batch: jnp.ndarray
    tokens: jnp.ndarray
    context: jnp.ndarray


def workload(batch, tokens, context=None) -> Workload:
    """A ``Workload`` of float arrays; ``context`` defaults to ``tokens`` (the paper's BSx SEQy:
    x sequences of y tokens each, nothing cached before)."""
    batch, tokens = jnp.asarray(batch, float), jnp.asarray(tokens, float)
    context = tokens if context is None else jnp.asarray(context, float)
    return Workload(*jnp.broadcast_arrays(batch, tokens, context))


class Operator(NamedTuple):
    """One kernel of the layer graph. kind: ``"gemm"`` (a projection: ``gemm_latency`` on m x n
    x k, ``count`` identical GEMMs), ``"attention"`` (FP16 activation x activation GEMMs,
    ``count`` batched instances of m x n x k) or ``"memory"`` (roofline: ``dram_bytes``,
    ``cuda_flops``). ``launches``: kernel launches it costs (0 when fused into its producer)."""

    name: str
    kind: str
    m: jnp.ndarray = 0.0
    n: jnp.ndarray = 0.0
    k: jnp.ndarray = 0.0
    count: jnp.ndarray = 1.0
    dram_bytes: jnp.ndarray = 0.0
    cuda_flops: jnp.ndarray = 0.0
    launches: float = 1.0


def _memory(name, read_elements, write_elements, flops_per_element, *, launches=1.0):
    """A memory-bound operator on FP16 elements."""
    return Operator(name, "memory", dram_bytes=(read_elements + write_elements) * FP16_BYTES,
                    cuda_flops=flops_per_element * write_elements, launches=launches)


# CUDA-core operations per output element (first principles): LayerNorm/RMSNorm mean,
# variance, normalize, scale, shift ~ 8; GELU (tanh form) ~ 8 and SiLU x gate ~ 6 incl. the
# exponential as one SFU op; softmax max, subtract, exp, sum, divide ~ 5; residual add 1;
# rotary embedding 2 multiplies + 1 add per element ~ 3.
NORM_FLOPS, GELU_FLOPS, SWIGLU_FLOPS, SOFTMAX_FLOPS, ADD_FLOPS, ROPE_FLOPS = 8, 8, 6, 5, 1, 3


def lut_bits(deployment: Deployment) -> int:
    """Table entry width: the deployment's, else ``gemm_latency``'s default (16 bits for 2-byte
    activations, 8 for 1-byte ones: INT8 table quantization, §3.1.3)."""
    return deployment.lut_bits or (16 if ACT_BYTES[deployment.activation] == 2 else 8)


def table_bytes(deployment: Deployment) -> float:
    """Bytes of precomputed tables per activation."""
    return lut_table_bytes(lut_bits(deployment))


class Shapes(NamedTuple):
    """``LLMShape`` fields as arrays (one entry per model), so one evaluation covers several
    models: hidden, ffn, heads, kv_heads, layers, vocab; gated / rotary as 0/1."""

    hidden: jnp.ndarray
    ffn: jnp.ndarray
    heads: jnp.ndarray
    kv_heads: jnp.ndarray
    layers: jnp.ndarray
    vocab: jnp.ndarray
    gated: jnp.ndarray
    rotary: jnp.ndarray


def shapes(llms) -> Shapes:
    """Stack ``LLMShape``s (one, or a sequence) into ``Shapes`` of float arrays."""
    llms = [llms] if hasattr(llms, "hidden") else list(llms)
    return Shapes(*(jnp.asarray([float(getattr(m, f)) for m in llms]) for f in Shapes._fields))


def layer_operators(llm, deployment: Deployment, work: Workload, *, is_lut: bool
                    ) -> list[Operator]:
    """The operators of one decoder layer on one GPU, in execution order.

    llm: an ``LLMShape`` or ``Shapes`` (arrays broadcasting with ``work``); work: the workload
    arrays; is_lut: the projection kernel reads precomputed tables (adds the precompute
    operators)."""
    tp = deployment.tensor_parallel
    hidden, head_dim = llm.hidden * 1.0, llm.hidden / llm.heads
    heads, kv_heads = llm.heads / tp, jnp.maximum(llm.kv_heads / tp, 1.0)
    ffn = llm.ffn / tp
    rows = work.batch * work.tokens  # token rows of every projection GEMM
    fused = deployment.fusion
    residual_in = 2.0 if fused else 1.0  # a fused norm also reads and writes the residual
    qkv_width = (heads + 2 * kv_heads) * head_dim
    ffn_width = ffn * (1.0 + llm.gated)
    ops: list[Operator] = []

    def precompute(name, width):
        """The table precompute of a LUT GEMM whose activations are rows x width."""
        if not is_lut or deployment.precompute == "none":
            return
        tables, adds = table_bytes(deployment), lut_precompute_adds()
        if deployment.precompute == "separate":
            ops.append(Operator(f"{name}_precompute", "memory",
                                dram_bytes=rows * width * (FP16_BYTES + tables),
                                cuda_flops=rows * width * adds))
        else:  # the producer writes tables instead of activations, in the same kernel
            ops.append(Operator(f"{name}_precompute", "memory",
                                dram_bytes=rows * width * (tables - FP16_BYTES),
                                cuda_flops=rows * width * adds, launches=0.0))

    # attention block: [residual add +] norm, QKV projection [+ RoPE], attention, output proj.
    ops.append(_memory("attention_norm", rows * hidden * residual_in,
                       rows * hidden * residual_in, NORM_FLOPS))
    precompute("qkv_projection", hidden)
    if deployment.fused_qkv:
        ops.append(Operator("qkv_projection", "gemm", rows, qkv_width, hidden))
    else:
        ops += [Operator("q_projection", "gemm", rows, heads * head_dim, hidden),
                Operator("kv_projection", "gemm", rows, kv_heads * head_dim, hidden,
                         count=2.0, launches=2.0)]
    if not fused:  # RoPE on Q and K (models without it: zero work, no launch)
        q_and_k = rows * (heads + kv_heads) * head_dim * llm.rotary
        ops.append(_memory("rotary_embedding", q_and_k, q_and_k, ROPE_FLOPS,
                           launches=llm.rotary * 1.0))
    ops += attention_operators(llm, deployment, work)
    precompute("output_projection", heads * head_dim)
    ops.append(Operator("output_projection", "gemm", rows, hidden, heads * head_dim))
    if not fused:
        ops.append(_memory("attention_residual", 2 * rows * hidden, rows * hidden, ADD_FLOPS))
    # FFN block: [residual add +] norm, up(+gate) projection [+ activation], down projection.
    ops.append(_memory("ffn_norm", rows * hidden * residual_in, rows * hidden * residual_in,
                       NORM_FLOPS))
    precompute("ffn_up", hidden)
    ops.append(Operator("ffn_up", "gemm", rows, ffn_width, hidden))
    if not fused:
        ops.append(_memory("activation", rows * ffn_width, rows * ffn,
                           GELU_FLOPS + (SWIGLU_FLOPS - GELU_FLOPS) * llm.gated))
    precompute("ffn_down", ffn)
    ops.append(Operator("ffn_down", "gemm", rows, hidden, ffn))
    if not fused:
        ops.append(_memory("ffn_residual", 2 * rows * hidden, rows * hidden, ADD_FLOPS))
    return ops


def attention_operators(llm, deployment: Deployment, work: Workload) -> list[Operator]:
    """Attention of one layer: FP16 Q K^T and P V over the heads of every sequence.

    flash: one kernel; its FLOPs on the tensor cores, its DRAM traffic Q, K, V, O only (scores
    stay on chip; K and V of a KV head are read once for the heads sharing it). unfused: QK^T
    GEMM writes the scores, softmax reads and writes them, PV GEMM reads them. Prefill is
    causal: a new token attends on average to context - (tokens - 1) / 2 positions."""
    tp = deployment.tensor_parallel
    head_dim = llm.hidden / llm.heads
    heads, kv_heads = llm.heads / tp, jnp.maximum(llm.kv_heads / tp, 1.0)
    instances = work.batch * heads
    if deployment.attention == "flash":
        attended = work.context - (work.tokens - 1) / 2
        kv_bytes = 2 * work.batch * kv_heads * work.context * head_dim * FP16_BYTES
        qo_bytes = 2 * work.batch * work.tokens * heads * head_dim * FP16_BYTES
        return [Operator("attention", "attention", work.tokens, attended, head_dim,
                         count=2 * instances, dram_bytes=kv_bytes + qo_bytes,
                         cuda_flops=instances * work.tokens * attended * SOFTMAX_FLOPS)]
    # Eager batched GEMMs: every instance reads its own Q, K or V and the scores round-trip.
    scores = instances * work.tokens * work.context
    operands = instances * (work.tokens + work.context) * head_dim
    return [Operator("attention_qk", "attention", work.tokens, work.context, head_dim,
                     count=instances, dram_bytes=(operands + scores) * FP16_BYTES),
            _memory("softmax", scores, scores, SOFTMAX_FLOPS),
            Operator("attention_pv", "attention", work.tokens, head_dim, work.context,
                     count=instances, dram_bytes=(operands + scores) * FP16_BYTES)]


def edge_operators(llm, deployment: Deployment, work: Workload) -> list[Operator]:
    """Once per forward pass: the embedding gather, the final norm (on the last token of each
    sequence) and the FP16 LM head on those rows."""
    rows, hidden = work.batch * work.tokens, llm.hidden * 1.0
    return [_memory("embedding", rows * hidden, rows * hidden, 0.0),
            _memory("final_norm", work.batch * hidden, work.batch * hidden, NORM_FLOPS),
            Operator("lm_head", "attention", work.batch, llm.vocab / deployment.tensor_parallel,
                     hidden)]


class Machine(NamedTuple):
    """What pricing needs of a GPU for one deployment, as arrays (a pytree, so one compiled
    simulator serves every GPU variant and weight width, and ``jax.vmap`` sweeps them): the
    tile-model ``Hardware`` of the projection kernel and of the FP16 kernel (attention, LM
    head), achievable DRAM bandwidth (B/s, ``dram_efficiency`` x peak), CUDA-core FLOP/s and
    seconds per kernel launch."""

    projection: Hardware
    fp16: Hardware
    dram_bandwidth: jnp.ndarray
    cuda_core_flops: jnp.ndarray
    launch_overhead: jnp.ndarray


def machine(gpu, deployment: Deployment) -> Machine:
    """The ``Machine`` of ``gpu`` (a ``GPUSpec``) for ``deployment``; ValueError (from
    ``gemm_latency``'s checks) if the GPU cannot run the deployment's kernel and formats."""
    check_kernel(gpu, deployment.kernel, deployment.activation, deployment.weight_bits, "fused")
    return Machine(
        hardware(gpu, deployment.kernel, deployment.activation, deployment.weight_bits,
                 lut_bits(deployment)),
        hardware(gpu, FP16_KERNEL, "fp16", 16, 16),
        *(jnp.asarray(v, float) for v in (achievable_dram_bandwidth(gpu),
                                           cuda_core_flops(gpu), launch_overhead(gpu))))


def _stacked(values, shape):
    return jnp.stack([jnp.broadcast_to(jnp.asarray(v, float), shape) for v in values])


def price(mach: Machine, deployment: Deployment, ops: list[Operator], *,
          launch=None) -> dict:
    """{name: seconds} of ``ops`` on ``mach``: the projections in one tile-model evaluation of
    the deployment's kernel, attention and LM head in one FP16 evaluation (``count`` instances
    stacked along M: one kernel's waves and tile efficiency), each bounded below by its own
    DRAM traffic; memory operators as a roofline; plus ``launches`` x ``launch`` seconds each
    (default the machine's launch overhead)."""
    launch = mach.launch_overhead if launch is None else launch
    shape = jnp.broadcast_shapes(*(jnp.shape(x) for op in ops for x in op[2:]))
    memory = [jnp.maximum(op.dram_bytes / mach.dram_bandwidth,
                          op.cuda_flops / mach.cuda_core_flops) for op in ops]
    seconds = dict.fromkeys((op.name for op in ops), None)
    for kind in ("gemm", "attention"):
        group = [i for i, op in enumerate(ops) if op.kind == kind]
        if not group:
            continue
        n, k = (_stacked([getattr(ops[i], f) for i in group], shape) for f in "nk")
        if kind == "gemm":
            m = _stacked([ops[i].m for i in group], shape)
            tiles = _tile_model(mach.projection, m, n, k, kernel=deployment.kernel,
                                separate=False).seconds
            tiles = tiles * _stacked([ops[i].count for i in group], shape)
        else:
            m = _stacked([ops[i].m * ops[i].count for i in group], shape)
            tiles = _tile_model(mach.fp16, m, n, k, kernel=FP16_KERNEL, separate=False).seconds
        for row, i in enumerate(group):
            seconds[ops[i].name] = jnp.maximum(tiles[row], memory[i])
    return {op.name: (memory[i] if seconds[op.name] is None else seconds[op.name])
            + op.launches * launch for i, op in enumerate(ops)}


def _graph(deployment: Deployment) -> Deployment:
    """The deployment as the operator graph sees it: the weight width only enters the
    ``Machine``, so one compilation serves every width."""
    return dataclasses.replace(deployment, weight_bits=16)


@functools.partial(jax.jit, static_argnames=("deployment", "layer_only"))
def _seconds(mach: Machine, llm: Shapes, work: Workload, launch, *, deployment: Deployment,
             layer_only: bool) -> dict:
    ops = layer_operators(llm, deployment, work, is_lut=is_lut_kernel(deployment.kernel))
    count = len(ops)
    if not layer_only:
        ops += edge_operators(llm, deployment, work)
    seconds = price(mach, deployment, ops, launch=launch)
    if layer_only:
        return seconds
    return {name: value * llm.layers if i < count else value
            for i, (name, value) in enumerate(seconds.items())}


def _as_shapes(llm) -> Shapes:
    if isinstance(llm, Shapes):
        return Shapes(*(jnp.asarray(x, float) for x in llm))
    return Shapes(*(jnp.asarray(float(getattr(llm, f))) for f in Shapes._fields))


def layer_breakdown(gpu, llm, deployment: Deployment, work: Workload, *,
                    launch: float | None = None) -> dict:
    """{operator name: seconds} of one decoder layer of ``llm`` (an ``LLMShape`` or ``Shapes``)
    on ``gpu`` (a ``GPUSpec``); arrays broadcast from ``llm`` and ``work``. ``launch``:
    seconds per kernel launch, default the spec's (0: device time only)."""
    mach = machine(gpu, deployment)
    launch = mach.launch_overhead if launch is None else jnp.asarray(launch, float)
    return _seconds(mach, _as_shapes(llm), work, launch, deployment=_graph(deployment),
                    layer_only=True)


def model_breakdown(gpu, llm, deployment: Deployment, work: Workload) -> dict:
    """{operator name: seconds} of one forward pass of the whole model: ``layers`` x each layer
    operator, then the embedding, final norm and LM head (``edge_operators``)."""
    mach = machine(gpu, deployment)
    return _seconds(mach, _as_shapes(llm), work, mach.launch_overhead,
                    deployment=_graph(deployment), layer_only=False)


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
    models = Shapes(*(x.reshape((-1,) + (1,) * jnp.ndim(work.batch)) for x in models))
    groups: dict = {}
    for index, (gpu, deployment) in enumerate(configs):
        groups.setdefault(_graph(deployment), []).append((index, machine(gpu, deployment)))

    def evaluate(graph):
        members = groups[graph]
        stacked = jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *(m for _, m in members))
        return jax.block_until_ready(_swept(stacked, models, work, deployment=graph))

    # XLA compiles outside the GIL: the graphs compile (and run) in parallel on the cores.
    with concurrent.futures.ThreadPoolExecutor(max(1, len(groups))) as pool:
        results = dict(zip(groups, pool.map(evaluate, groups)))
    out = [None] * len(configs)
    for graph, members in groups.items():
        for row, (index, _) in enumerate(members):
            out[index] = results[graph][row]
    return jnp.stack(out)
