"""The building blocks of ``lutcore.llm``: the GGUF reader's records, the decoder's layers
(attention, RMS norm, rotary embedding), the affine weight codes and the checkpoint digest.
"""

from lutcore import _face

from ._checkpoint import LINEARS, file_digest, linear_shape, reader_digest
from ._config import ROPE_LAYOUTS
from ._data import KJV, SMOLLM2
from ._gguf import GgufFile, RawTensor, read_gguf_file
from ._model import LUT_K, attention, rms_norm, rotary
from ._weights import AffineWeights, concat_columns, from_q4_1

__all__ = _face.public(globals())
