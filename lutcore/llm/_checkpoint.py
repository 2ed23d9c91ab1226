"""A LLaMA checkpoint read from GGUF, and its deterministic ``.npz`` cache.

Reading the GGUF (``_gguf``) and rebuilding the tokenizer take about 1.8 s, reading and checking
the cache about 0.7 s, so ``load_checkpoint`` keeps what the model needs — codes, scales and zero
points of the linear layers, the float tensors, the tokenizer as JSON — in an ``.npz``; the
cached arrays are the read ones, bit for bit. Its name carries a key over the GGUF file's content
and the code that reads it (``reader_digest``), and its content carries a SHA-256 checked on
every read, so an entry written by other code, or altered since, is never used: it is rebuilt.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import pathlib
import re
import zipfile

import numpy as np
from tokenizers import Tokenizer

from .. import _provenance
from ._config import LlamaConfig
from ._gguf import read_gguf_file
from ._tokenizer import bpe_tokenizer
from ._weights import AffineWeights, from_q4_1

# Linear layers of one block, GGUF names (blk.{i}.{name}.weight), each [N, K] (out, in)
LINEARS = ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down")
# What turns a GGUF file into a Checkpoint: this module, every lutcore module it imports (read
# from the source, lutcore._provenance) and these libraries (gguf dequantizes, tokenizers
# serializes, numpy writes the .npz)
READER_LIBRARIES = ("gguf", "numpy", "tokenizers")
_log = logging.getLogger(__name__)


def linear_shape(config: LlamaConfig, name: str) -> tuple[int, int]:
    """[N, K] (out, in) of one block's linear layer ``name`` (GGUF's layout)."""
    d, f, kv = config.dim, config.ffn_dim, config.kv_dim
    return {"attn_q": (d, d), "attn_k": (kv, d), "attn_v": (kv, d), "attn_output": (d, d),
            "ffn_gate": (f, d), "ffn_up": (f, d), "ffn_down": (d, f)}[name]


def _check_array(name: str, array: np.ndarray, shape: tuple, dtype) -> None:
    if array.shape != shape or array.dtype != dtype:
        raise ValueError(f"Checkpoint.{name}: expected {np.dtype(dtype)} {list(shape)}, got "
                         f"{array.dtype} {list(array.shape)}")


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

    def __post_init__(self):
        """Every array of the shape and type the config implies (a cache entry is one too)."""
        c = self.config
        layers, vocab, dim = c.n_layers, c.vocab_size, c.dim
        floats = {"embedding": (vocab, dim), "output_norm": (dim,), "attn_norm": (layers, dim),
                  "ffn_norm": (layers, dim)} | ({} if self.output is None
                                                else {"output": (vocab, dim)})
        for name, shape in floats.items():
            _check_array(name, getattr(self, name), shape, np.float32)
        if set(self.linears) != set(LINEARS):
            raise ValueError(f"Checkpoint.linears: {sorted(self.linears)}; expected "
                             f"{', '.join(LINEARS)}")
        for name, w in self.linears.items():
            n, k = linear_shape(c, name)
            groups = w.scale.shape[-1] if w.scale.ndim else 0
            if not groups or k % groups:
                raise ValueError(f"Checkpoint.{name}: {groups} groups do not divide K = {k}")
            _check_array(f"{name}.codes", w.codes, (layers, n, k), np.uint8)
            _check_array(f"{name}.scale", w.scale, (layers, n, groups), np.float64)
            _check_array(f"{name}.zero", w.zero, (layers, n, groups), np.float64)

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


def reader_digest() -> str:
    """SHA-256 of the code that makes a Checkpoint from a GGUF file: the source of this module
    and of every lutcore module it imports, directly or not, and the versions of
    READER_LIBRARIES (one digest with the synthesis cache's, ``lutcore._provenance``)."""
    return _provenance.digest(_provenance.closure([pathlib.Path(__file__)]), READER_LIBRARIES)


def _content_digest(arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 over each array's name, type, shape and bytes, in name order."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}\0{array.dtype.str}\0{array.shape}\0".encode())
        digest.update(array.reshape(-1).view(np.uint8))
    return digest.hexdigest()


def save_checkpoint(checkpoint: Checkpoint, path: str | os.PathLike, key: str = "") -> None:
    """Write ``checkpoint`` to an ``.npz`` (uncompressed), atomically, with the SHA-256 of its
    content and ``key`` (what ``load_checkpoint`` names it by)."""
    arrays = {"embedding": checkpoint.embedding, "output_norm": checkpoint.output_norm,
              "attn_norm": checkpoint.attn_norm, "ffn_norm": checkpoint.ffn_norm}
    if checkpoint.output is not None:
        arrays["output"] = checkpoint.output
    for name, w in checkpoint.linears.items():
        arrays.update({f"{name}.codes": w.codes, f"{name}.scale": w.scale,
                       f"{name}.zero": w.zero, f"{name}.w_bits": np.asarray(w.w_bits)})
    config = json.dumps(dataclasses.asdict(checkpoint.config), sort_keys=True)
    arrays["config"] = np.frombuffer(config.encode(), np.uint8)
    arrays["tokenizer"] = np.frombuffer(checkpoint.tokenizer_json.encode(), np.uint8)
    meta = {"key": key, "sha256": _content_digest(arrays)}
    arrays["meta"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), np.uint8)
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_npz(path: str | os.PathLike, key: str | None = None) -> Checkpoint:
    """The checkpoint ``save_checkpoint`` wrote (under ``key``, when given); ``ValueError``
    naming the file when it is not such an entry, altered or for another key."""
    try:
        with np.load(path) as z:
            arrays = {name: z[name] for name in z.files}
        meta = json.loads(arrays.pop("meta").tobytes())
        if key is not None and meta["key"] != key:
            raise ValueError(f"written for key {meta['key'][:16]}, not {key[:16]}")
        if meta["sha256"] != _content_digest(arrays):
            raise ValueError("its content differs from the SHA-256 it was written with")
        linears = {name: AffineWeights(arrays[f"{name}.codes"], arrays[f"{name}.scale"],
                                       arrays[f"{name}.zero"], int(arrays[f"{name}.w_bits"]))
                   for name in LINEARS}
        return Checkpoint(config=LlamaConfig(**json.loads(arrays["config"].tobytes())),
                          embedding=arrays["embedding"], output=arrays.get("output"),
                          output_norm=arrays["output_norm"], attn_norm=arrays["attn_norm"],
                          ffn_norm=arrays["ffn_norm"], linears=linears,
                          tokenizer_json=arrays["tokenizer"].tobytes().decode())
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile) as err:
        raise ValueError(f"{path} is not a checkpoint cache entry that this code wrote ({err});"
                         " it is a cache: delete it") from err


def load_checkpoint(path: str | os.PathLike, cache_dir: str | os.PathLike | None = None
                    ) -> Checkpoint:
    """``read_gguf(path)``, through ``cache_dir/<stem>-<key[:16]>.npz`` when a cache is given,
    the key covering the GGUF file's content and ``reader_digest()``: read from there if it
    holds a sound entry, else (re)written there, replacing the entries of other keys. A cache
    that cannot be written is gone without (one warning)."""
    if cache_dir is None:
        return read_gguf(path)
    path, cache_dir = pathlib.Path(path), pathlib.Path(cache_dir)
    key = hashlib.sha256(f"{file_digest(path)}\0{reader_digest()}".encode()).hexdigest()
    cached = cache_dir / f"{path.stem}-{key[:16]}.npz"
    if cached.exists():
        try:
            return read_npz(cached, key)
        except ValueError as err:
            _log.warning("lutcore.llm: %s; rebuilding it", err)
    checkpoint = read_gguf(path)
    try:
        save_checkpoint(checkpoint, cached, key)
    except OSError as err:
        _log.warning("lutcore.llm: cannot write the cache %s (%s); going on without it",
                     cached, err)
        return checkpoint
    entry = re.compile(rf"{re.escape(path.stem)}-[0-9a-f]{{16}}\.npz")
    for other in cache_dir.iterdir():
        if other != cached and entry.fullmatch(other.name):
            other.unlink(missing_ok=True)
            _log.warning("lutcore.llm: removed %s, written by other code or from another "
                         "file", other)
    return checkpoint
