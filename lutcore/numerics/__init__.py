"""Number formats and bit-exact fused arithmetic over raw bit patterns (MiniFloat-NN, FPnew)."""

from lutcore import _face

from . import blocks
from ._accumulate import accumulate_dot
from ._format import TABLE, Format, FormatSet, format_named
from ._formats import (
    FORMATS,
    ROUNDING_MODES,
    as_format,
    convert,
    decode,
    from_float64,
    round_float,
    to_float64,
)
from ._fused import (
    EXPANDING_PAIRS,
    MODELS,
    VSUM_FORMATS,
    exfma,
    exfma_cascade,
    exsdotp,
    exvsum,
    vsum,
)

__all__ = _face.public(globals())
__getattr__ = _face.forward(__name__, blocks)  # the names it showed before
