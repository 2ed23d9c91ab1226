"""The operator graph of a decoder-only LLM on one GPU (LUT Tensor Core §4.4): how a model
runs (``Deployment``), what it is asked to do (``Workload``), and the kernels of one layer
and of the model's edges (``Operator`` lists); ``lutcore.gpu._simulator`` prices them.

- projection GEMMs (QKV, output, FFN up/gate, FFN down): the deployment's kernel;
- attention: prefill as one FlashAttention-like kernel or as QK^T GEMM + softmax + PV GEMM
  (``attention="unfused"``); decode reads the KV cache (``kv_cache`` format) and is
  memory-bound;
- memory-bound operators (norms, activation, residual add, rotary embedding, softmax,
  embedding, the LUT table precompute);
- tensor parallelism: the layer's heads, FFN and vocabulary split ``tensor_parallel`` ways,
  an all-reduce of the activations after the output projection and after FFN down
  (Megatron-LM, Shoeybi et al. 2019, §3); a parallel-attention layer (``Shapes.parallel``:
  GPT-J, Wang & Komatsuzaki 2021; Falcon, Almazrouei et al. 2023, §4.1) adds both blocks'
  partial sums to the residual in one all-reduce after FFN down.

Memory-bound kernels stream at the achievable DRAM rate (vectorized loads keep enough bytes in
flight), or, with ``row_kernels="scalar"``, run as vLLM / sarathi-serve's row kernels do
(csrc/layernorm_kernels.cu, activation_kernels.cu, pos_encoding_kernels.cu): one CTA per token
row of min(width, 1024) threads (512 for the rotary embedding), each thread looping over its
row with one 2-byte load per iteration that it waits for before the next, so a row costs
``row_trips`` dependent DRAM round trips; Vidur's profiles of these kernels grow in steps of
one row per SM (one such CTA resident per SM), the rounds of rows the ``_simulator`` prices.
With ``row_kernels="eager"`` they are Hugging Face transformers' eager PyTorch modules, one
element-wise or reduction kernel per tensor operation (``EAGER_NORM``, ``EAGER_ROTARY``,
``EAGER_SWIGLU``), each a launch and a pass over its tensors, a read from the L2 when what
went through it since the tensor was written fits there.

A memory-bound kernel reads the tensor the kernel just before it wrote (the residual stream,
a GEMM's output, the scores) from the L2 when that tensor fits in the L2 (``fresh_bytes``; the
L2 is write-back and keeps what was written last; GA100 40 MB, GH100 50 MB: the spec's ``l2``),
else from DRAM (read from its start, a tensor larger than the L2 was evicted first). Vidur's
residual adds show it (vidur/profiling/mlp/mlp_impl.py: the add reads the down projection's
output): at 1,024 tokens of a 4,096-wide model they move 25 MB faster than the DRAM peak.

Kernel fusion (``fusion=True``): the residual add joins the next norm, the activation and the
rotary embedding join the producing GEMM's epilogue. The table precompute of a LUT kernel is
either its own kernel (``precompute="separate"``: reads the activations, writes the tables) or
fused into the operator producing the activations (``"fused"``: that operator writes the
tables instead of the activations, one launch and one activation round trip saved, §3.1.1).
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from lutcore import _checks as check

from ._frameworks import (
    BARE,
    FLASH_ATTN,
    FRAMEWORKS,
    HF_EAGER,
    LLAMA_CPP,
    TENSORRT_LLM,
    TENSORRT_LLM_0_8,
    VLLM,
    Framework,
)
from ._kernels import default_lut_bits, precompute_work
from ._library import DEQUANT_GROUP
from ._specs import GPU_FORMATS
from ._ties import TIE_SIDES

PRECOMPUTE_TREATMENTS = ("none", "separate", "fused")  # of the table precompute operator
ATTENTION = ("flash", "unfused")
ROW_KERNELS = ("vectorized", "scalar", "eager")
# KV-cache pools, TensorRT-LLM's CacheType: "kv" (SELF) keeps K and V in blocks of their own, as
# serving allocates dense attention; "k_only" (SELFKONLY, MLA's) points each block's V offset at
# its K block (NVIDIA/TensorRT-LLM@b35ac1b, cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp,
# WindowBlockManager::setOffsets: fieldIdx = 0 for kSELFKONLY), which aiconfigurator's attention
# collector allocated until dec5f4cd2 (collector/trtllm/collect_attn.py)
KV_POOLS = ("kv", "k_only")
# Cached tokens up to which the MHA decode kernel finds V (its K) in the L2 on a k_only pool:
# aiconfigurator's H100 SXM tables (calibration; tools/kv_pool_check.py), 1.2.0rc5 (k_only)
# against 1.3.0rc20 (kv), 32 heads, >= 32 sequences: 1.07-1.45x apart at 64-256 cached tokens,
# 0.99-1.04 from 512 (but 8 x 512, whose whole K fits in the L2: 1.66x)
K_ONLY_MHA_L2_TOKENS = 256
# Hugging Face transformers' eager Llama operators, as LLMServingSim times them
# (casys-kaist/LLMServingSim@9e3f0ec, llm_profile/models/llama.py), one ATen kernel per tensor
# operation. The rotary, per Q or K tensor (x 2): q x cos, -x2 (half the elements), cat, x sin,
# add: (kernels, FP16-element equivalents read, written per element) = 5, 5.5, 4.5.
EAGER_ROTARY = (5, 5.5, 4.5)


class EagerKernel(NamedTuple):
    """One ATen kernel of an eager module, per element of the module's tensor, in FP16-element
    equivalents: ``read``, of it ``cached`` read from the L2 when ``footprint`` (the tensor and
    what went through the L2 since it was written) fits there, ``write``; ``strided``: it takes
    a broadcast or strided operand (ATen's non-vectorized path: ``EAGER_STRIDED_OPERATIONS``
    for each element it writes, one per element);
    ``launches``: 0 for a kernel's second operand listed apart."""

    read: float
    cached: float
    footprint: float
    write: float
    strided: bool = False
    launches: float = 1.0


# RMSNorm: to(float32) of the residual stream the add just wrote; pow(2) and mean of what the
# kernel before wrote; + eps and rsqrt on one value a row; x rsqrt (broadcast over the row)
# of the FP32 copy, pow's output written and read since (3 FP32 tensors); to(float16); weight x
# (broadcast over the rows): 20 B read, 16 B written an element.
EAGER_NORM = (EagerKernel(1, 1, 1, 2), EagerKernel(2, 2, 2, 2), EagerKernel(2, 2, 2, 0),
              EagerKernel(0, 0, 0, 0), EagerKernel(0, 0, 0, 0), EagerKernel(2, 2, 6, 2, True),
              EagerKernel(2, 2, 2, 1), EagerKernel(1, 1, 1, 1, True))
# SiLU(gate) x up, per FFN element: SiLU of the gate, written before the up GEMM streamed its
# weights through the L2 (not cached); x up of SiLU's output (just written) and of up's (written
# before SiLU moved the gate and its own output: 4 tensors). A GELU model: one kernel of what
# the up GEMM just wrote.
EAGER_SWIGLU = (EagerKernel(1, 0, 0, 1), EagerKernel(1, 1, 1, 1),
                EagerKernel(1, 1, 4, 0, launches=0.0))
EAGER_GELU = (EagerKernel(1, 1, 1, 1),)
# The eager rotary's kernels take strided operands (Q, K: transposed views of the projection;
# cos, sin: broadcast over heads; cat: half-width slices), so ATen runs them on its
# non-vectorized path, an offset computation per element and operand (TensorIterator's
# OffsetCalculator): they are bound by instruction issue, not DRAM (LLMServingSim's H100 / RTX
# 3090 time ratio at 1024-2048 tokens is 1.87-1.94, their CUDA-core ratio, not their DRAM
# ratio 3.6; the contiguous SiLU x up kernels: 3.5); so are the RMSNorm's two broadcast
# multiplies. CUDA-core operations per element written, fitted on LLMServingSim RTX 3090 rotary
# rows (llmservingsim_rtx3090.yaml, calibration; tools/calibrate_gpu.py eager_rotary: with the
# strided kernels' fixed time, HF_EAGER's strided_latency, the pair leaving the rows at <= 16
# and at >= 512 tokens unbiased).
EAGER_STRIDED_OPERATIONS = 217.0
# Query rows per CTA of the FMHA (one head each): TensorRT-LLM's flash-attention kernels for
# head size 128 on Hopper, fmha_v2_flash_attention_{fp16,bf16}_64_128_S_qkv_128_tma_ws_sm90
# (NVIDIA/TensorRT-LLM@03cdd5a, cpp/tensorrt_llm/kernels/contextFusedMultiHeadAttention/cubin/
# fmha_cubin.h: 64 query rows, KV steps of 128; 0.8 ships the same kernel,
# ..._64_128_S_128_tma_ws_sm90, ``_flash``); its Ampere kernels are taken alike
FMHA_Q_STEP = 64
ROW_THREADS, ROTARY_THREADS = 1024, 512  # CTA sizes of the row kernels (module doc)
FP16_BYTES = float(GPU_FORMATS["fp16"].nbytes)  # activations between operators, scores, weights
KV_BYTES = {d: float(GPU_FORMATS[d].nbytes) for d in ("fp16", "bf16", "fp8", "int8")}  # KV cache
# CUDA-core operations per output element (first principles): LayerNorm/RMSNorm mean,
# variance, normalize, scale, shift ~ 8; GELU (tanh form) ~ 8 and SiLU x gate ~ 6 incl. the
# exponential as one SFU op; softmax max, subtract, exp, sum, divide ~ 5; residual add 1;
# rotary embedding 2 multiplies + 1 add per element ~ 3.
NORM_FLOPS, GELU_FLOPS, SWIGLU_FLOPS, SOFTMAX_FLOPS, ADD_FLOPS, ROPE_FLOPS = 8, 8, 6, 5, 1, 3


@dataclasses.dataclass(frozen=True)
class Deployment:
    """How a model runs: the projection GEMM kernel and its formats, fusion, parallelism, the
    KV cache and the host.

    kernel: a kernel of ``gemm_latency``; weight_bits/activation: formats of the projection
    GEMMs (``gemm_latency``'s); precompute: the LUT table precompute, ``"separate"``,
    ``"fused"`` or ``"none"`` (tables taken as given: the lower bound; LUT kernels only);
    fusion: element-wise epilogues fused into their producers; attention: ``"flash"`` or
    ``"unfused"``; tensor_parallel: GPUs the layer is split over (heads, FFN and vocabulary;
    two all-reduces per layer over NVLink); lut_bits: table entry width (None: the activation's
    default, ``default_lut_bits``); fused_qkv: Q, K and V as one GEMM (else a Q GEMM and two K/V
    GEMMs, as eager PyTorch); gate_fusion: a gated FFN's gate and up projections as one GEMM
    with SiLU x gate in its epilogue (else two GEMMs and a SiLU-and-multiply kernel, as
    TensorRT-LLM 0.8 without ``--use_fused_mlp`` and gpt-fast's w1 / w3); kv_cache: KV-cache
    element format (``KV_BYTES``); kv_pool: the KV cache's pool layout (``KV_POOLS``);
    cuda_graphs: the forward pass is one CUDA graph (one host launch) instead of one host
    launch per kernel;
    step_overhead: host/framework seconds per forward pass (scheduling, sampling, Python)
    that the GPU waits for; row_kernels: ``"vectorized"`` or ``"scalar"`` norm, activation and
    rotary kernels (module doc; ``"eager"``: Hugging Face eager PyTorch, ``EAGER_NORM``);
    group_size, zero_points: quantization groups of a ``dequant``
    kernel's weights (``gemm_latency``'s; 0: per output channel); framework: the serving
    framework's costs beyond its kernels (a ``Framework`` record; ``DEPLOYMENTS`` are presets);
    gemm_tuned_rows: a TensorRT engine without a GEMM plugin runs each projection GEMM with the
    tactic its builder timed fastest at this many token rows (its optimization profile's
    optimum, ``_frameworks.engine_profile_rows``; ``_tiles`` T13); 0: each GEMM the tactic for
    its own M (a library heuristic or a plugin's profile); tie_margin, tie_side: the near-ties
    what-if of ``gemm_latency`` for every GEMM of the graph (reporting only; None: without).
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
    kv_cache: str = "fp16"
    kv_pool: str = "kv"
    cuda_graphs: bool = False
    step_overhead: float = 0.0
    row_kernels: str = "vectorized"
    group_size: int = DEQUANT_GROUP
    zero_points: bool = False
    gate_fusion: bool = True
    framework: Framework = BARE
    gemm_tuned_rows: int = 0
    tie_margin: float | None = None
    tie_side: int = 1

    def __post_init__(self):
        if not isinstance(self.framework, Framework):
            raise ValueError(f"framework must be a Framework record (lutcore.gpu.FRAMEWORKS: "
                             f"{', '.join(FRAMEWORKS)}), got {self.framework!r}")
        check.one_of("precompute", self.precompute, PRECOMPUTE_TREATMENTS)
        check.one_of("attention", self.attention, ATTENTION)
        if self.tensor_parallel < 1:
            raise ValueError(f"tensor_parallel must be >= 1, got {self.tensor_parallel}")
        check.one_of("kv_cache", self.kv_cache, KV_BYTES)
        check.one_of("kv_pool", self.kv_pool, KV_POOLS)
        if self.step_overhead < 0:
            raise ValueError(f"step_overhead must be >= 0, got {self.step_overhead}")
        if self.group_size < 0:
            raise ValueError(f"group_size must be >= 0 (0: per output channel), got "
                             f"{self.group_size}")
        check.one_of("row_kernels", self.row_kernels, ROW_KERNELS)
        check.integers("gemm_tuned_rows", self.gemm_tuned_rows, min=0)
        if self.tie_margin is not None:
            check.finite("tie_margin", self.tie_margin, min=0.0, max=1.0)
        check.one_of("tie_side", self.tie_side, TIE_SIDES)

    @property
    def table_bits(self) -> int:
        """Table entry width of a LUT kernel: ``lut_bits`` or the activation's default."""
        return self.lut_bits or default_lut_bits(self.activation)


# Preset deployments: each framework's kernels and fusions as its source shows them, with its
# ``Framework`` costs (``_frameworks``: the calibration source of each constant). Override a
# field with ``dataclasses.replace`` (kernel, formats, tensor_parallel, ...).
DEPLOYMENTS = {
    # TensorRT-LLM: fused QKV and gate/up GEMMs, epilogue fusion, its FMHA
    "tensorrt_llm": Deployment(framework=TENSORRT_LLM),
    # TensorRT-LLM 0.8 (its first-token tables): the same, its Hopper FMHA on a static grid
    "tensorrt_llm_0.8": Deployment(framework=TENSORRT_LLM_0_8),
    # vLLM / sarathi-serve as Vidur profiles it: separate residual adds, scalar row kernels
    "vllm": Deployment(fusion=False, row_kernels="scalar", framework=VLLM),
    # transformers' eager Llama as LLMServingSim times it (llm_profile/models/llama.py)
    "hf_eager": Deployment(fusion=False, fused_qkv=False, row_kernels="eager",
                           gate_fusion=False, framework=HF_EAGER),
    # the flash-attn package's kernel alone (its attention operator; the rest as "tensorrt_llm")
    "flash_attn": Deployment(framework=FLASH_ATTN),
    # llama.cpp's CUDA backend: one CUDA graph per decode step (ggml-cuda, since 2024)
    "llama_cpp": Deployment(cuda_graphs=True, framework=LLAMA_CPP),
}


class Workload(NamedTuple):
    """Arrays of one shape: sequences in the batch, new tokens per sequence (prefill: the prompt
    length; decode: 1), and tokens each new token attends to (prefill: the prompt; decode: the
    KV-cache length including the new token)."""

    batch: jnp.ndarray
    tokens: jnp.ndarray
    context: jnp.ndarray


@check.entry
def workload(batch, tokens, context=None) -> Workload:
    """A ``Workload`` of float arrays; ``context`` defaults to ``tokens`` (the paper's BSx SEQy:
    x sequences of y tokens each, nothing cached before)."""
    for name, size in (("batch", batch), ("tokens", tokens), ("context", context)):
        if size is not None:
            check.integers(name, size, min=1)
    batch, tokens = jnp.asarray(batch, float), jnp.asarray(tokens, float)
    context = tokens if context is None else jnp.asarray(context, float)
    batch, tokens, context = jnp.broadcast_arrays(batch, tokens, context)
    return Workload(batch=batch, tokens=tokens, context=context)


class Operator(NamedTuple):
    """One kernel of the layer graph. kind: ``"gemm"`` (a projection: ``gemm_latency`` on m x n
    x k, ``count`` identical GEMMs), ``"attention"`` (FP16 activation x activation GEMMs,
    ``count`` batched instances of m x n x k), ``"memory"`` (roofline: ``dram_bytes``,
    ``cuda_flops``) or ``"collective"`` (an all-reduce of ``dram_bytes`` over the deployment's
    GPUs). ``launches``: kernel launches it costs (0 when fused into its producer). ``rows``,
    ``row_trips``: a row kernel's rows (CTAs) and dependent DRAM round trips per row (module
    doc; the FMHA: its CTAs, one query tile of one head each; 0 for other kernels).
    ``fresh_bytes``: of a memory operator's reads, the bytes the kernel just before it wrote
    (module doc: read from the L2 when they fit in it; ``footprint``, when larger: what must fit
    for that). ``strided``: its kernels take strided operands (ATen's non-vectorized path: the
    framework's ``strided_latency`` each). ``parts``: the memory operators of a module of
    several kernels (an eager one), each priced on its own; ``launches`` counts them all."""

    name: str
    kind: str
    m: jnp.ndarray = 0.0
    n: jnp.ndarray = 0.0
    k: jnp.ndarray = 0.0
    count: jnp.ndarray = 1.0
    dram_bytes: jnp.ndarray = 0.0
    cuda_flops: jnp.ndarray = 0.0
    launches: float = 1.0
    rows: jnp.ndarray = 0.0
    row_trips: jnp.ndarray = 0.0
    fresh_bytes: jnp.ndarray = 0.0
    sequences: jnp.ndarray = 0.0
    strided: bool = False
    footprint: jnp.ndarray = 0.0
    parts: tuple = ()

    @property
    def sizes(self) -> tuple:
        """The array fields (they broadcast to the workload's shape), its parts' too."""
        return (self.m, self.n, self.k, self.count, self.dram_bytes, self.cuda_flops,
                self.rows, self.row_trips, self.fresh_bytes, self.sequences, self.footprint,
                *(size for part in self.parts for size in part.sizes))


def _memory(name, read_elements, write_elements, flops_per_element, *, launches=1.0,
            rows=0.0, row_trips=0.0, fresh_elements=0.0, strided=False):
    """A memory-bound operator on FP16 elements (a row kernel: ``rows``, ``row_trips``;
    ``fresh_elements`` of its reads the kernel before it wrote; ``strided``: ``Operator``'s)."""
    return Operator(name, "memory", dram_bytes=(read_elements + write_elements) * FP16_BYTES,
                    cuda_flops=flops_per_element * write_elements, launches=launches,
                    rows=rows, row_trips=row_trips, fresh_bytes=fresh_elements * FP16_BYTES,
                    strided=strided)


def _eager(name, kernels, elements, weight=1.0) -> Operator:
    """The operator of an eager module: its ``EagerKernel``s on ``elements`` each, as parts
    (``weight``: 0 or 1 per model, a module the model does not run)."""
    parts = tuple(Operator(name, "memory", dram_bytes=(k.read + k.write) * elements * weight
                           * FP16_BYTES,
                           cuda_flops=EAGER_STRIDED_OPERATIONS * elements * weight * k.strided,
                           launches=k.launches * weight, strided=k.strided,
                           fresh_bytes=k.cached * elements * weight * FP16_BYTES,
                           footprint=k.footprint * elements * FP16_BYTES)
                  for k in kernels)
    return Operator(name, "memory", launches=sum(part.launches for part in parts), parts=parts)


def _norm(name, rows, hidden, residual_in, trips, eager: bool) -> Operator:
    """A pre-norm (with the residual add when fused: ``residual_in`` 2): one row kernel, or
    transformers' eager RMSNorm (``EAGER_NORM``)."""
    if eager:
        return _eager(name, EAGER_NORM, rows * hidden)
    return _memory(name, rows * hidden * residual_in, rows * hidden * residual_in, NORM_FLOPS,
                   rows=rows, row_trips=trips, fresh_elements=rows * hidden)


def row_trips(width, threads=ROW_THREADS):
    """Dependent loads per thread of a row kernel over ``width`` elements (or pairs) with
    min(width, threads) threads."""
    return jnp.ceil(width / jnp.minimum(width, threads))


class Shapes(NamedTuple):
    """``LLMShape`` fields as arrays (one entry per model), so one evaluation covers several
    models: hidden, ffn, heads, kv_heads, layers, vocab; gated / rotary / parallel as 0/1."""

    hidden: jnp.ndarray
    ffn: jnp.ndarray
    heads: jnp.ndarray
    kv_heads: jnp.ndarray
    layers: jnp.ndarray
    vocab: jnp.ndarray
    gated: jnp.ndarray
    rotary: jnp.ndarray
    parallel: jnp.ndarray = 0.0


def _field(llm, name: str):
    """``llm.name``, or the ``Shapes`` default for fields a model description may lack (one
    written before ``parallel`` existed)."""
    return getattr(llm, name, Shapes._field_defaults.get(name))


def shapes(llms) -> Shapes:
    """Stack ``LLMShape``s (one, or a sequence) into ``Shapes`` of float arrays."""
    llms = [llms] if hasattr(llms, "hidden") else list(llms)
    return Shapes(**{f: np.asarray([float(_field(m, f)) for m in llms])
                     for f in Shapes._fields})


def _rotary(llm, rows, heads, kv_heads, head_dim, eager: bool = False) -> Operator:
    """RoPE on Q and K as a row kernel, or transformers' eager one (``EAGER_ROTARY``; models
    without it: zero work, no launch)."""
    q_and_k = rows * (heads + kv_heads) * head_dim * llm.rotary
    if eager:
        kernels, read, write = EAGER_ROTARY
        return _memory("rotary_embedding", q_and_k * read, q_and_k * write,
                       EAGER_STRIDED_OPERATIONS, launches=2.0 * kernels * llm.rotary,
                       fresh_elements=q_and_k, strided=True)
    pairs = head_dim / 2  # one thread iteration rotates one pair, Q then K
    threads = jnp.minimum(heads * pairs, ROTARY_THREADS)
    trips = jnp.ceil(heads * pairs / threads) + jnp.ceil(kv_heads * pairs / threads)
    return _memory("rotary_embedding", q_and_k, q_and_k, ROPE_FLOPS, launches=llm.rotary * 1.0,
                   rows=rows * llm.rotary, row_trips=trips, fresh_elements=q_and_k)


def _activation(llm, deployment: Deployment, rows, ffn) -> Operator:
    """The activation kernel: every one unfused; a fused deployment keeps only SiLU x gate
    when the gate is its own GEMM (no epilogue sees both operands)."""
    ffn_width = ffn * (1.0 + llm.gated)
    separate = 1.0 if not deployment.fusion else (not deployment.gate_fusion) * llm.gated
    read = ffn_width if deployment.gate_fusion else ffn  # of its reads, the GEMM just wrote
    if deployment.row_kernels == "eager":  # SiLU, then x up (a GELU model: one kernel)
        swiglu = _eager("activation", EAGER_SWIGLU, rows * ffn, separate * llm.gated)
        gelu = _eager("activation", EAGER_GELU, rows * ffn, separate * (1.0 - llm.gated))
        return Operator("activation", "memory", launches=swiglu.launches + gelu.launches,
                        parts=swiglu.parts + gelu.parts)
    return _memory("activation", rows * ffn_width * separate, rows * ffn * separate,
                   GELU_FLOPS + (SWIGLU_FLOPS - GELU_FLOPS) * llm.gated,
                   launches=separate * 1.0, rows=rows * separate, row_trips=row_trips(ffn),
                   fresh_elements=rows * read * separate)


def _precompute(name: str, rows, width, deployment: Deployment) -> Operator:
    """The table precompute of a LUT GEMM whose activations are rows x width: a kernel of its
    own (``"separate"``) or the producer writing tables instead of activations (``"fused"``);
    its work is ``_kernels.precompute_work``'s, the one the ``gemm_latency`` path prices."""
    dram, flops, launches = precompute_work(rows, width, deployment.table_bits,
                                            deployment.precompute == "separate")
    return Operator(f"{name}_precompute", "memory", dram_bytes=dram, cuda_flops=flops,
                    launches=launches)


def layer_operators(llm, deployment: Deployment, work: Workload, *, is_lut: bool,
                    split=None, kv_bytes=None) -> list[Operator]:
    """The operators of one decoder layer on one GPU, in execution order.

    llm: an ``LLMShape`` or ``Shapes`` (arrays broadcasting with ``work``); work: the workload
    arrays; is_lut: the projection kernel reads precomputed tables (adds the precompute
    operators); split, kv_bytes: the tensor-parallel degree and KV-cache bytes per element as
    numbers or traced arrays (default: the deployment's); the two all-reduces are in every
    graph and cost nothing (no launch, no bytes) on one GPU."""
    tp = deployment.tensor_parallel if split is None else split
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
        if is_lut and deployment.precompute != "none":
            ops.append(_precompute(name, rows, width, deployment))

    def all_reduce(name, needed=1.0):
        # Megatron-LM: the row-parallel GEMM's partial sums; a no-op (no launch) on one GPU or
        # where not ``needed`` (a parallel layer sums both blocks' partials in one all-reduce)
        split = (jnp.asarray(tp, float) > 1) * needed
        ops.append(Operator(name, "collective", dram_bytes=rows * hidden * FP16_BYTES * split,
                            launches=split * 1.0))

    # attention block: [residual add +] norm, QKV projection [+ RoPE], attention, output proj.
    eager = deployment.row_kernels == "eager"
    norm_trips = row_trips(hidden) * (not eager)
    ops.append(_norm("attention_norm", rows, hidden, residual_in, norm_trips, eager))
    precompute("qkv_projection", hidden)
    if deployment.fused_qkv:
        ops.append(Operator("qkv_projection", "gemm", rows, qkv_width, hidden))
    else:
        ops += [Operator("q_projection", "gemm", rows, heads * head_dim, hidden),
                Operator("kv_projection", "gemm", rows, kv_heads * head_dim, hidden,
                         count=2.0, launches=2.0)]
    if not fused:
        ops.append(_rotary(llm, rows, heads, kv_heads, head_dim, eager))
    ops += attention_operators(llm, deployment, work, split=tp, kv_bytes=kv_bytes)
    precompute("output_projection", heads * head_dim)
    ops.append(Operator("output_projection", "gemm", rows, hidden, heads * head_dim))
    all_reduce("attention_all_reduce", 1.0 - llm.parallel)
    if not fused:
        ops.append(_memory("attention_residual", 2 * rows * hidden, rows * hidden, ADD_FLOPS,
                           fresh_elements=rows * hidden))
    # FFN block: [residual add +] norm, up(+gate) projection [+ activation], down projection.
    ops.append(_norm("ffn_norm", rows, hidden, residual_in, norm_trips, eager))
    precompute("ffn_up", hidden)
    if deployment.gate_fusion:
        ops.append(Operator("ffn_up", "gemm", rows, ffn_width, hidden))
    else:  # a gated FFN's gate and up projections as two GEMMs
        ops.append(Operator("ffn_up", "gemm", rows, ffn, hidden, count=1.0 + llm.gated,
                            launches=1.0 + llm.gated))
    if not fused or not deployment.gate_fusion:
        ops.append(_activation(llm, deployment, rows, ffn))
    precompute("ffn_down", ffn)
    ops.append(Operator("ffn_down", "gemm", rows, hidden, ffn))
    all_reduce("ffn_all_reduce")
    if not fused:
        ops.append(_memory("ffn_residual", 2 * rows * hidden, rows * hidden, ADD_FLOPS,
                           fresh_elements=rows * hidden))
    return ops


def attention_operators(llm, deployment: Deployment, work: Workload, *, split=None,
                        kv_bytes=None) -> list[Operator]:
    """Attention of one layer: FP16 Q K^T and P V over the heads of every sequence.

    flash: one kernel of ``FMHA_Q_STEP``-row query tiles (its CTAs: ``rows``; a grouped decode's
    rows are its sequences x KV heads, the XQA grid's, and its ``sequences`` 0: priced per wave,
    ``_simulator._framework``); its FLOPs on the tensor cores, its
    DRAM traffic Q, O (FP16) and K, V (``kv_cache`` format; scores stay on chip; K and V of a
    KV head are read once for the heads sharing it; a grouped-query decode kernel on a ``k_only``
    pool finds V, its K block, in the L2 and reads K alone). unfused: QK^T GEMM writes the scores,
    softmax reads and writes them, PV GEMM reads them. Prefill is causal: a new token attends
    on average to context - (tokens - 1) / 2 positions. split, kv_bytes: as for
    ``layer_operators``."""
    tp = deployment.tensor_parallel if split is None else split
    head_dim = llm.hidden / llm.heads
    heads, kv_heads = llm.heads / tp, jnp.maximum(llm.kv_heads / tp, 1.0)
    instances = work.batch * heads
    kv_bytes = KV_BYTES[deployment.kv_cache] if kv_bytes is None else kv_bytes
    if deployment.attention == "flash":
        attended = work.context - (work.tokens - 1) / 2
        kv = (_kv_reads(deployment, heads, kv_heads, work) * work.batch * kv_heads
              * work.context * head_dim * kv_bytes)
        qo = 2 * work.batch * work.tokens * heads * head_dim * FP16_BYTES
        grouped = (work.tokens == 1) & (heads > kv_heads)  # the XQA grid: _simulator.xqa_ctas
        return [Operator("attention", "attention", work.tokens, attended, head_dim,
                         count=2 * instances, dram_bytes=kv + qo,
                         cuda_flops=instances * work.tokens * attended * SOFTMAX_FLOPS,
                         rows=jnp.where(grouped, work.batch * kv_heads,
                                        jnp.ceil(work.tokens / FMHA_Q_STEP) * instances
                                        * (work.tokens > 1)),
                         sequences=work.batch * ~grouped)]
    # Eager batched GEMMs: every instance reads its own Q, K or V and the scores round-trip.
    scores = instances * work.tokens * work.context
    operands = instances * (work.tokens * FP16_BYTES + work.context * kv_bytes) * head_dim
    return [Operator("attention_qk", "attention", work.tokens, work.context, head_dim,
                     count=instances, dram_bytes=operands + scores * FP16_BYTES),
            _memory("softmax", scores, scores, SOFTMAX_FLOPS, fresh_elements=scores),
            Operator("attention_pv", "attention", work.tokens, head_dim, work.context,
                     count=instances, dram_bytes=operands + scores * FP16_BYTES)]


def _kv_reads(deployment: Deployment, heads, kv_heads, work: Workload):
    """K and V reads from DRAM per cached element: 2, or 1 on a ``k_only`` pool, whose V tile is
    the K tile just loaded, where a decode kernel finds it in the L2: the grouped-query kernel
    (TensorRT-LLM's XQA: one CTA loads a KV tile, K then V, for all the query heads sharing it)
    at every length, the MHA kernel (all of a sequence's K, then its V) up to
    ``K_ONLY_MHA_L2_TOKENS`` cached tokens."""
    if deployment.kv_pool == "kv":
        return 2.0
    in_l2 = (heads > kv_heads) | (work.context <= K_ONLY_MHA_L2_TOKENS)
    return jnp.where((work.tokens == 1) & in_l2, 1.0, 2.0)


def edge_operators(llm, deployment: Deployment, work: Workload, *, split=None
                   ) -> list[Operator]:
    """Once per forward pass: the embedding gather, the final norm (on the last token of each
    sequence) and the FP16 LM head on those rows (its vocabulary split ``split`` ways,
    default the deployment's ``tensor_parallel``)."""
    tp = deployment.tensor_parallel if split is None else split
    rows, hidden = work.batch * work.tokens, llm.hidden * 1.0
    return [_memory("embedding", rows * hidden, rows * hidden, 0.0),
            _memory("final_norm", work.batch * hidden, work.batch * hidden, NORM_FLOPS,
                    rows=work.batch, row_trips=row_trips(hidden)),
            Operator("lm_head", "attention", work.batch, llm.vocab / tp, hidden)]
