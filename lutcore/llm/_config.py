"""Shape and hyper-parameters of a LLaMA-style decoder."""

from __future__ import annotations

import dataclasses
from typing import Literal

from lutcore import _checks as check

ROPE_LAYOUTS = ("adjacent", "half")


@dataclasses.dataclass(frozen=True)
class LlamaConfig:
    """A LLaMA-architecture decoder (GGUF ``llama.*`` keys).

    dim: residual width D; ffn_dim: SwiGLU hidden width F; n_heads query heads and n_kv_heads
    key/value heads (grouped-query attention) of dim / n_heads each; rope_layout: which
    coordinates rotary embeddings rotate together, "adjacent" pairs (2i, 2i+1) as GGUF stores
    Q and K (llama.cpp permutes the rows at conversion) or "half" (i, i + d/2) as HF does.
    """

    vocab_size: int
    dim: int
    n_layers: int
    n_heads: int
    n_kv_heads: int
    ffn_dim: int
    rope_theta: float = 10000.0
    norm_eps: float = 1e-5
    rope_layout: Literal["adjacent", "half"] = "adjacent"

    def __post_init__(self):
        for name in ("vocab_size", "dim", "n_layers", "n_heads", "n_kv_heads", "ffn_dim"):
            if getattr(self, name) < 1:
                raise ValueError(f"LlamaConfig.{name} must be positive, got {getattr(self, name)}")
        if self.dim % self.n_heads or (self.dim // self.n_heads) % 2:
            raise ValueError(f"dim {self.dim} must split into {self.n_heads} heads of even size")
        if self.n_heads % self.n_kv_heads:
            raise ValueError(f"n_heads {self.n_heads} must be a multiple of n_kv_heads "
                             f"{self.n_kv_heads}")
        check.one_of("rope_layout", self.rope_layout, ROPE_LAYOUTS)

    @property
    def head_dim(self) -> int:
        return self.dim // self.n_heads

    @property
    def kv_dim(self) -> int:
        return self.n_kv_heads * self.head_dim
