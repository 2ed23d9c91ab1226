"""The model's byte-level BPE rebuilt with ``tokenizers`` from GGUF's ``tokenizer.ggml.*`` keys."""

from __future__ import annotations

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers

CONTROL = 3  # tokenizer.ggml.token_type of control tokens (llama.cpp's LLAMA_TOKEN_TYPE_CONTROL)
# llama.cpp's pre-tokenizers (tokenizer.ggml.pre) rebuilt here: GPT-2's regex, and "smollm",
# which first splits every digit on its own (llama-vocab.cpp, LLAMA_VOCAB_PRE_TYPE_SMOLLM).
PRE_TOKENIZERS = ("gpt2", "default", "smollm")


def bpe_tokenizer(tokens: list[str], merges: list[str], token_types: list[int], *,
                  model: str = "gpt2", pre: str = "gpt2") -> Tokenizer:
    """A byte-level BPE tokenizer from GGUF metadata.

    tokens: [V] token strings (id = position, in GPT-2's byte-to-unicode alphabet); merges:
    "left right" pairs in priority order; token_types: [V] (3 = control, kept whole as special
    tokens). No BOS or EOS is added: SmolLM2's GGUF sets add_bos_token false.
    """
    if model != "gpt2":
        raise ValueError(f"tokenizer.ggml.model {model!r} unsupported; allowed values: gpt2")
    if pre not in PRE_TOKENIZERS:
        raise ValueError(f"tokenizer.ggml.pre {pre!r} unsupported; allowed values: "
                         f"{', '.join(PRE_TOKENIZERS)}")
    vocab = {token: i for i, token in enumerate(tokens)}
    pairs = [tuple(merge.split(" ", 1)) for merge in merges]
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=pairs, fuse_unk=False))
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    if pre == "smollm":
        digits = pre_tokenizers.Split(Regex(r"\p{N}"), behavior="isolated")
        tokenizer.pre_tokenizer = pre_tokenizers.Sequence([digits, byte_level])
    else:
        tokenizer.pre_tokenizer = byte_level
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.add_special_tokens([AddedToken(t, special=True, normalized=False)
                                  for t, kind in zip(tokens, token_types) if kind == CONTROL])
    return tokenizer
