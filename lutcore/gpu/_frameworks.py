"""What a serving framework adds to its kernels' device time (issue 30, item 3): a
``Framework`` record per framework, each constant with its calibration source (constants
fitted by ``tools/calibrate_gpu.py`` on ``role: calibration`` sets only).

- ``kernel_latency``: device seconds of one of its element-wise / reduction kernels (the
  fixed part of a memory-bound kernel; ``None``: the GPU spec's, fitted on Vidur's
  sarathi-serve kernels, C2 of ``_specs``); ``strided_latency``: the same for its kernels
  whose operands are strided views (ATen's non-vectorized path; ``None``: ``kernel_latency``);
- ``launch_overhead`` / ``step_overhead``: host seconds per kernel launch and per forward pass
  (``None`` / 0: the GPU spec's launch time, no step time);
- ``attention_call``, ``attention_sequence``, ``attention_rate``: its attention operator
  beyond one FlashAttention-like kernel: device seconds per call (its pre-processing kernels:
  RoPE, KV-cache append) and per sequence (per-sequence work of its kernels: block tables,
  the new token's RoPE and append), and the fraction of the FP16 tile model's pipe rate its
  attention kernel reaches on compute-bound prefills (its scores stay on chip, ``_simulator``);
  ``attention_tile``: device seconds per round of its prefill FMHA's CTAs (one query tile of
  ``_operators.FMHA_Q_STEP`` rows of one head each, one CTA per SM at a time: loading the tile,
  filling the KV pipeline, normalizing and storing the output); ``decode_call``,
  ``decode_sequence``: the per-call and per-sequence times of its decode attention (one new
  token a sequence: another kernel, e.g. TensorRT-LLM's generation kernel against its context
  FMHA); ``None``: the prefill's; ``decode_wave``: device seconds per wave of its grouped-query
  decode kernel's CTAs (TensorRT-LLM's XQA: sequences x KV heads x sub-sequences, one CTA per
  SM a wave, ``_simulator.xqa_ctas``), which then pays no per-sequence time;
- ``flash``: the FlashAttention-2-style kernel its prefill attention runs (a ``FlashKernel``,
  ``_flash``: priced as its CTAs' chains of KV iterations, the per-call time on top, no
  per-round or rate constant), or ``None``: the tile model's pipes at ``attention_rate``;
- ``by_architecture``: ((architecture, Framework), ...): the records whose attention costs
  replace these on GPUs of that architecture (``GPUSpec.architecture``; its kernels are other
  builds, e.g. TensorRT-LLM's sm90 FMHA), where a calibration set times them there;
- ``fmha_grid``: how its Hopper FMHA's CTAs take the query tiles of a causal prefill,
  ``"dynamic"`` (a tile counter, the longest first: what the calibration sets time) or
  ``"static"`` (TensorRT-LLM 0.8's fixed grid: its busiest CTA sets the time,
  ``_flash.static_grid_stretch``).

The frameworks' kernels and fusions are ``Deployment`` fields; ``_operators.DEPLOYMENTS``
holds the preset deployments built on these records.
"""

from __future__ import annotations

import dataclasses

from lutcore import _checks as check

from ._flash import FLASH_ATTENTION_2, FlashKernel
from ._specs import ARCHITECTURES

FMHA_GRIDS = ("dynamic", "static")  # Framework.fmha_grid


@dataclasses.dataclass(frozen=True)
class Framework:
    """A serving framework's costs beyond its kernels (module doc); ``source``: where each
    constant comes from."""

    name: str
    source: str
    kernel_latency: float | None = None
    strided_latency: float | None = None
    launch_overhead: float | None = None
    step_overhead: float = 0.0
    attention_call: float = 0.0
    attention_sequence: float = 0.0
    attention_rate: float = 1.0
    attention_tile: float = 0.0
    decode_call: float | None = None
    decode_sequence: float | None = None
    decode_wave: float = 0.0
    flash: FlashKernel | None = None
    by_architecture: tuple = ()
    fmha_grid: str = "dynamic"

    def __post_init__(self):
        check.one_of("fmha_grid", self.fmha_grid, FMHA_GRIDS)
        for field in ("kernel_latency", "strided_latency", "launch_overhead", "step_overhead",
                      "attention_call", "attention_sequence", "attention_tile", "decode_call",
                      "decode_sequence", "decode_wave"):
            value = getattr(self, field)
            if value is not None and value < 0:
                raise ValueError(f"framework {self.name}: {field} must be >= 0, got {value!r}")
        if self.flash is not None and not isinstance(self.flash, FlashKernel):
            raise ValueError(f"framework {self.name}: flash must be a FlashKernel record or "
                             f"None, got {self.flash!r}")
        if self.flash is not None and (self.attention_tile or self.attention_rate != 1):
            raise ValueError(f"framework {self.name}: a flash kernel prices its own rounds "
                             "and rate: attention_tile must be 0 and attention_rate 1")
        if not 0 < self.attention_rate <= 1:
            raise ValueError(f"framework {self.name}: attention_rate must be in (0, 1], got "
                             f"{self.attention_rate!r}")
        for architecture, record in self.by_architecture:
            check.one_of("architecture", architecture, ARCHITECTURES)
            if not isinstance(record, Framework):
                raise ValueError(f"framework {self.name}: by_architecture[{architecture!r}] "
                                 f"must be a Framework record, got {type(record).__name__}")

    def on(self, architecture: str) -> Framework:
        """The record whose costs apply on a GPU of ``architecture`` (``by_architecture``'s,
        else this one)."""
        return dict(self.by_architecture).get(architecture, self)

    def on_decode(self) -> tuple[float, float]:
        """(per call, per sequence) seconds of its decode attention (the prefill's if unset)."""
        return (self.attention_call if self.decode_call is None else self.decode_call,
                self.attention_sequence if self.decode_sequence is None
                else self.decode_sequence)


# The kernels alone: no framework cost (the paper's simulator, and lutcore's before issue 30).
BARE = Framework("bare", "none: the kernels' device time and the GPU spec's launch time")

# Hugging Face transformers, eager PyTorch: its ATen kernels' fixed device time, fitted on
# LLMServingSim's RTX 3090 eager layer operators at 1-16 tokens (llmservingsim_rtx3090.yaml,
# calibration; tools/calibrate_gpu.py): the contiguous ones on the norms and the activation
# (eager_kernel_latency; 8 tiny kernels per RMSNorm, each timed by Kineto), the RoPE's 10
# strided ones on its rows, jointly with their issue cost (eager_rotary); and what its
# attention call adds to the FMHA kernel, on the same set's attention rows
# (eager_attention_call). Its attention is transformers' sdpa, whose
# FP16 causal prefill PyTorch runs on its FlashAttention-2 kernel (``_flash``). No host or
# step timing of it in a calibration set.
HF_EAGER = Framework("hf_eager", "LLMServingSim RTX 3090 (calibration): kernel_latency, "
                     "strided_latency, attention_call", kernel_latency=2.229e-6,
                     strided_latency=2.842e-6, attention_call=1.570e-6,
                     flash=FLASH_ATTENTION_2)

# The flash-attn package called directly (FlashAttention-3's benchmark of FlashAttention-2): the
# kernel alone, no framework cost
FLASH_ATTN = Framework("flash_attn", "none: its FlashAttention-2 kernel alone",
                       flash=FLASH_ATTENTION_2)

# TensorRT-LLM's PyTorch-flow attention op (RoPE + KV-cache append kernel, then its FMHA or
# generation kernel), fitted per architecture on aiconfigurator's attention tables
# (tools/calibrate_gpu.py attention_constants): the FMHA's rate on the long context rows, its
# per-call time and time per round of query tiles on every context row, the generation
# kernel's per-call time, per-sequence time (MHA) and time per wave of its XQA grid (grouped
# query) on the generation rows. Ampere: A100 SXM, TensorRT-LLM
# 1.0 (aiconfigurator_attention_a100_sxm.yaml, calibration); Hopper: H100 SXM, TensorRT-LLM
# 1.2 (aiconfigurator_attention_h100_sxm.yaml, calibration; its sm90 kernels); the tables' rows
# priced on the collector's K-only KV pool (``Deployment.kv_pool``). Host and step
# costs: no calibration set times them (the first-token table of TensorRT-LLM 0.8 is
# validation).
TENSORRT_LLM_HOPPER = Framework("tensorrt_llm", "aiconfigurator H100 SXM attention "
                                "(calibration): attention_*, decode_*",
                                attention_call=8.290e-6, attention_rate=0.6929,
                                attention_tile=3.384e-6, decode_call=5.175e-6,
                                decode_sequence=2.772e-7, decode_wave=4.031e-6)
TENSORRT_LLM = Framework("tensorrt_llm", "aiconfigurator A100 SXM attention (calibration): "
                         "attention_*, decode_*; on Hopper its H100 SXM tables",
                         attention_call=5.817e-6, attention_rate=0.5242,
                         attention_tile=3.972e-6, decode_call=6.790e-6,
                         decode_sequence=4.635e-7, decode_wave=5.340e-6,
                         by_architecture=(("hopper", TENSORRT_LLM_HOPPER),))

# vLLM / sarathi-serve: its kernels are the ones Vidur profiles, whose device constants the GPU
# specs already carry (C2); its scheduler's host time has no calibration set.
VLLM = Framework("vllm", "Vidur (calibration): the GPU specs' kernel constants (C2); host: "
                 "no calibration set")

# llama.cpp (CUDA backend): no public timing of its kernels or host loop in a calibration set.
LLAMA_CPP = Framework("llama_cpp", "no calibration set: the kernels alone")

# TensorRT-LLM 0.8 (its first-token tables, trtllm_first_token.yaml): on Hopper the same
# warp-specialized FMHA kernels as 1.x (``_flash``: the sm90 cubins and the runner's choice),
# launched on 0.8's static grid, not 1.x's dynamic tile scheduler (``fmha_grid``); every
# constant the 1.x records' (no calibration set times 0.8). Ampere: 0.8's sm80 launch, one CTA
# a 64-row query step (grid (steps, heads, batch)), is 1.x's (fused_multihead_attention_v2.h
# @2340c77 and .cpp@029c15c): the A100 record unchanged.
TENSORRT_LLM_0_8 = dataclasses.replace(
    TENSORRT_LLM, name="tensorrt_llm_0.8",
    source=TENSORRT_LLM.source + "; TensorRT-LLM 0.8: on Hopper its static FMHA grid",
    by_architecture=(("hopper", dataclasses.replace(TENSORRT_LLM_HOPPER,
                                                    name="tensorrt_llm_0.8",
                                                    fmha_grid="static")),))

FRAMEWORKS = {f.name: f for f in (BARE, HF_EAGER, FLASH_ATTN, TENSORRT_LLM, TENSORRT_LLM_0_8,
                                  VLLM, LLAMA_CPP)}

# T13 (``_tiles``): a TensorRT-LLM engine built without ``--gemm_plugin`` leaves its GEMMs to
# TensorRT, whose builder picks each tactic at the optimization profile's optimum. The
# context profile's optimum (tensorrt_llm/models/generation_mixin.py of the 0.7-0.8 releases,
# ``prepare_basic_inputs``, ``default_range``: the middle of [1, max]; ``max_num_tokens``
# unset -> min(max_input_len x max_batch_size, 4096))
DEFAULT_MAX_NUM_TOKENS = 4096


def _middle(limit: int) -> int:
    return (limit + 1) // 2  # generation_mixin.default_range's optimum


def engine_profile_rows(*, max_batch_size: int, max_input_len: int,
                        remove_input_padding: bool, max_num_tokens: int | None = None) -> int:
    """Token rows a GEMM of a TensorRT-LLM engine's context profile has at the profile's
    optimum, where TensorRT's builder times its tactics (T13): packed tokens
    (``remove_input_padding``) the middle of [1, max_num_tokens]; padded batches the middle
    batch times the middle input length."""
    for name, value in (("max_batch_size", max_batch_size), ("max_input_len", max_input_len)):
        check.integers(name, value, min=1)
    if not remove_input_padding:
        return _middle(max_batch_size) * _middle(max_input_len)
    if max_num_tokens is None:
        max_num_tokens = min(max_input_len * max_batch_size, DEFAULT_MAX_NUM_TOKENS)
    return _middle(max(max_num_tokens, max_input_len))
