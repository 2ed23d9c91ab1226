"""Decoder-only LLM shapes from their public configurations, and the GEMMs of one layer."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from lutcore import _checks as check


@dataclasses.dataclass(frozen=True)
class LLMShape:
    """One model: hidden width, FFN width, attention heads and KV heads (GQA), decoder layers,
    vocabulary; ``gated``: SwiGLU FFN (up and gate projections); ``rotary``: rotary position
    embedding (else learned/ALiBi, no per-layer element-wise op); ``parallel``: attention and
    FFN read the same input and their outputs are summed (GPT-J, Falcon: "parallel
    attention"), so a tensor-parallel layer all-reduces once, not twice."""

    name: str
    hidden: int
    ffn: int
    heads: int
    kv_heads: int
    layers: int
    vocab: int
    gated: bool
    rotary: bool
    parallel: bool = False

    def __post_init__(self):
        if self.hidden % self.heads or self.heads % self.kv_heads:
            raise ValueError(f"{self.name}: hidden {self.hidden} / heads {self.heads} / "
                             f"kv_heads {self.kv_heads} do not divide")

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


LLMS = {m.name: m for m in (
    # Zhang et al., "OPT: Open Pre-trained Transformer Language Models", 2022, Table 1 (175B
    # row: 96 layers, 96 heads, d_model 12288; FFN 4 x d_model); vocab: facebook/opt config 50272.
    LLMShape("opt-175b", 12288, 49152, 96, 96, 96, 50272, gated=False, rotary=False),
    # bigscience/bloom config.json: hidden_size 14336, n_layer 70, n_head 112, vocab 250880;
    # FFN 4 x hidden, GELU; ALiBi positions (Le Scao et al. 2023, Table 3).
    LLMShape("bloom-176b", 14336, 57344, 112, 112, 70, 250880, gated=False, rotary=False),
    # meta-llama/Llama-2-{7b,13b,70b}-hf config.json (Touvron et al. 2023, Table 1 for GQA on 70B).
    LLMShape("llama2-7b", 4096, 11008, 32, 32, 32, 32000, gated=True, rotary=True),
    LLMShape("llama2-13b", 5120, 13824, 40, 40, 40, 32000, gated=True, rotary=True),
    LLMShape("llama2-70b", 8192, 28672, 64, 8, 80, 32000, gated=True, rotary=True),
    # openlm-research/open_llama_3b config.json (the paper's "LLAMA 3B", Table 1).
    LLMShape("llama-3b", 3200, 8640, 32, 32, 26, 32000, gated=True, rotary=True),
    # 1bitLLM/bitnet_b1_58-3B config.json (BitNet b1.58 reproduction, LLaMA architecture).
    LLMShape("bitnet-b1.58-3b", 3200, 8640, 32, 32, 26, 32002, gated=True, rotary=True),
)}


def llm_shape(name: str | LLMShape) -> LLMShape:
    """The registered model ``name`` (``LLMS``; an ``LLMShape`` as it is), or ValueError
    listing the allowed names."""
    return check.named(LLMS, name, what="LLM", record=LLMShape)


class Gemm(NamedTuple):
    """One projection: C[m, n] = A[m, k] W[n, k]^T (m token rows, n outputs, k inputs)."""

    name: str
    m: int
    n: int
    k: int


def layer_gemms(model: LLMShape, tokens: int) -> tuple[Gemm, ...]:
    """The weight GEMMs of one decoder layer for ``tokens`` rows (batch x new tokens), in
    execution order: fused QKV, output projection, FFN up (fused with gate when gated), FFN
    down; then the LM head (vocab x hidden) of the same rows."""
    qkv = (model.heads + 2 * model.kv_heads) * model.head_dim
    up = model.ffn * (2 if model.gated else 1)
    return (Gemm("qkv", tokens, qkv, model.hidden),
            Gemm("output", tokens, model.hidden, model.heads * model.head_dim),
            Gemm("ffn_up", tokens, up, model.hidden),
            Gemm("ffn_down", tokens, model.hidden, model.ffn),
            Gemm("lm_head", tokens, model.vocab, model.hidden))
