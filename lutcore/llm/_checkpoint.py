"""A LLaMA checkpoint read from GGUF, and its deterministic ``.npz`` cache.

Reading the GGUF (``_gguf``) and rebuilding the tokenizer still take about a second, so
``load_checkpoint`` keeps what the model needs — codes,
scales and zero points of the linear layers, the float tensors, the tokenizer as JSON — in an
``.npz`` named by the SHA-256 of the GGUF file; the cached arrays are the read ones, bit for bit.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pathlib

import numpy as np
from tokenizers import Tokenizer

from ._config import LlamaConfig
from ._gguf import read_gguf_file
from ._tokenizer import bpe_tokenizer
from ._weights import AffineWeights, from_q4_1

# Linear layers of one block, GGUF names (blk.{i}.{name}.weight), each [N, K] (out, in)
LINEARS = ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down")
CACHE_FORMAT = 1  # bump when the cached arrays change meaning


@dataclasses.dataclass(frozen=True, eq=False)
class Checkpoint:
    """Weights of a LLaMA decoder with low-bit linear layers.

    embedding: [V, D] float32 (also the output head when ``output`` is None, i.e. tied);
    output: [V, D] float32 or None; output_norm: [D]; attn_norm, ffn_norm: [L, D] float32;
    linears: GGUF name -> AffineWeights stacked over layers, codes [L, N, K];
    tokenizer_json: the tokenizer, serialized by ``tokenizers``.
    """

    config: LlamaConfig
    embedding: np.ndarray
    output: np.ndarray | None
    output_norm: np.ndarray
    attn_norm: np.ndarray
    ffn_norm: np.ndarray
    linears: dict[str, AffineWeights]
    tokenizer_json: str

    @property
    def head(self) -> np.ndarray:
        """[V, D] output projection (the embedding when tied)."""
        return self.embedding if self.output is None else self.output

    @property
    def w_bits(self) -> int:
        return self.linears[LINEARS[0]].w_bits

    def tokenizer(self) -> Tokenizer:
        return Tokenizer.from_str(self.tokenizer_json)

    def with_linears(self, linears: dict[str, AffineWeights]) -> Checkpoint:
        """The same model with other (e.g. re-quantized) linear layers."""
        return dataclasses.replace(self, linears=linears)


def _field(metadata: dict, key: str, default=None):
    if key not in metadata:
        if default is None:
            raise KeyError(f"GGUF metadata has no {key}")
        return default
    return metadata[key]


def read_gguf(path: str | os.PathLike) -> Checkpoint:
    """Read a ``llama`` GGUF file: Q4_1 linear layers (as codes), any other tensor dequantized."""
    from gguf import GGMLQuantizationType
    from gguf.quants import dequantize

    gguf_file = read_gguf_file(path)
    metadata, tensors = gguf_file.metadata, gguf_file.tensors
    arch = _field(metadata, "general.architecture")
    if arch != "llama":
        raise ValueError(f"{path}: general.architecture {arch!r} unsupported; allowed values: "
                         "llama")
    config = LlamaConfig(
        vocab_size=len(_field(metadata, "tokenizer.ggml.tokens")),
        dim=_field(metadata, "llama.embedding_length"),
        n_layers=_field(metadata, "llama.block_count"),
        n_heads=_field(metadata, "llama.attention.head_count"),
        n_kv_heads=_field(metadata, "llama.attention.head_count_kv"),
        ffn_dim=_field(metadata, "llama.feed_forward_length"),
        rope_theta=float(_field(metadata, "llama.rope.freq_base", 10000.0)),
        norm_eps=float(_field(metadata, "llama.attention.layer_norm_rms_epsilon")))

    def dense(name):
        t = tensors[name]
        return np.asarray(dequantize(t.data, GGMLQuantizationType(t.type)),
                          np.float32).reshape(t.shape)

    def linear(name):
        t = tensors[name]
        if t.type != GGMLQuantizationType.Q4_1:
            raise ValueError(f"{path}: {name} is {GGMLQuantizationType(t.type).name}; linear "
                             "layers must be Q4_1 (the codes the LUT path looks up)")
        return from_q4_1(t.data)

    layers = range(config.n_layers)
    linears = {}
    for name in LINEARS:
        per_layer = [linear(f"blk.{i}.{name}.weight") for i in layers]
        linears[name] = AffineWeights(*(np.stack([getattr(w, f) for w in per_layer])
                                        for f in ("codes", "scale", "zero")), 4)
    tokenizer = bpe_tokenizer(_field(metadata, "tokenizer.ggml.tokens"),
                              _field(metadata, "tokenizer.ggml.merges"),
                              _field(metadata, "tokenizer.ggml.token_type"),
                              model=_field(metadata, "tokenizer.ggml.model"),
                              pre=_field(metadata, "tokenizer.ggml.pre", "gpt2"))
    return Checkpoint(
        config=config,
        embedding=dense("token_embd.weight"),
        output=dense("output.weight") if "output.weight" in tensors else None,
        output_norm=dense("output_norm.weight"),
        attn_norm=np.stack([dense(f"blk.{i}.attn_norm.weight") for i in layers]),
        ffn_norm=np.stack([dense(f"blk.{i}.ffn_norm.weight") for i in layers]),
        linears=linears,
        tokenizer_json=tokenizer.to_str())


def file_digest(path: str | os.PathLike) -> str:
    """SHA-256 (hex) of a file's content."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            digest.update(chunk)
    return digest.hexdigest()


def save_checkpoint(checkpoint: Checkpoint, path: str | os.PathLike) -> None:
    """Write ``checkpoint`` to an ``.npz`` (uncompressed), atomically."""
    arrays = {"embedding": checkpoint.embedding, "output_norm": checkpoint.output_norm,
              "attn_norm": checkpoint.attn_norm, "ffn_norm": checkpoint.ffn_norm}
    if checkpoint.output is not None:
        arrays["output"] = checkpoint.output
    for name, w in checkpoint.linears.items():
        arrays.update({f"{name}.codes": w.codes, f"{name}.scale": w.scale,
                       f"{name}.zero": w.zero, f"{name}.w_bits": np.asarray(w.w_bits)})
    meta = {"format": CACHE_FORMAT, "config": dataclasses.asdict(checkpoint.config)}
    arrays["meta"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), np.uint8)
    arrays["tokenizer"] = np.frombuffer(checkpoint.tokenizer_json.encode(), np.uint8)
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_npz(path: str | os.PathLike) -> Checkpoint:
    """The checkpoint ``save_checkpoint`` wrote."""
    with np.load(path) as z:
        meta = json.loads(z["meta"].tobytes())
        if meta["format"] != CACHE_FORMAT:
            raise ValueError(f"{path}: cache format {meta['format']}, expected {CACHE_FORMAT}")
        linears = {name: AffineWeights(z[f"{name}.codes"], z[f"{name}.scale"],
                                       z[f"{name}.zero"], int(z[f"{name}.w_bits"]))
                   for name in LINEARS}
        return Checkpoint(config=LlamaConfig(**meta["config"]), embedding=z["embedding"],
                          output=z["output"] if "output" in z else None,
                          output_norm=z["output_norm"], attn_norm=z["attn_norm"],
                          ffn_norm=z["ffn_norm"], linears=linears,
                          tokenizer_json=z["tokenizer"].tobytes().decode())


def load_checkpoint(path: str | os.PathLike, cache_dir: str | os.PathLike | None = None
                    ) -> Checkpoint:
    """``read_gguf(path)``, through ``cache_dir/<stem>-<sha256[:16]>.npz`` when a cache is given:
    read from there if present, written there otherwise."""
    if cache_dir is None:
        return read_gguf(path)
    path = pathlib.Path(path)
    cached = pathlib.Path(cache_dir) / f"{path.stem}-{file_digest(path)[:16]}.npz"
    if cached.exists():
        return read_npz(cached)
    checkpoint = read_gguf(path)
    save_checkpoint(checkpoint, cached)
    return checkpoint
