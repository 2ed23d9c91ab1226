"""What a serving framework adds to its kernels' device time (issue 30, item 3): a
``Framework`` record per framework, each constant with its calibration source (constants
fitted by ``tools/calibrate_gpu.py`` on ``role: calibration`` sets only).

- ``kernel_latency``: device seconds of one of its element-wise / reduction kernels (the
  fixed part of a memory-bound kernel; ``None``: the GPU spec's, fitted on Vidur's
  sarathi-serve kernels, C2 of ``_specs``);
- ``launch_overhead`` / ``step_overhead``: host seconds per kernel launch and per forward pass
  (``None`` / 0: the GPU spec's launch time, no step time);
- ``attention_call``, ``attention_sequence``, ``attention_rate``: its attention operator
  beyond one FlashAttention-like kernel: device seconds per call (its pre-processing kernels:
  RoPE, KV-cache append) and per sequence (per-sequence work of its kernels: block tables,
  the new token's RoPE and append), and the fraction of the FP16 GEMM tile model's rate its
  attention kernel reaches on compute-bound prefills; ``decode_call``, ``decode_sequence``: the
  per-call and per-sequence times of its decode attention (one new token a sequence: another
  kernel, e.g. TensorRT-LLM's generation kernel against its context FMHA); ``None``: the
  prefill's.

The frameworks' kernels and fusions are ``Deployment`` fields; ``_operators.DEPLOYMENTS``
holds the preset deployments built on these records.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Framework:
    """A serving framework's costs beyond its kernels (module doc); ``source``: where each
    constant comes from."""

    name: str
    source: str
    kernel_latency: float | None = None
    launch_overhead: float | None = None
    step_overhead: float = 0.0
    attention_call: float = 0.0
    attention_sequence: float = 0.0
    attention_rate: float = 1.0
    decode_call: float | None = None
    decode_sequence: float | None = None

    def __post_init__(self):
        for field in ("kernel_latency", "launch_overhead", "step_overhead", "attention_call",
                      "attention_sequence", "decode_call", "decode_sequence"):
            value = getattr(self, field)
            if value is not None and value < 0:
                raise ValueError(f"framework {self.name}: {field} must be >= 0, got {value!r}")
        if not 0 < self.attention_rate <= 1:
            raise ValueError(f"framework {self.name}: attention_rate must be in (0, 1], got "
                             f"{self.attention_rate!r}")

    def on_decode(self) -> tuple[float, float]:
        """(per call, per sequence) seconds of its decode attention (the prefill's if unset)."""
        return (self.attention_call if self.decode_call is None else self.decode_call,
                self.attention_sequence if self.decode_sequence is None
                else self.decode_sequence)


# The kernels alone: no framework cost (the paper's simulator, and lutcore's before issue 30).
BARE = Framework("bare", "none: the kernels' device time and the GPU spec's launch time")

# Hugging Face transformers, eager PyTorch: its ATen kernels' fixed device time, fitted on
# LLMServingSim's RTX 3090 eager layer operators at 1-16 tokens (llmservingsim_rtx3090.yaml,
# calibration; tools/calibrate_gpu.py eager_kernel_latency): 8-10 tiny kernels per RMSNorm
# or RoPE, each timed by Kineto; and what its attention call adds to the FMHA kernel, on the
# same set's attention rows (eager_attention_call). No host or step timing of it in a
# calibration set.
HF_EAGER = Framework("hf_eager", "LLMServingSim RTX 3090 (calibration): kernel_latency, "
                     "attention_call", kernel_latency=2.385e-6, attention_call=1.531e-6)

# TensorRT-LLM's PyTorch-flow attention op (RoPE + KV-cache append kernel, then its FMHA or
# generation kernel), fitted on aiconfigurator's A100 SXM attention tables
# (aiconfigurator_attention_a100_sxm.yaml, calibration; tools/calibrate_gpu.py
# attention_constants): the rate on its long context rows, the per-call and per-sequence
# times on its context rows (FMHA) and on its generation rows (generation kernel) apart.
# Host and step costs: no calibration set times them (the first-token table of TensorRT-LLM
# 0.8 is validation).
TENSORRT_LLM = Framework("tensorrt_llm", "aiconfigurator A100 SXM attention (calibration): "
                         "attention_call, attention_sequence, attention_rate, decode_call, "
                         "decode_sequence",
                         attention_call=9.460e-6, attention_sequence=1.143e-6,
                         attention_rate=0.8521, decode_call=6.383e-6,
                         decode_sequence=3.137e-7)

# vLLM / sarathi-serve: its kernels are the ones Vidur profiles, whose device constants the GPU
# specs already carry (C2); its scheduler's host time has no calibration set.
VLLM = Framework("vllm", "Vidur (calibration): the GPU specs' kernel constants (C2); host: "
                 "no calibration set")

# llama.cpp (CUDA backend): no public timing of its kernels or host loop in a calibration set.
LLAMA_CPP = Framework("llama_cpp", "no calibration set: the kernels alone")

FRAMEWORKS = {f.name: f for f in (BARE, HF_EAGER, TENSORRT_LLM, VLLM, LLAMA_CPP)}
