"""Number formats and bit-exact fused arithmetic over raw bit patterns (MiniFloat-NN, FPnew)."""

from ._formats import (FORMATS, ROUNDING_MODES, FPFormat, Unpacked, as_format, convert, decode,
                       from_float64, round_to_format, to_float64)
from ._fused import (EXPANDING_PAIRS, VSUM_FORMATS, exfma, exfma_cascade, exsdotp, exvsum,
                     vsum)

__all__ = [
    "FORMATS", "ROUNDING_MODES", "FPFormat", "Unpacked", "as_format", "convert", "decode",
    "from_float64", "round_to_format", "to_float64",
    "EXPANDING_PAIRS", "VSUM_FORMATS", "exfma", "exfma_cascade", "exsdotp", "exvsum", "vsum",
]
